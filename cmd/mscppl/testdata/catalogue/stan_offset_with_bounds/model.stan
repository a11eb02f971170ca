parameters {
  real<lower=0, multiplier=2> mu;
}
model {
  mu ~ normal(1, 2);
}
