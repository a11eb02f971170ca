package stdlib

import "testing"

// BenchmarkRandOpNormal: normal_rng over 1000 draws per evaluation, the
// inner loop of a derived quantity (it allocates nothing).
func BenchmarkRandOpNormal(b *testing.B) {
	f, _ := Lookup("normal")
	op := NewRandOp(f, 1000)
	out := make([]float64, 1000)
	mu, sd := make([]float64, 1000), []float64{1.5}
	for i := range mu {
		mu[i] = float64(i) * 0.01
	}
	in := [][]float64{{0}, mu, sd}
	b.ReportAllocs()
	for b.Loop() {
		op.Forward(out, in)
	}
}
