package msc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

func init() {
	RegisterFamily(FamilySpec{
		Name: "meanfield", Help: "Gaussian with a diagonal covariance (the default above 200 dimensions); O(d) per sample",
		New:          func(d int) Sampler { return NewMeanField(d) },
		Gaussian:     true,
		MixingCause:  "a mean-field q cannot propose well on a correlated posterior",
		MixingRemedy: "use --family fullrank, or more --samples",
	})
}

// MeanField is the Gaussian family N(Mu, diag(SD^2)). Its unconstrained
// parameters are Mu and log SD. Every operation is O(d) per sample: no
// d x d matrix is ever formed.
type MeanField struct {
	D      int
	Mu, SD []float64
	dz, v  []float64 // scratch
	ld     float64
	ldOK   bool
}

// NewMeanField returns N(0, I).
func NewMeanField(d int) *MeanField {
	g := &MeanField{D: d, Mu: make([]float64, d), SD: make([]float64, d), dz: make([]float64, d), v: make([]float64, d)}
	for i := range g.SD {
		g.SD[i] = 1
	}
	return g
}

func (g *MeanField) Name() string   { return "meanfield" }
func (g *MeanField) Dim() int       { return g.D }
func (g *MeanField) NumLambda() int { return 2 * g.D }
func (g *MeanField) NumStats() int  { return 2 * g.D }

// Clone copies the family.
func (g *MeanField) Clone() Family {
	c := NewMeanField(g.D)
	copy(c.Mu, g.Mu)
	copy(c.SD, g.SD)
	return c
}

// Sample draws rows z = Mu + SD * eps.
func (g *MeanField) Sample(rng *rand.Rand, z, eps []float64) {
	d := g.D
	for b := 0; b*d < len(z); b++ {
		zb, eb := z[b*d:(b+1)*d], eps[b*d:(b+1)*d]
		for i := range eb {
			e := rng.NormFloat64()
			eb[i] = e
			zb[i] = g.Mu[i] + g.SD[i]*e
		}
	}
}

func (g *MeanField) logDet() float64 {
	if !g.ldOK {
		s := 0.0
		for _, v := range g.SD {
			s += math.Log(v)
		}
		g.ld, g.ldOK = s, true
	}
	return g.ld
}

// LogQNoise is log q at a row drawn with noise eps.
func (g *MeanField) LogQNoise(_, eps []float64) float64 {
	return -0.5*sumSq(eps) - g.logDet() - 0.5*float64(g.D)*ln2Pi
}

// LogQ is log q(z).
func (g *MeanField) LogQ(z []float64) float64 {
	s := 0.0
	for i, v := range z {
		e := (v - g.Mu[i]) / g.SD[i]
		s += e * e
	}
	return -0.5*s - g.logDet() - 0.5*float64(g.D)*ln2Pi
}

// Moments writes Mu and SD.
func (g *MeanField) Moments(mean, sd []float64) {
	copy(mean, g.Mu)
	copy(sd, g.SD)
}

// Cov writes the diagonal covariance.
func (g *MeanField) Cov(out []float64) {
	clear(out)
	for i, s := range g.SD {
		out[i*g.D+i] = s * s
	}
}

// SetMoments sets Mu and SD from the diagonal of cov (cov nil keeps SD).
func (g *MeanField) SetMoments(mean, cov []float64) error {
	if mean != nil {
		copy(g.Mu, mean)
	}
	if cov != nil {
		for i := range g.SD {
			v := cov[i*g.D+i]
			if !(v > 0) || math.IsInf(v, 0) {
				return errors.New("the covariance is not positive definite")
			}
			g.SD[i] = math.Sqrt(v)
		}
		g.ldOK = false
	}
	return nil
}

// Lambda writes Mu, then log SD.
func (g *MeanField) Lambda(out []float64) {
	copy(out, g.Mu)
	for i, s := range g.SD {
		out[g.D+i] = math.Log(s)
	}
}

// SetLambda is the inverse of Lambda.
func (g *MeanField) SetLambda(lam []float64) {
	copy(g.Mu, lam[:g.D])
	for i := range g.SD {
		g.SD[i] = math.Exp(lam[g.D+i])
	}
	g.ldOK = false
}

// AddScore adds w grad_lambda log q(z).
func (g *MeanField) AddScore(w float64, z, grad []float64) {
	d := g.D
	for i, v := range z {
		e := (v - g.Mu[i]) / g.SD[i]
		grad[i] += w * (e / g.SD[i]) // this order of rounding is the full-rank code's
		grad[d+i] += w * (e*e - 1)
	}
}

// NaturalStep is the moment update of the mean and the variances, O(S d).
func (g *MeanField) NaturalStep(z, w []float64, rho float64) error {
	d := g.D
	clear(g.dz)
	for i, s := range g.SD {
		g.v[i] = (1 - rho) * s * s
	}
	for b, wb := range w {
		if wb == 0 {
			continue
		}
		zb := z[b*d : (b+1)*d]
		for i, v := range zb {
			e := v - g.Mu[i]
			g.dz[i] += wb * e
			g.v[i] += rho * wb * e * e
		}
	}
	for i := range g.Mu {
		if !(g.v[i] > 0) || math.IsInf(g.v[i], 0) {
			return errors.New("a variance of q became zero or infinite")
		}
		g.Mu[i] += rho * g.dz[i]
		g.SD[i] = math.Sqrt(g.v[i])
	}
	g.ldOK = false
	return nil
}

// Stats writes Mu and the variances.
func (g *MeanField) Stats(dst []float64) {
	copy(dst, g.Mu)
	for i, s := range g.SD {
		dst[g.D+i] = s * s
	}
}

// SetStats sets Mu and the variances.
func (g *MeanField) SetStats(src []float64) error {
	copy(g.Mu, src[:g.D])
	for i := range g.SD {
		v := src[g.D+i]
		if !(v > 0) || math.IsInf(v, 0) {
			return errors.New("an averaged variance is not positive")
		}
		g.SD[i] = math.Sqrt(v)
	}
	g.ldOK = false
	return nil
}

// AddPathGrad adds w (dz/dlambda)' g for z = Mu + SD eps.
func (g *MeanField) AddPathGrad(w float64, eps, gz, grad []float64) {
	for i := range gz {
		grad[i] += w * gz[i]
		grad[g.D+i] += w * gz[i] * eps[i] * g.SD[i]
	}
}

// AddEntropyGrad adds d/dlambda of sum_i log SD_i.
func (g *MeanField) AddEntropyGrad(grad []float64) {
	for i := 0; i < g.D; i++ {
		grad[g.D+i]++
	}
}

// MarshalJSON writes the means and sds.
func (g *MeanField) MarshalJSON() ([]byte, error) {
	return json.Marshal(gaussianJSON{Mean: g.Mu, SD: g.SD})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (g *MeanField) UnmarshalJSON(b []byte) error {
	var v gaussianJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v.Mean) != g.D || len(v.SD) != g.D {
		return fmt.Errorf("a mean-field Gaussian of dimension %d needs %d means and sds", g.D, g.D)
	}
	for _, s := range v.SD {
		if !(s > 0) {
			return errors.New("an sd is not positive")
		}
	}
	copy(g.Mu, v.Mean)
	copy(g.SD, v.SD)
	g.ldOK = false
	return nil
}
