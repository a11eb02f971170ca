package msc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/stdlib"
)

func init() {
	RegisterFamily(FamilySpec{
		Name: "fullrank", Help: "Gaussian with a dense covariance (the default up to 200 dimensions)",
		New:   func(d int) Sampler { return NewFullRank(d) },
		Dense: true, Gaussian: true,
	})
}

// FullRank is the Gaussian family N(Mu, L L') on R^d with a dense lower
// triangular Cholesky factor L. Its unconstrained parameters are Mu and the
// rows of L with a log diagonal. Nothing here allocates after construction.
type FullRank struct {
	D   int
	Mu  []float64
	L   []float64 // d x d row-major lower triangular
	cov []float64 // L L', valid when covOK
	// scratch
	r, e, dz, newCov []float64
	newL             []float64
	dev, devW        []float64 // the weighted rows' deviations and weights
	ld               float64   // log |L|, valid when ldOK
	ldOK, covOK      bool
}

// NewFullRank returns N(0, I).
func NewFullRank(d int) *FullRank {
	g := &FullRank{D: d, Mu: make([]float64, d), L: make([]float64, d*d), cov: make([]float64, d*d),
		r: make([]float64, d), e: make([]float64, d), dz: make([]float64, d), newCov: make([]float64, d*d), newL: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		g.L[i*d+i] = 1
	}
	return g
}

func (g *FullRank) Name() string   { return "fullrank" }
func (g *FullRank) Dim() int       { return g.D }
func (g *FullRank) NumLambda() int { return g.D + g.D*(g.D+1)/2 }
func (g *FullRank) NumStats() int  { return g.D + g.D*g.D }
func (g *FullRank) invalidate()    { g.ldOK, g.covOK = false, false }

// Clone copies the family.
func (g *FullRank) Clone() Family {
	c := NewFullRank(g.D)
	copy(c.Mu, g.Mu)
	copy(c.L, g.L)
	return c
}

// Sample draws rows z = Mu + L eps. Four rows are computed together, each
// sum in the same order as alone (so the bits do not depend on the number
// of rows), for four independent chains of additions.
func (g *FullRank) Sample(rng *rand.Rand, z, eps []float64) {
	d := g.D
	n := len(z) / d
	for i := range eps[:n*d] {
		eps[i] = rng.NormFloat64()
	}
	b := 0
	for ; b+4 <= n; b += 4 {
		e0, e1, e2, e3 := rows4(eps, b, d)
		for i := 0; i < d; i++ {
			m := g.Mu[i]
			s0, s1, s2, s3 := m, m, m, m
			row := g.L[i*d : i*d+i+1]
			e0, e1, e2, e3 := e0[:len(row)], e1[:len(row)], e2[:len(row)], e3[:len(row)]
			for j, l := range row {
				s0 += l * e0[j]
				s1 += l * e1[j]
				s2 += l * e2[j]
				s3 += l * e3[j]
			}
			z[b*d+i], z[(b+1)*d+i], z[(b+2)*d+i], z[(b+3)*d+i] = s0, s1, s2, s3
		}
	}
	for ; b < n; b++ {
		zb, eb := z[b*d:(b+1)*d], eps[b*d:(b+1)*d]
		for i := 0; i < d; i++ {
			s := g.Mu[i]
			for j, l := range g.L[i*d : i*d+i+1] {
				s += l * eb[j]
			}
			zb[i] = s
		}
	}
}

// rows4 returns rows b to b+3 of x, a row-major matrix of rows of d.
func rows4(x []float64, b, d int) (r0, r1, r2, r3 []float64) {
	return x[b*d : (b+1)*d], x[(b+1)*d : (b+2)*d], x[(b+2)*d : (b+3)*d], x[(b+3)*d : (b+4)*d]
}

func (g *FullRank) logDet() float64 {
	if !g.ldOK {
		s := 0.0
		for i := 0; i < g.D; i++ {
			s += math.Log(g.L[i*g.D+i])
		}
		g.ld, g.ldOK = s, true
	}
	return g.ld
}

// whiten solves L e = z - Mu.
func (g *FullRank) whiten(z, e []float64) {
	d := g.D
	for i := 0; i < d; i++ {
		s := z[i] - g.Mu[i]
		for j, l := range g.L[i*d : i*d+i] {
			s -= l * e[j]
		}
		e[i] = s / g.L[i*d+i]
	}
}

// LogQNoise is log q at a row drawn with noise eps.
func (g *FullRank) LogQNoise(_, eps []float64) float64 {
	return -0.5*sumSq(eps) - g.logDet() - 0.5*float64(g.D)*ln2Pi
}

// LogQ is log q(z).
func (g *FullRank) LogQ(z []float64) float64 {
	g.whiten(z, g.e)
	return g.LogQNoise(z, g.e)
}

