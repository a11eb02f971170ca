functions {
  real foo(real x) {
    return exponential_rng(x);
  }
}
model {
}
