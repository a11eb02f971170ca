data {
  int N;
  vector[N] v;
  row_vector[N] r;
}
parameters {
  real mu;
}
model {
  real x = r * r;
  mu ~ normal(0, 1);
}
