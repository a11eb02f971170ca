package autodiff

import "golang.org/x/sys/cpu"

// haveAVX2 reports whether the CPU runs the AVX2 kernels; useAVX2 selects
// them (tests switch it off to compare with the pure-Go matMulT).
var (
	haveAVX2 = cpu.X86.HasAVX2
	useAVX2  = haveAVX2
)

// matMulT4 is the AVX2 kernel of kernel_amd64.s: 4 rows of m times 12, 8
// or 4 lanes (batch elements) of vT (for nb above 8, above 4, or up to 4),
// for nblk blocks of 4 rows, each output plus the offset of its lane (c
// points at the lanes' offsets).
//
//go:noescape
func matMulT4(y, m, vT *float64, rows, nblk, cols, vstride, nb int, c *float64)

// matMulTAVX2 is matMulT, bit for bit, with AVX2: the batch is transposed
// into vT (cols x batch rounded up to 4, zero padded; then the lanes'
// offsets: matMulTScratch long) and each output is still the sequential sum
// over j of separately rounded products, vectorised across 4 batch
// elements and unrolled over 4 rows, with the lane's offset added last.
func matMulTAVX2(y, m, v, c, vT []float64, rows, cols, batch int) {
	if rows == 0 || batch == 0 {
		return
	}
	y = y[:batch*rows]
	if cols == 0 {
		for b := 0; b < batch; b++ {
			cb := laneOffset(c, b)
			for i := range y[b*rows : (b+1)*rows] {
				y[b*rows+i] = cb + 0
			}
		}
		return
	}
	m = m[:rows*cols]
	v = v[:batch*cols]
	bp := (batch + 3) &^ 3
	cT := vT[cols*bp : (cols+1)*bp]
	for b := 0; b < batch; b++ {
		cT[b] = laneOffset(c, b)
	}
	vT = vT[:cols*bp]
	for b := 0; b < batch; b++ {
		for j, x := range v[b*cols : (b+1)*cols] {
			vT[j*bp+b] = x
		}
	}
	if bp > batch {
		for j := 0; j < cols; j++ {
			clear(vT[j*bp+batch : (j+1)*bp])
		}
	}
	nblk := rows / 4
	if nblk > 0 {
		for b := 0; b < batch; b += 12 {
			nb := min(batch-b, 12)
			matMulT4(&y[b*rows], &m[0], &vT[b], rows, nblk, cols, bp, nb, &cT[b])
		}
	}
	matMulTRows(y, m, v, c, 4*nblk, rows, cols, batch)
}
