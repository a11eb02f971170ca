// Command biglogistic simulates the large-data logistic regression of
// examples/logistic_large.msc and writes it as CmdStan JSON (N, K, X, y):
//
//	go run ./examples/tools/biglogistic -n 100000 -k 10 > /tmp/logistic_100k.json
//	mscppl run examples/logistic_large.msc /tmp/logistic_100k.json
//
// The predictors are independent standard normals, the intercept is -0.5
// and the k-th coefficient is (-1)^k * 0.5 / sqrt(k+1), so that the linear
// predictor has a standard deviation near 1 and neither class is rare. The
// same -n, -k and -seed give the same file byte for byte. The data are not
// kept in the repository; this generator is.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	n := flag.Int("n", 100000, "rows")
	k := flag.Int("k", 10, "predictors")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *n < 1 || *k < 1 {
		fmt.Fprintln(os.Stderr, "biglogistic: -n and -k must be positive")
		os.Exit(2)
	}
	if err := write(os.Stdout, *n, *k, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "biglogistic:", err)
		os.Exit(1)
	}
}

func write(f *os.File, n, k int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x6c6f67))
	beta := make([]float64, k)
	for j := range beta {
		beta[j] = 0.5 / math.Sqrt(float64(j+1))
		if j%2 == 1 {
			beta[j] = -beta[j]
		}
	}
	const alpha = -0.5
	w := bufio.NewWriterSize(f, 1<<20)
	y := make([]byte, 0, 2*n)
	buf := make([]byte, 0, 32)
	fmt.Fprintf(w, "{\n  \"N\": %d,\n  \"K\": %d,\n  \"X\": [", n, k)
	x := make([]float64, k)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n    [")
		eta := alpha
		for j := range x {
			x[j] = rng.NormFloat64()
			eta += beta[j] * x[j]
			if j > 0 {
				w.WriteString(", ")
			}
			buf = strconv.AppendFloat(buf[:0], x[j], 'g', 8, 64)
			w.Write(buf)
		}
		w.WriteString("]")
		yi := byte('0')
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			yi = '1'
		}
		if i > 0 {
			y = append(y, ',')
		}
		y = append(y, yi)
	}
	w.WriteString("\n  ],\n  \"y\": [")
	w.Write(y)
	w.WriteString("]\n}\n")
	return w.Flush()
}
