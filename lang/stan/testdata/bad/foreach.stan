data {
  int N;
  array[N] real y;
}
parameters {
  real mu;
}
model {
  for (yn in y) {
    yn ~ normal(mu, 1);
  }
}
