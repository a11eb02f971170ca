package smallmat

import "math"

// CholLower replaces the symmetric positive-definite a (its lower triangle
// is read) by its lower Cholesky factor, zeroing the upper triangle, and
// reports false when a is not positive definite.
func CholLower(a []float64, K int) bool {
	for j := 0; j < K; j++ {
		d := a[j*K+j]
		for l := 0; l < j; l++ {
			d -= a[j*K+l] * a[j*K+l]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*K+j] = d
		for i := j + 1; i < K; i++ {
			s := a[i*K+j]
			for l := 0; l < j; l++ {
				s -= a[i*K+l] * a[j*K+l]
			}
			a[i*K+j] = s / d
		}
		for i := 0; i < j; i++ {
			a[i*K+j] = 0
		}
	}
	return true
}

// InvLower writes the inverse of the lower-triangular L (K x K, upper
// triangle not read) into dst, lower triangular, and returns
// log det L = sum log L_kk.
func InvLower(L, dst []float64, K int) float64 {
	det := 1.0
	for j := 0; j < K; j++ {
		d := L[j*K+j]
		det *= d
		for i := 0; i < j; i++ {
			dst[i*K+j] = 0
		}
		dst[j*K+j] = 1 / d
		// column j of the inverse by forward substitution
		for i := j + 1; i < K; i++ {
			s := 0.0
			for l := j; l < i; l++ {
				s += L[i*K+l] * dst[l*K+j]
			}
			dst[i*K+j] = -s / L[i*K+i]
		}
	}
	return logDiagSum(L, det, K)
}

// logDiagSum is sum log M_kk given their product det: one logarithm when
// the product is a normal number, K otherwise.
func logDiagSum(M []float64, det float64, K int) float64 {
	if det > 1e-300 && det < 1e300 {
		return math.Log(det)
	}
	s := 0.0
	for k := 0; k < K; k++ {
		s += math.Log(M[k*K+k])
	}
	return s
}

// LowerTL writes M' M for the lower-triangular M into dst (symmetric, both
// triangles).
func LowerTL(M, dst []float64, K int) {
	for i := 0; i < K; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for l := i; l < K; l++ { // M[l][i] M[l][j], nonzero for l >= i >= j
				s += M[l*K+i] * M[l*K+j]
			}
			dst[i*K+j], dst[j*K+i] = s, s
		}
	}
}

// LowerLT writes M M' for the lower-triangular M into dst (symmetric,
// both triangles).
func LowerLT(M, dst []float64, K int) {
	for i := 0; i < K; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for l := 0; l <= j; l++ {
				s += M[i*K+l] * M[j*K+l]
			}
			dst[i*K+j], dst[j*K+i] = s, s
		}
	}
}

// LowerMulVec writes M x for the lower-triangular M into dst (not x).
func LowerMulVec(M, x, dst []float64, K int) {
	if K == 2 {
		x0, x1 := x[0], x[1]
		dst[0] = M[0] * x0
		dst[1] = M[2]*x0 + M[3]*x1
		return
	}
	for i := 0; i < K; i++ {
		s := 0.0
		for l := 0; l <= i; l++ {
			s += M[i*K+l] * x[l]
		}
		dst[i] = s
	}
}

// LowerTMulVec writes M' x for the lower-triangular M into dst (not x).
func LowerTMulVec(M, x, dst []float64, K int) {
	if K == 2 {
		x0, x1 := x[0], x[1]
		dst[0] = M[0]*x0 + M[2]*x1
		dst[1] = M[3] * x1
		return
	}
	for i := 0; i < K; i++ {
		s := 0.0
		for l := i; l < K; l++ {
			s += M[l*K+i] * x[l]
		}
		dst[i] = s
	}
}

// SymMulVec writes S x for the symmetric (full) S into dst (not x).
func SymMulVec(S, x, dst []float64, K int) {
	if K == 2 {
		x0, x1 := x[0], x[1]
		dst[0] = S[0]*x0 + S[1]*x1
		dst[1] = S[2]*x0 + S[3]*x1
		return
	}
	for i := 0; i < K; i++ {
		s := 0.0
		for l := 0; l < K; l++ {
			s += S[i*K+l] * x[l]
		}
		dst[i] = s
	}
}

func Dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Mul writes A B for the K x K A and B into dst (neither of them).
func Mul(A, B, dst []float64, K int) {
	for i := 0; i < K; i++ {
		for j := 0; j < K; j++ {
			s := 0.0
			for l := 0; l < K; l++ {
				s += A[i*K+l] * B[l*K+j]
			}
			dst[i*K+j] = s
		}
	}
}

// MulT writes A B' for the K x K A and B into dst (neither of them).
func MulT(A, B, dst []float64, K int) {
	for i := 0; i < K; i++ {
		for j := 0; j < K; j++ {
			s := 0.0
			for l := 0; l < K; l++ {
				s += A[i*K+l] * B[j*K+l]
			}
			dst[i*K+j] = s
		}
	}
}

// TMul writes A' B for the K x K A and B into dst (neither of them).
func TMul(A, B, dst []float64, K int) {
	for i := 0; i < K; i++ {
		for j := 0; j < K; j++ {
			s := 0.0
			for l := 0; l < K; l++ {
				s += A[l*K+i] * B[l*K+j]
			}
			dst[i*K+j] = s
		}
	}
}

// MulVec writes A x for the K x K A into dst (not x).
func MulVec(A, x, dst []float64, K int) {
	for i := 0; i < K; i++ {
		s := 0.0
		for l := 0; l < K; l++ {
			s += A[i*K+l] * x[l]
		}
		dst[i] = s
	}
}
