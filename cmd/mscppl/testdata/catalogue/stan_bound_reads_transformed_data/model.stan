transformed data {
  vector[2] m = [2, 5]';
}
parameters {
  vector<lower=m>[2] v;
}
model {
  v ~ normal(0, 10);
}
