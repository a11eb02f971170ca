functions {
  real twice(data real x) {
    return 2 * x;
  }
}
parameters {
  real y;
}
model {
  y ~ normal(twice(y), 1);
}
