package baselines

import (
	"errors"
	"fmt"
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
	"gonum.org/v1/gonum/mat"
)

// EPSettings configures EPProbit.
type EPSettings struct {
	MaxIter int     // sweeps over the sites (default 100)
	Tol     float64 // stop when no site parameter moves more than this (default 1e-8)
	Damping float64 // in (0, 1]; 1 is undamped (default 1)
}

// EPResult is a Gaussian approximation N(Mean, Cov) of the posterior.
type EPResult struct {
	Mean       []float64
	Cov        []float64 // d x d row-major
	Iterations int
	Converged  bool
}

// EPProbit runs expectation propagation (Minka 2001) for Bayesian probit
// regression, y_i ~ Bernoulli(Phi(x_i' w + c_i)), w ~ N(m0, diag(v0)),
// with sequential site updates in weight space: each site is a Gaussian in
// the projection x_i' w, and the posterior is updated by a rank-one
// correction. X is n x d row-major; c (the offsets) may be nil.
func EPProbit(X []float64, n, d int, c, y, m0, v0 []float64, s EPSettings) (*EPResult, error) {
	if s.MaxIter == 0 {
		s.MaxIter = 100
	}
	if s.Tol == 0 {
		s.Tol = 1e-8
	}
	if s.Damping == 0 {
		s.Damping = 1
	}
	for i, v := range y {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("EP for probit needs 0/1 outcomes; outcome %d is %g", i+1, v)
		}
	}
	tauS := make([]float64, n) // site precisions (in the projection)
	nuS := make([]float64, n)
	Sigma := make([]float64, d*d)
	mu := make([]float64, d)
	sh := make([]float64, d)
	// start at the prior
	recompute := func() error {
		P := mat.NewSymDense(d, nil)
		eta := make([]float64, d)
		for a := 0; a < d; a++ {
			P.SetSym(a, a, 1/v0[a])
			eta[a] = m0[a] / v0[a]
		}
		for i := 0; i < n; i++ {
			if tauS[i] == 0 && nuS[i] == 0 {
				continue
			}
			xi := X[i*d : (i+1)*d]
			for a := 0; a < d; a++ {
				eta[a] += nuS[i] * xi[a]
				for b := a; b < d; b++ {
					P.SetSym(a, b, P.At(a, b)+tauS[i]*xi[a]*xi[b])
				}
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(P) {
			return errors.New("EP: the posterior precision lost positive definiteness")
		}
		var S mat.SymDense
		if err := ch.InverseTo(&S); err != nil {
			return err
		}
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				Sigma[a*d+b] = S.At(a, b)
			}
		}
		for a := 0; a < d; a++ {
			m := 0.0
			for b := 0; b < d; b++ {
				m += Sigma[a*d+b] * eta[b]
			}
			mu[a] = m
		}
		return nil
	}
	if err := recompute(); err != nil {
		return nil, err
	}
	res := &EPResult{}
	for it := 1; it <= s.MaxIter; it++ {
		maxDelta := 0.0
		for i := 0; i < n; i++ {
			xi := X[i*d : (i+1)*d]
			off := 0.0
			if c != nil {
				off = c[i]
			}
			// projection of the current posterior
			for a := 0; a < d; a++ {
				v := 0.0
				row := Sigma[a*d : (a+1)*d]
				for b, x := range xi {
					v += row[b] * x
				}
				sh[a] = v
			}
			sProj, mProj := 0.0, off
			for a, x := range xi {
				sProj += x * sh[a]
				mProj += x * mu[a]
			}
			// cavity (in the linear predictor, offset included)
			tauC := 1/sProj - tauS[i]
			if tauC <= 0 {
				continue
			}
			nuC := mProj/sProj - nuS[i]
			s2c, muc := 1/tauC, nuC/tauC
			// tilted moments of N(f; muc, s2c) Phi(yt f)
			yt := 2*y[i] - 1
			sq := math.Sqrt(1 + s2c)
			z := yt * muc / sq
			r := special.InvMills(z)
			muHat := muc + yt*s2c*r/sq
			s2Hat := s2c - s2c*s2c*r*(z+r)/(1+s2c)
			if !(s2Hat > 0) {
				continue
			}
			newTau := 1/s2Hat - tauC
			newNu := muHat/s2Hat - nuC
			// the site is on f = x'w + off; in w the natural parameter is
			// nu - tau * off
			newTau = tauS[i] + s.Damping*(newTau-tauS[i])
			newNu = nuS[i] + s.Damping*(newNu-nuS[i])
			dTau := newTau - tauS[i]
			dNu := (newNu - newTau*off) - (nuS[i] - tauS[i]*off)
			maxDelta = math.Max(maxDelta, math.Max(math.Abs(dTau), math.Abs(newNu-nuS[i])))
			tauS[i], nuS[i] = newTau, newNu
			// rank-one update of Sigma and mu
			den := 1 + dTau*sProj
			if den <= 0 {
				return nil, errors.New("EP: a site update made the covariance indefinite; try damping")
			}
			mw := mProj - off
			k := (dNu - dTau*mw) / den
			for a := 0; a < d; a++ {
				mu[a] += k * sh[a]
			}
			f := dTau / den
			for a := 0; a < d; a++ {
				fa := f * sh[a]
				row := Sigma[a*d : (a+1)*d]
				for b := range row {
					row[b] -= fa * sh[b]
				}
			}
		}
		// the site parameters are on w: fold the offsets into nu for the
		// exact recomputation
		res.Iterations = it
		if maxDelta < s.Tol {
			res.Converged = true
			break
		}
	}
	// final exact recomputation from the sites (nu on f -> on w)
	for i := 0; i < n; i++ {
		if c != nil {
			nuS[i] -= tauS[i] * c[i]
		}
	}
	if err := recompute(); err != nil {
		return nil, err
	}
	res.Mean = append([]float64(nil), mu...)
	res.Cov = append([]float64(nil), Sigma...)
	return res, nil
}

// PredictProbit returns Phi((x'mu + c) / sqrt(1 + x' Sigma x)) for each row
// of X: the posterior predictive probability of y = 1 under N(mu, Sigma).
func PredictProbit(X []float64, n, d int, c, mu, Sigma []float64) []float64 {
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		xi := X[i*d : (i+1)*d]
		m, v := 0.0, 0.0
		if c != nil {
			m = c[i]
		}
		for a, x := range xi {
			m += x * mu[a]
			row := Sigma[a*d : (a+1)*d]
			for b, x2 := range xi {
				v += x * row[b] * x2
			}
		}
		out[i] = special.Phi(m / math.Sqrt(1+v))
	}
	return out
}
