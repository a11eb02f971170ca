functions {
  void f_lp(real x) { target += x; return x; }
}
parameters { real mu; }
model {
  f_lp(mu);
}
