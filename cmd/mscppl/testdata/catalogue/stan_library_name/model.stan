functions {
  real reduce_sum(real x) {
    return x;
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
