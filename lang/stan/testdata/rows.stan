// Stan's row_vector: a matrix row times a vector, a row_vector parameter,
// a row_vector times a vector and times a matrix, a transposed vector
data {
  int N;
  int K;
  matrix[N, K] X;
  vector[N] y;
  row_vector[K] w;
}
parameters {
  vector[K] beta;
  row_vector[K] gamma;
}
model {
  beta ~ normal(0, 1);
  gamma ~ normal(w, 2);
  for (n in 1:N) {
    y[n] ~ normal(X[n] * beta + gamma * beta, 1);
  }
  target += -0.5 * (beta' * beta);
  target += sum(gamma * X');
  target += normal_lpdf(to_vector(w .* gamma) | 0, 3);
}
