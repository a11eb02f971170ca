data {
  int N;
}
parameters {
  real mu;
}
model {
  int n = 0;
  while (n < N) {
    n += 1;
  }
  mu ~ normal(0, 1);
}
