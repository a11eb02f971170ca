data {
  int n;
  vector[3] y;
}
parameters {
  real mu;
}
model {
  n ~ poisson_log(mu) T[0, ];
  y ~ normal(mu, 1) T[0, ];
  n ~ poisson(exp(mu)) T[0.5, ];
  mu ~ normal(0, 1) T[y, ];
}
