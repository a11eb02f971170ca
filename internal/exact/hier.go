package exact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The hierarchy of case 2: J groups of n observations, simulated with
// the group effects a_j ~ N(HierMu, HierTau^2) and y_ij ~ N(a_j, HierSigma^2).
const (
	HierJ     = 30
	HierN     = 3
	HierMu    = 1.0
	HierTau   = 0.2
	HierSigma = 2.0
	HierSeed  = 20260202
	// The priors, as a Stan user writes them: mu ~ normal(0, 5) and
	// tau ~ normal(0, 5) with tau: real<lower=0> (a half-normal).
	HierPriorMuSD  = 5.0
	HierPriorTauSD = 5.0
)

// HierCentredModel is the centred form of case 2, as the issue states it.
const HierCentredModel = `// Varying intercepts, centred (internal/exact, case 2): 30 groups of 3, sigma known;
// tau weakly identified (simulated with tau = 0.2, sigma = 2). Data: hier.csv; exact: hier_exact.csv.
data {
  J: int = 30
  y: vector[N]
  g: int<lower=1, upper=J>[N]
  sigma: real = 2
}
latent {
  mu: real
  tau: real<lower=0>
  a: vector[J]
}
model {
  mu ~ normal(0, 5)
  tau ~ normal(0, 5)
  a ~ normal(mu, tau)
  y ~ normal(a[g], sigma)
}
`

// HierNonCentredModel is the same posterior in the non-centred form: a is
// derived from a_raw (the exact answer has no a_raw; a, mu and tau are
// compared).
const HierNonCentredModel = `// Varying intercepts, non-centred (internal/exact, case 2): the same posterior as hier_centred.msc.
// Data: hier.csv; exact: hier_exact.csv (mu, tau and the derived a).
data {
  J: int = 30
  y: vector[N]
  g: int<lower=1, upper=J>[N]
  sigma: real = 2
}
latent {
  mu: real
  tau: real<lower=0>
  a_raw: vector[J]
}
model {
  mu ~ normal(0, 5)
  tau ~ normal(0, 5)
  a_raw ~ normal(0, 1)
  y ~ normal(mu + tau * a_raw[g], sigma)
}
derived {
  a = mu + tau * a_raw
}
`

// HierData is a varying-intercepts data set: observation i is Y[i] in
// group G[i] (1-based), with the known observation sd Sigma.
type HierData struct {
	Y     []float64
	G     []int
	J     int
	Sigma float64
}

// SimulateHier draws case 2's data set: HierJ groups of HierN
// observations from the model with mu = HierMu, tau = HierTau, sigma =
// HierSigma (PCG seeded with HierSeed), each y rounded to 3 decimals.
func SimulateHier() *HierData {
	rng := rand.New(rand.NewPCG(HierSeed, 2))
	d := &HierData{J: HierJ, Sigma: HierSigma}
	for j := 1; j <= HierJ; j++ {
		a := HierMu + HierTau*rng.NormFloat64()
		for range HierN {
			y := a + HierSigma*rng.NormFloat64()
			d.Y = append(d.Y, math.Round(y*1000)/1000)
			d.G = append(d.G, j)
		}
	}
	return d
}

// CSV is the data set as mscppl reads it: columns y and g.
func (d *HierData) CSV() string {
	var b strings.Builder
	b.WriteString("y,g\n")
	for i, y := range d.Y {
		fmt.Fprintf(&b, "%s,%d\n", strconv.FormatFloat(y, 'f', -1, 64), d.G[i])
	}
	return b.String()
}

// groups returns each group's mean, size and within-group sum of squares.
func (d *HierData) groups() (ybar []float64, n []int, ss []float64) {
	ybar, n, ss = make([]float64, d.J), make([]int, d.J), make([]float64, d.J)
	for i, y := range d.Y {
		ybar[d.G[i]-1] += y
		n[d.G[i]-1]++
	}
	for j := range ybar {
		ybar[j] /= float64(n[j])
	}
	for i, y := range d.Y {
		r := y - ybar[d.G[i]-1]
		ss[d.G[i]-1] += r * r
	}
	return ybar, n, ss
}

// hierGiven holds what is analytic given tau: the group means' marginal
// y-bar_j ~ N(mu, tau^2 + sigma^2/n_j) and mu ~ N(0, 5^2) make mu given
// tau and y normal with precision P and mean M, and log p(ybar | tau) is
// LogLik.
type hierGiven struct {
	ybar, s2 []float64 // group means and sigma^2/n_j
}

