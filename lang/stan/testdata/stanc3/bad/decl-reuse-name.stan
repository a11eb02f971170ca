parameters {
  real x, y, x;
}
