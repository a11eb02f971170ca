package kalman

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Case is a simulated data set with its mscppl model and the exact
// posterior summaries the engine's answers are checked against.
type Case struct {
	// Name is the base name of the case's files in testdata: Name.msc
	// (Model), Name.csv (Data) and Name_exact.csv (WriteExact).
	Name  string
	Model string // the mscppl model text
	// Y is the observed series, the data file's only column "y".
	Y []float64
	// Truth holds the values the data were simulated with (the statics
	// and the states, "x[1]", ..., or "level[1]", ...).
	Truth map[string]float64
	// Params are the static parameters' exact posterior summaries (at the
	// quantile levels Probs); none when the statics are known.
	Params []ParamSummary
	Probs  []float64
	// States are the exact posterior means and sds of every state series.
	States []StateSummary
	// Grid is the grid that gave Params and States (nil for a case
	// without unknown statics), so that tests can refine it.
	Grid *Grid
	// Resolution documents the grid's numerical error.
	Resolution string
}

// StateSummary is one state series' exact posterior: Mean[t-1] and
// SD[t-1] at time t.
type StateSummary struct {
	Name     string // "x", "level", "slope"
	Mean, SD []float64
	// Col, when not 0, is the state's column in a matrix[T, K] Name,
	// whose element at time t is named Name[t,Col].
	Col int
}

// ElemName is the name of the state's element at time t (from 1).
func (s StateSummary) ElemName(t int) string {
	if s.Col > 0 {
		return fmt.Sprintf("%s[%d,%d]", s.Name, t, s.Col)
	}
	return fmt.Sprintf("%s[%d]", s.Name, t)
}

// Seeds of the simulations (math/rand/v2's PCG, stream 1). The data files
// in testdata are the source of truth: TestCaseFiles checks that the
// simulations still reproduce them.
const (
	seedAR1       = 20260101
	seedTrend     = 20260102
	seedLevel     = 20260103
	seedLevel1000 = 20260104
)

// AR1NoiseModel is case (a) in mscppl.
const AR1NoiseModel = `// Bayesian AR(1) plus noise (internal/kalman.AR1Noise): exact posterior by
// a 300 x 300 grid over (phi, s) with the Kalman filter and smoother.
data { y: vector[T] }
latent {
  phi: real<lower=-1, upper=1>
  s: real<lower=0>
  x: vector[T]
}
model {
  phi ~ uniform(-1, 1)
  s ~ normal(0, 1)
  x[1] ~ normal(0, s / sqrt(1 - phi^2))
  for t in 2..T {
    x[t] ~ normal(phi * x[t-1], s)
  }
  y ~ normal(x, 1)
}
`

// AR1Noise is case (a), the Bayesian AR(1) plus noise: phi ~ uniform(-1,
// 1), s ~ half-normal(0, 1), x_1 ~ N(0, s^2 / (1 - phi^2)), x_t ~ N(phi
// x_{t-1}, s^2), y_t ~ N(x_t, 1), T = 200, simulated with phi = 0.9 and
// s = 0.5. The exact posterior is a 300 x 300 midpoint grid over phi in
// [-0.2, 1] and s in [0, 1.8] (natural scales; the mass outside is below
// 1e-15).
func AR1Noise() (*Case, error) { return ar1Noise(300, false) }

func ar1Noise(n int, noStates bool) (*Case, error) {
	const T = 200
	phi, s := 0.9, 0.5
	rng := rand.New(rand.NewPCG(seedAR1, 1))
	truth := map[string]float64{"phi": phi, "s": s}
	y := make([]float64, T)
	x := s / math.Sqrt(1-phi*phi) * rng.NormFloat64()
	for t := range T {
		if t > 0 {
			x = phi*x + s*rng.NormFloat64()
		}
		truth[fmt.Sprintf("x[%d]", t+1)] = x
		y[t] = x + rng.NormFloat64()
	}
	g := &Grid{
		Axes: []Axis{{Name: "phi", Lo: -0.2, Hi: 1, N: n}, {Name: "s", Lo: 0, Hi: 1.8, N: n}},
		Model: func(th []float64) (Model, error) {
			phi, s := th[0], th[1]
			return ScalarModel(0, s*s/(1-phi*phi), phi, s*s, 1, 1), nil
		},
		// uniform(-1, 1) and half-normal(0, 1), up to constants.
		LogPrior: func(th []float64) float64 { return -0.5 * th[1] * th[1] },
		NoStates: noStates,
	}
	c := &Case{Name: "ar1_noise", Model: AR1NoiseModel, Y: y, Truth: truth, Grid: g,
		Resolution: "the grid twice as fine (600 x 600) moves no mean, sd or quantile by more than 1e-4 posterior sd (TestCaseResolution)"}
	return c, c.solveGrid([]string{"x"})
}

