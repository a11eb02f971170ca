package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// hmmInputs returns random inputs of hmm_marginal: log_omega (K x N) in
// [lo, hi], Gamma with simplex rows and a simplex rho.
func hmmInputs(r *rand.Rand, k, n int, lo, hi float64) [][]float64 {
	gam := make([]float64, 0, k*k)
	for i := 0; i < k; i++ {
		gam = append(gam, randSimplex(r, k)...)
	}
	return [][]float64{randVec(r, k*n, lo, hi), gam, randSimplex(r, k)}
}

// hmmBrute is the log of the sum over all K^N paths.
func hmmBrute(in [][]float64, k, n int) float64 {
	lo, gam, rho := in[0], in[1], in[2]
	z := make([]int, n)
	total := 0.0
	for {
		p := rho[z[0]] * math.Exp(lo[z[0]*n])
		for t := 1; t < n; t++ {
			p *= gam[z[t-1]*k+z[t]] * math.Exp(lo[z[t]*n+t])
		}
		total += p
		t := 0
		for ; t < n; t++ {
			if z[t]++; z[t] < k {
				break
			}
			z[t] = 0
		}
		if t == n {
			return math.Log(total)
		}
	}
}

// logSumExp is the plain log-sum-exp of a few values.
func logSumExp(x ...float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// hmmLogForward is the forward algorithm in log space, the recursion as
// a Stan user writes it: gamma[1, k] = log rho[k] + log_omega[k, 1],
// gamma[t, k] = log_sum_exp_j(gamma[t-1, j] + log Gamma[j, k]) +
// log_omega[k, t]; it returns every row.
func hmmLogForward(in [][]float64, k, n int) []float64 {
	lo, gam, rho := in[0], in[1], in[2]
	g := make([]float64, n*k)
	for s := 0; s < k; s++ {
		g[s] = math.Log(rho[s]) + lo[s*n]
	}
	acc := make([]float64, k)
	for t := 1; t < n; t++ {
		for s := 0; s < k; s++ {
			for j := 0; j < k; j++ {
				acc[j] = g[(t-1)*k+j] + math.Log(gam[j*k+s])
			}
			g[t*k+s] = logSumExp(acc...) + lo[s*n+t]
		}
	}
	return g
}

func TestHMMMarginalBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]float64, 1)
	for _, k := range []int{1, 2, 3} {
		for n := 1; n <= 6; n++ {
			in := hmmInputs(r, k, n, -3, 1)
			op := NewHMMMarginal(k, n)
			op.Forward(out, in)
			want := hmmBrute(in, k, n)
			require.InDelta(t, want, out[0], 1e-12*(1+math.Abs(want)), "K = %d, N = %d", k, n)
		}
	}
}

func TestHMMMarginalLogForward(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]float64, 1)
	for _, k := range []int{2, 3, 5} {
		for _, n := range []int{1, 50, 1000} {
			// log densities far below 0 (each column's max is subtracted)
			// and spread over hundreds of nats (some states nearly
			// impossible at some n)
			in := hmmInputs(r, k, n, -900, -100)
			op := NewHMMMarginal(k, n)
			op.Forward(out, in)
			g := hmmLogForward(in, k, n)
			want := logSumExp(g[(n-1)*k:]...)
			require.InDelta(t, want, out[0], 1e-12*math.Abs(want), "K = %d, N = %d", k, n)
		}
	}
}

func TestHMMMarginalGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 2, 3} {
		for _, n := range []int{1, 2, 7, 40} {
			in := hmmInputs(r, k, n, -4, 2)
			fdCheck(t, r, NewHMMMarginal(k, n), in, 1, nil, nil, 1e-6)
		}
	}
	// posterior state probabilities: the adjoints of a column of
	// log_omega sum to 1, and those of rho weighted by rho too
	k, n := 3, 20
	in := hmmInputs(r, k, n, -4, 2)
	op := NewHMMMarginal(k, n)
	out := []float64{0}
	din := [][]float64{make([]float64, k*n), make([]float64, k*k), make([]float64, k)}
	op.Forward(out, in)
	op.Backward(out, []float64{1}, in, din)
	for t2 := 0; t2 < n; t2++ {
		s := 0.0
		for s2 := 0; s2 < k; s2++ {
			s += din[0][s2*n+t2]
		}
		require.InDelta(t, 1, s, 1e-12)
	}
	s := 0.0
	for s2 := 0; s2 < k; s2++ {
		s += in[2][s2] * din[2][s2]
	}
	require.InDelta(t, 1, s, 1e-12)
}

func TestHMMMarginalEdgeCases(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	inf := math.Inf(-1)
	out := []float64{0}
	k, n := 3, 5

	// zero transition and initial probabilities: the sum over the paths
	// that remain, and gradients against finite differences
	in := hmmInputs(r, k, n, -3, 1)
	in[1][0*k+1], in[1][0*k+0] = 0, in[1][0*k+0]+in[1][0*k+1]
	in[1][2*k+2], in[1][2*k+0] = 0, in[1][2*k+0]+in[1][2*k+2]
	in[2][1], in[2][0] = 0, in[2][0]+in[2][1]
	op := NewHMMMarginal(k, n)
	op.Forward(out, in)
	require.InDelta(t, hmmBrute(in, k, n), out[0], 1e-12)
	fdCheck(t, r, op, in, 1, nil, nil, 1e-6)

	// a state that cannot emit some observations (-Inf log density)
	in = hmmInputs(r, k, n, -3, 1)
	in[0][1*n+2], in[0][0*n+4] = inf, inf
	op.Forward(out, in)
	require.InDelta(t, hmmBrute(in, k, n), out[0], 1e-12)
	fdCheck(t, r, op, in, 1, []int{1, 2}, nil, 1e-6)
	din := [][]float64{make([]float64, k*n), make([]float64, k*k), make([]float64, k)}
	op.Backward(out, []float64{1}, in, din)
	require.Zero(t, din[0][1*n+2], "an impossible state has posterior probability 0")
	for _, d := range din {
		for _, x := range d {
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0))
		}
	}

	// an observation no state can emit, or no path of positive
	// probability: -Inf, and no adjoints
	in = hmmInputs(r, k, n, -3, 1)
	for s := 0; s < k; s++ {
		in[0][s*n+3] = inf
	}
	op.Forward(out, in)
	require.True(t, math.IsInf(out[0], -1))
	din = [][]float64{make([]float64, k*n), make([]float64, k*k), make([]float64, k)}
	op.Backward(out, []float64{1}, in, din)
	for _, d := range din {
		for _, x := range d {
			require.Zero(t, x)
		}
	}
	in = hmmInputs(r, 2, 2, -3, 1)
	in[1] = []float64{0, 1, 0, 1} // every path goes to state 2
	in[0][1*2+1] = inf            // which cannot emit observation 2
	op2 := NewHMMMarginal(2, 2)
	op2.Forward(out, in)
	require.True(t, math.IsInf(out[0], -1))

	// normalising constants far below 1e-150 at every step (the state
	// that emits is reached with probability 1e-200, the other emits at
	// exp(-750)): their product would underflow
	in = [][]float64{{-750, -750, -750, -750, 0, 0, 0, 0}, {1 - 1e-200, 1e-200, 1, 0}, {1, 0}}
	op4 := NewHMMMarginal(2, 4)
	op4.Forward(out, in)
	g := hmmLogForward(in, 2, 4)
	want := logSumExp(g[6:]...)
	require.InDelta(t, want, out[0], 1e-12*math.Abs(want))
	// and a state first not reached that emits 750 nats above the one
	// reached: finite adjoints (its omega is capped at exp(700))
	in = [][]float64{{-750, -750, -750, -750, 0, 0, 0, 0}, {1 - 1e-200, 1e-200, 1, 0}, {1, 0}}
	din = [][]float64{make([]float64, 8), make([]float64, 4), make([]float64, 2)}
	op4.Forward(out, in)
	op4.Backward(out, []float64{1}, in, din)
	for _, d := range din {
		for _, x := range d {
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0), "%v", din)
		}
	}
	// constants 1e-140 and 1e-200 in a row, whose product underflows
	in = [][]float64{{0, 0, 0, 0, 0, 0}, {0, 1e-140, 1e-200, 0}, {1, 0}}
	op3 := NewHMMMarginal(2, 3)
	op3.Forward(out, in)
	require.InDelta(t, math.Log(1e-140)+math.Log(1e-200), out[0], 1e-12)

	// NaN propagates
	in = hmmInputs(r, k, n, -3, 1)
	in[1][4] = math.NaN()
	op.Forward(out, in)
	require.True(t, math.IsNaN(out[0]))
	in = hmmInputs(r, k, n, -3, 1)
	in[0][7] = math.NaN()
	op.Forward(out, in)
	require.True(t, math.IsNaN(out[0]))

	// N = 0: log 1
	op0 := NewHMMMarginal(2, 0)
	op0.Forward(out, [][]float64{nil, {0.5, 0.5, 0.5, 0.5}, {0.5, 0.5}})
	require.Zero(t, out[0])
}

