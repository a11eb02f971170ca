parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
  for (i in 1:3) {
    if (mu > 0) break;
  }
}
