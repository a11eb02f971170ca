package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// Hidden Markov models as tape ops: Stan's hmm_marginal, and the forward
// recursion of a loop that writes the forward algorithm in log space
// (ir recognises it). Both are one node of O(N K^2) work and allocate
// nothing per evaluation; Backward never relies on state left by Forward.

// ---------------------------------------------------------------- hmm_marginal

// HMMMarginal is Stan's hmm_marginal(log_omega, Gamma, rho): the log
// marginal likelihood of a K-state hidden Markov model with N
// observations.
type HMMMarginal struct {
	k, n  int
	omega []float64 // K x N: exp(log_omega - m)
	ahat  []float64 // N x K: the scaled forward probabilities
	c     []float64 // N: their normalising constants (1 where not normalised)
	z     float64   // the sum of the last forward vector
	m     []float64 // N: the columns' scales
	b, bn []float64 // K: the scaled backward probabilities of two steps
	v     []float64 // K: scratch
}

// NewHMMMarginal returns the op in = [log_omega (K x N, row-major:
// log_omega[k*N+n] is state k's log density of observation n), Gamma (K x
// K, row-major: Gamma[i*K+j] = P(next = j | current = i)), rho (K, the
// initial distribution)] -> out[0] = log sum over the K^N paths z of
// rho[z_1] omega[z_1, 1] prod_n Gamma[z_{n-1}, z_n] omega[z_n, n]. The
// forward pass runs on probabilities scaled per column (exp(log_omega -
// max), the max over the states reached) and the forward vector
// renormalised at each step, as Stan does;
// Backward is the forward-backward algorithm: the adjoint of log_omega[k,
// n] is the posterior probability of state k at n, those of Gamma and rho
// the expected transition and initial counts divided by the entries. The
// rows of Gamma and rho are used as given (Stan rejects rows that are not
// simplexes; a zero entry is fine: its adjoint is that of a small
// probability, capped where it would pass exp(700)). When no path has a positive
// probability (a column of log_omega all -Inf, say) the result is -Inf,
// with no adjoints.
func NewHMMMarginal(k, n int) VecOp {
	return &HMMMarginal{k: k, n: n, omega: make([]float64, k*n), ahat: make([]float64, n*k),
		c: make([]float64, n), m: make([]float64, n), b: make([]float64, k), bn: make([]float64, k), v: make([]float64, k)}
}

// Name is "hmm_marginal".
func (o *HMMMarginal) Name() string { return "hmm_marginal" }

// Forward writes the log marginal likelihood into out[0].
func (o *HMMMarginal) Forward(out []float64, in [][]float64) {
	out[0], _ = o.forward(in)
}

// forward runs the scaled forward pass, leaving omega, ahat, c, m and z
// for Backward; ok is false when the result is not finite (then the
// scratch is not complete). The forward vector is renormalised only when
// its sum leaves [1e-30, 1e30] (c_n is 1 at the other steps), so that a
// step does not wait for the division of the one before; the backward
// probabilities then start at 1/z. Column n is scaled by the largest log density of the
// states the forward pass reaches at n (a predicted probability above
// 0), so the state that dominates is never lost to underflow: a state
// that is reached with probability 1e-200 and emits 750 nats above the
// others still counts.
func (o *HMMMarginal) forward(in [][]float64) (lp float64, ok bool) {
	o.z = 1
	if o.k == 2 {
		return o.forward2(in)
	}
	return o.forwardK(in)
}

// forwardK is forward for any K.
func (o *HMMMarginal) forwardK(in [][]float64) (lp float64, ok bool) {
	K, N := o.k, o.n
	lo, gam, rho := in[0], in[1], in[2]
	// log p = sum_n (log c_n + m_n); the c_n are multiplied together and
	// their log taken when the product leaves [1e-150, 1e150]
	lp, prod := 0.0, 1.0
	for n := 0; n < N; n++ {
		cur := o.ahat[n*K : (n+1)*K]
		// the predicted probabilities of the states at n
		if n == 0 {
			copy(cur, rho[:K])
		} else {
			prev := o.ahat[(n-1)*K : n*K]
			clear(cur)
			for i, p := range prev {
				if p == 0 {
					continue
				}
				g := gam[i*K : i*K+K]
				for k, x := range g {
					cur[k] += p * x
				}
			}
		}
		m := math.Inf(-1)
		for k, p := range cur {
			x := lo[k*N+n]
			if x != x || p != p {
				return math.NaN(), false
			}
			if p != 0 && x > m {
				m = x
			}
		}
		if math.IsInf(m, 0) {
			if m < 0 {
				return m, false // no state reached at n can emit observation n
			}
			return math.NaN(), false
		}
		o.m[n] = m
		s := 0.0
		for k := range cur {
			x := lo[k*N+n] - m
			if cur[k] == 0 {
				// a state not reached: its scaled density enters only the
				// adjoints of the zero entries of Gamma and rho that lead
				// to it, capped at exp(700) so that they stay finite
				o.omega[k*N+n] = math.Exp(min(x, 700))
				continue
			}
			w := math.Exp(x)
			o.omega[k*N+n] = w
			cur[k] *= w
			s += cur[k]
		}
		if !(s > 0) || math.IsInf(s, 1) {
			return math.NaN(), false // negative or infinite probabilities
		}
		o.c[n] = 1
		if s < 1e-30 || s > 1e30 {
			o.c[n] = s
			if s >= 1e-300 {
				inv := 1 / s
				for k := range cur {
					cur[k] *= inv
				}
			} else {
				for k := range cur {
					cur[k] /= s
				}
			}
			if s < 1e-150 || s > 1e150 {
				lp += math.Log(s)
			} else if prod *= s; prod < 1e-150 || prod > 1e150 {
				lp += math.Log(prod)
				prod = 1
			}
			s = 1
		}
		o.z = s
		lp += m
	}
	return lp + math.Log(prod) + math.Log(o.z), true
}

