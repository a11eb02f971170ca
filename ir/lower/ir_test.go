package lower

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/internal/irtest"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

func compile(t testing.TB, src, csv string) *Compiled {
	t.Helper()
	return compileWith(t, src, csv, CompileOptions{})
}

// parseBuild parses src as m.msc and binds it to the CSV text csv ("" for no
// data file).
func parseBuild(t testing.TB, src, csv string) (*lang.File, *ir.Model) {
	t.Helper()
	return irtest.ParseBuild(t, src, csv)
}

// compileWith is compile with options.
func compileWith(t testing.TB, src, csv string, opt CompileOptions) *Compiled {
	t.Helper()
	_, m := parseBuild(t, src, csv)
	c, err := Compile(m, opt)
	require.NoError(t, err)
	return c
}

func buildErr(t *testing.T, src, csv string) string {
	t.Helper()
	f, err := lang.Parse("m.msc", []byte(src))
	require.NoError(t, err)
	var table *dataset.Table
	if csv != "" {
		table, err = dataset.Read("d.csv", strings.NewReader(csv))
		require.NoError(t, err)
	}
	m, err := check.Build(f, table)
	if err == nil {
		_, err = Compile(m, CompileOptions{})
	}
	require.Error(t, err)
	return err.Error()
}

func logNormal(x, m, s float64) float64 {
	z := (x - m) / s
	return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
}

func TestLogJointClosedForm(t *testing.T) {
	c := compile(t, "data { x: vector[N] }\nlatent { z: real }\nmodel {\n z ~ normal(0, 1)\n x ~ normal(z, 1)\n}\n", "x\n1.5\n-0.3\n2\n")
	zs := []float64{0.3, -1.2, 4}
	out := make([]float64, 3)
	c.LogJoint(zs, out)
	for b, z := range zs {
		want := logNormal(z, 0, 1) + logNormal(1.5, z, 1) + logNormal(-0.3, z, 1) + logNormal(2, z, 1)
		require.InDelta(t, want, out[b], 1e-12)
	}
}

func TestConstrainedLatentJacobian(t *testing.T) {
	// s ~ exponential(2) on s = exp(u): log p(u) = log 2 - 2 e^u + u
	// r in (0, 1): r = inv_logit(v), r ~ beta(2, 3): + log r + log(1-r)
	c := compile(t, "latent {\n s: real<lower=0>\n r: real<lower=0, upper=1>\n}\nmodel {\n s ~ exponential(2)\n r ~ beta(2, 3)\n}\n", "")
	u, v := 0.4, -0.7
	var out [1]float64
	c.LogJoint([]float64{u, v}, out[:])
	r := 1 / (1 + math.Exp(-v))
	want := math.Log(2) - 2*math.Exp(u) + u + math.Log(12) + math.Log(r) + 2*math.Log(1-r) + math.Log(r) + math.Log(1-r)
	require.InDelta(t, want, out[0], 1e-12)
	x := make([]float64, 2)
	c.Constrain([]float64{u, v}, x)
	require.InDelta(t, math.Exp(u), x[0], 1e-12)
	require.InDelta(t, r, x[1], 1e-12)
}

// TestBatchMatchesOneAtATime: the batched evaluation (one matrix product
// for all rows) equals evaluating each row alone, on the probit model.
func TestBatchMatchesOneAtATime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("y,a,b,c\n")
	for i := 0; i < 40; i++ {
		b.WriteString(strings.Join([]string{[]string{"0", "1"}[rng.IntN(2)], f64(rng.NormFloat64()), f64(rng.NormFloat64()), f64(5 * rng.NormFloat64())}, ",") + "\n")
	}
	c := compile(t, "data {\n y: vector[N] from \"y\"\n X: matrix[N, D] from all except \"y\" standardized\n}\nlatent {\n b: real\n w: vector[D]\n}\nmodel {\n b ~ normal(0, 1)\n w ~ normal(0, 1)\n y ~ bernoulli_probit(b + X * w)\n}\n", b.String())
	const S = 10
	d := c.Dim()
	require.Equal(t, 4, d)
	z := make([]float64, S*d)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	batch := make([]float64, S)
	c.LogJoint(z, batch)
	for i := 0; i < S; i++ {
		var one [1]float64
		c.LogJoint(z[i*d:(i+1)*d], one[:])
		require.InDelta(t, one[0], batch[i], 1e-9*math.Abs(one[0]))
	}
}

