parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
  1 ~ poisson(exp(mu)) T[0.5, ];
}
