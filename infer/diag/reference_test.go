package diag

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The reference values in testdata/reference.csv were computed by
// testdata/make_reference.R with R 4.2.2, posterior 1.4.0 and loo 2.5.1
// (see testdata/README.md); Go must agree to 1e-8 relative.
const refTol = 1e-8

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// readColumns reads a CSV of numbers into its columns (for chains: rows
// are draws, columns chains).
func readColumns(t *testing.T, name string) [][]float64 {
	t.Helper()
	rows := readCSV(t, name)
	cols := make([][]float64, len(rows[0]))
	for _, row := range rows {
		for j, s := range row {
			cols[j] = append(cols[j], parse(t, s))
		}
	}
	return cols
}

// reference returns reference.csv as map[set + "/" + function]value.
func reference(t *testing.T) map[string]float64 {
	t.Helper()
	ref := map[string]float64{}
	for _, row := range readCSV(t, "reference.csv") {
		ref[row[0]+"/"+row[1]] = parse(t, row[2])
	}
	return ref
}

func TestRhatESSAgainstPosterior(t *testing.T) {
	ref := reference(t)
	funcs := []struct {
		name string
		f    func([][]float64) float64
	}{{"Rhat", Rhat}, {"SplitRhat", SplitRhat}, {"ESSBulk", ESSBulk}, {"ESSTail", ESSTail}, {"ESS", ESS}}
	for _, set := range []string{"a", "b", "c", "d"} {
		chains := readColumns(t, "chains_"+set+".csv")
		for _, fn := range funcs {
			want, ok := ref[set+"/"+fn.name]
			if !ok {
				t.Fatalf("no reference for %s/%s", set, fn.name)
			}
			if got := fn.f(chains); !(relErr(got, want) < refTol) {
				t.Errorf("%s(%s) = %.17g, posterior %.17g", fn.name, set, got, want)
			}
		}
	}
}

func TestPSISAgainstLoo(t *testing.T) {
	ref := reference(t)
	for _, set := range []string{"p100", "p1000", "p4000"} {
		lr := readColumns(t, "logratios_"+set+".csv")[0]
		lw := readColumns(t, "logweights_"+set+".csv")[0]
		var res PSISResult
		if err := PSIS(lr, &res); err != nil {
			t.Fatal(err)
		}
		if want := ref[set+"/Khat"]; !(relErr(res.Khat, want) < refTol) {
			t.Errorf("%s: Khat %.17g, loo %.17g", set, res.Khat, want)
		}
		if want := ref[set+"/ESS"]; !(relErr(res.ESS, want) < refTol) {
			t.Errorf("%s: ESS %.17g, loo %.17g", set, res.ESS, want)
		}
		for i := range lw {
			// Log weights are near -log S; compare absolutely on the log
			// scale, i.e. relatively on the weight scale.
			if d := math.Abs(res.LogWeights[i] - lw[i]); !(d < refTol) {
				t.Fatalf("%s: log weight %d = %.17g, loo %.17g", set, i, res.LogWeights[i], lw[i])
			}
		}
	}
}

func TestGPDFitAgainstLoo(t *testing.T) {
	ref := reference(t)
	x := readColumns(t, "gpd.csv")[0]
	k, sigma := GPDFit(x)
	if !(relErr(k, ref["gpd/k"]) < refTol) || !(relErr(sigma, ref["gpd/sigma"]) < refTol) {
		t.Errorf("GPDFit = (%.17g, %.17g), loo (%.17g, %.17g)", k, sigma, ref["gpd/k"], ref["gpd/sigma"])
	}
}
