functions {
  void first_lp(vector v) {
    for (i in 1:rows(v)) {
      if (v[i] > 0) return;
      target += v[i];
    }
  }
}
parameters { vector[2] v; }
model {
  first_lp(v);
}
