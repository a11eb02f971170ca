// Command hmmref computes a reference posterior for posteriordb's hmm_drive
// model (bball_drive_event_1-hmm_drive_1: two states, transition rows
// theta1, theta2 with Dirichlet priors, ordered emission means phi for u
// and lambda for v, known sds tau and rho) on a data file of its shape,
// independently of mscppl's compiler: adaptive random-walk Metropolis
// (Haario et al. 2001) on the unconstrained space (theta's stick-breaking
// logit, phi[1] and log(phi[2] - phi[1]), the same for lambda), with the
// log likelihood by stdlib.HMMMarginal (which its tests check against a
// brute-force sum over paths). It starts at the mode (Nelder-Mead) and
// prints, in posteriordb's reference.csv format, the mean, sd and 5%, 50%
// and 95% quantiles of every parameter, and on stderr each mean's Monte
// Carlo standard error (batch means) and the acceptance rate.
//
//	go run ./examples/tools/hmmref -data examples/posteriordb/bball_drive_event_1-hmm_drive_1/data.json
//	go run ./examples/tools/hmmsim -T 1000 -dir /tmp && go run ./examples/tools/hmmref -data /tmp/hmm_drive_1000.json > examples/reference/hmm_drive_sim1000.csv
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/mscppl/mscppl/stdlib"
)

type data struct {
	K, N     int
	U, V     []float64
	Alpha    [][]float64
	Tau, Rho float64
}

const dim = 6

// target is the log posterior density on the unconstrained space.
type target struct {
	d   *data
	op  stdlib.VecOp
	lo  []float64
	gam []float64
	out []float64
}

func newTarget(d *data) *target {
	return &target{d: d, op: stdlib.NewHMMMarginal(2, d.N), lo: make([]float64, 2*d.N), gam: make([]float64, 4), out: make([]float64, 1)}
}

// params maps x to theta1[1], theta2[1], phi, lambda.
func params(x []float64) (p1, q1 float64, phi, lam [2]float64) {
	p1 = 1 / (1 + math.Exp(-x[0]))
	q1 = 1 / (1 + math.Exp(-x[1]))
	phi = [2]float64{x[2], x[2] + math.Exp(x[3])}
	lam = [2]float64{x[4], x[4] + math.Exp(x[5])}
	return
}

func normalLpdf(y, mu, sd float64) float64 {
	z := (y - mu) / sd
	return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
}

func (t *target) logp(x []float64) float64 {
	d := t.d
	p1, q1, phi, lam := params(x)
	if !(p1 > 0 && p1 < 1 && q1 > 0 && q1 < 1) {
		return math.Inf(-1)
	}
	a := d.Alpha
	lp := (a[0][0]-1)*math.Log(p1) + (a[0][1]-1)*math.Log1p(-p1) + (a[1][0]-1)*math.Log(q1) + (a[1][1]-1)*math.Log1p(-q1)
	lp += math.Log(p1) + math.Log1p(-p1) + math.Log(q1) + math.Log1p(-q1) // stick-breaking Jacobians
	lp += normalLpdf(phi[0], 0, 1) + normalLpdf(phi[1], 3, 1) + normalLpdf(lam[0], 0, 1) + normalLpdf(lam[1], 3, 1)
	lp += x[3] + x[5] // ordered Jacobians
	for k := 0; k < 2; k++ {
		for n := 0; n < d.N; n++ {
			t.lo[k*d.N+n] = normalLpdf(d.U[n], phi[k], d.Tau) + normalLpdf(d.V[n], lam[k], d.Rho)
		}
	}
	t.gam[0], t.gam[1], t.gam[2], t.gam[3] = p1, 1-p1, q1, 1-q1
	// Stan's forward loop starts from the emissions alone: rho = (1, 1)
	t.op.Forward(t.out, [][]float64{t.lo, t.gam, {1, 1}})
	return lp + t.out[0]
}

func main() {
	path := flag.String("data", "", "the data file (hmm_drive's JSON format)")
	chains := flag.Int("chains", 4, "chains (run in parallel)")
	iters := flag.Int("iters", 400000, "iterations per chain after burn-in")
	burn := flag.Int("burn", 50000, "burn-in (adaptation) iterations per chain")
	thin := flag.Int("thin", 20, "keep every thin-th draw")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	b, err := os.ReadFile(*path)
	if err != nil {
		fail(err)
	}
	var d data
	if err := json.Unmarshal(b, &d); err != nil {
		fail(err)
	}
	if d.K != 2 || len(d.U) != d.N || len(d.V) != d.N {
		fail(fmt.Errorf("%s: K must be 2 and u, v of length N", *path))
	}
	mode, cov := findMode(&d)
	draws := make([][][]float64, *chains)
	acc := make([]float64, *chains)
	var wg sync.WaitGroup
	for c := range draws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			draws[c], acc[c] = chain(&d, mode, cov, *burn, *iters, *thin, rand.New(rand.NewPCG(*seed, uint64(c))))
		}()
	}
	wg.Wait()
	report(draws, acc)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hmmref:", err)
	os.Exit(1)
}

