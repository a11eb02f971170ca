parameters {
  real<multiplier=0> mu;
}
model {
  mu ~ normal(1, 2);
}
