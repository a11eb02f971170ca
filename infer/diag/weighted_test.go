package diag

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// WeightedQuantile is WeightedQuantiles for one p.
func WeightedQuantile(x, w []float64, p float64, scratch *QuantileScratch) float64 {
	var q [1]float64
	WeightedQuantiles(x, w, []float64{p}, q[:], scratch)
	return q[0]
}

// quantile4 is R's type 4 quantile of sorted x: x_(k) + (pS - k)(x_(k+1) -
// x_(k)), k = floor(pS), 1-based, clamped at the ends.
func quantile4(sorted []float64, p float64) float64 {
	s := len(sorted)
	h := p * float64(s)
	k := int(math.Floor(h))
	if k < 1 {
		return sorted[0]
	}
	if k >= s {
		return sorted[s-1]
	}
	return sorted[k-1] + (h-float64(k))*(sorted[k]-sorted[k-1])
}

func TestWeightedQuantileEqualWeights(t *testing.T) {
	x := normalChains(3, 1, 37, nil, nil)[0]
	w := make([]float64, len(x))
	for i := range w {
		w[i] = 1.0 / float64(len(x))
	}
	sorted := slices.Sorted(slices.Values(x))
	scratch := new(QuantileScratch)
	for _, p := range []float64{0, 0.01, 0.05, 0.25, 0.5, 0.6, 0.95, 0.99, 1} {
		got, want := WeightedQuantile(x, w, p, scratch), quantile4(sorted, p)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("p=%v: got %v, want type-4 %v", p, got, want)
		}
	}
}

func TestWeightedSummaries(t *testing.T) {
	x := []float64{3, 1, 2, 10}
	w := []float64{0.25, 0.25, 0.5, 0}
	tests := []struct {
		name      string
		got, want float64
	}{
		{"mean", WeightedMean(x, w), 2},
		{"sd", WeightedSD(x, w), math.Sqrt(0.25 + 0.25)},
		{"mcse", MCSEMean(x, w), math.Sqrt(0.0625 + 0.0625)},
		// cumulative weights by x: 1:0.25, 2:0.75, 3:1, 10:1
		{"q0.1", WeightedQuantile(x, w, 0.1, nil), 1},
		{"q0.5", WeightedQuantile(x, w, 0.5, nil), 1.5},
		{"q0.75", WeightedQuantile(x, w, 0.75, nil), 2},
		{"q0.875", WeightedQuantile(x, w, 0.875, nil), 2.5},
		{"q1", WeightedQuantile(x, w, 1, nil), 3},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestResample(t *testing.T) {
	w := []float64{0, 0.5, 0, 0, 0.5, 0}
	for seed := uint64(0); seed < 200; seed++ {
		out := make([]int, 7)
		Resample(rand.New(rand.NewPCG(seed, 0)), w, out)
		for _, i := range out {
			if w[i] == 0 {
				t.Fatalf("seed %d: index %d of zero weight in %v", seed, i, out)
			}
		}
		again := make([]int, 7)
		Resample(rand.New(rand.NewPCG(seed, 0)), w, again)
		if !slices.Equal(out, again) {
			t.Fatalf("seed %d: %v then %v", seed, out, again)
		}
	}
	// Systematic resampling keeps each count within 1 of n w_i.
	w = []float64{0.1, 0.2, 0.3, 0.4}
	out := make([]int, 1000)
	Resample(rand.New(rand.NewPCG(1, 2)), w, out)
	counts := make([]int, len(w))
	for _, i := range out {
		counts[i]++
	}
	for i, c := range counts {
		if math.Abs(float64(c)-1000*w[i]) > 1 {
			t.Errorf("count %d = %d, want %v ± 1", i, c, 1000*w[i])
		}
	}
}

// maxSource makes rand.Float64 return its largest value, 1 - 2^-53.
type maxSource struct{}

func (maxSource) Uint64() uint64 { return ^uint64(0) }

// TestResampleRounding: nine weights of 1/9 then zeros; their normalised
// cumulative sum rounds to 1 - 4e-16, below the largest uniform draw, so a
// careless walk runs onto the zero weights.
func TestResampleRounding(t *testing.T) {
	w := make([]float64, 12)
	for i := range 9 {
		w[i] = 1.0 / 9
	}
	out := make([]int, 1)
	Resample(rand.New(maxSource{}), w, out)
	if out[0] != 8 {
		t.Errorf("index %d, want 8 (the last positive weight)", out[0])
	}
}

// TestQuantileScratchOrder: the radix sort's order is that of a comparison
// sort by cmp.Compare with ties broken by index, on draws with ties, NaNs,
// signed zeros, infinities, subnormals and values of every sign and scale,
// with the scratch reused across lengths.
func TestQuantileScratchOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	special := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1, -1}
	sc := new(QuantileScratch)
	for _, n := range []int{0, 1, 2, 7, 100, 5000, 300} {
		x := make([]float64, n)
		for i := range x {
			switch rng.IntN(4) {
			case 0:
				x[i] = special[rng.IntN(len(special))]
			case 1:
				x[i] = float64(rng.IntN(5) - 2) // ties
			default:
				x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
			}
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortFunc(want, func(a, b int) int {
			if c := cmp.Compare(x[a], x[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		got := sc.order(x)
		require.Len(t, got, n)
		if n > 0 {
			require.Equal(t, want, got, "n = %d", n)
		}
	}
}
