functions {
  real f(vector v, int n) {
    vector[n] w = v * 2;
    return no_such_function(w);
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
