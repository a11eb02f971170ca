parameters {
  real whiley;
}
model {
  whiley ~ normal(0,1);
}
