data {
  vector[3] y;
}
parameters {
  real mu;
}
model {
  y ~ normal(mu, 1) T[0, ];
}
