package msc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// FamilyKind selects the variational family.
type FamilyKind int

const (
	// FullRank is a Gaussian with a dense covariance Sigma = L L' (L lower
	// triangular with a log-parameterised diagonal).
	FullRank FamilyKind = iota
	// MeanField is a Gaussian with a diagonal covariance (mu, log sigma).
	MeanField
)

func (k FamilyKind) String() string {
	if k == MeanField {
		return "meanfield"
	}
	return "fullrank"
}

// ParseFamily parses "meanfield" or "fullrank".
func ParseFamily(s string) (FamilyKind, error) {
	switch s {
	case "fullrank", "full-rank", "full":
		return FullRank, nil
	case "meanfield", "mean-field", "diag":
		return MeanField, nil
	}
	return 0, fmt.Errorf("unknown family %q (use meanfield or fullrank)", s)
}

// Gaussian is a Gaussian variational family on unconstrained R^d. Both
// families keep mu and the Cholesky factor L of the covariance; mean-field
// keeps L diagonal. Nothing here allocates after construction.
type Gaussian struct {
	Kind FamilyKind
	D    int
	Mu   []float64
	L    []float64 // d x d row-major lower triangular (diagonal only for mean-field)
	// scratch
	r, e []float64
	// cached log |L|; ldOK is cleared whenever L changes through a method
	ld   float64
	ldOK bool
}

// Invalidate must be called after writing Mu or L directly.
func (g *Gaussian) Invalidate() { g.ldOK = false }

// NewGaussian returns N(0, I) of the given kind.
func NewGaussian(kind FamilyKind, d int) *Gaussian {
	g := &Gaussian{Kind: kind, D: d, Mu: make([]float64, d), L: make([]float64, d*d), r: make([]float64, d), e: make([]float64, d)}
	for i := 0; i < d; i++ {
		g.L[i*d+i] = 1
	}
	return g
}

// Clone copies the family.
func (g *Gaussian) Clone() *Gaussian {
	c := NewGaussian(g.Kind, g.D)
	copy(c.Mu, g.Mu)
	copy(c.L, g.L)
	return c
}

// Sample draws n rows into z (n x d) and the standard normals into eps.
func (g *Gaussian) Sample(rng *rand.Rand, z, eps []float64) {
	d := g.D
	for b := 0; b*d < len(z); b++ {
		zb, eb := z[b*d:(b+1)*d], eps[b*d:(b+1)*d]
		for i := range eb {
			eb[i] = rng.NormFloat64()
		}
		for i := 0; i < d; i++ {
			s := g.Mu[i]
			if g.Kind == MeanField {
				s += g.L[i*d+i] * eb[i]
			} else {
				row := g.L[i*d : i*d+i+1]
				for j, l := range row {
					s += l * eb[j]
				}
			}
			zb[i] = s
		}
	}
}

// logDet is log |L| = sum log L_ii.
func (g *Gaussian) logDet() float64 {
	if g.ldOK {
		return g.ld
	}
	s := 0.0
	for i := 0; i < g.D; i++ {
		s += math.Log(g.L[i*g.D+i])
	}
	g.ld, g.ldOK = s, true
	return s
}

// Whiten solves L e = z - mu into e.
func (g *Gaussian) Whiten(z, e []float64) {
	d := g.D
	for i := 0; i < d; i++ {
		s := z[i] - g.Mu[i]
		if g.Kind == FullRank {
			row := g.L[i*d : i*d+i]
			for j, l := range row {
				s -= l * e[j]
			}
		}
		e[i] = s / g.L[i*d+i]
	}
}

// LogQEps is log q(z) given the whitened e = L^-1 (z - mu).
func (g *Gaussian) LogQEps(e []float64) float64 {
	s := 0.0
	for _, v := range e {
		s += v * v
	}
	return -0.5*s - g.logDet() - 0.5*float64(g.D)*math.Log(2*math.Pi)
}

// LogQ is log q(z) for one row.
func (g *Gaussian) LogQ(z []float64) float64 {
	g.Whiten(z, g.e)
	return g.LogQEps(g.e)
}