// Cov writes Sigma = L L'.
func (g *FullRank) Cov(out []float64) {
	if !g.covOK {
		d := g.D
		for i := 0; i < d; i++ {
			for j := 0; j <= i; j++ {
				s := 0.0
				for k := 0; k <= j; k++ {
					s += g.L[i*d+k] * g.L[j*d+k]
				}
				g.cov[i*d+j], g.cov[j*d+i] = s, s
			}
		}
		g.covOK = true
	}
	copy(out, g.cov)
}

// Moments writes the mean and the marginal sds.
func (g *FullRank) Moments(mean, sd []float64) {
	d := g.D
	copy(mean, g.Mu)
	for i := 0; i < d; i++ {
		s := 0.0
		for _, l := range g.L[i*d : i*d+i+1] {
			s += l * l
		}
		sd[i] = math.Sqrt(s)
	}
}

// SetMoments sets Mu and L = chol(cov) (cov nil keeps L).
func (g *FullRank) SetMoments(mean, cov []float64) error {
	if mean != nil {
		copy(g.Mu, mean)
	}
	if cov != nil {
		if !stdlib.CholeskyLower(cov, g.D, g.newL) {
			return errors.New("the covariance is not positive definite")
		}
		g.L, g.newL = g.newL, g.L
		g.invalidate()
	}
	return nil
}

// Lambda writes Mu, then the rows of L with a log diagonal.
func (g *FullRank) Lambda(out []float64) {
	d := g.D
	copy(out, g.Mu)
	k := d
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			v := g.L[i*d+j]
			if i == j {
				v = math.Log(v)
			}
			out[k] = v
			k++
		}
	}
}

// SetLambda is the inverse of Lambda.
func (g *FullRank) SetLambda(lam []float64) {
	d := g.D
	copy(g.Mu, lam[:d])
	k := d
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			v := lam[k]
			if i == j {
				v = math.Exp(v)
			}
			g.L[i*d+j] = v
			k++
		}
	}
	g.invalidate()
}

// AddScore adds w grad_lambda log q(z): for Mu, u = L^-T e; for L,
// tril(u e') - diag(1/L_ii), with the chain rule for the log diagonal.
func (g *FullRank) AddScore(w float64, z, grad []float64) {
	g.whiten(z, g.e)
	g.addScore(w, 1, g.e, grad)
}

// addScore is AddScore for the whitened e = L^-1 (z - Mu), with the data
// term of the score scaled by r (1 for the Gaussian, the latent-scale
// weight of a Student-t).
func (g *FullRank) addScore(w, r float64, e, grad []float64) {
	d := g.D
	u := g.r
	for i := d - 1; i >= 0; i-- {
		s := e[i]
		for j := i + 1; j < d; j++ {
			s -= g.L[j*d+i] * u[j]
		}
		u[i] = s / g.L[i*d+i]
	}
	for i := 0; i < d; i++ {
		grad[i] += w * r * u[i]
	}
	k := d
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			v := r * u[i] * e[j]
			if i == j {
				v = (v - 1/g.L[i*d+i]) * g.L[i*d+i]
			}
			grad[k] += w * v
			k++
		}
	}
}

// NaturalStep is the natural-gradient step for a Gaussian: a stochastic
// moment update Mu += rho sum_b w_b (z_b - Mu), Sigma = (1 - rho) Sigma +
// rho sum_b w_b (z_b - Mu)(z_b - Mu)', both with the old Mu. Sigma stays
// positive definite (a convex combination). O(S d^2 + d^3).
func (g *FullRank) NaturalStep(z, w []float64, rho float64) error {
	return g.momentStep(z, w, rho, 1)
}