// findMode maximises the log density from a start read off the data
// (the means of the lower and upper quartiles of u and v) and returns
// the mode and the inverse of the negative Hessian there.
func findMode(d *data) ([]float64, *mat.SymDense) {
	q := func(x []float64) (lo, hi float64) {
		s := slices.Clone(x)
		sort.Float64s(s)
		n := len(s) / 4
		for i := 0; i < n; i++ {
			lo += s[i] / float64(n)
			hi += s[len(s)-1-i] / float64(n)
		}
		return
	}
	ul, uh := q(d.U)
	vl, vh := q(d.V)
	x0 := []float64{2, -2, ul, math.Log(uh - ul), vl, math.Log(vh - vl)}
	t := newTarget(d)
	p := optimize.Problem{Func: func(x []float64) float64 { return -t.logp(x) }}
	res, err := optimize.Minimize(p, x0, &optimize.Settings{MajorIterations: 20000}, &optimize.NelderMead{})
	if err != nil && res == nil {
		fail(err)
	}
	x := res.X
	// the Hessian by central differences
	h := mat.NewSymDense(dim, nil)
	e := 1e-4
	f0 := t.logp(x)
	xp := slices.Clone(x)
	for i := 0; i < dim; i++ {
		for j := 0; j <= i; j++ {
			var v float64
			if i == j {
				xp[i] = x[i] + e
				fp := t.logp(xp)
				xp[i] = x[i] - e
				fm := t.logp(xp)
				xp[i] = x[i]
				v = (fp - 2*f0 + fm) / (e * e)
			} else {
				f := func(di, dj float64) float64 {
					xp[i], xp[j] = x[i]+di, x[j]+dj
					r := t.logp(xp)
					xp[i], xp[j] = x[i], x[j]
					return r
				}
				v = (f(e, e) - f(e, -e) - f(-e, e) + f(-e, -e)) / (4 * e * e)
			}
			h.SetSym(i, j, -v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		fail(fmt.Errorf("the curvature at the mode %v is not positive definite", x))
	}
	cov := mat.NewSymDense(dim, nil)
	if err := ch.InverseTo(cov); err != nil {
		fail(err)
	}
	return x, cov
}

// chain runs adaptive Metropolis from a draw of N(mode, cov): the
// proposal's covariance is 2.38^2/d times the chain's own covariance,
// updated during burn-in (started at cov), fixed after.
func chain(d *data, mode []float64, cov *mat.SymDense, burn, iters, thin int, rng *rand.Rand) ([][]float64, float64) {
	t := newTarget(d)
	scale := 2.38 * 2.38 / dim
	c := mat.NewSymDense(dim, nil)
	c.ScaleSym(scale, cov)
	var L mat.Cholesky
	L.Factorize(c)
	lower := mat.NewTriDense(dim, mat.Lower, nil)
	L.LTo(lower)
	draw := func(x, from []float64) {
		z := make([]float64, dim)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		for i := 0; i < dim; i++ {
			s := from[i]
			for j := 0; j <= i; j++ {
				s += lower.At(i, j) * z[j]
			}
			x[i] = s
		}
	}
	x := make([]float64, dim)
	draw(x, mode)
	lp := t.logp(x)
	for math.IsInf(lp, -1) {
		draw(x, mode)
		lp = t.logp(x)
	}
	y := make([]float64, dim)
	// running mean and covariance for the adaptation
	mean := slices.Clone(x)
	m2 := mat.NewSymDense(dim, nil)
	m2.CopySym(cov)
	var out [][]float64
	accepted := 0
	for it := 0; it < burn+iters; it++ {
		draw(y, x)
		ly := t.logp(y)
		if math.Log(rng.Float64()) < ly-lp {
			copy(x, y)
			lp = ly
			if it >= burn {
				accepted++
			}
		}
		if it < burn {
			n := float64(it + 2)
			for i := 0; i < dim; i++ {
				mean[i] += (x[i] - mean[i]) / n
			}
			for i := 0; i < dim; i++ {
				for j := 0; j <= i; j++ {
					v := m2.At(i, j)
					m2.SetSym(i, j, v+((x[i]-mean[i])*(x[j]-mean[j])-v)/n)
				}
			}
			if it%1000 == 999 {
				c.ScaleSym(scale, m2)
				for i := 0; i < dim; i++ {
					c.SetSym(i, i, c.At(i, i)+1e-12)
				}
				if L.Factorize(c) {
					L.LTo(lower)
				}
			}
		} else if (it-burn)%thin == 0 {
			p1, q1, phi, lam := params(x)
			out = append(out, []float64{p1, 1 - p1, q1, 1 - q1, phi[0], phi[1], lam[0], lam[1]})
		}
	}
	return out, float64(accepted) / float64(iters)
}

// report prints the summaries over all chains' draws and, on stderr, the
// mean's Monte Carlo standard error by batch means (20 batches per chain)
// and the acceptance rates.
func report(draws [][][]float64, acc []float64) {
	names := []string{"theta1[1]", "theta1[2]", "theta2[1]", "theta2[2]", "phi[1]", "phi[2]", "lambda[1]", "lambda[2]"}
	fmt.Println("name,mean,sd,q05,q50,q95")
	fmt.Fprintf(os.Stderr, "acceptance %v\n", acc)
	for j, name := range names {
		var all []float64
		var bm []float64
		for _, ch := range draws {
			nb := 20
			size := len(ch) / nb
			for b := 0; b < nb; b++ {
				s := 0.0
				for _, r := range ch[b*size : (b+1)*size] {
					s += r[j]
				}
				bm = append(bm, s/float64(size))
			}
			for _, r := range ch {
				all = append(all, r[j])
			}
		}
		m, s := meanSD(all)
		_, bs := meanSD(bm)
		sort.Float64s(all)
		qt := func(p float64) float64 { return all[int(p*float64(len(all)-1)+0.5)] }
		fmt.Printf("%s,%.6g,%.6g,%.6g,%.6g,%.6g\n", name, m, s, qt(0.05), qt(0.5), qt(0.95))
		fmt.Fprintf(os.Stderr, "%s: mcse of the mean %.3g (%.3f sd), ess %.0f\n", name, bs/math.Sqrt(float64(len(bm))), bs/math.Sqrt(float64(len(bm)))/s, s*s/(bs*bs/float64(len(bm))))
	}
}

func meanSD(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}
