functions {
  real f(real x);
  real f(data real x) {
    return 2 * x;
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
