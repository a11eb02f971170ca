functions {
  void add(real x) { target += -x; }
}
parameters { real mu; }
model {
  add(mu);
}
