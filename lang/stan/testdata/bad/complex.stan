transformed data {
  complex z = 3 + 2i;
}
parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
}
