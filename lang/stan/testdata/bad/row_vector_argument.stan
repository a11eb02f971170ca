functions {
  real f(row_vector r, vector v) {
    return r * v;
  }
  row_vector g(row_vector r) {
    return 2 * r;
  }
}
parameters { vector[2] mu; }
model {
  row_vector[2] r = [1, 2];
  target += f(g(r), mu) + f(mu, mu);
  mu ~ normal(0, 1);
}