// LocalLinearTrendModel is case (b) in mscppl.
const LocalLinearTrendModel = `// Local linear trend with known variances (internal/kalman.LocalLinearTrend):
// exact smoothing means and sds by the Kalman smoother. The initial level's
// prior is centred at the first observation.
data { y: vector[T] }
latent {
  level: vector[T]
  slope: vector[T]
}
model {
  level[1] ~ normal(y[1], 10)
  slope[1] ~ normal(0, 1)
  for t in 2..T {
    level[t] ~ normal(level[t-1] + slope[t-1], 0.3)
    slope[t] ~ normal(slope[t-1], 0.05)
  }
  y ~ normal(level, 1)
}
`

// LocalLinearTrend is case (b): level_t = level_{t-1} + slope_{t-1} +
// N(0, 0.3^2), slope_t = slope_{t-1} + N(0, 0.05^2), y_t = level_t +
// N(0, 1), T = 100, with the diffuse-but-proper initial distribution
// level_1 ~ N(y_1, 10^2), slope_1 ~ N(0, 1) (independent), simulated from
// level_1 = 5, slope_1 = 0.2. The answer is the Kalman smoother's (exact to
// rounding).
func LocalLinearTrend() (*Case, error) {
	const T = 100
	sl, ss, so := 0.3, 0.05, 1.0
	rng := rand.New(rand.NewPCG(seedTrend, 1))
	truth := map[string]float64{}
	y := make([]float64, T)
	level, slope := 5.0, 0.2
	for t := range T {
		if t > 0 {
			level, slope = level+slope+sl*rng.NormFloat64(), slope+ss*rng.NormFloat64()
		}
		truth[fmt.Sprintf("level[%d]", t+1)] = level
		truth[fmt.Sprintf("slope[%d]", t+1)] = slope
		y[t] = level + so*rng.NormFloat64()
	}
	m := Model{
		M0: mat.NewVecDense(2, []float64{y[0], 0}),
		P0: mat.NewSymDense(2, []float64{100, 0, 0, 1}),
		F:  mat.NewDense(2, 2, []float64{1, 1, 0, 1}),
		Q:  mat.NewSymDense(2, []float64{sl * sl, 0, 0, ss * ss}),
		H:  mat.NewDense(1, 2, []float64{1, 0}),
		R:  mat.NewSymDense(1, []float64{so * so}),
	}
	res, err := Smooth(m, Scalar(y))
	if err != nil {
		return nil, err
	}
	c := &Case{Name: "local_linear_trend", Model: LocalLinearTrendModel, Y: y, Truth: truth,
		Resolution: "exact (Kalman smoother; checked against dense Gaussian algebra)"}
	for i, name := range []string{"level", "slope"} {
		st := StateSummary{Name: name, Mean: make([]float64, T), SD: make([]float64, T)}
		for t := range T {
			st.Mean[t] = res.SmoothMean[t].AtVec(i)
			st.SD[t] = math.Sqrt(res.SmoothCov[t].At(i, i))
		}
		c.States = append(c.States, st)
	}
	return c, nil
}

// LocalLevelModel is case (c) in mscppl.
const LocalLevelModel = `// Local level with both variances latent (internal/kalman.LocalLevel): exact
// posterior by a 300 x 300 grid over (sq, sr) with the Kalman filter and
// smoother.
data { y: vector[T] }
latent {
  sq: real<lower=0>
  sr: real<lower=0>
  x: vector[T]
}
model {
  sq ~ normal(0, 1)
  sr ~ normal(0, 1)
  x[1] ~ normal(0, 10)
  for t in 2..T {
    x[t] ~ normal(x[t-1], sq)
  }
  y ~ normal(x, sr)
}
`

