functions {
  void f_lp(real x) { x = 2; target += x; }
}
parameters { real mu; }
model {
  f_lp(mu);
}
