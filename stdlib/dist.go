package stdlib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/mscppl/mscppl/stdlib/special"
	"gonum.org/v1/gonum/stat/distuv"
)

// Domain is the set of values a variable or a parameter may take.
type Domain int

const (
	RealLine    Domain = iota // any finite real
	Positive                  // > 0
	NonNegative               // >= 0
	Unit                      // in [0, 1] for probabilities (strictly inside for beta's x)
	Binary                    // 0 or 1
	NonNegInt                 // 0, 1, 2, ...
)

// ParamSpec names a parameter of a family and its domain.
type ParamSpec struct {
	Name   string
	Domain Domain
}

// Admits reports whether x is in the parameter's domain: the one rule that
// both y ~ NAME(...) (for constant arguments) and NAME_rng (at each draw)
// apply. A probability (Unit) may be 0 or 1, as the log densities allow.
func (p ParamSpec) Admits(x float64) bool { return p.Domain.contains(x, true) }

// Want says in words what Admits accepts ("positive", "between 0 and 1").
func (p ParamSpec) Want() string { return p.Domain.text(true) }

// CheckParams returns the index of the first parameter in p outside its
// domain, or not above the one it must exceed (Less), and what it must be
// ("positive", "greater than alpha (1)"); -1 when every one is valid.
func (f *Family) CheckParams(p []float64) (int, string) {
	for j, s := range f.Params {
		if !s.Admits(p[j]) {
			return j, s.Want()
		}
	}
	for _, l := range f.Less {
		if !(p[l[0]] < p[l[1]]) {
			return l[1], fmt.Sprintf("greater than %s (%g)", f.Params[l[0]].Name, p[l[0]])
		}
	}
	return -1, ""
}

// InSupport reports whether x is in the family's support (a beta's value
// strictly between 0 and 1).
func (f *Family) InSupport(x float64) bool { return f.Support.contains(x, false) }

// SupportText says in words what InSupport accepts.
func (f *Family) SupportText() string { return f.Support.text(false) }

func (d Domain) contains(x float64, closedUnit bool) bool {
	if math.IsNaN(x) {
		return false
	}
	switch d {
	case Positive:
		return x > 0
	case NonNegative:
		return x >= 0
	case Unit:
		if closedUnit {
			return x >= 0 && x <= 1
		}
		return x > 0 && x < 1
	case Binary:
		return x == 0 || x == 1
	case NonNegInt:
		return x >= 0 && x == math.Trunc(x)
	}
	return !math.IsInf(x, 0)
}

func (d Domain) text(closedUnit bool) string {
	switch d {
	case Positive:
		return "positive"
	case NonNegative:
		return "non-negative"
	case Unit:
		if closedUnit {
			return "between 0 and 1"
		}
		return "strictly between 0 and 1"
	case Binary:
		return "0 or 1"
	case NonNegInt:
		return "non-negative integers"
	}
	return "finite"
}

