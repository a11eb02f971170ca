// posteriordb's hmm_drive_0: a Dirichlet prior whose parameter is a
// transposed row of a matrix
data {
  int<lower=1> K;
  matrix<lower=0>[K, K] alpha;
}
parameters {
  array[K] simplex[K] theta;
}
model {
  for (k in 1:K) {
    target += dirichlet_lpdf(theta[k] | alpha[k,  : ]');
  }
}
