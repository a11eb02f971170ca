// Stan's outer product: a vector times a row_vector (declared, a matrix
// row, a transposed vector)
data {
  int N;
  vector[N] v;
  row_vector[N] r;
  matrix[N, N] X;
}
parameters {
  vector[N] mu;
}
model {
  matrix[N, N] M = v * r;
  mu ~ normal(0, 1);
  target += sum(M * mu) + sum((mu * X[2]) * v) + sum(v * mu');
}
