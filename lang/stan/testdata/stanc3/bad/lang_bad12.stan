generated quantities {
  beta = 1;
}
