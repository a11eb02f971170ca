functions {
  real gen(real f) {
    return 1;
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
generated quantities {
  real gen;
  gen = gen(1);
}
