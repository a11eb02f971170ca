package lower

import (
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/lang"
)

// BenchmarkBuildCompile1M: lowering, checking and compiling a parsed 1 MB
// model of 55,000 statements `z ~ normal(0, 1)` (issue 25's shape) to its
// graph.
func BenchmarkBuildCompile1M(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("latent { z: real }\nmodel {\n")
	for range 55000 {
		sb.WriteString("  z ~ normal(0, 1)\n")
	}
	sb.WriteString("}\n")
	f, err := lang.Parse("b.msc", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		m, err := check.Build(f, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compile(m, CompileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