func f64(x float64) string { return strings.TrimRight(strings.TrimRight(strconvF(x), "0"), ".") }

func TestGradientsAgainstFiniteDifferences(t *testing.T) {
	src := "data { x: vector[T] }\nparam {\n sigma2: real<lower=0> = 0.3\n phi: real<lower=-1, upper=1> = 0.6\n mu: real = 0.2\n}\nlatent { z: vector[T] }\nmodel {\n z[1] ~ normal(mu, sqrt(sigma2 / (1 - phi^2)))\n for t in 2..T {\n  z[t] ~ normal(mu + phi * (z[t-1] - mu), sqrt(sigma2))\n }\n for t in 1..T {\n  x[t] ~ normal(0, exp(z[t] / 2))\n }\n}\n"
	c := compile(t, src, "x\n0.5\n-1.2\n0.3\n2.2\n")
	require.True(t, StructureOf(c).StateSpace, StructureOf(c).String())
	z := []float64{0.1, -0.4, 0.8, 0.3}
	g := make([]float64, 4)
	c.GradLogJoint(z, g)
	f := func() float64 {
		var o [1]float64
		c.LogJoint(z, o[:])
		return o[0]
	}
	for i := range z {
		old := z[i]
		z[i] = old + 1e-6
		fp := f()
		z[i] = old - 1e-6
		fm := f()
		z[i] = old
		require.InDelta(t, (fp-fm)/2e-6, g[i], 1e-5)
	}
	th := append([]float64(nil), c.Params()...)
	gp := make([]float64, len(th))
	c.GradParams(z, gp)
	for i := range th {
		p := append([]float64(nil), th...)
		p[i] = th[i] + 1e-6
		c.SetParams(p)
		fp := f()
		p[i] = th[i] - 1e-6
		c.SetParams(p)
		fm := f()
		c.SetParams(th)
		require.InDelta(t, (fp-fm)/2e-6, gp[i], 1e-5)
	}
}

func TestStructureDetection(t *testing.T) {
	sv := "data { x: vector[T] }\nlatent { z: vector[T] }\nmodel {\n z[1] ~ normal(0, 1)\n for t in 2..T { z[t] ~ normal(0.9 * z[t-1], 0.3) }\n for t in 1..T { x[t] ~ normal(z[t], 1) }\n}\n"
	c := compile(t, sv, "x\n1\n2\n3\n")
	require.Equal(t, "state-space: z over t = 1..3, Gaussian transition: CSMC with twisted Gaussian proposals", StructureOf(c).String())
	heavy := strings.Replace(sv, "z[t] ~ normal(0.9 * z[t-1], 0.3)", "z[t] ~ student_t(4, 0.9 * z[t-1], 0.3)", 1)
	c = compile(t, heavy, "x\n1\n2\n3\n")
	require.True(t, StructureOf(c).StateSpace)
	require.False(t, StructureOf(c).GaussianTransition)
	require.Contains(t, StructureOf(c).String(), "student_t transition, not Gaussian: CSMC with per-step Gaussian proposals")
	// the transition density of the compiled model is the Student-t's
	out := make([]float64, 2)
	StateSpaceOf(c).ReserveParticles(2)
	StateSpaceOf(c).TransitionLogDensity(1, []float64{0.5, -1}, []float64{0.2, 0.3}, out)
	for i, pr := range []float64{0.5, -1} {
		cur := []float64{0.2, 0.3}[i]
		z := (cur - 0.9*pr) / 0.3
		a, _ := math.Lgamma(2.5)
		b, _ := math.Lgamma(2)
		want := a - b - 0.5*math.Log(4*math.Pi) - math.Log(0.3) - 2.5*math.Log1p(z*z/4)
		require.InDelta(t, want, out[i], 1e-12)
	}
	notMarkov := strings.Replace(sv, "0.9 * z[t-1]", "0.9 * z[1]", 1)
	c = compile(t, notMarkov, "x\n1\n2\n3\n")
	require.False(t, StructureOf(c).StateSpace)
	require.Contains(t, StructureOf(c).Reason, "depends on z[1]")
	twoObs := strings.Replace(sv, "x[t] ~ normal(z[t], 1)", "x[t] ~ normal(z[t] + z[1], 1)", 1)
	c = compile(t, twoObs, "x\n1\n2\n3\n")
	require.False(t, StructureOf(c).StateSpace)
	require.Contains(t, StructureOf(c).Reason, "depends on both")
}

