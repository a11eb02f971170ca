// Command logisticref computes the reference posterior of examples/logistic.msc
// (diabetes ~ bernoulli_logit(a + b1 * glucose + b2 * mass) on Pima, with
// glucose and mass standardised, divisor N-1, and normal(0, 5) priors) by
// deterministic quadrature, and prints it as a reference CSV (name, mean, sd)
// for examples/tools/refcheck:
//
//	go run ./examples/tools/logisticref examples/data/pima.csv > examples/reference/logistic.csv
//
// It finds the posterior mode by Newton's method, then integrates on a
// regular grid of 81^3 points over the box mode +- 8 Laplace sds in each
// coordinate (the box holds every marginal's mass whatever the correlation;
// the midpoint rule on a smooth, nearly Gaussian density is accurate to many
// digits at a spacing of 0.2 sd).
package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
)

const priorSD = 5

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "logisticref:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: logisticref pima.csv")
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		return err
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	n := len(recs) - 1
	y := make([]float64, n)
	x1 := make([]float64, n)
	x2 := make([]float64, n)
	for i, r := range recs[1:] {
		for _, c := range []struct {
			name string
			dst  []float64
		}{{"diabetes", y}, {"glucose", x1}, {"mass", x2}} {
			j, ok := col[c.name]
			if !ok {
				return fmt.Errorf("no column %q", c.name)
			}
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				return fmt.Errorf("row %d, column %q: %v", i+1, c.name, err)
			}
			c.dst[i] = v
		}
	}
	standardize(x1)
	standardize(x2)

	// logp and its gradient and Hessian at th = (a, b1, b2).
	eval := func(th [3]float64) (lp float64, g [3]float64, h [3][3]float64) {
		for k := range 3 {
			lp -= th[k] * th[k] / (2 * priorSD * priorSD)
			g[k] -= th[k] / (priorSD * priorSD)
			h[k][k] -= 1 / (priorSD * priorSD)
		}
		for i := range n {
			v := [3]float64{1, x1[i], x2[i]}
			eta := th[0] + th[1]*v[1] + th[2]*v[2]
			lp += y[i]*eta - log1pexp(eta)
			p := 1 / (1 + math.Exp(-eta))
			for k := range 3 {
				g[k] += (y[i] - p) * v[k]
				for l := range 3 {
					h[k][l] -= p * (1 - p) * v[k] * v[l]
				}
			}
		}
		return lp, g, h
	}
	var th [3]float64
	for range 50 {
		_, g, h := eval(th)
		step := solve3(h, g)
		for k := range 3 {
			th[k] -= step[k]
		}
	}
	_, _, h := eval(th)
	cov := inv3(h)
	var sd [3]float64
	for k := range 3 {
		sd[k] = math.Sqrt(-cov[k][k])
	}
	lpMode, _, _ := eval(th)
	fmt.Fprintf(os.Stderr, "mode %.6g, Laplace sds %.6g\n", th, sd)

	const m = 81
	const half = 8.0
	var grid [3][m]float64
	for k := range 3 {
		for i := range m {
			grid[k][i] = th[k] + sd[k]*half*(2*float64(i)/float64(m-1)-1)
		}
	}
	var s1, s2 [3]float64
	var z float64
	for i := range m {
		for j := range m {
			for k := range m {
				p := [3]float64{grid[0][i], grid[1][j], grid[2][k]}
				lp := 0.0
				for q := range 3 {
					lp -= p[q] * p[q] / (2 * priorSD * priorSD)
				}
				for r := range n {
					eta := p[0] + p[1]*x1[r] + p[2]*x2[r]
					lp += y[r]*eta - log1pexp(eta)
				}
				wt := math.Exp(lp - lpMode)
				z += wt
				for q := range 3 {
					s1[q] += wt * p[q]
					s2[q] += wt * p[q] * p[q]
				}
			}
		}
	}
	names := []string{"a", "b1", "b2"}
	fmt.Println("name,mean,sd")
	for q := range 3 {
		mean := s1[q] / z
		v := s2[q]/z - mean*mean
		fmt.Printf("%s,%.6g,%.6g\n", names[q], mean, math.Sqrt(v))
	}
	return nil
}

// log1pexp is log(1 + exp(x)) without overflow.
func log1pexp(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// standardize centres x and scales it to sample sd 1 (divisor n-1), as the
// language's `standardized` does.
func standardize(x []float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / float64(len(x)-1))
	for i := range x {
		x[i] = (x[i] - m) / sd
	}
}

func det3(a [3][3]float64) float64 {
	return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) -
		a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) +
		a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
}

// inv3 inverts a 3x3 matrix by cofactors.
func inv3(a [3][3]float64) [3][3]float64 {
	d := det3(a)
	var r [3][3]float64
	for i := range 3 {
		for j := range 3 {
			i1, i2 := (j+1)%3, (j+2)%3
			j1, j2 := (i+1)%3, (i+2)%3
			r[i][j] = (a[i1][j1]*a[i2][j2] - a[i1][j2]*a[i2][j1]) / d
		}
	}
	return r
}

func solve3(a [3][3]float64, b [3]float64) [3]float64 {
	ai := inv3(a)
	var x [3]float64
	for i := range 3 {
		for j := range 3 {
			x[i] += ai[i][j] * b[j]
		}
	}
	return x
}
