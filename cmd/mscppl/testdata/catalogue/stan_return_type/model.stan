functions {
  real one() {
    return {1};
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
