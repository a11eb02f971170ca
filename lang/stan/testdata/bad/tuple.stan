transformed data {
  tuple(real, int) x = (1.5, 2);
}
parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
}