// forward2 is forwardK for K = 2, the two states' probabilities in
// registers: the same operations in the same order.
func (o *HMMMarginal) forward2(in [][]float64) (lp float64, ok bool) {
	N := o.n
	lo, gam, rho := in[0], in[1], in[2]
	lo0, lo1 := lo[:N], lo[N:2*N]
	om0, om1 := o.omega[:N], o.omega[N:2*N]
	ah, cs, ms := o.ahat[:2*N], o.c[:N], o.m[:N]
	g00, g01, g10, g11 := gam[0], gam[1], gam[2], gam[3]
	var a0, a1 float64 // the scaled forward probabilities at n - 1
	prod := 1.0
	for n := 0; n < N; n++ {
		var c0, c1 float64 // the predicted probabilities at n
		if n == 0 {
			c0, c1 = rho[0], rho[1]
		} else {
			if a0 != 0 {
				c0, c1 = a0*g00, a0*g01
			}
			if a1 != 0 {
				c0 += a1 * g10
				c1 += a1 * g11
			}
		}
		x0, x1 := lo0[n], lo1[n]
		if x0 != x0 || x1 != x1 || c0 != c0 || c1 != c1 {
			return math.NaN(), false
		}
		m := math.Inf(-1)
		if c0 != 0 {
			m = x0
		}
		if c1 != 0 && x1 > m {
			m = x1
		}
		if math.IsInf(m, 0) {
			if m < 0 {
				return m, false
			}
			return math.NaN(), false
		}
		ms[n] = m
		s := 0.0
		if c0 == 0 {
			om0[n] = math.Exp(min(x0-m, 700))
		} else {
			w := math.Exp(x0 - m)
			om0[n] = w
			c0 *= w
			s += c0
		}
		if c1 == 0 {
			om1[n] = math.Exp(min(x1-m, 700))
		} else {
			w := math.Exp(x1 - m)
			om1[n] = w
			c1 *= w
			s += c1
		}
		if !(s > 0) || math.IsInf(s, 1) {
			return math.NaN(), false
		}
		cs[n] = 1
		a0, a1 = c0, c1
		if s < 1e-30 || s > 1e30 {
			cs[n] = s
			if s >= 1e-300 {
				inv := 1 / s
				a0, a1 = c0*inv, c1*inv
			} else {
				a0, a1 = c0/s, c1/s
			}
			if s < 1e-150 || s > 1e150 {
				lp += math.Log(s)
			} else if prod *= s; prod < 1e-150 || prod > 1e150 {
				lp += math.Log(prod)
				prod = 1
			}
			s = 1
		}
		o.z = s
		ah[2*n], ah[2*n+1] = a0, a1
		lp += m
	}
	return lp + math.Log(prod) + math.Log(o.z), true
}

// Backward accumulates the adjoints of log_omega, Gamma and rho.
func (o *HMMMarginal) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	g := dout[0]
	K, N := o.k, o.n
	if g == 0 || N == 0 {
		return
	}
	if _, ok := o.forward(in); !ok {
		return
	}
	gam := in[1]
	dlo, dgam, drho := din[0], din[1], din[2]
	b, bn, v := o.b, o.bn, o.v
	for k := range b {
		b[k] = 1 / o.z
	}
	for n := N - 1; n >= 0; n-- {
		a := o.ahat[n*K : (n+1)*K]
		if dlo != nil {
			for k, x := range a {
				dlo[k*N+n] += g * x * b[k]
			}
		}
		inv := 1 / o.c[n]
		for k := range v {
			v[k] = o.omega[k*N+n] * b[k] * inv
		}
		if n == 0 {
			if drho != nil {
				for k, x := range v {
					drho[k] += g * x
				}
			}
			break
		}
		prev := o.ahat[(n-1)*K : n*K]
		for i, p := range prev {
			gi := gam[i*K : i*K+K]
			s := 0.0
			for k, x := range v {
				s += gi[k] * x
			}
			bn[i] = s
			if dgam != nil && p != 0 {
				d := dgam[i*K : i*K+K]
				gp := g * p
				for k, x := range v {
					d[k] += gp * x
				}
			}
		}
		b, bn = bn, b
	}
}

// ---------------------------------------------------------------- the forward recursion in log space

