package msc

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

func (b *drawBuf) Add(it int, z []float64, lp float64) {
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
