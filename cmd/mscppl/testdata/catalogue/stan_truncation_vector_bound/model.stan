transformed data {
  vector[2] lo = [0, 1]';
}
parameters {
  real mu;
}
model {
  mu ~ normal(0, 1) T[lo, ];
}
