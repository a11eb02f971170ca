package msc

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

func init() {
	RegisterFamily(FamilySpec{
		Name: "student_t", Help: "multivariate Student-t with a dense scale (heavier tails than a Gaussian); df 5, learned with --optimizer adam or rm",
		New:   func(d int) Sampler { return NewStudentT(d, 5) },
		Dense: true, HeavyTails: true,
	})
}

// StudentT is the full-rank multivariate Student-t family t_nu(Mu, L L'):
// z = Mu + L e with e = eps sqrt(nu / u), eps ~ N(0, I), u ~ chi2(nu). Its
// unconstrained parameters are those of FullRank followed by log nu.
//
// Its natural step is the stochastic fixed-point (ECME) update of the
// location and scale at fixed nu: the inclusive-KL optimum solves
// E_p[r (z - Mu)] = 0 and E_p[r (z - Mu)(z - Mu)'] = L L' with
// r = (nu + d) / (nu + e'e). With a score-based optimiser nu is learned too.
type StudentT struct {
	g  *FullRank // location Mu and scale factor L
	Nu float64
	// scratch
	u, e, a []float64
}

// NewStudentT returns t_nu(0, I).
func NewStudentT(d int, nu float64) *StudentT {
	return &StudentT{g: NewFullRank(d), Nu: nu, u: make([]float64, d), e: make([]float64, d)}
}

func (s *StudentT) Name() string   { return "student_t" }
func (s *StudentT) Dim() int       { return s.g.D }
func (s *StudentT) NumLambda() int { return s.g.NumLambda() + 1 }
func (s *StudentT) NumStats() int  { return s.g.NumStats() + 1 }

// Clone copies the family.
func (s *StudentT) Clone() Family {
	c := NewStudentT(s.g.D, s.Nu)
	c.g = s.g.Clone().(*FullRank)
	return c
}

// Sample draws rows; eps receives the whitened e = L^-1 (z - Mu).
func (s *StudentT) Sample(rng *rand.Rand, z, eps []float64) {
	d := s.g.D
	for b := 0; b*d < len(z); b++ {
		zb, eb := z[b*d:(b+1)*d], eps[b*d:(b+1)*d]
		c := math.Sqrt(s.Nu / chi2(rng, s.Nu))
		for i := range eb {
			eb[i] = c * rng.NormFloat64()
		}
		for i := 0; i < d; i++ {
			v := s.g.Mu[i]
			for j, l := range s.g.L[i*d : i*d+i+1] {
				v += l * eb[j]
			}
			zb[i] = v
		}
	}
}

// chi2 draws from the chi-squared distribution with nu degrees of freedom
// (2 Gamma(nu/2, 1), by Marsaglia and Tsang's method).
func chi2(rng *rand.Rand, nu float64) float64 {
	a := nu / 2
	boost := 1.0
	if a < 1 {
		boost = math.Pow(rng.Float64(), 1/a)
		a++
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return 2 * d * v * boost
		}
	}
}

func (s *StudentT) logNorm() float64 {
	d := float64(s.g.D)
	ga, _ := math.Lgamma((s.Nu + d) / 2)
	gb, _ := math.Lgamma(s.Nu / 2)
	return ga - gb - d/2*math.Log(s.Nu*math.Pi) - s.g.logDet()
}

// LogQNoise is log q at a row drawn with whitened noise eps.
func (s *StudentT) LogQNoise(_, eps []float64) float64 {
	d := float64(s.g.D)
	return s.logNorm() - (s.Nu+d)/2*math.Log1p(sumSq(eps)/s.Nu)
}

// LogQ is log q(z).
func (s *StudentT) LogQ(z []float64) float64 {
	s.g.whiten(z, s.e)
	return s.LogQNoise(z, s.e)
}

// varFactor is Var(z) / (L L') = nu / (nu - 2) (infinite for nu <= 2).
func (s *StudentT) varFactor() float64 {
	if s.Nu <= 2 {
		return math.Inf(1)
	}
	return s.Nu / (s.Nu - 2)
}

// Moments writes the mean and the marginal sds.
func (s *StudentT) Moments(mean, sd []float64) {
	s.g.Moments(mean, sd)
	f := math.Sqrt(s.varFactor())
	for i := range sd {
		sd[i] *= f
	}
}

