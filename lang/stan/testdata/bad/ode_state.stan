// Stan's ODE solvers take a right-hand side whose state is a vector
functions {
  array[] real dz_dt(real t, array[] real z) {
    return {z[2], z[1]};
  }
}
data {
  int<lower=1> N;
  array[N] real ts;
}
parameters {
  array[2] real<lower=0> z_init;
}
transformed parameters {
  array[N, 2] real z = ode_bdf_tol(dz_dt, z_init, 0.0, ts, 1e-5, 1e-3, 500);
}
model {
  z_init ~ normal(1, 1);
}
