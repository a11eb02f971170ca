package msc

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Unidentified is the finding that the chains' params differ along a
// direction the likelihood is flat on: a particle filter's estimate of
// log p(x; theta) is the same, within its Monte Carlo error, at the
// combined params and at points far out along the direction the chains'
// params spread in.
type Unidentified struct {
	// Direction is the unit direction (unconstrained params) along which
	// the chains' params spread most; Spread their sd along it, Step how
	// far out along it the likelihood was probed.
	Direction    []float64
	Spread, Step float64
	// LogLik and SE are the estimates of log p(x; theta) at the combined
	// params and at Step before and after them along Direction.
	LogLik, SE [3]float64
}

// probeStep is how far out (in unconstrained units, at least) the
// likelihood is probed along the chains' spread: an identified param moves
// the log-likelihood by many units there (a factor e^0.5 in a scale or
// 0.5 in a logit) at 0.5 already, and a weakly identified one by several
// at 4 (the SV model's sigma2 and phi on the 94 months of the monthly
// series: 1.1 and 1.5 at 2, within the estimates' noise, so 2 was not
// enough); a non-identified one not at all.
const probeStep = 4

// probeParticles is the number of particles of the probe's filters.
const probeParticles = 500

// unidentified checks, for a state-space run whose chains do not agree and
// whose params differ, whether the likelihood is flat along the direction
// the params differ in: the combination of params the data do not
// identify, which makes each chain settle elsewhere.
func (e *evaluator) unidentified() *Unidentified {
	C := len(e.chains)
	c0 := e.chains[0]
	if C < 3 || c0.l.pt == nil || c0.l.p.StateSpace == nil {
		return nil
	}
	np := len(e.theta)
	thetas := e.chainThetas
	if e.learnedThetas != nil { // the params were fixed: how the chains had learned them
		thetas = e.learnedThetas
	}
	// the principal direction of the chains' params
	S := mat.NewSymDense(np, nil)
	for _, th := range thetas {
		for i := range np {
			for j := i; j < np; j++ {
				S.SetSym(i, j, S.At(i, j)+(th[i]-e.theta[i])*(th[j]-e.theta[j])/float64(C-1))
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(S, true) {
		return nil
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	top := vals[np-1]
	if !(top > 1e-6) {
		return nil // the chains' params agree
	}
	u := &Unidentified{Direction: make([]float64, np), Spread: math.Sqrt(top)}
	u.Step = math.Max(probeStep, 3*u.Spread)
	for i := range np {
		u.Direction[i] = vecs.At(i, np-1)
	}
	defer c0.l.pt.SetParams(e.theta)
	// a fresh proposal (the transition, nearly: the bootstrap filter),
	// which serves every point alike; the learned one fits the combined
	// params only
	q, err := NewProposal(c0.l.p)
	if err != nil {
		return nil
	}
	th := make([]float64, np)
	for k, sign := range []float64{0, -1, 1} {
		for i := range th {
			th[i] = e.theta[i] + sign*u.Step*u.Direction[i]
		}
		c0.l.pt.SetParams(th)
		ll, se, err := LogEvidence(c0.rng, c0.l.p, q, probeParticles, 4)
		if err != nil || math.IsNaN(ll) {
			return nil
		}
		u.LogLik[k], u.SE[k] = ll, se
	}
	for k := 1; k < 3; k++ {
		if math.Abs(u.LogLik[k]-u.LogLik[0]) > 2*math.Hypot(u.SE[k], u.SE[0])+1 {
			return nil // the likelihood changes along it: identified
		}
	}
	return u
}

// flatWords describes a flat direction v over the params named by names
// (unconstrained): for two params, which combination the data identify.
func flatWords(v []float64, names []string) string {
	type term struct {
		i int
		w float64
	}
	var ts []term
	for i, x := range v {
		if math.Abs(x) > 0.2 {
			ts = append(ts, term{i, x})
		}
	}
	sort.Slice(ts, func(a, b int) bool { return ts[a].i < ts[b].i }) // in the model's order
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("param %d", i+1)
	}
	combo := func(ws []float64) string {
		var b strings.Builder
		for k, t := range ts {
			w := ws[k] / math.Abs(ws[0]) // the first term's coefficient is 1
			switch {
			case k == 0 && w < 0:
				b.WriteString("-")
			case k == 0:
			case w < 0:
				b.WriteString(" - ")
			default:
				b.WriteString(" + ")
			}
			if a := math.Abs(w); math.Abs(a-1) > 0.15 {
				fmt.Fprintf(&b, "%.2g * ", a)
			}
			b.WriteString(name(t.i))
		}
		return b.String()
	}
	ws := make([]float64, len(ts))
	for k, t := range ts {
		ws[k] = t.w
	}
	if len(ts) == 2 {
		// the identified combination: orthogonal to v in the plane of the two,
		// rounded to the nearest simple ratio
		ident := []float64{ts[1].w, -ts[0].w}
		if ident[0] < 0 {
			ident[0], ident[1] = -ident[0], -ident[1]
		}
		return fmt.Sprintf("%s and %s are not separately identified; only %s is", name(ts[0].i), name(ts[1].i), combo(ident))
	}
	return fmt.Sprintf("the combination %s of the params is not identified", combo(ws))
}