// Family is a distribution of the language: one entry of the registry of
// distributions, scalar or multivariate. Everything the language offers
// of it comes from this entry: y ~ NAME(params), NAME_lpdf (NAME_lpmf for
// discrete ones), NAME_lcdf and NAME_lccdf when it has them, NAME_rng for
// scalar ones, completion and the docs.
type Family struct {
	Name string
	// Doc is one line on the distribution (its parameterisation), for
	// completion help and the docs.
	Doc    string
	Params []ParamSpec
	// Less lists the pairs (i, j) of parameters that must satisfy
	// p[i] < p[j] beside their domains (uniform's alpha < beta); CheckParams
	// applies them with the domains.
	Less     [][2]int
	Support  Domain
	Discrete bool
	// GaussianMoments declares that the family is a Gaussian whose first
	// two parameters are its mean and standard deviation (normal). Structure
	// detection uses it: such a transition gets twisted Gaussian proposals,
	// and such priors have closed-form moments.
	GaussianMoments bool
	// LogPdf is log p(x | p). It is -Inf (never NaN) outside the support or
	// the parameters' domains; NaN only for NaN input.
	LogPdf func(x float64, p []float64) float64
	// Grad returns the log density and its derivative in x (0 for discrete
	// x) and writes the derivatives in the parameters into dp (0 for
	// integer parameters). Outside the domain: -Inf and zero gradients.
	Grad func(x float64, p []float64, dp []float64) (lp, dx float64)
	// Rand draws from the family.
	Rand func(r *rand.Rand, p []float64) float64
	// LogPdfSlice, when not nil, is the elementwise NAME_lpdf over slices
	// (NaryFunc.Slice): the bits of LogPdf, faster.
	LogPdfSlice func(out []float64, in [][]float64, buf []float64) bool
	// LogCDF and LogCCDF, when not nil, are NAME_lcdf and NAME_lccdf as
	// functions of (y, params...), and CDF is NAME_cdf, exp(LogCDF).
	// register fills them in from cdfSpecs (cdf.go) and moreCDFSpecs
	// (cdf_more.go).
	LogCDF, LogCCDF, CDF *NaryFunc

	// Vec, for a multivariate distribution (multi_normal, dirichlet,
	// categorical, ...), gives the shapes it takes and its log density op;
	// LogPdf, Grad and Rand are nil then.
	Vec *VecDensity
	// GLMOf, for the distribution of a generalised linear model
	// (normal_id_glm), names the family of y given its linear predictor:
	// y ~ NAME(X, alpha, beta, rest...) is y ~ GLMOf(alpha + X * beta,
	// rest...). LogPdf, Grad and Rand are nil then.
	GLMOf string

	density *NaryFunc // NAME_lpdf as a function of (y, params...)
}

// Shape is the shape of the value or of a parameter of a multivariate
// distribution, in terms of its size n.
type Shape int

const (
	ShapeScalar         Shape = iota // a real (or an int)
	ShapeInt                         // an int
	ShapeVector                      // a vector[n]
	ShapeVectorOrScalar              // a vector[n], or a scalar for all n elements
	ShapeSquare                      // a matrix[n, n]
)

// VecDensity is the multivariate part of a Family. Its size n is that of
// the first of the value and the parameters whose shape is ShapeVector or
// ShapeSquare; every vector and matrix among them must have that size.
type VecDensity struct {
	Value  Shape   // of y
	Params []Shape // one per Family.Params
	// Want says in words what the shapes are, for messages ("y is a
	// vector[n], mu a vector[n] (or a scalar) and L a matrix[n, n]").
	Want string
	// New returns the log density op for size n: in = [y, params...],
	// out = the log density (one scalar).
	New func(n int) VecOp
}

// Scalar reports whether f is a distribution of scalars (or of vectors
// elementwise), with LogPdf, Grad and Rand.
func (f *Family) Scalar() bool { return f.Vec == nil && f.GLMOf == "" }

// LogDensity is NAME_lpdf (NAME_lpmf) as a scalar function of (y,
// params...), nil for multivariate distributions.
func (f *Family) LogDensity() *NaryFunc { return f.density }

// DensityName is the name of the log density function: NAME_lpdf, or
// NAME_lpmf for a discrete distribution.
func (f *Family) DensityName() string {
	if f.Discrete {
		return f.Name + "_lpmf"
	}
	return f.Name + "_lpdf"
}

var families = map[string]*Family{}

// register adds a distribution to the registry.
func register(f *Family) {
	if _, dup := families[f.Name]; dup || f.Doc == "" {
		panic("stdlib: distribution " + f.Name + " registered twice or without Doc")
	}
	families[f.Name] = f
	if !f.Scalar() {
		return
	}
	f.density = densityFunc(f)
	for _, s := range cdfSpecs {
		if s.name == f.Name && f.LogCDF == nil {
			f.LogCDF, f.LogCCDF = cdfFunc(s, false), cdfFunc(s, true)
		}
	}
	for _, s := range moreCDFSpecs {
		if s.name == f.Name && f.LogCDF == nil {
			f.LogCDF, f.LogCCDF = cdfFunc(s, false), cdfFunc(s, true)
		}
	}
	if f.LogCDF != nil && f.CDF == nil {
		f.CDF = expCDF(f.Name+"_cdf", f.LogCDF)
	}
}