// Cov writes Sigma = L L' (d x d row-major).
func (g *Gaussian) Cov(out []float64) {
	d := g.D
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k <= j; k++ {
				s += g.L[i*d+k] * g.L[j*d+k]
			}
			out[i*d+j], out[j*d+i] = s, s
		}
	}
}

// SetCov sets L to the Cholesky factor of sigma (only the diagonal for
// mean-field). It returns false if sigma is not positive definite.
func (g *Gaussian) SetCov(sigma []float64) bool {
	d := g.D
	g.ldOK = false
	if g.Kind == MeanField {
		for i := 0; i < d; i++ {
			v := sigma[i*d+i]
			if !(v > 0) || math.IsInf(v, 0) {
				return false
			}
			g.L[i*d+i] = math.Sqrt(v)
		}
		return true
	}
	return cholesky(sigma, g.L, d)
}

// cholesky writes the lower Cholesky factor of a (d x d) into l.
func cholesky(a, l []float64, d int) bool {
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := a[i*d+j]
			for k := 0; k < j; k++ {
				s -= l[i*d+k] * l[j*d+k]
			}
			if i == j {
				if !(s > 0) || math.IsInf(s, 0) {
					return false
				}
				l[i*d+i] = math.Sqrt(s)
			} else {
				l[i*d+j] = s / l[j*d+j]
			}
		}
		for j := i + 1; j < d; j++ {
			l[i*d+j] = 0
		}
	}
	return true
}

// NumLambda is the number of unconstrained variational parameters.
func (g *Gaussian) NumLambda() int {
	if g.Kind == MeanField {
		return 2 * g.D
	}
	return g.D + g.D*(g.D+1)/2
}

// Lambda writes the unconstrained parameters: mu, then log sigma
// (mean-field) or the rows of L with a log diagonal (full rank).
func (g *Gaussian) Lambda(out []float64) {
	d := g.D
	copy(out, g.Mu)
	k := d
	for i := 0; i < d; i++ {
		if g.Kind == MeanField {
			out[k] = math.Log(g.L[i*d+i])
			k++
			continue
		}
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
func (g *Gaussian) SetLambda(lam []float64) {
	d := g.D
	g.ldOK = false
	copy(g.Mu, lam[:d])
	k := d
	for i := 0; i < d; i++ {
		if g.Kind == MeanField {
			g.L[i*d+i] = math.Exp(lam[k])
			k++
			continue
		}
		for j := 0; j <= i; j++ {
			v := lam[k]
			if i == j {
				v = math.Exp(v)
			}
			g.L[i*d+j] = v
			k++
		}
	}
}

// AddScore adds w * grad_lambda log q(z) to grad, given the whitened
// e = L^-1 (z - mu). For L: grad = tril(L^-T e e') - diag(1/L_ii), with the
// chain rule for the log diagonal.
func (g *Gaussian) AddScore(w float64, e []float64, grad []float64) {
	d := g.D
	// u = L^-T e (back substitution)
	u := g.r
	for i := d - 1; i >= 0; i-- {
		s := e[i]
		if g.Kind == FullRank {
			for j := i + 1; j < d; j++ {
				s -= g.L[j*d+i] * u[j]
			}
		}
		u[i] = s / g.L[i*d+i]
	}
	for i := 0; i < d; i++ {
		grad[i] += w * u[i]
	}
	k := d
	for i := 0; i < d; i++ {
		if g.Kind == MeanField {
			grad[k] += w * (e[i]*e[i] - 1)
			k++
			continue
		}
		for j := 0; j <= i; j++ {
			v := u[i] * e[j]
			if i == j {
				v = (v - 1/g.L[i*d+i]) * g.L[i*d+i]
			}
			grad[k] += w * v
			k++
		}
	}
}

// Marginals writes the marginal sds.
func (g *Gaussian) Marginals(sd []float64) {
	d := g.D
	for i := 0; i < d; i++ {
		s := 0.0
		for j := 0; j <= i; j++ {
			s += g.L[i*d+j] * g.L[i*d+j]
		}
		sd[i] = math.Sqrt(s)
	}
}
