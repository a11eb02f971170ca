package structure

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// GLM is a model whose likelihood is one statement y ~ family(A z + c) with
// a linear predictor in the unconstrained latents z (a generalised linear
// model), as recognised by RecogniseGLM.
type GLM struct {
	Family *stdlib.Family
	Pos    lang.Pos
	Y      []float64
	N, D   int
	A      []float64 // N x D
	C      []float64 // N
	// PriorMean and PriorVar are the independent normal priors of the
	// latents, when every latent has one with constant arguments (nil
	// otherwise).
	PriorMean, PriorVar []float64
	PriorReason         string // why PriorMean is nil
}

// RecogniseGLM recognises a compiled model whose only likelihood statement
// is a data vector (or scalar) with a one-parameter distribution whose
// argument is linear in the latents: the recogniser behind EP (and the
// metric of cross-validation). The linear map is read off the compiled
// graph by evaluating the argument at 0 and at the unit vectors, and
// linearity is then verified at random points.
func RecogniseGLM(c *lower.Compiled) (*GLM, error) {
	m := c.Model
	var lik *lower.Factor
	for i := range c.Factors {
		f := &c.Factors[i]
		if f.Prior != nil {
			continue
		}
		if lik != nil && lik.Pos == f.Pos {
			return nil, fmt.Errorf("the likelihood statement at %s is in a loop (one term per iteration); a GLM has one vectorised statement", f.Pos)
		}
		if lik != nil {
			return nil, fmt.Errorf("the model has more than one likelihood statement (at %s and %s)", lik.Pos, f.Pos)
		}
		lik = f
	}
	if lik == nil {
		return nil, fmt.Errorf("the model has no likelihood statement (no data on the left of ~)")
	}
	if lik.Tilde == nil {
		return nil, fmt.Errorf("the likelihood at %s is not a ~ statement", lik.Pos)
	}
	family, args := lik.Tilde.Family, lik.Tilde.Args
	if len(args) != 2 {
		return nil, fmt.Errorf("the likelihood %s has %d parameters; a GLM has one (the linear predictor)", family.Name, len(args)-1)
	}
	for _, v := range m.Latents {
		if !v.Bij.Identity() || v.Special() {
			return nil, fmt.Errorf("latent %s is constrained; a GLM needs unconstrained coefficients", v.Name)
		}
	}
	d := m.LatentDim
	g := c.Graph()
	rows := d + 3
	c.Reserve(rows)
	z := make([]float64, rows*d)
	for j := 0; j < d; j++ {
		z[(j+1)*d+j] = 1
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for b := d + 1; b < rows; b++ {
		for j := 0; j < d; j++ {
			z[b*d+j] = 3 * rng.NormFloat64()
		}
	}
	lower.Load(c, z, rows)
	eta := args[1]
	g.ForwardNodes(g.Ancestors(eta), rows)
	y := g.Value(args[0], 0)
	n := len(y)
	at := func(b, i int) float64 {
		v := g.Value(eta, b)
		if len(v) == 1 {
			return v[0]
		}
		return v[i]
	}
	glm := &GLM{Family: family, Pos: lik.Pos, Y: append([]float64(nil), y...), N: n, D: d,
		A: make([]float64, n*d), C: make([]float64, n)}
	for i := 0; i < n; i++ {
		glm.C[i] = at(0, i)
		for j := 0; j < d; j++ {
			glm.A[i*d+j] = at(j+1, i) - glm.C[i]
		}
	}
	for b := d + 1; b < rows; b++ {
		for i := 0; i < n; i++ {
			want := glm.C[i]
			for j := 0; j < d; j++ {
				want += glm.A[i*d+j] * z[b*d+j]
			}
			got := at(b, i)
			if math.Abs(got-want) > 1e-8*(1+math.Abs(want)) {
				return nil, fmt.Errorf("the argument of %s at %s is not linear in the latents", family.Name, lik.Pos)
			}
		}
	}
	glm.PriorMean, glm.PriorVar, glm.PriorReason = normalPriors(c)
	return glm, nil
}

// normalPriors returns the means and variances of independent normal
// priors with constant arguments on every latent element.
func normalPriors(c *lower.Compiled) (mean, vr []float64, reason string) {
	d := c.Model.LatentDim
	mean, vr = make([]float64, d), make([]float64, d)
	seen := make([]bool, d)
	for i := range c.Factors {
		f := &c.Factors[i]
		if f.Prior == nil {
			continue
		}
		if !f.Tilde.Family.GaussianMoments {
			return nil, nil, fmt.Sprintf("the prior at %s is %s, not normal", f.Pos, f.Tilde.Family.Name)
		}
		args := f.Tilde.Args
		for _, a := range args[1:] {
			if !c.Graph().IsConst(a) {
				return nil, nil, fmt.Sprintf("the prior at %s has arguments that are not constants", f.Pos)
			}
		}
		mv, sv := c.Graph().Value(args[1], 0), c.Graph().Value(args[2], 0)
		for k, p := range f.Prior.LhsPos {
			if seen[p] {
				return nil, nil, "a latent has two priors"
			}
			seen[p] = true
			mean[p] = mv[min(k, len(mv)-1)]
			s := sv[min(k, len(sv)-1)]
			vr[p] = s * s
		}
	}
	for p, ok := range seen {
		if !ok {
			return nil, nil, fmt.Sprintf("latent %s has no prior", c.Model.LatentNames()[p])
		}
	}
	return mean, vr, ""
}