// Lookup finds a distribution by its name in the language.
func Lookup(name string) (*Family, bool) {
	f, ok := families[name]
	return f, ok
}

// FamilyNames lists the distributions, scalar and multivariate, sorted.
func FamilyNames() []string {
	out := make([]string, 0, len(families))
	for n := range families {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var negInf = math.Inf(-1)

func zero(dp []float64) {
	for i := range dp {
		dp[i] = 0
	}
}

func isNaN3(x float64, p []float64) bool {
	if math.IsNaN(x) {
		return true
	}
	for _, v := range p {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

func isInt(x float64) bool { return x == math.Trunc(x) && !math.IsInf(x, 0) }

func digamma(x float64) float64 { return special.Digamma(x) }

func lgamma(x float64) float64 { return special.Lgamma(x) }

// ---- continuous families ----------------------------------------------------

func normalGrad(x float64, p, dp []float64) (float64, float64) {
	mu, sd := p[0], p[1]
	if isNaN3(x, p) {
		zero(dp)
		return math.NaN(), math.NaN()
	}
	if !(sd > 0) || math.IsInf(sd, 0) || math.IsInf(x, 0) || math.IsInf(mu, 0) {
		zero(dp)
		return negInf, 0
	}
	z := (x - mu) / sd
	dp[0] = z / sd
	dp[1] = (z*z - 1) / sd
	return -0.5*z*z - math.Log(sd) - special.LnSqrt2Pi, -z / sd
}

func normalLogPdf(x float64, p []float64) float64 {
	mu, sd := p[0], p[1]
	if isNaN3(x, p) {
		return math.NaN()
	}
	if !(sd > 0) || math.IsInf(sd, 0) || math.IsInf(x, 0) || math.IsInf(mu, 0) {
		return negInf
	}
	z := (x - mu) / sd
	return -0.5*z*z - math.Log(sd) - special.LnSqrt2Pi
}

// normalLogPdfSlice is normalLogPdf elementwise for x of full length and
// a valid sd shared by all elements: log(sd) once instead of per element.
func normalLogPdfSlice(out []float64, in [][]float64, _ []float64) bool {
	x, mu, sd := in[0], in[1], in[2]
	if len(sd) != 1 || len(x) != len(out) {
		return false
	}
	s := sd[0]
	if !(s > 0) || math.IsInf(s, 0) {
		return false
	}
	c := math.Log(s)
	for i, xi := range x {
		mi := bc(mu, i)
		switch {
		case xi != xi || mi != mi:
			out[i] = math.NaN()
		case math.IsInf(xi, 0) || math.IsInf(mi, 0):
			out[i] = negInf
		default:
			z := (xi - mi) / s
			out[i] = -0.5*z*z - c - special.LnSqrt2Pi
		}
	}
	return true
}

func skewNormalLogPdf(x float64, p []float64) float64 {
	xi, om, al := p[0], p[1], p[2]
	if isNaN3(x, p) {
		return math.NaN()
	}
	if !(om > 0) || math.IsInf(om, 0) || math.IsInf(x, 0) || math.IsInf(xi, 0) || math.IsInf(al, 0) {
		return negInf
	}
	z := (x - xi) / om
	return math.Ln2 - math.Log(om) - 0.5*z*z - special.LnSqrt2Pi + special.LogPhi(al*z)
}

func skewNormalGrad(x float64, p, dp []float64) (float64, float64) {
	xi, om, al := p[0], p[1], p[2]
	if isNaN3(x, p) {
		zero(dp)
		return math.NaN(), math.NaN()
	}
	if !(om > 0) || math.IsInf(om, 0) || math.IsInf(x, 0) || math.IsInf(xi, 0) || math.IsInf(al, 0) {
		zero(dp)
		return negInf, 0
	}
	z := (x - xi) / om
	m := special.InvMills(al * z)
	dz := -z + al*m
	dx := dz / om
	dp[0] = -dx
	dp[1] = (-1 - z*dz) / om
	dp[2] = z * m
	return math.Ln2 - math.Log(om) - 0.5*z*z - special.LnSqrt2Pi + special.LogPhi(al*z), dx
}

func init() {
	register(&Family{
		Name: "normal", Doc: "the normal distribution", Params: []ParamSpec{{"mean", RealLine}, {"sd", Positive}}, Support: RealLine,
		LogCDF: NormalLcdfFunc, LogCCDF: NormalLccdfFunc,
		GaussianMoments: true,
		LogPdf:          normalLogPdf,
		LogPdfSlice:     normalLogPdfSlice,
		Grad:            normalGrad,
		Rand:            func(r *rand.Rand, p []float64) float64 { return p[0] + p[1]*r.NormFloat64() },
	})
	register(&Family{
		Name: "half_normal", Doc: "|x| for x ~ normal(0, sd), on x >= 0", Params: []ParamSpec{{"sd", Positive}}, Support: NonNegative,
		LogPdf: logPdfFromGrad(halfNormalGrad),
		Grad:   halfNormalGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return math.Abs(p[0] * r.NormFloat64()) },
	})
	register(&Family{
		Name: "lognormal", Doc: "exp(x) for x ~ normal(mu, sigma)", Params: []ParamSpec{{"mu", RealLine}, {"sigma", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(lognormalGrad),
		Grad:   lognormalGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return math.Exp(p[0] + p[1]*r.NormFloat64()) },
	})
	register(&Family{
		Name: "exponential", Doc: "density rate exp(-rate y) on y >= 0", Params: []ParamSpec{{"rate", Positive}}, Support: NonNegative,
		LogPdf: logPdfFromGrad(exponentialGrad),
		Grad:   exponentialGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return r.ExpFloat64() / p[0] },
	})
	register(&Family{
		Name: "gamma", Doc: "the gamma distribution (Stan's shape and rate)", Params: []ParamSpec{{"shape", Positive}, {"rate", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(gammaGrad),
		Grad:   gammaGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return distuv.Gamma{Alpha: p[0], Beta: p[1], Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "beta", Doc: "the beta distribution on (0, 1)", Params: []ParamSpec{{"a", Positive}, {"b", Positive}}, Support: Unit,
		LogPdf: logPdfFromGrad(betaGrad),
		Grad:   betaGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return distuv.Beta{Alpha: p[0], Beta: p[1], Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "student_t", Doc: "Student's t with nu degrees of freedom", Params: []ParamSpec{{"nu", Positive}, {"loc", RealLine}, {"scale", Positive}}, Support: RealLine,
		LogPdf: logPdfFromGrad(studentGrad),
		Grad:   studentGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return p[1] + p[2]*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: p[0], Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "cauchy", Doc: "the Cauchy distribution", Params: []ParamSpec{{"loc", RealLine}, {"scale", Positive}}, Support: RealLine,
		LogPdf: logPdfFromGrad(cauchyGrad),
		Grad:   cauchyGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] + p[1]*math.Tan(math.Pi*(r.Float64()-0.5)) },
	})
	register(&Family{
		Name: "skew_normal", Doc: "the skew normal of location xi, scale omega and shape alpha", Params: []ParamSpec{{"xi", RealLine}, {"omega", Positive}, {"alpha", RealLine}}, Support: RealLine,
		LogPdf: skewNormalLogPdf,
		Grad:   skewNormalGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			d := p[2] / math.Sqrt(1+p[2]*p[2])
			u0, v := r.NormFloat64(), r.NormFloat64()
			return p[0] + p[1]*(d*math.Abs(u0)+math.Sqrt(1-d*d)*v)
		},
	})
	register(&Family{
		Name: "bernoulli", Doc: "1 with probability p, else 0", Params: []ParamSpec{{"p", Unit}}, Support: Binary, Discrete: true,
		LogPdf: logPdfFromGrad(bernoulliGrad),
		Grad:   bernoulliGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return b2f(r.Float64() < p[0]) },
	})
	register(&Family{
		Name: "bernoulli_logit", Doc: "bernoulli(inv_logit(eta))", Params: []ParamSpec{{"eta", RealLine}}, Support: Binary, Discrete: true,
		LogPdf: logPdfFromGrad(bernoulliLogitGrad),
		Grad:   bernoulliLogitGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return b2f(r.Float64() < special.InvLogit(p[0])) },
	})
	register(&Family{
		Name: "bernoulli_probit", Doc: "bernoulli(Phi(eta))", Params: []ParamSpec{{"eta", RealLine}}, Support: Binary, Discrete: true,
		LogPdf: logPdfFromGrad(bernoulliProbitGrad),
		Grad:   bernoulliProbitGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return b2f(r.Float64() < special.Phi(p[0])) },
	})
	register(&Family{
		Name: "binomial", Doc: "successes in n trials of probability p", Params: []ParamSpec{{"n", NonNegInt}, {"p", Unit}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(binomialGrad),
		Grad:   binomialGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return distuv.Binomial{N: p[0], P: p[1], Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "poisson", Doc: "the Poisson distribution", Params: []ParamSpec{{"rate", NonNegative}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(poissonGrad),
		Grad:   poissonGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			if p[0] == 0 {
				return 0
			}
			return distuv.Poisson{Lambda: p[0], Src: r}.Rand()
		},
	})
}

// logPdfFromGrad makes a log density out of a gradient function, for the
// families whose log density is not on a hot path (at most 4 parameters).
func logPdfFromGrad(g func(x float64, p, dp []float64) (float64, float64)) func(float64, []float64) float64 {
	return func(x float64, p []float64) float64 {
		var dp [4]float64
		lp, _ := g(x, p, dp[:len(p)])
		return lp
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func bad(x float64, p, dp []float64) (float64, float64, bool) {
	zero(dp)
	if isNaN3(x, p) {
		return math.NaN(), math.NaN(), true
	}
	return negInf, 0, true
}

func halfNormalGrad(x float64, p, dp []float64) (float64, float64) {
	sd := p[0]
	if isNaN3(x, p) || !(sd > 0) || math.IsInf(sd, 0) || x < 0 || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	z := x / sd
	dp[0] = (z*z - 1) / sd
	return math.Ln2 - 0.5*z*z - math.Log(sd) - special.LnSqrt2Pi, -z / sd
}

func lognormalGrad(x float64, p, dp []float64) (float64, float64) {
	mu, s := p[0], p[1]
	if isNaN3(x, p) || !(s > 0) || math.IsInf(s, 0) || math.IsInf(mu, 0) || !(x > 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lx := math.Log(x)
	u := (lx - mu) / s
	dp[0] = u / s
	dp[1] = (u*u - 1) / s
	return -0.5*u*u - math.Log(s) - special.LnSqrt2Pi - lx, (-u/s - 1) / x
}

func exponentialGrad(x float64, p, dp []float64) (float64, float64) {
	rate := p[0]
	if isNaN3(x, p) || !(rate > 0) || math.IsInf(rate, 0) || x < 0 || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	dp[0] = 1/rate - x
	return math.Log(rate) - rate*x, -rate
}

func gammaGrad(x float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if isNaN3(x, p) || !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) || !(x > 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lx := math.Log(x)
	dp[0] = math.Log(b) - digamma(a) + lx
	dp[1] = a/b - x
	return a*math.Log(b) - lgamma(a) + (a-1)*lx - b*x, (a-1)/x - b
}

func betaGrad(x float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if isNaN3(x, p) || !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) || !(x > 0 && x < 1) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lx, l1x := math.Log(x), math.Log1p(-x)
	dab := digamma(a + b)
	dp[0] = lx - digamma(a) + dab
	dp[1] = l1x - digamma(b) + dab
	return (a-1)*lx + (b-1)*l1x - (lgamma(a) + lgamma(b) - lgamma(a+b)), (a-1)/x - (b-1)/(1-x)
}

func studentGrad(x float64, p, dp []float64) (float64, float64) {
	nu, loc, sc := p[0], p[1], p[2]
	if isNaN3(x, p) || !(nu > 0) || !(sc > 0) || math.IsInf(nu, 0) || math.IsInf(sc, 0) || math.IsInf(loc, 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	z := (x - loc) / sc
	l1 := math.Log1p(z * z / nu)
	dz := -(nu + 1) * z / (nu + z*z)
	dx := dz / sc
	dp[0] = 0.5*digamma((nu+1)/2) - 0.5*digamma(nu/2) - 0.5/nu - 0.5*l1 + (nu+1)*z*z/(2*nu*(nu+z*z))
	dp[1] = -dx
	dp[2] = (-1 - z*dz) / sc
	return lgamma((nu+1)/2) - lgamma(nu/2) - 0.5*math.Log(nu*math.Pi) - math.Log(sc) - (nu+1)/2*l1, dx
}

func cauchyGrad(x float64, p, dp []float64) (float64, float64) {
	loc, sc := p[0], p[1]
	if isNaN3(x, p) || !(sc > 0) || math.IsInf(sc, 0) || math.IsInf(loc, 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	z := (x - loc) / sc
	dz := -2 * z / (1 + z*z)
	dx := dz / sc
	dp[0] = -dx
	dp[1] = (-1 - z*dz) / sc
	return -math.Log(math.Pi) - math.Log(sc) - math.Log1p(z*z), dx
}

func bernoulliGrad(x float64, p, dp []float64) (float64, float64) {
	pr := p[0]
	if isNaN3(x, p) || !(pr >= 0 && pr <= 1) || !(x == 0 || x == 1) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	if x == 1 {
		dp[0] = 1 / pr
		return math.Log(pr), 0
	}
	dp[0] = -1 / (1 - pr)
	return math.Log1p(-pr), 0
}

func bernoulliLogitGrad(x float64, p, dp []float64) (float64, float64) {
	eta := p[0]
	if isNaN3(x, p) || !(x == 0 || x == 1) || math.IsInf(eta, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	if x == 1 {
		dp[0] = special.InvLogit(-eta)
		return special.LogInvLogit(eta), 0
	}
	dp[0] = -special.InvLogit(eta)
	return special.LogInvLogit(-eta), 0
}

func bernoulliProbitGrad(x float64, p, dp []float64) (float64, float64) {
	eta := p[0]
	if isNaN3(x, p) || !(x == 0 || x == 1) || math.IsInf(eta, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	if x == 1 {
		dp[0] = special.InvMills(eta)
		return special.LogPhi(eta), 0
	}
	dp[0] = -special.InvMills(-eta)
	return special.LogPhi(-eta), 0
}

func binomialGrad(x float64, p, dp []float64) (float64, float64) {
	n, pr := p[0], p[1]
	if isNaN3(x, p) || !(n >= 0) || !isInt(n) || !(pr >= 0 && pr <= 1) || !(x >= 0 && x <= n) || !isInt(x) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	dp[0] = 0
	lc := lgamma(n+1) - lgamma(x+1) - lgamma(n-x+1)
	lp := lc
	d := 0.0
	if x > 0 {
		lp += x * math.Log(pr)
		d += x / pr
	}
	if n-x > 0 {
		lp += (n - x) * math.Log1p(-pr)
		d -= (n - x) / (1 - pr)
	}
	dp[1] = d
	return lp, 0
}

func poissonGrad(x float64, p, dp []float64) (float64, float64) {
	rate := p[0]
	if isNaN3(x, p) || !(rate >= 0) || math.IsInf(rate, 0) || !(x >= 0) || !isInt(x) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	if rate == 0 {
		dp[0] = 0
		if x == 0 {
			return 0, 0
		}
		return negInf, 0
	}
	dp[0] = x/rate - 1
	return x*math.Log(rate) - rate - lgamma(x+1), 0
}
