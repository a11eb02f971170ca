data {
  int N;
  vector[N] v;
  row_vector[N] r;
}
parameters {
  real mu;
}
model {
  matrix[N, N] M = v * r;
  mu ~ normal(0, 1);
}
