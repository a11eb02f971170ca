package stdlib

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cdfTail is one row of testdata/cdf_tails.csv: the reference value of
// NAME_lcdf or NAME_lccdf at args, made with mpmath by
// testdata/cdf_ref.py.
type cdfTail struct {
	name, kind string
	want       float64
	args       []float64
}

func readCDFTails(t *testing.T) []cdfTail {
	f, err := os.Open("testdata/cdf_tails.csv")
	require.NoError(t, err)
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	require.NoError(t, err)
	var rows []cdfTail
	for i, rec := range recs[1:] {
		row := cdfTail{name: rec[0], kind: rec[1]}
		for j, s := range rec[2:] {
			v, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err, "row %d column %d", i+2, j+3)
			if j == 0 {
				row.want = v
			} else {
				row.args = append(row.args, v)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestCDFTails: every NAME_lcdf and NAME_lccdf of the vocabulary against
// mpmath's values on a grid over the bulk and both tails (y from ±1e-300
// to ±1e300 where the support allows), within 1e-8 relative (a reference
// beyond the doubles' range is -Inf, one below them 0 within 1e-300). It
// also checks that the grid covers every family that has a CDF.
func TestCDFTails(t *testing.T) {
	rows := readCDFTails(t)
	covered := map[string]bool{}
	var bad []string
	for _, r := range rows {
		fam, ok := Lookup(r.name)
		require.True(t, ok, r.name)
		f := fam.LogCDF
		if r.kind == "lccdf" {
			f = fam.LogCCDF
		}
		require.NotNil(t, f, "%s_%s", r.name, r.kind)
		covered[r.name] = true
		got := f.Eval(r.args)
		var d [MaxNaryArity]float64
		gotG := f.Grad(r.args, d[:len(r.args)])
		ok = got == r.want || math.Abs(got-r.want) <= 1e-8*math.Abs(r.want)+1e-300
		if !ok || gotG != got && !(math.IsNaN(got) && math.IsNaN(gotG)) {
			bad = append(bad, fmt.Sprintf("%s_%s%v = %v (Grad %v), want %v (rel %.2g)",
				r.name, r.kind, r.args, got, gotG, r.want, math.Abs(got-r.want)/math.Abs(r.want)))
		}
	}
	for _, name := range FamilyNames() {
		if fam, _ := Lookup(name); fam.LogCDF != nil {
			if !covered[name] {
				t.Errorf("%s has a CDF but no row in testdata/cdf_tails.csv", name)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d values off:\n%s", len(bad), len(rows), strings.Join(bad, "\n"))
	}
}