// Cov writes the covariance nu/(nu-2) L L'.
func (s *StudentT) Cov(dst []float64) {
	s.g.Cov(dst)
	f := s.varFactor()
	for i := range dst {
		dst[i] *= f
	}
}

// SetMoments sets Mu and the scale so that the covariance is cov.
func (s *StudentT) SetMoments(mean, cov []float64) error {
	if cov == nil || s.Nu <= 2 {
		return s.g.SetMoments(mean, cov)
	}
	sc := make([]float64, len(cov))
	for i, v := range cov {
		sc[i] = v / s.varFactor()
	}
	return s.g.SetMoments(mean, sc)
}

// Lambda writes FullRank's parameters, then log nu.
func (s *StudentT) Lambda(dst []float64) {
	s.g.Lambda(dst)
	dst[len(dst)-1] = math.Log(s.Nu)
}

// SetLambda is the inverse of Lambda.
func (s *StudentT) SetLambda(src []float64) {
	s.g.SetLambda(src[:len(src)-1])
	s.Nu = math.Exp(src[len(src)-1])
}

// weight is r = (nu + d) / (nu + e'e) for the whitened e.
func (s *StudentT) weight(e []float64) float64 {
	return (s.Nu + float64(s.g.D)) / (s.Nu + sumSq(e))
}

// AddScore adds w grad_lambda log q(z): the Gaussian score of the location
// and scale with the data term scaled by r, and the derivative in log nu.
func (s *StudentT) AddScore(w float64, z, grad []float64) {
	e, d := s.e, s.g.D
	s.g.whiten(z, e)
	s.g.addScore(w, s.weight(e), e, grad)
	k := s.g.NumLambda()
	nu, q, fd := s.Nu, sumSq(e), float64(d)
	dnu := 0.5*mathext.Digamma((nu+fd)/2) - 0.5*mathext.Digamma(nu/2) - fd/(2*nu) -
		0.5*math.Log1p(q/nu) + (nu+fd)/2*q/(nu*nu+nu*q)
	grad[k] += w * dnu * nu
}

// NaturalStep is the stochastic ECME update of Mu and the scale at fixed
// nu: the Gaussian moment step with the weights w_b r_b, the mean's step
// normalised by their sum.
func (s *StudentT) NaturalStep(z, w []float64, rho float64) error {
	d := s.g.D
	if len(s.a) != len(w) {
		s.a = make([]float64, len(w)) // once per run: S is fixed
	}
	sw := 0.0
	for b, wb := range w {
		s.a[b] = 0
		if wb != 0 {
			s.g.whiten(z[b*d:(b+1)*d], s.e)
			s.a[b] = wb * s.weight(s.e)
			sw += s.a[b]
		}
	}
	if !(sw > 0) {
		return nil
	}
	return s.g.momentStep(z, s.a, rho, 1/sw)
}

// Stats writes Mu, the scale matrix L L' and nu.
func (s *StudentT) Stats(dst []float64) {
	s.g.Stats(dst)
	dst[len(dst)-1] = s.Nu
}

// SetStats sets Mu, the scale and nu.
func (s *StudentT) SetStats(src []float64) error {
	s.Nu = src[len(src)-1]
	return s.g.SetStats(src[:len(src)-1])
}

type studentTJSON struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	DF    float64   `json:"df"`
}

// MarshalJSON writes the location, the scale matrix and the degrees of freedom.
func (s *StudentT) MarshalJSON() ([]byte, error) {
	sc := make([]float64, s.g.D*s.g.D)
	s.g.Cov(sc)
	return json.Marshal(studentTJSON{s.g.Mu, sc, s.Nu})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *StudentT) UnmarshalJSON(b []byte) error {
	var v studentTJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	d := s.g.D
	if len(v.Mean) != d || len(v.Scale) != d*d || !(v.DF > 0) {
		return fmt.Errorf("a Student-t of dimension %d needs %d means, a %dx%d scale and df > 0", d, d, d, d)
	}
	s.Nu = v.DF
	return s.g.SetMoments(v.Mean, v.Scale)
}
