package main

import (
	"math/rand/v2"
	"slices"
)

// split is one random train/test partition of the rows 0..n-1.
type split struct {
	Train, Test []int
}

// makeSplits draws k random partitions of n rows with round(frac*n) test
// rows each (at least 1, at most n-1). Split i is drawn from its own
// stream seeded by (seed, i), so a split does not depend on how many splits
// are made, nor on which goroutine fits it.
func makeSplits(n, k int, frac float64, seed uint64) ([]split, error) {
	if !(frac > 0 && frac < 1) {
		return nil, userErrorf("use a fraction such as 0.1", "--test-fraction must be strictly between 0 and 1, got %g", frac)
	}
	if k < 1 {
		return nil, userErrorf("", "--splits must be at least 1, got %d", k)
	}
	ntest := int(frac*float64(n) + 0.5)
	if ntest < 1 {
		ntest = 1
	}
	if ntest > n-1 {
		return nil, userErrorf("", "cannot split %d rows into train and test sets with --test-fraction %g", n, frac)
	}
	out := make([]split, k)
	for i := range out {
		rng := rand.New(rand.NewPCG(seed, 0x5eed511e+uint64(i)))
		perm := rng.Perm(n)
		test := append([]int(nil), perm[:ntest]...)
		train := append([]int(nil), perm[ntest:]...)
		slices.Sort(test)
		slices.Sort(train)
		out[i] = split{Train: train, Test: test}
	}
	return out, nil
}
