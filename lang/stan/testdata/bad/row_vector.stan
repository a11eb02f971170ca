data {
  int N;
  row_vector[N] x;
}
parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
}