// TestHMMMarginalK2: forward2, the loop for two states, is forwardK's,
// value and scratch, to the bit, on random inputs with zeros, -Inf and
// tiny constants among them.
func TestHMMMarginalK2(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(60)
		in := hmmInputs(r, 2, n, -30, 5)
		switch trial % 4 {
		case 1:
			in[1][r.IntN(4)] = 0
			in[2][r.IntN(2)] = 0
		case 2:
			in[0][r.IntN(2*n)] = math.Inf(-1)
		case 3:
			in[1] = []float64{1 - 1e-200, 1e-200, 1e-160, 1 - 1e-160}
			for i := range in[0][:n] {
				in[0][i] -= 740
			}
		}
		a, b := NewHMMMarginal(2, n).(*HMMMarginal), NewHMMMarginal(2, n).(*HMMMarginal)
		la, oka := a.forward2(in)
		lb, okb := b.forwardK(in)
		require.Equal(t, okb, oka)
		require.Equal(t, math.Float64bits(lb), math.Float64bits(la), "trial %d: %g and %g", trial, la, lb)
		if oka {
			require.Equal(t, b.ahat, a.ahat)
			require.Equal(t, b.omega, a.omega)
			require.Equal(t, b.c, a.c)
			require.Equal(t, b.m, a.m)
		}
	}
}

func TestHMMMarginalNoState(t *testing.T) {
	// Backward recomputes the forward pass: another Forward in between
	// does not change the adjoints
	r := rand.New(rand.NewPCG(9, 10))
	k, n := 3, 30
	in, other := hmmInputs(r, k, n, -4, 2), hmmInputs(r, k, n, -4, 2)
	op := NewHMMMarginal(k, n)
	out, o2 := []float64{0}, []float64{0}
	mk := func() [][]float64 { return [][]float64{make([]float64, k*n), make([]float64, k*k), make([]float64, k)} }
	d1, d2 := mk(), mk()
	op.Forward(out, in)
	op.Backward(out, []float64{1}, in, d1)
	op.Forward(o2, other)
	op.Backward(out, []float64{1}, in, d2)
	require.Equal(t, d1, d2)
	noAllocs(t, op, in, 1)
}

