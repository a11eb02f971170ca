package main

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
)

// maxTraced is the number of latent components whose q moments go into
// trace.csv (the first ones, in declaration order).
const maxTraced = 50

// tracer records logged iterations for trace.csv.
type tracer struct {
	m        *infer.Model
	rows     [][]float64
	nLat     int
	mean, sd []float64
}

func newTracer(m *infer.Model) *tracer {
	d := m.IR.LatentDim
	return &tracer{m: m, nLat: min(d, maxTraced), mean: make([]float64, d), sd: make([]float64, d)}
}

func (tr *tracer) record(e *msc.TraceEntry) {
	q, ok := e.Q.(msc.Sampler)
	if !ok {
		return // state-space proposals have no moments of their own
	}
	q.Moments(tr.mean, tr.sd)
	row := make([]float64, 0, 3+2*tr.nLat+len(e.Params))
	row = append(row, float64(e.Iter), e.ESS, e.ChangeRate)
	row = append(row, tr.mean[:tr.nLat]...)
	row = append(row, tr.sd[:tr.nLat]...)
	if len(e.Params) > 0 {
		x := make([]float64, len(e.Params))
		tr.m.Comp.ConstrainParams(e.Params, x)
		row = append(row, x...)
	}
	tr.rows = append(tr.rows, row)
}

// The naming rule between the JSON outputs and the CSV files: a
// component named w[3] or M[1,2] in summary.json and variational.json (and
// in the tables printed) is the column w.3 or M.1.2 of draws.csv and
// trace.csv, as in Stan's CSV files, so that R's read.csv and pandas keep
// the names as they are; a scalar z is z in both. Names of variables
// cannot hold a dot, so the rule is one-to-one (jsonName undoes csvName).
// trace.csv prefixes the components of q with mean_ and sd_.

// csvName turns a component name such as w[3] or M[1,2] into its column
// name w.3, M.1.2.
func csvName(s string) string {
	r := strings.NewReplacer("[", ".", "]", "", ",", ".", " ", "")
	return r.Replace(s)
}

func (tr *tracer) csv() []byte {
	var b bytes.Buffer
	names := tr.m.IR.UnconstrainedNames()[:tr.nLat]
	head := []string{"iteration", "ess", "change_rate"}
	for _, n := range names {
		head = append(head, "mean_"+csvName(n))
	}
	for _, n := range names {
		head = append(head, "sd_"+csvName(n))
	}
	for _, n := range tr.m.IR.ParamNames() {
		head = append(head, csvName(n))
	}
	b.WriteString(strings.Join(head, ",") + "\n")
	writeRows(&b, tr.rows, 8)
	return b.Bytes()
}

func writeRows(b *bytes.Buffer, rows [][]float64, digits int) {
	for _, row := range rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', digits, 64))
		}
		b.WriteByte('\n')
	}
}

// drawsCSV writes draws in each latent's own space, one column per scalar
// component.
func drawsCSV(names []string, rows [][]float64) []byte {
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(csvName(n))
	}
	b.WriteByte('\n')
	writeRows(&b, rows, 10)
	return b.Bytes()
}

// writeTables adds trace.csv and draws.csv to the set (draws.csv only
// when q can be sampled).
func writeTables(set *outSet, tr *tracer, f *infer.Fitted, draws int, seed uint64) error {
	if tr != nil && len(tr.rows) > 0 {
		if err := set.write("trace.csv", tr.csv()); err != nil {
			return err
		}
	}
	if draws <= 0 {
		return nil
	}
	rows, err := f.Draws(draws, seed)
	if err != nil {
		return nil // a state-space run: no draws of q
	}
	return set.write("draws.csv", drawsCSV(f.Model.IR.LatentNames(), rows))
}

// jsonName turns a column name such as w.3 or M.1.2 back into the
// component name w[3], M[1,2]: the inverse of csvName (traces.go).
func jsonName(s string) string {
	name, idx, ok := strings.Cut(s, ".")
	if !ok {
		return s
	}
	return name + "[" + strings.ReplaceAll(idx, ".", ",") + "]"
}
