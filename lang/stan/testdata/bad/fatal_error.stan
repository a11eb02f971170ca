parameters {
  real mu;
}
model {
  if (mu > 10) fatal_error("mu = ", mu);
  mu ~ normal(0, 1);
}
