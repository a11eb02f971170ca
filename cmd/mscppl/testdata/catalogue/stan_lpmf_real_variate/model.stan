functions {
  real count_lpmf(real n) {
    return -n;
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
