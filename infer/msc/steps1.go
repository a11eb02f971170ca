package msc

import (
	"math"
	"math/rand/v2"
)

// The inner loops of a sweep for a scalar state (K = 1): the same proposals
// as the K-dimensional steps, with scalar algebra (no K x K factors, no
// calls per particle). A test (TestK1MatchesGeneric) checks them against
// the K-dimensional algebra at K = 1.

// twist1 returns the twisted proposal's mean mu and precision P, and log Z,
// the log normaliser of N(x; m, s^2) psi(x), psi(x) = exp(-lam x^2/2 + nu x).
func twist1(m, s, lam, nu float64) (mu, prec, logZ float64) {
	is2 := 1 / (s * s)
	prec = is2 + lam
	h := m*is2 + nu
	mu = h / prec
	logZ = -0.5*math.Log(s*s*prec) + 0.5*h*h/prec - 0.5*m*m*is2
	return
}

// prepare1 is prepare at K = 1: the transition's moments of every previous
// particle go to tm and tc (the sd), and what depends on the sd alone (and
// Lambda_t) is computed once per step when every particle has the same sd.
func (s *twistedSteps) prepare1(t int, prev []float64) {
	N, tw := s.N, s.tw
	tm, ts := s.tm[t*N:(t+1)*N], s.tc[t*N:(t+1)*N]
	s.ssm.Transition(t, prev, tm, ts)
	s.t = t
	s.shared[t] = false // tc holds every particle's sd
	s.lam = math.Exp(tw.LogDiag[t])
	nu := tw.Nu[t]
	m := N
	if t == 0 {
		m = 1 // every particle has the initial distribution
	} else {
		lp, np := math.Exp(tw.LogDiag[t-1]), tw.Nu[t-1]
		for j, z := range prev[:m] {
			s.psiPrev[j] = -0.5*lp*z*z + np*z
		}
	}
	tm, ts = tm[:m], ts[:m]
	shared := !s.perParticle
	for _, v := range ts {
		if v != ts[0] {
			shared = false
			break
		}
	}
	if shared {
		// as in twist1, with what depends on the sd alone hoisted
		sd := ts[0]
		is2 := 1 / (sd * sd)
		prec := is2 + s.lam
		lz := -0.5 * math.Log(sd*sd*prec)
		sp := math.Sqrt(prec)
		lsd := math.Log(sd)
		for j, mj := range tm {
			h := mj*is2 + nu
			s.qmu[j] = h / prec
			s.qsp[j] = sp
			s.qlz[j] = lz + 0.5*h*h/prec - 0.5*mj*mj*is2
			s.logDetL[j] = lsd
		}
		return
	}
	for j, mj := range tm {
		mu, prec, logZ := twist1(mj, ts[j], s.lam, nu)
		s.qmu[j], s.qsp[j], s.qlz[j] = mu, math.Sqrt(prec), logZ
		s.logDetL[j] = math.Log(ts[j])
	}
}

func (s *twistedSteps) ancestorLogDensity1(t int, r float64, out []float64) {
	N := s.N
	tm, ts := s.tm[t*N:(t+1)*N], s.tc[t*N:(t+1)*N]
	for j := range out {
		d := (r - tm[j]) / ts[j]
		out[j] = -0.5*d*d - s.logDetL[j] - s.qlz[j]
	}
}

func (s *twistedSteps) propose1(rng *rand.Rand, t int, anc []int32, z, logw []float64, start int) {
	for i := start; i < len(z); i++ {
		a := 0
		if t > 0 {
			a = int(anc[i])
		}
		z[i] = s.qmu[a] + rng.NormFloat64()/s.qsp[a]
	}
	s.startWeights(t, logw)
}

func (s *twistedSteps) final1(t int, cur, logw []float64) {
	lam, nu := s.lam, s.tw.Nu[t]
	for i, z := range cur {
		logw[i] -= -0.5*lam*z*z + nu*z
	}
}

// addScore1 is AddScore at K = 1: with P = 1/s^2 + Lambda and
// mu = (m/s^2 + Nu)/P, d log q/d Nu = x - mu and
// d log q/d log Lambda = Lambda (1/P + mu^2 - x^2)/2.
func (tw *Twisted) addScore1(w float64, z, grad []float64) {
	T := tw.T
	for t := 0; t < T; t++ {
		lam := math.Exp(tw.LogDiag[t])
		mu, prec, _ := twist1(tw.path[2*t], tw.path[2*t+1], lam, tw.Nu[t])
		x := z[tw.idx[t]]
		grad[t] += w * (x - mu)
		grad[T+t] += w * lam * 0.5 * (1/prec + mu*mu - x*x)
	}
}

// propose1 is the per-step proposal's propose at K = 1.
func (s *arSteps) propose1(rng *rand.Rand, t int, anc []int32, z, inc []float64, start int) {
	p := s.p
	sd := math.Exp(p.LogDiag[t])
	lsd := math.Log(sd)
	for i := range z {
		m := p.A[t]
		if t > 0 {
			s.prev[i] = s.zp[anc[i]]
			m += p.B[t] * s.prev[i]
		}
		if i >= start {
			z[i] = m + sd*rng.NormFloat64()
		}
		d := (z[i] - m) / sd
		s.lq[i] = -0.5*d*d - lsd - 0.5*ln2Pi
	}
	s.ssm.TransitionLogDensity(t, s.prev, z, s.lt)
	for i := range inc {
		inc[i] = s.lt[i] - s.lq[i]
	}
}

// addScore1 is AddScore at K = 1: with r = (x_t - A_t - B_t x_{t-1}) / s_t,
// d/dA = r/s, d/dB = r x_{t-1}/s and d/dLogS = r^2 - 1.
func (p *ARProposal) addScore1(w float64, z, grad []float64) {
	T := p.T
	prev := 0.0
	for t := 0; t < T; t++ {
		s := math.Exp(p.LogDiag[t])
		x := z[p.idx[t]]
		m := p.A[t]
		if t > 0 {
			m += p.B[t] * prev
		}
		r := (x - m) / s
		grad[t] += w * r / s
		if t > 0 {
			grad[T+t] += w * r / s * prev
		}
		grad[2*T+t] += w * (r*r - 1)
		prev = x
	}
}