// forwardInputs are the inputs of hmm_forward equivalent to hmm_marginal's
// in: gamma0 = log rho + log_omega[:, 1], and over the n - 1 later
// observations either W[t, j, k] = log Gamma[j, k] (one value for all t)
// and E[t, k] = log_omega[k, t+1], or (split false) W[t, j, k] = log
// Gamma[j, k] + log_omega[k, t+1] and E = 0.
func forwardInputs(in [][]float64, k, n int, split bool) [][]float64 {
	lo, gam, rho := in[0], in[1], in[2]
	g0 := make([]float64, k)
	for s := range g0 {
		g0[s] = math.Log(rho[s]) + lo[s*n]
	}
	ins := [][]float64{g0}
	for j := 0; j < k; j++ {
		for s := 0; s < k; s++ {
			if split {
				ins = append(ins, []float64{math.Log(gam[j*k+s])})
				continue
			}
			w := make([]float64, n-1)
			for t := range w {
				w[t] = math.Log(gam[j*k+s]) + lo[s*n+t+1]
			}
			ins = append(ins, w)
		}
	}
	for s := 0; s < k; s++ {
		if !split {
			ins = append(ins, []float64{0})
			continue
		}
		ins = append(ins, append([]float64(nil), lo[s*n+1:s*n+n]...))
	}
	return ins
}

func TestHMMForward(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, k := range []int{1, 2, 3} {
		for _, n := range []int{2, 3, 40} {
			for _, split := range []bool{false, true} {
				in := hmmInputs(r, k, n, -5, 1)
				ins := forwardInputs(in, k, n, split)
				op := NewHMMForward(k, n-1)
				out := make([]float64, (n-1)*k)
				op.Forward(out, ins)
				want := hmmLogForward(in, k, n)
				for i, x := range out {
					require.InDelta(t, want[k+i], x, 1e-12*(1+math.Abs(x)), "K = %d, n = %d, element %d", k, n, i)
				}
				m := []float64{0}
				NewHMMMarginal(k, n).Forward(m, in)
				require.InDelta(t, m[0], logSumExp(out[(n-2)*k:]...), 1e-12*(1+math.Abs(m[0])))
				fdCheck(t, r, op, ins, len(out), nil, nil, 1e-6)
				noAllocs(t, op, ins, len(out))
			}
		}
	}
	// W and E that do not change with t (length 1) broadcast, and their
	// adjoints sum over t
	k, n := 2, 6
	ins := [][]float64{randVec(r, k, -2, 0)}
	for i := 0; i < k*k+k; i++ {
		if i%2 == 0 {
			ins = append(ins, randVec(r, 1, -2, 0))
		} else {
			ins = append(ins, randVec(r, n, -2, 0))
		}
	}
	op := NewHMMForward(k, n)
	fdCheck(t, r, op, ins, n*k, nil, nil, 1e-6)
	out := make([]float64, n*k)
	full := cloneIns(ins)
	for i := 1; i < len(full); i++ {
		if len(full[i]) == 1 {
			v := full[i][0]
			full[i] = make([]float64, n)
			for t2 := range full[i] {
				full[i][t2] = v
			}
		}
	}
	out2 := make([]float64, n*k)
	op.Forward(out, ins)
	op.Forward(out2, full)
	require.Equal(t, out2, out)
}

// TestHMMForwardK2: forward2, the loop for two states, is forwardK's
// within 1e-14, infinities and NaN included.
func TestHMMForwardK2(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	inf := math.Inf(-1)
	for trial := 0; trial < 100; trial++ {
		n := 1 + r.IntN(50)
		ins := [][]float64{randVec(r, 2, -5, 1)}
		for i := 0; i < 6; i++ {
			if r.IntN(2) == 0 {
				ins = append(ins, randVec(r, 1, -40, 2))
			} else {
				ins = append(ins, randVec(r, n, -40, 2))
			}
		}
		switch trial % 5 {
		case 1:
			ins[0][r.IntN(2)] = inf
		case 2:
			ins[1+r.IntN(4)][0] = inf
		case 3:
			ins[1], ins[3] = []float64{inf}, []float64{inf} // state 1 not reachable
		case 4:
			ins[1+r.IntN(6)][0] = math.NaN()
		}
		op := NewHMMForward(2, n).(*HMMForward)
		a, b := make([]float64, 2*n), make([]float64, 2*n)
		op.forward2(a, ins)
		op.forwardK(b, ins)
		for i := range a {
			if math.IsNaN(b[i]) {
				require.True(t, math.IsNaN(a[i]), "trial %d element %d: %g", trial, i, a[i])
				continue
			}
			if math.IsInf(b[i], 0) {
				require.Equal(t, b[i], a[i], "trial %d element %d", trial, i)
				continue
			}
			require.InDelta(t, b[i], a[i], 1e-14*(1+math.Abs(b[i])), "trial %d element %d", trial, i)
		}
	}
}

