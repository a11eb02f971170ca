// Package runwindow keeps the averages of a run of unknown length over its
// last fraction (Window), for MSC's run loop (infer/msc): q's statistics,
// the params and the retained sample's moments, in blocks that merge as
// the run grows.
package runwindow

import "math"

// Window keeps sums over blocks of consecutive iterations of what a run
// averages (q's statistics, the params, the retained sample's moments and
// its changes), so that the average over the last fraction of a run whose
// length is not known in advance is available at any time. When there are
// maxBlocks blocks, neighbours merge and the block length doubles: the
// window's edge is then exact to 1/64 of the run.
type Window struct {
	size       int // iterations per block
	blocks     []*block
	free       []*block
	ns, nt, nz int
}

type block struct {
	from, n, changes int // first iteration (1-based), iterations, changed retained samples
	stats, theta     []float64
	zsum, zsq        []float64
}

const maxBlocks = 128

// NewWindow is an empty window for ns statistics, nt params and a retained
// sample of nz latents.
func NewWindow(ns, nt, nz int) *Window { return &Window{size: 1, ns: ns, nt: nt, nz: nz} }

// Add adds iteration it. stats and theta are summed; z (nil for kernels
// without a retained sample) is summed with its squares.
func (w *Window) Add(it int, changed bool, stats, theta, z []float64) {
	var b *block
	if n := len(w.blocks); n > 0 && w.blocks[n-1].n < w.size {
		b = w.blocks[n-1]
	} else {
		if n == maxBlocks {
			w.merge()
		}
		b = w.newBlock(it)
	}
	b.n++
	if changed {
		b.changes++
	}
	AddTo(b.stats, stats)
	AddTo(b.theta, theta)
	for i, v := range z {
		b.zsum[i] += v
		b.zsq[i] += v * v
	}
}

func (w *Window) newBlock(it int) *block {
	var b *block
	if n := len(w.free); n > 0 {
		b, w.free = w.free[n-1], w.free[:n-1]
		clear(b.stats)
		clear(b.theta)
		clear(b.zsum)
		clear(b.zsq)
		b.n, b.changes = 0, 0
	} else {
		b = &block{stats: make([]float64, w.ns), theta: make([]float64, w.nt), zsum: make([]float64, w.nz), zsq: make([]float64, w.nz)}
	}
	b.from = it
	w.blocks = append(w.blocks, b)
	return b
}

// merge joins neighbouring blocks (all full) and doubles the block length.
func (w *Window) merge() {
	n := len(w.blocks) / 2
	for i := 0; i < n; i++ {
		a, c := w.blocks[2*i], w.blocks[2*i+1]
		a.n += c.n
		a.changes += c.changes
		AddTo(a.stats, c.stats)
		AddTo(a.theta, c.theta)
		AddTo(a.zsum, c.zsum)
		AddTo(a.zsq, c.zsq)
		w.free = append(w.free, c)
		w.blocks[i] = a
	}
	w.blocks = w.blocks[:n]
	w.size *= 2
}

// since returns the blocks that start at or after iteration from (at
// least the last block).
func (w *Window) since(from int) []*block {
	i := len(w.blocks) - 1
	for i > 0 && w.blocks[i-1].from >= from {
		i--
	}
	if i < 0 {
		return nil
	}
	return w.blocks[i:]
}

// Mean writes the averages over the blocks since from into stats, theta
// and the retained sample's moments (any may be nil), and returns the
// first iteration averaged and the number of iterations.
func (w *Window) Mean(from int, stats, theta, zmean, zsd []float64) (first, n int) {
	bs := w.since(from)
	if len(bs) == 0 {
		return 0, 0
	}
	for _, dst := range [][]float64{stats, theta, zmean, zsd} {
		clear(dst)
	}
	for _, b := range bs {
		n += b.n
		AddTo(stats, b.stats)
		AddTo(theta, b.theta)
		AddTo(zmean, b.zsum)
		AddTo(zsd, b.zsq)
	}
	inv := 1 / float64(n)
	for _, dst := range [][]float64{stats, theta, zmean} {
		for i := range dst {
			dst[i] *= inv
		}
	}
	for i := range zsd {
		m := zmean[i]
		zsd[i] = math.Sqrt(math.Max(0, zsd[i]*inv-m*m))
	}
	return bs[0].from, n
}

// ChangeRate is the fraction of changed retained samples over the blocks
// since from, and the number of iterations it covers.
func (w *Window) ChangeRate(from int) (float64, int) {
	c, n := 0, 0
	for _, b := range w.since(from) {
		c += b.changes
		n += b.n
	}
	if n == 0 {
		return 0, 0
	}
	return float64(c) / float64(n), n
}

// AddTo adds src into dst (the shorter length).
func AddTo(dst, src []float64) {
	for i := range min(len(dst), len(src)) {
		dst[i] += src[i]
	}
}
