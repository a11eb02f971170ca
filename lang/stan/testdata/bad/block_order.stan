model {
  mu ~ normal(0, 1);
}
parameters {
  real mu;
}
