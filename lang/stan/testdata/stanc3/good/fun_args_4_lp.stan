functions { real foo_lp(real x1, real x2, real x3, real x4) { return x1; } } model { }
