parameters {
  real y;
}
generated quantities {
  int n;
  n = 2;
}
model {
}
