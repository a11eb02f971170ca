functions {
  void check(real x) {
    if (x < 0) reject("x must be positive");
  }
}
parameters { real mu; }
model {
  real y = check(mu);
  mu ~ normal(0, 1);
}
