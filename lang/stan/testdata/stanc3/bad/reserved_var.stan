data {
  real var;
}
model {
}
