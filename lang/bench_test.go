package lang

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkParseBriefExample(b *testing.B) {
	src := []byte(briefExample)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("b.msc", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse256K: a generated 256 KB model; MB/s is the parse rate.
func BenchmarkParse256K(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("model {\n")
	for sb.Len() < 256<<10 {
		fmt.Fprintf(&sb, "  y%d ~ normal(mu + x[%d] * beta, sqrt(s2)) // comment\n", sb.Len(), sb.Len()%100+1)
	}
	sb.WriteString("}\n")
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("b.msc", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan256K: the token pre-checks alone.
func BenchmarkScan256K(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("model {\n")
	for sb.Len() < 256<<10 {
		fmt.Fprintf(&sb, "  y%d ~ normal(mu + x[%d] * beta, sqrt(s2)) // comment\n", sb.Len(), sb.Len()%100+1)
	}
	sb.WriteString("}\n")
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scan("b.msc", src); err != nil {
			b.Fatal(err)
		}
	}
}

// bigModel is a model of n lines of `z ~ normal(0, 1)` (issue 25's shape),
// about 19 bytes a line.
func bigModel(n int) []byte {
	var sb strings.Builder
	sb.WriteString("latent { z: real }\nmodel {\n")
	for range n {
		sb.WriteString("  z ~ normal(0, 1)\n")
	}
	sb.WriteString("}\n")
	return []byte(sb.String())
}

// BenchmarkParse1M: a 1 MB model of 55,000 statements, just under
// MaxSource.
func BenchmarkParse1M(b *testing.B) {
	src := bigModel(55000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("b.msc", src); err != nil {
			b.Fatal(err)
		}
	}
}
