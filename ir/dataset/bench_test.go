package dataset

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkReadPima(b *testing.B) {
	data, err := os.ReadFile(exampleData + "pima.csv")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("pima.csv", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStandardize(b *testing.B) {
	const rows, cols = 768, 8
	x := make([]float64, rows*cols)
	for i := range x {
		x[i] = float64(i%97) * 0.5
	}
	b.ReportAllocs()
	for b.Loop() {
		Standardize(x, rows, cols)
	}
}
