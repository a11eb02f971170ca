parameters {
  real mu;
}
model {
  print("mu = ", mu);
  mu ~ normal(0, 1);
}
