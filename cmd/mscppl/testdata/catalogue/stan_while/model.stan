parameters {
  real mu;
}
model {
  real s = 0;
  while (s < mu) {
    s += 1;
  }
  mu ~ normal(0, 1);
}
