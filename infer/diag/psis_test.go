package diag

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Khat tolerances: over seeds 1..20 with S = 4000 (tail M = 190) k-hat had
// a standard deviation of about 0.078 for sigma^2 = 2 and 0.075 for
// sigma^2 = 1.5, and a downward bias of about 0.045 and 0.015 (the
// pre-asymptotic tail of the ratio is lighter than its limit). A single
// seed is held within 0.25 (about 3 sd), the mean over 10 seeds within
// 0.1 (bias + 3 sd/sqrt(10)). For sigma^2 = 0.8 the ratio is bounded, so
// the tail is light: k-hat was between -1.9 and -1.5; we require k-hat < 0.
func TestPSISKhat(t *testing.T) {
	tests := []struct {
		name   string
		s2     float64
		k      float64
		single float64 // per-seed tolerance
		mean   float64 // tolerance of the mean over 10 seeds
	}{
		{"sigma2=2", 2, 0.5, 0.25, 0.1},
		{"sigma2=1.5", 1.5, 1.0 / 3, 0.25, 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res PSISResult
			var sum float64
			for seed := uint64(1); seed <= 10; seed++ {
				_, lr := normalLogRatios(100+seed, 4000, tc.s2)
				if err := PSIS(lr, &res); err != nil {
					t.Fatal(err)
				}
				if math.Abs(res.Khat-tc.k) > tc.single {
					t.Errorf("seed %d: khat %v, want %v ± %v", seed, res.Khat, tc.k, tc.single)
				}
				sum += res.Khat
			}
			if m := sum / 10; math.Abs(m-tc.k) > tc.mean {
				t.Errorf("mean khat %v, want %v ± %v", m, tc.k, tc.mean)
			}
		})
	}
	t.Run("sigma2=0.8 light tail", func(t *testing.T) {
		var res PSISResult
		for seed := uint64(1); seed <= 5; seed++ {
			_, lr := normalLogRatios(200+seed, 4000, 0.8)
			if err := PSIS(lr, &res); err != nil {
				t.Fatal(err)
			}
			if !(res.Khat < 0) {
				t.Errorf("seed %d: khat %v, want < 0", seed, res.Khat)
			}
		}
	})
}

// TestPSISMoment checks that the smoothed weights recover the target
// variance E[x^2] = 1.5 within 4 Monte Carlo standard errors.
func TestPSISMoment(t *testing.T) {
	x, lr := normalLogRatios(7, 4000, 1.5)
	var res PSISResult
	if err := PSIS(lr, &res); err != nil {
		t.Fatal(err)
	}
	w := make([]float64, len(x))
	x2 := make([]float64, len(x))
	for i := range x {
		w[i] = math.Exp(res.LogWeights[i])
		x2[i] = x[i] * x[i]
	}
	m, se := WeightedMean(x2, w), MCSEMean(x2, w)
	if math.Abs(m-1.5) > 4*se {
		t.Errorf("E[x^2] = %v ± %v, want 1.5", m, se)
	}
	if res.TailLen != 190 {
		t.Errorf("TailLen = %d, want ceil(min(800, 3 sqrt(4000))) = 190", res.TailLen)
	}
	if !(res.ESS > 1000 && res.ESS < 4000) {
		t.Errorf("ESS = %v", res.ESS)
	}
}

func TestPSISProperties(t *testing.T) {
	_, lr := normalLogRatios(8, 1000, 2)
	lr[5] = math.Inf(-1)
	res := PSISResult{LogWeights: make([]float64, 0, 2000)}
	p := &res.LogWeights[:1][0]
	if err := PSIS(lr, &res); err != nil {
		t.Fatal(err)
	}
	if &res.LogWeights[0] != p {
		t.Error("LogWeights was reallocated despite enough capacity")
	}
	if len(res.LogWeights) != len(lr) {
		t.Fatalf("len(LogWeights) = %d", len(res.LogWeights))
	}
	if lse := logSumExp(res.LogWeights); math.Abs(lse) > 1e-12 {
		t.Errorf("logsumexp = %v, want 0", lse)
	}
	if !math.IsInf(res.LogWeights[5], -1) {
		t.Errorf("weight of a -Inf ratio = %v", res.LogWeights[5])
	}
	// Truncation: no weight exceeds the largest raw ratio's.
	imax := 0
	for i, v := range lr {
		if v > lr[imax] {
			imax = i
		}
	}
	if slices.Max(res.LogWeights) > res.LogWeights[imax]+1e-12 {
		t.Error("a smoothed weight exceeds the largest raw weight")
	}
	// The smoothing keeps the order of the draws.
	for i := range lr {
		for j := range lr {
			if lr[i] < lr[j] && res.LogWeights[i] > res.LogWeights[j]+1e-12 {
				t.Fatalf("order broken at %d, %d", i, j)
			}
		}
	}
}

func TestPSISUnsmoothed(t *testing.T) {
	tests := []struct {
		name string
		lr   []float64
		m    int
	}{
		{"S=10 gives M=2", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 2},
		{"constant tail", append(make([]float64, 90), 3, 3, 3, 3, 3, 3, 3, 3, 3, 3), 20},
		// 4 distinct values in the tail of 20: loo would smooth, PSIS does not.
		{"4 distinct tail values", append(ramp(80), 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8), 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res PSISResult
			if err := PSIS(tc.lr, &res); err != nil {
				t.Fatal(err)
			}
			if !math.IsInf(res.Khat, 1) || res.TailLen != tc.m {
				t.Errorf("Khat %v TailLen %d, want +Inf, %d", res.Khat, res.TailLen, tc.m)
			}
			lse := logSumExp(tc.lr)
			for i, v := range res.LogWeights {
				if math.Abs(v-(tc.lr[i]-lse)) > 1e-12 {
					t.Fatalf("weight %d changed: %v vs %v", i, v, tc.lr[i]-lse)
				}
			}
		})
	}
}

func TestPSISErrors(t *testing.T) {
	for _, lr := range [][]float64{nil, {1, math.NaN(), 2}, {1, math.Inf(1)}, {math.Inf(-1), math.Inf(-1)}} {
		var res PSISResult
		if err := PSIS(lr, &res); err == nil {
			t.Errorf("PSIS(%v) gave no error", lr)
		}
	}
}

// TestGPDFit fits 20000 exact GPD(k=0.3, sigma=2) draws.
func TestGPDFit(t *testing.T) {
	const k, sigma = 0.3, 2.0
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([]float64, 20000)
	for i := range x {
		x[i] = gpdQuantile(rng.Float64(), k, sigma)
	}
	slices.Sort(x)
	kh, sh := GPDFit(x)
	if relErr(kh, k) > 0.05 || relErr(sh, sigma) > 0.05 {
		t.Errorf("GPDFit = (%v, %v), want (%v, %v) within 5%%", kh, sh, k, sigma)
	}
}

func BenchmarkPSIS(b *testing.B) {
	_, lr := normalLogRatios(1, 4000, 2)
	var res PSISResult
	b.ReportAllocs()
	for b.Loop() {
		if err := PSIS(lr, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// ramp returns 0, 1/n, ..., (n-1)/n.
func ramp(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = float64(i) / float64(n)
	}
	return r
}
