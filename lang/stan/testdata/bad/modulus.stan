data {
  int N;
}
transformed data {
  int odd = N % 2;
}
parameters {
  real mu;
}
model {
  mu ~ normal(odd, 1);
}
