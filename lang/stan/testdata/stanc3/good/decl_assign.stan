parameters {
  vector[10] xx_param;
}