// HMMForward is the forward recursion of the forward algorithm in log
// space, gamma[t, k] = log_sum_exp_j(gamma[t-1, j] + W[t, j, k]) + E[t, k]
// for t = 1..n, as a loop over t writes it (Stan's hmm_example: W[t, j,
// k] = log(theta[j, k]) and E[t, k] the log density of observation t in
// state k, which does not depend on j).
type HMMForward struct {
	k, n     int
	adj, nxt []float64 // K: the adjoints of a row of gamma
}

// NewHMMForward returns the op in = [gamma0 (K, the row before the
// first), then W[j, k] for j, k = 1..K in that order (in[1+j*K+k]), then
// E[k] for k = 1..K (in[1+K*K+k]), each of length n, or 1 when it does
// not change with t] -> out (n x K, row-major) the rows gamma[1..n].
// Backward gives the adjoints of gamma0, the W and the E from the
// adjoints of all of out. A log_sum_exp whose terms are all -Inf is -Inf,
// and passes no adjoint back.
func NewHMMForward(k, n int) VecOp {
	return &HMMForward{k: k, n: n, adj: make([]float64, k), nxt: make([]float64, k)}
}

// Name is "hmm_forward".
func (o *HMMForward) Name() string { return "hmm_forward" }

// Forward writes gamma[1..n] into out.
func (o *HMMForward) Forward(out []float64, in [][]float64) {
	if o.k == 2 {
		o.forward2(out, in)
		return
	}
	o.forwardK(out, in)
}

// forwardK is Forward for any K.
func (o *HMMForward) forwardK(out []float64, in [][]float64) {
	K := o.k
	prev := in[0][:K]
	w, e := in[1:1+K*K], in[1+K*K:]
	for t := 0; t < o.n; t++ {
		cur := out[t*K : (t+1)*K]
		for k := range cur {
			m, arg, nan := math.Inf(-1), 0, false
			for j, p := range prev {
				x := p + at(w[j*K+k], t)
				if x > m {
					m, arg = x, j
				}
				nan = nan || x != x
			}
			if nan || math.IsInf(m, 0) { // a NaN, all -Inf, or a +Inf term
				if nan {
					m = math.NaN()
				}
				cur[k] = m + at(e[k], t)
				continue
			}
			s := 0.0 // the terms but the largest, whose exp is 1
			for j, p := range prev {
				if j != arg {
					s += math.Exp(p + at(w[j*K+k], t) - m)
				}
			}
			cur[k] = m + math.Log1p(s) + at(e[k], t)
		}
		prev = cur
	}
}

// forward2 is Forward for K = 2: each log_sum_exp of two terms is the
// larger plus Log1pExp of their difference (one polynomial and one exp,
// within 1e-15 of forwardK's exp and log1p).
func (o *HMMForward) forward2(out []float64, in [][]float64) {
	p0, p1 := in[0][0], in[0][1]
	w00, w01, w10, w11, e0, e1 := in[1], in[2], in[3], in[4], in[5], in[6]
	for t := 0; t < o.n; t++ {
		c0 := lse2(p0+at(w00, t), p1+at(w10, t)) + at(e0, t)
		c1 := lse2(p0+at(w01, t), p1+at(w11, t)) + at(e1, t)
		out[2*t], out[2*t+1] = c0, c1
		p0, p1 = c0, c1
	}
}

// lse2 is log(exp(a) + exp(b)): NaN if either is NaN, -Inf if both are.
func lse2(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	d := b - a
	if d != d { // a NaN, or both -Inf (or +Inf)
		if a == b {
			return a
		}
		return math.NaN()
	}
	return a + special.Log1pExp(d)
}

// at is w[t], or w[0] for a value that does not change with t.
func at(w []float64, t int) float64 {
	if len(w) == 1 {
		return w[0]
	}
	return w[t]
}

// Backward accumulates the adjoints of gamma0, the W and the E.
func (o *HMMForward) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	K := o.k
	w, dw := in[1:1+K*K], din[1:1+K*K]
	e, de := in[1+K*K:], din[1+K*K:]
	adj, nxt := o.adj, o.nxt
	for k := range adj {
		adj[k] = 0 // the adjoint gamma[t] receives from gamma[t+1]
	}
	for t := o.n - 1; t >= 0; t-- {
		cur := out[t*K : (t+1)*K]
		prev := in[0][:K]
		if t > 0 {
			prev = out[(t-1)*K : t*K]
		}
		for j := range nxt {
			nxt[j] = 0
		}
		for k, y := range cur {
			a := dout[t*K+k] + adj[k]
			if a == 0 || math.IsInf(y, 0) || y != y {
				continue
			}
			if d := de[k]; d != nil {
				accum(d, t, a)
			}
			l := y - at(e[k], t) // the log_sum_exp
			for j, p := range prev {
				q := a * math.Exp(p+at(w[j*K+k], t)-l)
				nxt[j] += q
				if d := dw[j*K+k]; d != nil {
					accum(d, t, q)
				}
			}
		}
		adj, nxt = nxt, adj
	}
	if d := din[0]; d != nil {
		for j, x := range adj {
			d[j] += x
		}
	}
}
