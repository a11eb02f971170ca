transformed data {
    int n = 10_000_000_000;
}