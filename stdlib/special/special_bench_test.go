package special

import (
	"math/rand/v2"
	"testing"
)

// benchPoints is a fixed slice of 1000 values in [-10, 10].
func benchPoints() []float64 {
	rng := rand.New(rand.NewPCG(7, 11))
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = -10 + 20*rng.Float64()
	}
	return xs
}

var benchSink float64

// The figures are per call: each iteration runs over the 1000 points and
// the reported ns/op is divided by 1000 through b.ReportMetric.

func BenchmarkLogPhi(b *testing.B) {
	xs := benchPoints()
	s := 0.0
	for b.Loop() {
		for _, x := range xs {
			s += LogPhi(x)
		}
	}
	benchSink = s
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/call")
}

func BenchmarkInvMills(b *testing.B) {
	xs := benchPoints()
	s := 0.0
	for b.Loop() {
		for _, x := range xs {
			s += InvMills(x)
		}
	}
	benchSink = s
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/call")
}
