package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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

// logisticJSON is a data file like examples/tools/biglogistic's: N, K, an
// N x K matrix X of 8-digit decimals and N 0/1 outcomes y.
func logisticJSON(n, k int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"N\": %d,\n  \"K\": %d,\n  \"X\": [\n", n, k)
	for i := range n {
		b.WriteString("    [")
		for j := range k {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(float64(float32(r.NormFloat64())), 'g', 8, 32))
		}
		b.WriteString("]")
		if i < n-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ],\n  \"y\": [")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strconv.Itoa(r.IntN(2)))
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// logisticCSV is the same data as a CSV table: y and the K columns of X.
func logisticCSV(n, k int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.WriteString("y")
	for j := range k {
		fmt.Fprintf(&b, ",x%d", j+1)
	}
	b.WriteString("\n")
	for range n {
		b.WriteString(strconv.Itoa(r.IntN(2)))
		for range k {
			b.WriteString(",")
			b.WriteString(strconv.FormatFloat(float64(float32(r.NormFloat64())), 'g', 8, 32))
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// BenchmarkReadJSON reads a 10^4 x 10 logistic regression's data (1.3 MB);
// MB/s is the reading speed, allocs/op the allocations per file (a few per
// field, none per number).
func BenchmarkReadJSON(b *testing.B) {
	data := logisticJSON(10000, 10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := ParseJSON("d.json", data)
		if err != nil {
			b.Fatal(err)
		}
		if f, _ := d.Field("X"); len(f.Values) != 100000 {
			b.Fatal(f.Dims)
		}
	}
}

// BenchmarkReadJSONFile reads the same data streamed from a file
// (ReadJSONFile, mscppl's way), through a window instead of the whole text.
func BenchmarkReadJSONFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "d.json")
	data := logisticJSON(10000, 10)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := ReadJSONFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if f, _ := d.Field("X"); len(f.Values) != 100000 {
			b.Fatal(f.Dims)
		}
	}
}

// BenchmarkReadCSV reads the same data as a CSV table.
func BenchmarkReadCSV(b *testing.B) {
	data := logisticCSV(10000, 10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		t, err := Read("d.csv", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if t.Rows != 10000 {
			b.Fatal(t.Rows)
		}
	}
}
