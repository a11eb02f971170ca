package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
)

// maxTraced is the number of latent components whose q moments go into
// trace.csv (the first ones, in declaration order).
const maxTraced = 50

// tracer records logged iterations for trace.csv.
type tracer struct {
	comp *ir.Compiled
	rows [][]float64
	nLat int
}

func newTracer(comp *ir.Compiled) *tracer {
	return &tracer{comp: comp, nLat: min(comp.Dim(), maxTraced)}
}

func (tr *tracer) record(e *msc.TraceEntry) {
	row := make([]float64, 0, 3+2*tr.nLat+len(e.Params))
	row = append(row, float64(e.Iter), e.ESS, e.ChangeRate)
	row = append(row, e.Mean[:tr.nLat]...)
	row = append(row, e.SD[:tr.nLat]...)
	if len(e.Params) > 0 {
		x := make([]float64, len(e.Params))
		tr.comp.ConstrainParams(e.Params, x)
		row = append(row, x...)
	}
	tr.rows = append(tr.rows, row)
}

// csvName turns a component name such as w[3] or M[1,2] into a column name
// that R's read.csv and pandas keep as is: w.3, M.1.2.
func csvName(s string) string {
	r := strings.NewReplacer("[", ".", "]", "", ",", ".", " ", "")
	return r.Replace(s)
}

func (tr *tracer) csv() []byte {
	var b bytes.Buffer
	names := tr.comp.Model.LatentNames()[:tr.nLat]
	head := []string{"iteration", "ess", "change_rate"}
	for _, n := range names {
		head = append(head, "mean_"+csvName(n))
	}
	for _, n := range names {
		head = append(head, "sd_"+csvName(n))
	}
	for _, n := range tr.comp.Model.ParamNames() {
		head = append(head, csvName(n))
	}
	b.WriteString(strings.Join(head, ",") + "\n")
	for _, row := range tr.rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', 8, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// drawsCSV draws m samples from q and writes them in each latent's own
// (constrained) space, one column per scalar component.
func drawsCSV(comp *ir.Compiled, q *msc.Gaussian, m int, seed uint64) []byte {
	var b bytes.Buffer
	names := comp.Model.LatentNames()
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(csvName(n))
	}
	b.WriteByte('\n')
	d := comp.Dim()
	rng := rand.New(rand.NewPCG(seed, 0x647261))
	u, eps, x := make([]float64, d), make([]float64, d), make([]float64, d)
	for k := 0; k < m; k++ {
		q.Sample(rng, u, eps)
		comp.Constrain(u, x)
		for i, v := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', 10, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// writeTables writes trace.csv and draws.csv into dir.
func writeTables(dir string, tr *tracer, comp *ir.Compiled, q *msc.Gaussian, draws int, seed uint64) error {
	if tr != nil {
		if err := writeFileAtomic(filepath.Join(dir, "trace.csv"), tr.csv()); err != nil {
			return err
		}
	}
	if q != nil && draws > 0 {
		if err := writeFileAtomic(filepath.Join(dir, "draws.csv"), drawsCSV(comp, q, draws, seed)); err != nil {
			return fmt.Errorf("writing draws.csv: %w", err)
		}
	}
	return nil
}