// muGivenTau is mu's normal posterior given tau (mean m, precision p) and
// log p(ybar | tau) with mu integrated out.
func (h hierGiven) muGivenTau(tau float64) (m, p, logLik float64) {
	p0 := 1 / (HierPriorMuSD * HierPriorMuSD)
	p, b := p0, 0.0
	for j, yb := range h.ybar {
		v := tau*tau + h.s2[j]
		p += 1 / v
		b += yb / v
		logLik += -0.5*math.Log(2*math.Pi*v) - yb*yb/(2*v)
	}
	// log of the integral of N(mu; 0, 1/p0) exp(b mu - p mu^2 / 2 + ...).
	logLik += 0.5*math.Log(p0) - 0.5*math.Log(p) + b*b/(2*p)
	return b / p, p, logLik
}

// aGivenTau is the normal posterior of a_j given tau (mean and variance),
// with m and p what muGivenTau returns: a_j given mu and tau is
// N((1 - B) ybar_j + B mu, (1 - B) s2_j) with B = s2_j / (s2_j + tau^2),
// and mu given tau is N(m, 1/p), so a_j given tau is
// N((1 - B) ybar_j + B m, (1 - B) s2_j + B^2 / p).
func (h hierGiven) aGivenTau(j int, tau, m, p float64) (mean, v float64) {
	b := h.s2[j] / (h.s2[j] + tau*tau)
	return (1-b)*h.ybar[j] + b*m, (1-b)*h.s2[j] + b*b/p
}

// logLikGiven is log p(ybar | mu, tau) (the group effects integrated out).
func (h hierGiven) logLikGiven(mu, tau float64) float64 {
	s := 0.0
	for j, yb := range h.ybar {
		s += logNormal(yb, mu, math.Sqrt(tau*tau+h.s2[j]))
	}
	return s
}

// logHalfNormal is the half-normal(0, s) density on x > 0.
func logHalfNormal(x, s float64) float64 { return math.Ln2 + logNormal(x, 0, s) }

// Hier is the exact posterior of case 2.
type Hier struct {
	Mu, Tau Summary
	A       []Summary // a[1], ..., a[J]
	// LogEvidence is log p(y) of all observations with the proper
	// half-normal prior density of tau (2 N(tau; 0, 5^2)); a program that
	// drops the truncation's normaliser, as Stan does, reports log 2 less.
	LogEvidence float64
	// TauEdge is log p(tau | y) at the quadrature's upper end (tau = 25)
	// minus its maximum.
	TauEdge float64
	// P(tau < 0.1) and P(tau < 0.5)
	PTauBelow01, PTauBelow05 float64
}

// hierTauMax is the upper end of the integral over tau.
const hierTauMax = 25

// ExactHier computes the posterior of the centred (or non-centred)
// varying-intercepts model on d: mu and a integrated out analytically given
// tau (everything is Gaussian then), and tau by adaptive quadrature of its
// marginal posterior on (0, 25); mu and each a_j are normal given tau, so
// their posteriors are mixtures of normals over the quadrature's nodes.
func ExactHier(d *HierData) (*Hier, error) {
	ybar, n, ss := d.groups()
	h := hierGiven{ybar: ybar, s2: make([]float64, len(ybar))}
	for j := range ybar {
		if n[j] == 0 {
			return nil, fmt.Errorf("exact: group %d has no observation", j+1)
		}
		h.s2[j] = d.Sigma * d.Sigma / float64(n[j])
	}
	lp := func(tau float64) float64 {
		_, _, ll := h.muGivenTau(tau)
		return logHalfNormal(tau, HierPriorTauSD) + ll
	}
	in, err := Density{LogPDF: lp, Lo: 0, Hi: hierTauMax}.Integrate(0)
	if err != nil {
		return nil, err
	}
	r := &in.Rule
	out := &Hier{Tau: r.Summary("tau")}
	maxLog := math.Inf(-1)
	for _, t := range r.X {
		maxLog = max(maxLog, lp(t))
	}
	out.TauEdge = lp(hierTauMax) - maxLog
	if out.TauEdge > -50 {
		return nil, fmt.Errorf("exact: p(tau | y) at tau = %d is only %.1f below its maximum", hierTauMax, out.TauEdge)
	}
	out.PTauBelow01, out.PTauBelow05 = r.CDF(0.1), r.CDF(0.5)
	// log p(y) = log p(ybar) + the within-group terms: the product over a
	// group of N(y_i; a, sigma^2) is N(ybar; a, sigma^2/n) times
	// (2 pi sigma^2)^(-(n-1)/2) n^(-1/2) exp(-SS / (2 sigma^2)).
	out.LogEvidence = in.LogZ
	for j := range ybar {
		nj := float64(n[j])
		out.LogEvidence += -(nj-1)/2*math.Log(2*math.Pi*d.Sigma*d.Sigma) - 0.5*math.Log(nj) - ss[j]/(2*d.Sigma*d.Sigma)
	}
	K := len(r.X)
	mu := NormalMixture{W: r.W, M: make([]float64, K), S: make([]float64, K)}
	ms, ps := make([]float64, K), make([]float64, K)
	for k, t := range r.X {
		ms[k], ps[k], _ = h.muGivenTau(t)
		mu.M[k], mu.S[k] = ms[k], 1/math.Sqrt(ps[k])
	}
	out.Mu = mu.Summary("mu")
	for j := range ybar {
		a := NormalMixture{W: r.W, M: make([]float64, K), S: make([]float64, K)}
		for k, t := range r.X {
			m, v := h.aGivenTau(j, t, ms[k], ps[k])
			a.M[k], a.S[k] = m, math.Sqrt(v)
		}
		out.A = append(out.A, a.Summary(fmt.Sprintf("a[%d]", j+1)))
	}
	return out, nil
}

