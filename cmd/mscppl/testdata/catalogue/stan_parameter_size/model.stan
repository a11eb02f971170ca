parameters {
  array[3] real x;
  array[size(x)] real z;
}
model {
  x ~ normal(0, 1);
  z ~ normal(0, 1);
}
