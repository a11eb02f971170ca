package ir

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/stdlib"
)

// checkHMMMarginal types hmm_marginal(log_omega, Gamma, rho): log_omega a
// K x N matrix, Gamma K x K and rho a vector of K; one stdlib op
// (stdlib.NewHMMMarginal) computes the log marginal likelihood and its
// gradient, behind lower's hmmOp, which validates Gamma and rho as Stan does. The
// sizes are checked against the limits before anything is allocated.
func checkHMMMarginal(k *Site) Expr {
	lo, gam, rho := k.t(0), k.t(1), k.t(2)
	if lo.Kind != Matrix || gam.Kind != Matrix || rho.Kind != Vector ||
		gam.Rows != lo.Rows || gam.Cols != lo.Rows || rho.Rows != lo.Rows {
		return k.badf("takes log_omega (a K x N matrix of log densities), Gamma (a K x K matrix of transition probabilities) and rho (a vector of K initial probabilities), got %s",
			TypeList([]Type{lo, gam, rho}))
	}
	K, N := lo.Rows, lo.Cols
	if msg := hmmCost(K, N); msg != "" {
		return k.badf("%s", msg)
	}
	return matCall(k, TReal, stdlib.NewHMMMarginal(K, N), k.Args...)
}

// The bounds of one hmm_marginal call: the bytes of its values (log_omega,
// Gamma and their adjoints, the forward probabilities), and the
// multiply-adds of one evaluation (K^2 N forward and again backward), about
// a second at 10^9.
const (
	maxHMMBytes = 1 << 30
	MaxHMMWork  = 1e9
)

// hmmCost refuses (with the projected memory or time) an hmm_marginal of K
// states and N observations beyond the bounds; "" when it is within them.
func hmmCost(K, N int) string {
	k := float64(K)
	bytes, work := HmmBytes(K, N), HmmWork(K, N)
	switch {
	case bytes > maxHMMBytes:
		return fmt.Sprintf("with K = %d states and N = %d observations it would take about %s (Gamma alone is K x K = %.3g numbers, with their adjoints), more than the limit of %s per call; reduce K",
			K, N, ByteSize(bytes), k*k, ByteSize(maxHMMBytes))
	case work > MaxHMMWork:
		return fmt.Sprintf("with K = %d states and N = %d observations each evaluation takes K^2 N = %.3g multiply-adds, about %.2g s, and a fit evaluates the log density thousands of times; the limit is %.0e per call: reduce K or N",
			K, N, work, work/MaxHMMWork, MaxHMMWork)
	}
	return ""
}

// HmmBytes is the memory of one call: Gamma and log_omega with their
// adjoints, the forward probabilities and scaled densities.
func HmmBytes(K, N int) float64 {
	k, n := float64(K), float64(N)
	return 8 * (2*k*k + 4*k*n + 2*n)
}

// HmmWork is the multiply-adds of one evaluation.
func HmmWork(K, N int) float64 { return float64(K) * float64(K) * float64(N) }

// ByteSize words a number of bytes.
func ByteSize(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.3g KiB", b/(1<<10))
}

// HmmArgs is why Gamma (K x K, row-major) and rho are not what
// hmm_marginal takes, as Stan checks them: each row of Gamma and rho a
// simplex (entries non-negative, sum 1 within 1e-8); "" when they are.
func HmmArgs(gam, rho []float64, K int) string {
	simplex := func(v []float64, what string, idx func(j int) string) string {
		sum := 0.0
		for j, x := range v {
			if !(x >= 0) || math.IsInf(x, 1) {
				return fmt.Sprintf("%s = %g: its entries must be probabilities (non-negative)", idx(j), x)
			}
			sum += x
		}
		if math.Abs(sum-1) > CheckTolerance {
			return fmt.Sprintf("%s sums to %.10g, not 1 (a simplex, within %g, as Stan requires)", what, sum, CheckTolerance)
		}
		return ""
	}
	for i := 0; i < K; i++ {
		row := gam[i*K : (i+1)*K]
		if msg := simplex(row, fmt.Sprintf("row %d of Gamma", i+1), func(j int) string { return fmt.Sprintf("Gamma[%d, %d]", i+1, j+1) }); msg != "" {
			return msg
		}
	}
	return simplex(rho[:K], "rho", func(j int) string { return fmt.Sprintf("rho[%d]", j+1) })
}

// HmmValid is HmmArgs(...) == "" without allocating.
func HmmValid(gam, rho []float64, K int) bool {
	ok := func(v []float64) bool {
		sum := 0.0
		for _, x := range v {
			if !(x >= 0) || math.IsInf(x, 1) {
				return false
			}
			sum += x
		}
		return math.Abs(sum-1) <= CheckTolerance
	}
	for i := 0; i < K; i++ {
		if !ok(gam[i*K : (i+1)*K]) {
			return false
		}
	}
	return ok(rho[:K])
}
