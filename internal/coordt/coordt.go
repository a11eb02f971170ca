package coordt

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// T is the second opinion's heavy-tailed proposal: x = mean + L z
// with L the Cholesky factor of a covariance and the coordinates of z
// independent Student-t's with df degrees of freedom and scale s. Unlike
// a multivariate Student-t, whose draws in the tails are far out in every
// direction at once (in 30 dimensions almost all of them are then where
// the posterior has no mass), its draws are typical in all but a few
// whitened directions and far out in those: they reach a tail the
// posterior has in one direction (a scale near zero) at weights that
// count.
type T struct {
	d        int
	mean     []float64
	l        []float64 // lower-triangular, row-major
	df, s    float64
	logNorm  float64 // the normaliser of one coordinate's density
	logDetL  float64
	scratchZ []float64
}

// New returns the proposal with the given mean and covariance (nil
// when the covariance is not positive definite).
func New(mean, cov []float64, df, sd float64) *T {
	d := len(mean)
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(d, append([]float64(nil), cov...))) {
		return nil
	}
	var lt mat.TriDense
	ch.LTo(&lt)
	c := &T{d: d, mean: append([]float64(nil), mean...), l: make([]float64, d*d), df: df,
		// the scale that gives each coordinate the sd sd
		s: sd * math.Sqrt((df-2)/df), scratchZ: make([]float64, d)}
	for i := range d {
		for j := 0; j <= i; j++ {
			c.l[i*d+j] = lt.At(i, j)
		}
		c.logDetL += math.Log(c.l[i*d+i])
	}
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg0, _ := math.Lgamma(df / 2)
	c.logNorm = lg1 - lg0 - 0.5*math.Log(df*math.Pi) - math.Log(c.s)
	return c
}

func (c *T) Dim() int { return c.d }

// Sample draws len(z)/d rows; eps receives the coordinates of each row.
func (c *T) Sample(rng *rand.Rand, z, eps []float64) {
	d := c.d
	for r := 0; r+d <= len(z); r += d {
		e := eps[r : r+d]
		for k := range e {
			chi := 0.0
			for range int(c.df) {
				n := rng.NormFloat64()
				chi += n * n
			}
			e[k] = c.s * rng.NormFloat64() / math.Sqrt(chi/c.df)
		}
		row := z[r : r+d]
		for i := range d {
			v := c.mean[i]
			for j := 0; j <= i; j++ {
				v += c.l[i*d+j] * e[j]
			}
			row[i] = v
		}
	}
}

// LogQ is the log density at one row.
func (c *T) LogQ(x []float64) float64 {
	d, z := c.d, c.scratchZ
	for i := range d {
		v := x[i] - c.mean[i]
		for j := range i {
			v -= c.l[i*d+j] * z[j]
		}
		z[i] = v / c.l[i*d+i]
	}
	return c.logDensity(z) - c.logDetL
}

// LogQNoise is LogQ from the coordinates Sample wrote.
func (c *T) LogQNoise(_, eps []float64) float64 { return c.logDensity(eps) - c.logDetL }

func (c *T) logDensity(z []float64) float64 {
	l := 0.0
	for _, v := range z {
		u := v / c.s
		l += c.logNorm - (c.df+1)/2*math.Log1p(u*u/c.df)
	}
	return l
}

// Moments writes the mean and the marginal sds (the coordinates have
// variance s^2 df/(df-2)).
func (c *T) Moments(mean, sd []float64) {
	copy(mean, c.mean)
	v := c.s * c.s * c.df / (c.df - 2)
	d := c.d
	for i := range d {
		ss := 0.0
		for j := 0; j <= i; j++ {
			ss += c.l[i*d+j] * c.l[i*d+j]
		}
		sd[i] = math.Sqrt(ss * v)
	}
}
