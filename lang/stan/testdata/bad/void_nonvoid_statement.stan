functions {
  real twice(real x) { return 2 * x; }
}
parameters { real mu; }
model {
  twice(mu);
  mu ~ normal(0, 1);
}
