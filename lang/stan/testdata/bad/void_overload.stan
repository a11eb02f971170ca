functions {
  real twice(real x) { return 2 * x; }
  void twice(int n) { print(n); }
}
parameters { real mu; }
model {
  twice(3);
  mu ~ normal(twice(1.5), 1);
}
