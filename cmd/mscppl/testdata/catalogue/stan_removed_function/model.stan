parameters {
  real y;
}
model {
  y ~ normal(fabs(-1), 1);
}
