package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// OrderedLogisticLpmf is Stan's ordered_logistic_lpmf(y | eta, c): the log
// probability of category y in 1..K of an ordinal outcome with linear
// predictor eta and K-1 increasing cutpoints c,
//
//	P(y = 1) = 1 - inv_logit(eta - c_1)
//	P(y = k) = inv_logit(eta - c_{k-1}) - inv_logit(eta - c_k)
//	P(y = K) = inv_logit(eta - c_{K-1}),
//
// as an op of the tape: in = [y (1), eta (1), c (K-1)], out (1). A y
// outside 1..K, or cutpoints out of order at y, give -Inf.
type OrderedLogisticLpmf struct{ k int } // k = K - 1 cutpoints

// NewOrderedLogisticLpmf returns the op for k cutpoints (k + 1 categories).
func NewOrderedLogisticLpmf(k int) VecOp { return &OrderedLogisticLpmf{k} }

// Name is "ordered_logistic".
func (o *OrderedLogisticLpmf) Name() string { return "ordered_logistic" }

// terms returns the log probability and its derivatives in eta and in the
// cutpoints below (i-1, weight dlo) and above (i, weight dhi) y.
func (o *OrderedLogisticLpmf) terms(in [][]float64) (lp, dEta float64, lo, hi int, dlo, dhi float64) {
	y, eta, c := in[0][0], in[1][0], in[2][:o.k]
	lo, hi = -1, -1
	if !(y >= 1 && y <= float64(o.k+1)) || y != math.Trunc(y) || math.IsNaN(eta) {
		return math.Inf(-1), 0, lo, hi, 0, 0
	}
	j := int(y) - 1 // category index 0..k
	switch {
	case o.k == 0:
		return 0, 0, lo, hi, 0, 0
	case j == 0: // log(1 - inv_logit(eta - c_1))
		b := eta - c[0]
		s := special.InvLogit(b)
		hi = 0
		return -special.Log1pExp(b), -s, lo, hi, 0, s
	case j == o.k: // log inv_logit(eta - c_K-1)
		a := eta - c[o.k-1]
		q := special.InvLogit(-a) // 1 - inv_logit(a)
		lo = o.k - 1
		return -special.Log1pExp(-a), q, lo, hi, -q, 0
	}
	a, b := eta-c[j-1], eta-c[j]
	if !(a > b) {
		return math.Inf(-1), 0, -1, -1, 0, 0
	}
	// log(inv_logit(a) - inv_logit(b)) = log_inv_logit(a) + log1m_exp(log_inv_logit(b) - log_inv_logit(a))
	la, lb := -special.Log1pExp(-a), -special.Log1pExp(-b)
	lp = la + special.Log1mExp(lb-la)
	sa, sb := special.InvLogit(a), special.InvLogit(b)
	p := math.Exp(lp)
	da, db := sa*(1-sa)/p, -sb*(1-sb)/p
	return lp, da + db, j - 1, j, -da, -db
}

// Forward writes the log probability.
func (o *OrderedLogisticLpmf) Forward(out []float64, in [][]float64) {
	out[0], _, _, _, _, _ = o.terms(in)
}

// Backward accumulates the derivatives in eta and in the two cutpoints
// next to y.
func (o *OrderedLogisticLpmf) Backward(_, dout []float64, in [][]float64, din [][]float64) {
	lp, dEta, lo, hi, dlo, dhi := o.terms(in)
	if math.IsInf(lp, -1) {
		return
	}
	g := dout[0]
	if din[1] != nil {
		din[1][0] += g * dEta
	}
	if dc := din[2]; dc != nil {
		if lo >= 0 {
			dc[lo] += g * dlo
		}
		if hi >= 0 {
			dc[hi] += g * dhi
		}
	}
}
