package exact

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Case is one model with its data and its exact answer, as the files under
// testdata hold them: NAME.msc, DATA.csv (none when the model has no data)
// and EXACT_exact.csv.
type Case struct {
	Name  string // the model file's base name
	Model string // its text
	// DataName is the data file's base name ("" when the model needs no
	// data) and Data its contents; cases on the same data share it.
	DataName, Data string
	// ExactName is the exact file's base name (before _exact.csv), Exact
	// its rows.
	ExactName string
	Exact     []Summary
	// Probs names the 0/1 quantities among Exact (derived indicators),
	// whose means are probabilities, scored by their absolute error.
	Probs []string
	// Notes are one-line facts of the exact answer beyond the file (log
	// evidence, modes' masses, the grid's margins), printed by
	// examples/tools/exactref.
	Notes []string
}

// The grid of ExactMix behind the case files.
const mixGrid = 200

// Cases computes every case: bimodal and trimodal (case 1), hier_centred
// and hier_noncentred (case 2), funnel (case 3), mix_unordered and
// mix_ordered (case 4).
func Cases() ([]Case, error) {
	var cs []Case
	bi, err := Bimodal()
	if err != nil {
		return nil, err
	}
	pos := bi.Masses[1]
	cs = append(cs, Case{Name: "bimodal", Model: BimodalModel, ExactName: "bimodal",
		Exact: []Summary{bi.Theta, Indicator("pos", pos)}, Probs: []string{"pos"},
		Notes: []string{
			fmt.Sprintf("log p(y) = %.10f", bi.LogZ),
			fmt.Sprintf("modes %.7f, %.7f; P(theta > 0) = %.15f (|P - 1/2| = %.1e)", bi.Modes[0], bi.Modes[1], pos, math.Abs(pos-0.5)),
			fmt.Sprintf("quadrature: %d nodes, relative error %.1e, density at +-12 %.0f below the maximum", len(bi.Rule.X), bi.RelErr, bi.EdgeLog),
		}})

	tri, err := Trimodal()
	if err != nil {
		return nil, err
	}
	cs = append(cs, Case{Name: "trimodal", Model: TrimodalModel, ExactName: "trimodal",
		Exact: []Summary{tri.Theta, Indicator("left", tri.Masses[0]), Indicator("mid", tri.Masses[1]), Indicator("right", tri.Masses[2])},
		Probs: []string{"left", "mid", "right"},
		Notes: []string{
			fmt.Sprintf("log p(y) = %.10f", tri.LogZ),
			fmt.Sprintf("modes %.7f, %.7f, %.7f with masses %.7f, %.7f, %.7f; P(theta > 0) = %.7f",
				tri.Modes[0], tri.Modes[1], tri.Modes[2], tri.Masses[0], tri.Masses[1], tri.Masses[2], tri.Rule.Prob(0, 100)),
			fmt.Sprintf("quadrature: %d nodes, relative error %.1e", len(tri.Rule.X), tri.RelErr),
		}})

	d := SimulateHier()
	h, err := ExactHier(d)
	if err != nil {
		return nil, err
	}
	hierNotes := []string{
		fmt.Sprintf("log p(y) = %.10f (with the half-normal's normaliser 2; %.10f without)", h.LogEvidence, h.LogEvidence-math.Ln2),
		fmt.Sprintf("P(tau < 0.1) = %.6f, P(tau < 0.5) = %.6f; p(tau | y) at tau = 25 is %.0f below its maximum", h.PTauBelow01, h.PTauBelow05, h.TauEdge),
	}
	for _, c := range []struct{ name, model string }{{"hier_centred", HierCentredModel}, {"hier_noncentred", HierNonCentredModel}} {
		cs = append(cs, Case{Name: c.name, Model: c.model, DataName: "hier", Data: d.CSV(), ExactName: "hier",
			Exact: h.Summaries(), Notes: hierNotes})
	}

	f, err := Funnel()
	if err != nil {
		return nil, err
	}
	cs = append(cs, Case{Name: "funnel", Model: FunnelModel, ExactName: "funnel", Exact: f})

	y := SimulateMix()
	m, err := ExactMix(y, mixGrid)
	if err != nil {
		return nil, err
	}
	mixNotes := []string{
		fmt.Sprintf("ordered mode (%.6f, %.6f); %dx%d grid; border %.0f and diagonal mu1 = mu2 %.0f below the maximum", m.Mode[0], m.Mode[1], mixGrid, mixGrid, m.Edge, m.Diagonal),
	}
	cs = append(cs,
		Case{Name: "mix_unordered", Model: MixUnorderedModel, DataName: "mix", Data: mixCSV(y), ExactName: "mix_unordered",
			Exact: m.Unordered, Probs: []string{"first_low"}, Notes: mixNotes},
		Case{Name: "mix_ordered", Model: MixOrderedModel, DataName: "mix", Data: mixCSV(y), ExactName: "mix_ordered",
			Exact: m.Ordered, Notes: mixNotes})
	return cs, nil
}

// Files returns the case's files: base name to contents.
func (c Case) Files() (map[string][]byte, error) {
	var ex bytes.Buffer
	if err := WriteSummaries(&ex, c.Exact); err != nil {
		return nil, err
	}
	files := map[string][]byte{
		c.Name + ".msc":            []byte(c.Model),
		c.ExactName + "_exact.csv": ex.Bytes(),
	}
	if c.DataName != "" {
		files[c.DataName+".csv"] = []byte(c.Data)
	}
	return files, nil
}

// WriteFiles writes the case's files into dir.
func (c Case) WriteFiles(dir string) error {
	files, err := c.Files()
	if err != nil {
		return err
	}
	var errs []error
	for name, b := range files {
		errs = append(errs, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	return errors.Join(errs...)
}

// Paths are a case's files under dir: the model, the data ("" when none)
// and the exact answer.
func (c Case) Paths(dir string) (model, data, exact string) {
	model = filepath.Join(dir, c.Name+".msc")
	if c.DataName != "" {
		data = filepath.Join(dir, c.DataName+".csv")
	}
	return model, data, filepath.Join(dir, c.ExactName+"_exact.csv")
}
