data {
  int<lower=0> N;
  real y[N];
}
parameters {
  real mu;
}
model {
  y ~ normal(mu, 1);
}
