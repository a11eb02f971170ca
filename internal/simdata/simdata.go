// Package simdata writes the simulated data sets of the project's tests
// and benchmarks, so that each is defined once.
package simdata

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// ProbitModel is the probit regression fitted to Probit's data: an
// intercept and one coefficient per covariate column x1, x2, ...
const ProbitModel = "data { y: vector[N]; X: matrix[N, D] from \"x*\" }\nlatent { a: real; w: vector[D] }\nmodel {\n  a ~ normal(0, 1)\n  w ~ normal(0, 1)\n  y ~ bernoulli_probit(a + X * w)\n}\n"

// Probit writes into dir a probit regression of n rows with d - 1 standard
// normal covariates (coefficients 0.3/j, intercept 0.2; seed 7) as
// probit.csv, and ProbitModel as probit.msc, and returns both paths.
func Probit(dir string, n, d int) (model, data string, err error) {
	rng := rand.New(rand.NewPCG(7, 7))
	var sb strings.Builder
	for j := 1; j < d; j++ {
		fmt.Fprintf(&sb, "x%d,", j)
	}
	sb.WriteString("y\n")
	for i := 0; i < n; i++ {
		eta := 0.2
		for j := 1; j < d; j++ {
			x := rng.NormFloat64()
			eta += 0.3 * x / float64(j)
			fmt.Fprintf(&sb, "%.4f,", x)
		}
		y := 0
		if eta+rng.NormFloat64() > 0 {
			y = 1
		}
		fmt.Fprintf(&sb, "%d\n", y)
	}
	data = filepath.Join(dir, "probit.csv")
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		return "", "", err
	}
	model = filepath.Join(dir, "probit.msc")
	if err := os.WriteFile(model, []byte(ProbitModel), 0o644); err != nil {
		return "", "", err
	}
	return model, data, nil
}
