data {
  int n;
}
parameters {
  real mu;
}
model {
  n ~ poisson_log(mu) T[0, ];
}
