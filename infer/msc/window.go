package msc

import "math"

// window keeps sums over blocks of consecutive iterations of what a run
// averages (q's statistics, the params, the retained sample's moments and
// its changes), so that the average over the last fraction of a run whose
// length is not known in advance is available at any time. When there are
// maxBlocks blocks, neighbours merge and the block length doubles: the
// window's edge is then exact to 1/64 of the run.
type window struct {
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

func newWindow(ns, nt, nz int) *window { return &window{size: 1, ns: ns, nt: nt, nz: nz} }

// add adds iteration it. stats and theta are summed; z (nil for kernels
// without a retained sample) is summed with its squares.
func (w *window) add(it int, changed bool, stats, theta, z []float64) {
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
	addTo(b.stats, stats)
	addTo(b.theta, theta)
	for i, v := range z {
		b.zsum[i] += v
		b.zsq[i] += v * v
	}
}

func (w *window) newBlock(it int) *block {
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
func (w *window) merge() {
	n := len(w.blocks) / 2
	for i := 0; i < n; i++ {
		a, c := w.blocks[2*i], w.blocks[2*i+1]
		a.n += c.n
		a.changes += c.changes
		addTo(a.stats, c.stats)
		addTo(a.theta, c.theta)
		addTo(a.zsum, c.zsum)
		addTo(a.zsq, c.zsq)
		w.free = append(w.free, c)
		w.blocks[i] = a
	}
	w.blocks = w.blocks[:n]
	w.size *= 2
}

// since returns the blocks that start at or after iteration from (at
// least the last block).
func (w *window) since(from int) []*block {
	i := len(w.blocks) - 1
	for i > 0 && w.blocks[i-1].from >= from {
		i--
	}
	if i < 0 {
		return nil
	}
	return w.blocks[i:]
}

// mean writes the averages over the blocks since from into stats, theta
// and the retained sample's moments (any may be nil), and returns the
// first iteration averaged and the number of iterations.
func (w *window) mean(from int, stats, theta, zmean, zsd []float64) (first, n int) {
	bs := w.since(from)
	if len(bs) == 0 {
		return 0, 0
	}
	for _, dst := range [][]float64{stats, theta, zmean, zsd} {
		clear(dst)
	}
	for _, b := range bs {
		n += b.n
		addTo(stats, b.stats)
		addTo(theta, b.theta)
		addTo(zmean, b.zsum)
		addTo(zsd, b.zsq)
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

// changeRate is the fraction of changed retained samples over the blocks
// since from, and the number of iterations it covers.
func (w *window) changeRate(from int) (float64, int) {
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

// addTo adds src into dst (the shorter length).
func addTo(dst, src []float64) {
	for i := range min(len(dst), len(src)) {
		dst[i] += src[i]
	}
}

// drawBuf keeps a thinned record of one chain's draws for R-hat: every
// thin-th iteration; when full it keeps every other record and doubles
// thin, so chains that run the same iterations keep the same records.
type drawBuf struct {
	d, cap, thin int
	iters        []int
	z            []float64
	lp           []float64 // each record's log joint as the kernel had it (NaN: unknown)
}

func newDrawBuf(d int) *drawBuf {
	c := max(200, min(2000, drawBufFloats/max(d, 1)))
	c -= c % 2
	return &drawBuf{d: d, cap: c, thin: 1, iters: make([]int, 0, c), z: make([]float64, 0, c*d), lp: make([]float64, 0, c)}
}

func (b *drawBuf) wants(it int) bool { return it%b.thin == 0 }

func (b *drawBuf) add(it int, z []float64, lp float64) {
	if len(b.iters) == b.cap {
		b.thin *= 2
		k := 0
		for i, t := range b.iters {
			if t%b.thin == 0 {
				b.iters[k], b.lp[k] = t, b.lp[i]
				copy(b.z[k*b.d:(k+1)*b.d], b.z[i*b.d:(i+1)*b.d])
				k++
			}
		}
		b.iters, b.z, b.lp = b.iters[:k], b.z[:k*b.d], b.lp[:k]
		if it%b.thin != 0 {
			return
		}
	}
	b.iters = append(b.iters, it)
	b.z = append(b.z, z...)
	b.lp = append(b.lp, lp)
}

// since returns the index of the first record after iteration from.
func (b *drawBuf) since(from int) int {
	for i, t := range b.iters {
		if t >= from {
			return i
		}
	}
	return len(b.iters)
}

// drawBufFloats bounds a chain's record of draws (32 MB): 2000 records up
// to 2000 dimensions. The records bound the bulk ESS that R-hat's check can
// see (at most their number), so a long trajectory needs as many records
// as a short one: with 1e6 floats a 1974-step state kept 506, and the
// stopping rule's ESS of 1000 could not be reached.
const drawBufFloats = 4_000_000
