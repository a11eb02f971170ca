functions {
  void f_lp(real x) { target += x; }
}
parameters { real mu; }
model {
  mu ~ normal(0, 1);
}
generated quantities {
  f_lp(mu);
}
