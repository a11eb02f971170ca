parameters {
  real<offset=1, multiplier=2> mu;
}
model {
  mu ~ normal(1, 2);
}