// momentStep is the weighted moment update Mu += rho scale sum_b a_b (z_b -
// Mu), Sigma = (1 - rho) Sigma + rho sum_b a_b (z_b - Mu)(z_b - Mu)', with
// the old Mu, followed by the Cholesky factorisation of the new Sigma.
func (g *FullRank) momentStep(z, a []float64, rho, scale float64) error {
	d := g.D
	w := a
	g.Cov(g.newCov)
	for i := range g.newCov {
		g.newCov[i] *= 1 - rho
	}
	clear(g.dz)
	// the deviations of the rows with a weight, then the rank update four
	// rows at a time, each element's sum in the order of the rows
	if cap(g.dev) < len(w)*d {
		g.dev, g.devW = make([]float64, len(w)*d), make([]float64, len(w))
	}
	nr := 0
	for b, wb := range w {
		if wb == 0 {
			continue
		}
		zb, e := z[b*d:(b+1)*d], g.dev[nr*d:(nr+1)*d]
		for i := 0; i < d; i++ {
			e[i] = zb[i] - g.Mu[i]
			g.dz[i] += wb * e[i]
		}
		g.devW[nr] = wb
		nr++
	}
	r := 0
	for ; r+4 <= nr; r += 4 {
		e0, e1, e2, e3 := rows4(g.dev, r, d)
		w0, w1, w2, w3 := rho*g.devW[r], rho*g.devW[r+1], rho*g.devW[r+2], rho*g.devW[r+3]
		for i := 0; i < d; i++ {
			a0, a1, a2, a3 := w0*e0[i], w1*e1[i], w2*e2[i], w3*e3[i]
			row := g.newCov[i*d : i*d+i+1]
			f0, f1, f2, f3 := e0[:len(row)], e1[:len(row)], e2[:len(row)], e3[:len(row)]
			for j, x := range row {
				x += a0 * f0[j]
				x += a1 * f1[j]
				x += a2 * f2[j]
				x += a3 * f3[j]
				row[j] = x
			}
		}
	}
	for ; r < nr; r++ {
		e, wr := g.dev[r*d:(r+1)*d], rho*g.devW[r]
		for i := 0; i < d; i++ {
			a := wr * e[i]
			row := g.newCov[i*d : i*d+i+1]
			for j := range row {
				row[j] += a * e[j]
			}
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			g.newCov[j*d+i] = g.newCov[i*d+j]
		}
	}
	if !g.factorNew() {
		return errors.New("the covariance of q lost positive definiteness")
	}
	for i := 0; i < d; i++ {
		g.Mu[i] += rho * g.dz[i] * scale
	}
	g.L, g.newL = g.newL, g.L
	g.ldOK = false
	g.cov, g.newCov = g.newCov, g.cov
	g.covOK = true
	return nil
}

// factorNew factors newCov into newL. The update is a convex combination of
// positive semi-definite matrices, so a failure is rounding in a nearly
// singular covariance: a jitter of 1e-12 to 1e-4 of the mean variance is
// added to the diagonal, as little as works (q is left unchanged if none
// does).
func (g *FullRank) factorNew() bool {
	d := g.D
	if stdlib.CholeskyLower(g.newCov, d, g.newL) {
		return true
	}
	tr := 0.0
	for i := 0; i < d; i++ {
		tr += g.newCov[i*d+i]
	}
	added := 0.0
	for jit := 1e-12 * tr / float64(d); jit <= 1e-4*tr/float64(d); jit *= 100 {
		for i := 0; i < d; i++ {
			g.newCov[i*d+i] += jit - added
		}
		added = jit
		if stdlib.CholeskyLower(g.newCov, d, g.newL) {
			return true
		}
	}
	return false
}

// Stats writes Mu and Sigma.
func (g *FullRank) Stats(dst []float64) {
	copy(dst, g.Mu)
	g.Cov(dst[g.D:])
}

// SetStats sets Mu and Sigma.
func (g *FullRank) SetStats(src []float64) error { return g.SetMoments(src[:g.D], src[g.D:]) }

// AddPathGrad adds w (dz/dlambda)' g for z = Mu + L eps.
func (g *FullRank) AddPathGrad(w float64, eps, gz, grad []float64) {
	d := g.D
	for i := 0; i < d; i++ {
		grad[i] += w * gz[i]
	}
	k := d
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			v := gz[i] * eps[j]
			if i == j {
				v *= g.L[i*d+i]
			}
			grad[k] += w * v
			k++
		}
	}
}

// AddEntropyGrad adds d/dlambda of sum_i log L_ii.
func (g *FullRank) AddEntropyGrad(grad []float64) {
	k := g.D
	for i := 0; i < g.D; i++ {
		k += i
		grad[k]++
		k++
	}
}

type gaussianJSON struct {
	Mean []float64 `json:"mean"`
	Cov  []float64 `json:"cov,omitempty"`
	SD   []float64 `json:"sd,omitempty"`
}

// MarshalJSON writes the mean and the covariance.
func (g *FullRank) MarshalJSON() ([]byte, error) {
	c := make([]float64, g.D*g.D)
	g.Cov(c)
	return json.Marshal(gaussianJSON{Mean: g.Mu, Cov: c})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (g *FullRank) UnmarshalJSON(b []byte) error {
	var v gaussianJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v.Mean) != g.D || len(v.Cov) != g.D*g.D {
		return fmt.Errorf("a full-rank Gaussian of dimension %d needs %d means and a %dx%d covariance", g.D, g.D, g.D, g.D)
	}
	return g.SetMoments(v.Mean, v.Cov)
}

// ln2Pi is log(2 pi), computed as the reference code did (bit for bit).
var ln2Pi = math.Log(2 * math.Pi)

func sumSq(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}
