package special

import "testing"

// Benchmarks of the fast functions, their slice versions and the old
// implementations (special_old_test.go), on the 1000 points of
// benchPoints (uniform in [-10, 10], so the sign of x is random). ns/call
// is the time per element.

func benchScalar(b *testing.B, f func(float64) float64) {
	xs := benchPoints()
	dst := make([]float64, len(xs))
	for b.Loop() {
		for i, x := range xs {
			dst[i] = f(x)
		}
	}
	benchSink = dst[0]
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/call")
}

func benchSlice(b *testing.B, f func(dst, x []float64)) {
	xs := benchPoints()
	dst := make([]float64, len(xs))
	for b.Loop() {
		f(dst, xs)
	}
	benchSink = dst[0]
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/call")
}

// The scalar benchmarks call the function directly in the loop (not
// through a func value), as a caller does.

func BenchmarkFastLogPhi(b *testing.B) {
	xs := benchPoints()
	dst := make([]float64, len(xs))
	for b.Loop() {
		for i, x := range xs {
			dst[i] = LogPhi(x)
		}
	}
	benchSink = dst[0]
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/call")
}

func BenchmarkOldLogPhi(b *testing.B) {
	xs := benchPoints()
	dst := make([]float64, len(xs))
	for b.Loop() {
		for i, x := range xs {
			dst[i] = oldLogPhi(x)
		}
	}
	benchSink = dst[0]
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/call")
}

func BenchmarkFastLogPhiSlice(b *testing.B)   { benchSlice(b, LogPhiSlice) }
func BenchmarkFastLog1pExpSlice(b *testing.B) { benchSlice(b, Log1pExpSlice) }

// Through a func value (one indirect call per element on both sides).
func BenchmarkFastPhi(b *testing.B)      { benchScalar(b, Phi) }
func BenchmarkOldPhi(b *testing.B)       { benchScalar(b, oldPhi) }
func BenchmarkFastInvMills(b *testing.B) { benchScalar(b, InvMills) }
func BenchmarkOldInvMills(b *testing.B)  { benchScalar(b, oldInvMills) }
func BenchmarkFastLog1pExp(b *testing.B) { benchScalar(b, Log1pExp) }
func BenchmarkOldLog1pExp(b *testing.B)  { benchScalar(b, oldLog1pExp) }
