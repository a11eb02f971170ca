package autodiff

// matMulT computes y[b*rows+i] = m[i,:] . v[b,:] for a shared row-major
// matrix m (rows x cols) and a batch of vectors v (batch x cols): the
// batch's matrix-vector products as one matrix-matrix product Y = V M'.
// It walks m once, two rows at a time against four vectors at a time, so a
// large matrix is read from memory once per call rather than once per
// batch element, and eight products share each load.
//
// Each output is the sequential sum over j, from 0, of separately rounded
// products (the float64 conversions forbid fusing them into FMAs, which Go
// does on arm64, ppc64 and s390x): every platform, and the AVX2 kernel of
// kernel_amd64.s, computes the same bits (up to which NaN a NaN is).
func matMulT(y, m, v []float64, rows, cols, batch int) {
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
			y[b*rows+i], y[(b+1)*rows+i], y[(b+2)*rows+i], y[(b+3)*rows+i] = a00, a01, a02, a03
			y[b*rows+i+1], y[(b+1)*rows+i+1], y[(b+2)*rows+i+1], y[(b+3)*rows+i+1] = a10, a11, a12, a13
		}
		for ; b < batch; b++ {
			vb := v[b*cols : (b+1)*cols][:len(m0)]
			var a0, a1 float64
			for j, x0 := range m0 {
				a0 += float64(x0 * vb[j])
				a1 += float64(m1[j] * vb[j])
			}
			y[b*rows+i], y[b*rows+i+1] = a0, a1
		}
	}
	matMulTRows(y, m, v, i, rows, cols, batch)
}

// matMulTRows is matMulT for the rows from i on, one at a time.
func matMulTRows(y, m, v []float64, i, rows, cols, batch int) {
	for ; i < rows; i++ {
		mi := m[i*cols : (i+1)*cols]
		for b := 0; b < batch; b++ {
			vb := v[b*cols : (b+1)*cols][:len(mi)]
			a := 0.0
			for j, x := range mi {
				a += float64(x * vb[j])
			}
			y[b*rows+i] = a
		}
	}
}

// matMulTScratch is the length of the scratch that mulMatT needs.
func matMulTScratch(cols, batch int) int { return cols * ((batch + 3) &^ 3) }

// mulMatT is matMulT with the AVX2 kernel when the CPU has it (the same
// bits, faster); vT is scratch of matMulTScratch(cols, batch) elements.
func mulMatT(y, m, v, vT []float64, rows, cols, batch int) {
	if useAVX2 {
		matMulTAVX2(y, m, v, vT, rows, cols, batch)
		return
	}
	matMulT(y, m, v, rows, cols, batch)
}
