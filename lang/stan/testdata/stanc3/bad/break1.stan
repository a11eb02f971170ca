// tests correct value passed from transformed data
transformed data {
  int n;
  break;
}
model {
}
