functions {
  real foo() {
    if (215)
      return 24;
    return 24;
  }
}