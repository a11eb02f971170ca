// Stan's rules on the functions block, which the IR (inlining each
// function where it is called) would not enforce
functions {
  real twice(real x);
  real twice(data real x) {
    return 2 * x;
  }
  real never(real x);
  real set(real x) {
    x = 5;
    return x;
  }
  vector bump_lpdf(vector x) {
    return exp(x);
  }
  real count_lpmf(real n) {
    return -n;
  }
  real reduce_sum(real x) {
    return x;
  }
  real one() {
    return {1};
  }
}
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
