data {
  real a = 1.0;
}
parameters {
  real y;
}
model {
  y ~ normal(a, 1);
}
