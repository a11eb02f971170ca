package msc

// lowerSolveNormSq returns |L^-1 r|^2 for the lower-triangular L, using
// u (K) as scratch.
func lowerSolveNormSq(L, r, u []float64, K int) float64 {
	ss := 0.0
	for i := 0; i < K; i++ {
		s := r[i]
		for l := 0; l < i; l++ {
			s -= L[i*K+l] * u[l]
		}
		s /= L[i*K+i]
		u[i] = s
		ss += s * s
	}
	return ss
}