func TestCheckErrors(t *testing.T) {
	cases := []struct{ src, csv, want string }{
		{"latent { z: real }\nmodel { z ~ normal(0, -1) }\n", "", "argument 2 (sd) must be positive, got -1"},
		{"data { y: vector[N] }\nlatent { z: real }\nmodel { y ~ bernoulli_probit(z) }\n", "y\n0\n2\n", "bernoulli_probit needs values that are 0 or 1, got 2"},
		{"param { p: real<lower=0> = -1 }\nlatent { z: real }\nmodel { z ~ normal(p, 1) }\n", "", "outside its constraint"},
		{"latent { z: real<lower=2, upper=1> }\nmodel { z ~ normal(0, 1) }\n", "", "must be below the upper bound"},
		{"param { p: real = 1 }\nlatent { z: real }\nmodel { p ~ normal(0, 1)\n z ~ normal(0, 1) }\n", "", "the left of ~ must be a latent or data"},
		{"latent { z: vector[3] }\nmodel { z ~ normal(0, 1)\n z[4] ~ normal(0, 1) }\n", "", "index 4 is out of range"},
		{"latent { z: vector[3] }\nmodel { for i in 1..4 { z[i] ~ normal(0, 1) } }\n", "", "index 4 is out of range"},
		{"latent { z: vector[3] }\nmodel { for i in 3..1 { z[i] ~ normal(0, 1) } }\n", "", "never runs"},
		{"data { x: vector[N] }\nlatent { z: real }\nmodel { x = 1\n z ~ normal(0, 1) }\n", "x\n1\n", "cannot assign to data x"},
		{"latent { z: real\n z: real }\nmodel { z ~ normal(0, 1) }\n", "", "already declared"},
		{"latent { z: vector[2] }\nmodel { z ~ normal(0, 1)\n y = z * z }\n", "", "use dot(a, b)"},
	}
	for _, c := range cases {
		require.Contains(t, buildErr(t, c.src, c.csv), c.want, c.src)
	}
}

func BenchmarkLogJointNormalMean(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("x\n")
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20; i++ {
		sb.WriteString(f64(1.5+rng.NormFloat64()) + "\n")
	}
	c := compile(b, "data { x: vector[N] }\nlatent { z: real }\nmodel {\n z ~ normal(0, 1)\n x ~ normal(z, 1)\n}\n", sb.String())
	z := make([]float64, 10)
	out := make([]float64, 10)
	c.Reserve(10)
	b.ReportAllocs()
	for b.Loop() {
		c.LogJoint(z, out)
	}
}

func strconvF(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }

// TestSamplePriorAllocatesNothing: the prior proposal is on the kernel's
// inner loop.
func TestSamplePriorAllocatesNothing(t *testing.T) {
	c := compile(t, "latent {\n s: real<lower=0>\n w: vector[3]\n}\nmodel {\n s ~ exponential(1)\n w ~ normal(0, s)\n}\n", "")
	require.NoError(t, PriorError(c))
	rng := rand.New(rand.NewPCG(1, 1))
	z := make([]float64, c.Dim())
	c.SamplePrior(rng, z)
	allocs := testing.AllocsPerRun(100, func() { c.SamplePrior(rng, z) })
	require.Zero(t, allocs)
}