// LocalLevel is case (c), the local level model with both variances
// latent: sq, sr ~ half-normal(0, 1), x_1 ~ N(0, 10^2), x_t ~ N(x_{t-1},
// sq^2), y_t ~ N(x_t, sr^2), T = 100, simulated with sq = 0.5, sr = 1 (and
// x_1 drawn from its prior). The exact posterior is a 300 x 300 midpoint
// grid over sq and sr in [0, 2.2] (natural scales; the mass outside is
// below 1e-15).
func LocalLevel() (*Case, error) { return localLevel(300, false) }

func localLevel(n int, noStates bool) (*Case, error) {
	rng := rand.New(rand.NewPCG(seedLevel, 1))
	return levelCase(levelSpec{name: "local_level", model: LocalLevelModel, sq: 0.5, sr: 1, x1: 10 * rng.NormFloat64(),
		m0: 0, p0: 100, prior: 1, hi: 2.2,
		resolution: "the grid twice as fine (600 x 600) moves no mean, sd or quantile by more than 1e-4 posterior sd (TestCaseResolution)"},
		rng, n, noStates)
}

// levelSpec is a local level case: its name and model text, the true sds
// and first state it is simulated from (T = 100), x_1's prior N(m0, p0),
// the half-normal(0, prior) priors of both sds and the grid's upper end
// hi for both.
type levelSpec struct {
	name, model, resolution string
	sq, sr, x1, m0, p0      float64
	prior, hi               float64
}

// levelCase simulates the local level of spec with rng and solves its grid
// of n x n points.
func levelCase(spec levelSpec, rng *rand.Rand, n int, noStates bool) (*Case, error) {
	const T = 100
	truth := map[string]float64{"sq": spec.sq, "sr": spec.sr}
	y := make([]float64, T)
	x := spec.x1
	for t := range T {
		if t > 0 {
			x += spec.sq * rng.NormFloat64()
		}
		truth[fmt.Sprintf("x[%d]", t+1)] = x
		y[t] = x + spec.sr*rng.NormFloat64()
	}
	v := spec.prior * spec.prior
	g := &Grid{
		Axes: []Axis{{Name: "sq", Lo: 0, Hi: spec.hi, N: n}, {Name: "sr", Lo: 0, Hi: spec.hi, N: n}},
		Model: func(th []float64) (Model, error) {
			return ScalarModel(spec.m0, spec.p0, 1, th[0]*th[0], 1, th[1]*th[1]), nil
		},
		// Two half-normal(0, prior), up to constants.
		LogPrior: func(th []float64) float64 { return -0.5 * (th[0]*th[0] + th[1]*th[1]) / v },
		NoStates: noStates,
	}
	c := &Case{Name: spec.name, Model: spec.model, Y: y, Truth: truth, Grid: g, Resolution: spec.resolution}
	return c, c.solveGrid([]string{"x"})
}

// LocalLevel1000Model is case (d) in mscppl: case (c) at the scale of real
// data (a Nile-like series).
const LocalLevel1000Model = `// Local level at the scale of real data (internal/kalman.LocalLevel1000): a
// series around 1000 with both sds latent; exact posterior by a 300 x 300
// grid over (sq, sr) with the Kalman filter and smoother.
data { y: vector[T] }
latent {
  sq: real<lower=0>
  sr: real<lower=0>
  x: vector[T]
}
model {
  sq ~ normal(0, 200)
  sr ~ normal(0, 200)
  x[1] ~ normal(1000, 500)
  for t in 2..T {
    x[t] ~ normal(x[t-1], sq)
  }
  y ~ normal(x, sr)
}
`

// LocalLevel1000 is case (d), the local level of case (c) at the scale of
// real data (issue 33's Nile-like series): sq, sr ~ half-normal(0, 200),
// x_1 ~ N(1000, 500^2), x_t ~ N(x_{t-1}, sq^2), y_t ~ N(x_t, sr^2),
// T = 100, simulated with sq = 40, sr = 100 and x_1 = 1000. The exact
// posterior is a 300 x 300 midpoint grid over sq in [0, 250] and sr in
// [0, 250].
func LocalLevel1000() (*Case, error) { return localLevel1000(300, false) }

func localLevel1000(n int, noStates bool) (*Case, error) {
	return levelCase(levelSpec{name: "local_level_1000", model: LocalLevel1000Model, sq: 40, sr: 100, x1: 1000,
		m0: 1000, p0: 500 * 500, prior: 200, hi: 250,
		resolution: "the grid at 150 x 150 moves no mean, sd or quantile by more than 1e-3 posterior sd (TestCaseResolution)"},
		rand.New(rand.NewPCG(seedLevel1000, 1)), n, noStates)
}

