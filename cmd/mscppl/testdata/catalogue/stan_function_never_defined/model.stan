functions {
  real f(real x);
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