func TestHMMForwardInf(t *testing.T) {
	inf := math.Inf(-1)
	op := NewHMMForward(2, 3)
	// state 2 cannot be reached at t = 1 (both its terms -Inf), so gamma[1,
	// 2] = -Inf, and later rows go on from state 1
	ins := [][]float64{{0, inf}, {-1}, {inf}, {-1}, {-2}, {0}, {0}}
	out := make([]float64, 6)
	op.Forward(out, ins)
	require.Equal(t, -1.0, out[0])
	require.True(t, math.IsInf(out[1], -1))
	require.InDelta(t, logSumExp(-1-1, inf-1), out[2], 1e-15)
	dout := []float64{0, 1, 0, 0, 1, 1}
	din := [][]float64{{0, 0}, {0}, {0}, {0}, {0}, {0}, {0}}
	op.Backward(out, dout, ins, din)
	for _, d := range din {
		for _, x := range d {
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0), "%v", din)
		}
	}
	// a NaN term gives NaN
	ins[1][0] = math.NaN()
	op.Forward(out, ins)
	require.True(t, math.IsNaN(out[0]))
}

func benchHMMMarginal(b *testing.B, k, n int) {
	r := rand.New(rand.NewPCG(1, 1))
	in := hmmInputs(r, k, n, -5, 0)
	op := NewHMMMarginal(k, n)
	out := []float64{0}
	din := [][]float64{make([]float64, k*n), make([]float64, k*k), make([]float64, k)}
	b.ReportAllocs()
	for b.Loop() {
		op.Forward(out, in)
		op.Backward(out, []float64{1}, in, din)
	}
}

// BenchmarkHMMMarginal is hmm_marginal's Forward alone, and with Backward
// (the gradient), at the sizes of posteriordb's hmm_example (K = 2, N =
// 100), hmm_drive (K = 2, N = 416) and the simulated T = 1000.
func BenchmarkHMMMarginal(b *testing.B) {
	for _, s := range [][2]int{{2, 100}, {2, 416}, {2, 1000}, {4, 1000}} {
		k, n := s[0], s[1]
		b.Run("forward/K="+itoa(k)+"/N="+itoa(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			in := hmmInputs(r, k, n, -5, 0)
			op := NewHMMMarginal(k, n)
			out := []float64{0}
			b.ReportAllocs()
			for b.Loop() {
				op.Forward(out, in)
			}
		})
		b.Run("grad/K="+itoa(k)+"/N="+itoa(n), func(b *testing.B) { benchHMMMarginal(b, k, n) })
	}
}

// BenchmarkHMMForward is the log-space forward recursion of a recognised
// forward loop, Forward alone and with Backward, K = 2, n = 415 steps
// (hmm_drive).
func BenchmarkHMMForward(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	k, n := 2, 416
	ins := forwardInputs(hmmInputs(r, k, n, -5, 0), k, n, true)
	op := NewHMMForward(k, n-1)
	out := make([]float64, (n-1)*k)
	dout := make([]float64, len(out))
	dout[len(dout)-1] = 1
	din := make([][]float64, len(ins))
	for i := range din {
		din[i] = make([]float64, len(ins[i]))
	}
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op.Forward(out, ins)
		}
	})
	b.Run("grad", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op.Forward(out, ins)
			op.Backward(out, dout, ins, din)
		}
	})
}
