package ir

import "github.com/mscppl/mscppl/stdlib"

// checkHMMMarginal types hmm_marginal(log_omega, Gamma, rho): log_omega a
// K x N matrix, Gamma K x K and rho a vector of K; one stdlib op
// (stdlib.NewHMMMarginal) computes the log marginal likelihood and its
// gradient.
func checkHMMMarginal(k *site) Expr {
	lo, gam, rho := k.t(0), k.t(1), k.t(2)
	if lo.Kind != Matrix || gam.Kind != Matrix || rho.Kind != Vector ||
		gam.Rows != lo.Rows || gam.Cols != lo.Rows || rho.Rows != lo.Rows {
		return k.badf("takes log_omega (a K x N matrix of log densities), Gamma (a K x K matrix of transition probabilities) and rho (a vector of K initial probabilities), got %s",
			typeList([]Type{lo, gam, rho}))
	}
	return matCall(k, tReal, stdlib.NewHMMMarginal(lo.Rows, lo.Cols), k.args...)
}