// solveGrid fills Params, Probs and States from c.Grid on c.Y.
func (c *Case) solveGrid(stateNames []string) error {
	post, err := c.Grid.Posterior(Scalar(c.Y))
	if err != nil {
		return fmt.Errorf("%s: %v", c.Name, err)
	}
	c.Params, c.Probs = post.Params, post.Probs
	c.States = nil
	if c.Grid.NoStates {
		return nil
	}
	for i, name := range stateNames {
		st := StateSummary{Name: name, Mean: make([]float64, len(c.Y)), SD: make([]float64, len(c.Y))}
		for t := range c.Y {
			st.Mean[t] = post.StateMean[t][i]
			st.SD[t] = post.StateSD[t][i]
		}
		c.States = append(c.States, st)
	}
	return nil
}

// Cases returns the four ready-made cases.
func Cases() ([]*Case, error) {
	var out []*Case
	for _, f := range []func() (*Case, error){AR1Noise, LocalLinearTrend, LocalLevel, LocalLevel1000} {
		c, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// WriteData writes the data file: a column "y", each value in the
// shortest form that reads back as the same float64.
func (c *Case) WriteData(w io.Writer) error {
	var sb strings.Builder
	sb.WriteString("y\n")
	for _, v := range c.Y {
		sb.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		sb.WriteByte('\n')
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteExact writes the exact answer in the reference format of
// examples/reference: name,mean,sd,q05,q50,q95, one row per static
// parameter and per state element ("x[1]", ...); the states' quantiles
// are NA (their posterior is a mixture of normals over the statics).
func (c *Case) WriteExact(w io.Writer) error {
	var sb strings.Builder
	sb.WriteString("name,mean,sd,q05,q50,q95\n")
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, p := range c.Params {
		fmt.Fprintf(&sb, "%s,%s,%s", p.Name, num(p.Mean), num(p.SD))
		for _, want := range []float64{0.05, 0.5, 0.95} {
			q := "NA"
			for k, pr := range c.Probs {
				if pr == want {
					q = num(p.Quantiles[k])
				}
			}
			sb.WriteString("," + q)
		}
		sb.WriteByte('\n')
	}
	for _, st := range c.States {
		for t := range st.Mean {
			name := st.ElemName(t + 1)
			if st.Col > 0 {
				name = `"` + name + `"` // a CSV field with a comma
			}
			fmt.Fprintf(&sb, "%s,%s,%s,NA,NA,NA\n", name, num(st.Mean[t]), num(st.SD[t]))
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteFiles writes Name.msc, Name.csv and Name_exact.csv into dir.
func (c *Case) WriteFiles(dir string) error {
	for _, f := range []struct {
		suffix string
		write  func(io.Writer) error
	}{
		{".msc", func(w io.Writer) error { _, err := io.WriteString(w, c.Model); return err }},
		{".csv", c.WriteData},
		{"_exact.csv", c.WriteExact},
	} {
		var sb strings.Builder
		if err := f.write(&sb); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, c.Name+f.suffix), []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadData reads the column y of a case's data file (WriteData's format).
func ReadData(path string) ([]float64, error) {
	rows, err := readRows(path)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows[0]) == 0 || rows[0][0] != "y" {
		return nil, fmt.Errorf("%s: the header is not y", path)
	}
	y := make([]float64, 0, len(rows)-1)
	for i, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %v", path, i+2, err)
		}
		y = append(y, v)
	}
	return y, nil
}

// ReadExact reads the mean and sd of every name of a reference file in
// WriteExact's format (name,mean,sd,...; examples/reference's too).
func ReadExact(path string) (map[string][2]float64, error) {
	rows, err := readRows(path)
	if err != nil {
		return nil, err
	}
	out := map[string][2]float64{}
	for i, r := range rows[1:] {
		if len(r) < 3 {
			return nil, fmt.Errorf("%s: row %d has %d fields", path, i+2, len(r))
		}
		m, err1 := strconv.ParseFloat(r[1], 64)
		s, err2 := strconv.ParseFloat(r[2], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: row %d: mean %q, sd %q", path, i+2, r[1], r[2])
		}
		out[r[0]] = [2]float64{m, s}
	}
	return out, nil
}

func readRows(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	return r.ReadAll()
}
