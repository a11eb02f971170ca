package autodiff

import "math"

// matMulT computes y[b*rows+i] = c_b + m[i,:] . v[b,:] for a shared
// row-major matrix m (rows x cols) and a batch of vectors v (batch x cols):
// the batch's matrix-vector products as one matrix-matrix product Y = V M',
// with the offset c_b of laneOffset(c, b) added to each output of batch
// element b (Affine's intercept; -0, the exact identity of addition, when c
// is nil).
// It walks m once, two rows at a time against four vectors at a time, so a
// large matrix is read from memory once per call rather than once per
// batch element, and eight products share each load.
//
// Each output is the sequential sum over j, from 0, of separately rounded
// products (the float64 conversions forbid fusing them into FMAs, which Go
// does on arm64, ppc64 and s390x): every platform, and the AVX2 kernel of
// kernel_amd64.s, computes the same bits (up to which NaN a NaN is); the
// offset is added last, so c_b + (m v)[i] has the bits of Add(c, MatVec).
func matMulT(y, m, v, c []float64, rows, cols, batch int) {
	i := 0
	for ; i+2 <= rows; i += 2 {
		m0 := m[i*cols : (i+1)*cols]
		m1 := m[(i+1)*cols : (i+2)*cols][:len(m0)]
		b := 0
		for ; b+4 <= batch; b += 4 {
			v0 := v[b*cols : (b+1)*cols][:len(m0)]
			v1 := v[(b+1)*cols : (b+2)*cols][:len(m0)]
			v2 := v[(b+2)*cols : (b+3)*cols][:len(m0)]
			v3 := v[(b+3)*cols : (b+4)*cols][:len(m0)]
			var a00, a01, a02, a03, a10, a11, a12, a13 float64
			for j, x0 := range m0 {
				x1 := m1[j]
				a00 += float64(x0 * v0[j])
				a01 += float64(x0 * v1[j])
				a02 += float64(x0 * v2[j])
				a03 += float64(x0 * v3[j])
				a10 += float64(x1 * v0[j])
				a11 += float64(x1 * v1[j])
				a12 += float64(x1 * v2[j])
				a13 += float64(x1 * v3[j])
			}
			c0, c1, c2, c3 := laneOffset(c, b), laneOffset(c, b+1), laneOffset(c, b+2), laneOffset(c, b+3)
			y[b*rows+i], y[(b+1)*rows+i], y[(b+2)*rows+i], y[(b+3)*rows+i] = c0+a00, c1+a01, c2+a02, c3+a03
			y[b*rows+i+1], y[(b+1)*rows+i+1], y[(b+2)*rows+i+1], y[(b+3)*rows+i+1] = c0+a10, c1+a11, c2+a12, c3+a13
		}
		for ; b < batch; b++ {
			vb := v[b*cols : (b+1)*cols][:len(m0)]
			var a0, a1 float64
			for j, x0 := range m0 {
				a0 += float64(x0 * vb[j])
				a1 += float64(m1[j] * vb[j])
			}
			cb := laneOffset(c, b)
			y[b*rows+i], y[b*rows+i+1] = cb+a0, cb+a1
		}
	}
	matMulTRows(y, m, v, c, i, rows, cols, batch)
}

// laneOffset is the offset of batch element b: -0 (x + -0 is x, bit for
// bit, -0 and NaN included) when c is nil, c[0] when c has one element
// (shared by the batch), else c[b].
func laneOffset(c []float64, b int) float64 {
	switch len(c) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return c[0]
	}
	return c[b]
}

// matMulTRows is matMulT for the rows from i on, one at a time.
func matMulTRows(y, m, v, c []float64, i, rows, cols, batch int) {
	for ; i < rows; i++ {
		mi := m[i*cols : (i+1)*cols]
		for b := 0; b < batch; b++ {
			vb := v[b*cols : (b+1)*cols][:len(mi)]
			a := 0.0
			for j, x := range mi {
				a += float64(x * vb[j])
			}
			y[b*rows+i] = laneOffset(c, b) + a
		}
	}
}

// matMulTScratch is the length of the scratch that mulMatT needs: the
// batch transposed and the lanes' offsets, batch rounded up to 4.
func matMulTScratch(cols, batch int) int { return (cols + 1) * ((batch + 3) &^ 3) }

// mulMatT is matMulT with the AVX2 kernel when the CPU has it (the same
// bits, faster); vT is scratch of matMulTScratch(cols, batch) elements.
func mulMatT(y, m, v, c, vT []float64, rows, cols, batch int) {
	if useAVX2 {
		matMulTAVX2(y, m, v, c, vT, rows, cols, batch)
		return
	}
	matMulT(y, m, v, c, rows, cols, batch)
}
