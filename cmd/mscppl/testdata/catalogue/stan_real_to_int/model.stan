parameters {
  real y;
}
model {
  array[2] int k;
  k = {1.0, 2.0};
  y ~ normal(0, 1);
}