// Summaries lists mu, tau and the a's, the rows of the exact file.
func (h *Hier) Summaries() []Summary {
	return append([]Summary{h.Mu, h.Tau}, h.A...)
}

// HierGrid is the cross-check of ExactHier by brute force: the midpoint
// rule on an nMu x nU grid over (mu, u = log tau) in [muLo, muHi] x
// [uLo, uHi] of the log posterior log p(mu) + log p(tau) + log tau (the
// Jacobian) + log p(ybar | mu, tau), the a's integrated out. It returns mu's
// and tau's summaries, the quantiles interpolated linearly in the
// cumulative mass of the marginal's cells (error O(h^2) like the moments'),
// and the log posterior's largest value on the grid's border minus its
// maximum.
func HierGrid(d *HierData, nMu, nU int, muLo, muHi, uLo, uHi float64) (mu, tau Summary, edge float64) {
	ybar, n, _ := d.groups()
	h := hierGiven{ybar: ybar, s2: make([]float64, len(ybar))}
	for j := range ybar {
		h.s2[j] = d.Sigma * d.Sigma / float64(n[j])
	}
	hm, hu := (muHi-muLo)/float64(nMu), (uHi-uLo)/float64(nU)
	lp := make([]float64, nMu*nU)
	top, border := math.Inf(-1), math.Inf(-1)
	for i := range nMu {
		m := muLo + (float64(i)+0.5)*hm
		for k := range nU {
			u := uLo + (float64(k)+0.5)*hu
			t := math.Exp(u)
			v := logNormal(m, 0, HierPriorMuSD) + logHalfNormal(t, HierPriorTauSD) + u + h.logLikGiven(m, t)
			lp[i*nU+k] = v
			top = max(top, v)
			if i == 0 || k == 0 || i == nMu-1 || k == nU-1 {
				border = max(border, v)
			}
		}
	}
	wMu, wU := make([]float64, nMu), make([]float64, nU)
	total := 0.0
	for i := range nMu {
		for k := range nU {
			w := math.Exp(lp[i*nU+k] - top)
			wMu[i] += w
			wU[k] += w
			total += w
		}
	}
	mus, taus := make([]float64, nMu), make([]float64, nU)
	for i := range nMu {
		wMu[i] /= total
		mus[i] = muLo + (float64(i)+0.5)*hm
	}
	for k := range nU {
		wU[k] /= total
		taus[k] = math.Exp(uLo + (float64(k)+0.5)*hu)
	}
	mu = gridSummary("mu", mus, wMu, muLo, hm)
	tau = gridSummary("tau", taus, wU, uLo, hu)
	tau.Q05, tau.Q50, tau.Q95 = math.Exp(tau.Q05), math.Exp(tau.Q50), math.Exp(tau.Q95)
	return mu, tau, border - top
}

// gridSummary summarises the quantity x[i] with cell masses w[i]: mean and
// sd of x, and the quantiles of the cells' coordinate (the cells
// lo + [i, i+1) h, the mass spread evenly in each).
func gridSummary(name string, x, w []float64, lo, h float64) Summary {
	m, m2 := 0.0, 0.0
	for i, wi := range w {
		m += wi * x[i]
		m2 += wi * x[i] * x[i]
	}
	s := Summary{Name: name, Mean: m, SD: math.Sqrt(max(0, m2-m*m))}
	cum := make([]float64, len(w)+1)
	for i, wi := range w {
		cum[i+1] = cum[i] + wi
	}
	q := func(p float64) float64 {
		i, _ := slices.BinarySearch(cum, p)
		i = max(1, min(i, len(w)))
		// cum[i-1] < p <= cum[i]: in cell i-1
		f := (p - cum[i-1]) / (cum[i] - cum[i-1])
		return lo + (float64(i-1)+f)*h
	}
	s.Q05, s.Q50, s.Q95 = q(0.05), q(0.5), q(0.95)
	return s
}
