// Stan's static rules on data, names and calls
functions {
  real scale(data real x) {
    return 2 * x;
  }
  real gen(real x) {
    return x;
  }
}
data {
  real a = 1.0;
  int offset;
}
parameters {
  array[3] real x;
  array[size(x)] real z;
}
model {
  array[2] int k;
  k = {1.0, 2.0};
  beta = 1;
  x ~ normal(scale(z[1]), fabs(-1));
}
generated quantities {
  real gen;
  gen = gen(1);
}
