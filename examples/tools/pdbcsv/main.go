// Command pdbcsv converts the data of the posteriordb posteriors that mscppl
// can express today from CmdStan's JSON format (data.json) to the CSV files
// read by examples/posteriordb/<posterior>/model.msc.
//
//	go run ./examples/tools/pdbcsv -pdb ../shared/posteriordb -out examples/posteriordb
//
// Each CSV has one row per observation. Columns copied from data.json keep
// the JSON's number text unchanged; a matrix X[N, D] becomes the columns X1,
// ..., XD. Derived columns (Stan's transformed data, which the language
// cannot compute yet) are computed here and formatted with the shortest
// representation that round-trips a float64:
//
//   - kidiq-kidscore_interaction: inter = mom_hs * mom_iq
//   - earnings-logearn_interaction: log_earn = log(earn), inter = height * male
//   - nes2000-nes: age30_44 = (age_discrete == 2), age45_64 = (age_discrete == 3),
//     age65up = (age_discrete == 4), each 1 or 0
//
// Scalar data (sizes such as N, and K = 5 of arK, written out in its model)
// is not written: sizes come from the number of rows.
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// column is one CSV column: a name and how to make its value for row i.
type column struct {
	name string
	// key: copy data.json's vector key verbatim (when derive is nil).
	key string
	// derive computes the value of row i from the data.
	derive func(d data, i int) (float64, error)
}

// spec is the conversion of one posterior.
type spec struct {
	posterior string
	rows      string // the data.json key holding the number of rows (a vector)
	cols      []column
	matrix    string // a matrix key expanded into matrix1..matrixD (optional)
}

func raw(keys ...string) []column {
	cs := make([]column, len(keys))
	for i, k := range keys {
		cs[i] = column{name: k, key: k}
	}
	return cs
}

func indicator(key string, level float64) func(data, int) (float64, error) {
	return func(d data, i int) (float64, error) {
		v, err := d.at(key, i)
		if err != nil {
			return 0, err
		}
		if v == level {
			return 1, nil
		}
		return 0, nil
	}
}

func product(a, b string) func(data, int) (float64, error) {
	return func(d data, i int) (float64, error) {
		x, err := d.at(a, i)
		if err != nil {
			return 0, err
		}
		y, err := d.at(b, i)
		if err != nil {
			return 0, err
		}
		return x * y, nil
	}
}

var specs = []spec{
	{posterior: "eight_schools-eight_schools_noncentered", rows: "y", cols: raw("y", "sigma")},
	{posterior: "kidiq-kidscore_interaction", rows: "kid_score", cols: append(raw("kid_score", "mom_hs", "mom_iq"),
		column{name: "inter", derive: product("mom_hs", "mom_iq")})},
	{posterior: "earnings-logearn_interaction", rows: "earn", cols: append(raw("earn", "height", "male"),
		column{name: "log_earn", derive: func(d data, i int) (float64, error) {
			v, err := d.at("earn", i)
			if err != nil {
				return 0, err
			}
			if v <= 0 {
				return 0, fmt.Errorf("earn[%d] = %g: log needs a positive value", i+1, v)
			}
			return math.Log(v), nil
		}},
		column{name: "inter", derive: product("height", "male")})},
	{posterior: "nes2000-nes", rows: "partyid7", cols: append(raw("partyid7", "real_ideo", "race_adj", "educ1", "gender", "income", "age_discrete"),
		column{name: "age30_44", derive: indicator("age_discrete", 2)},
		column{name: "age45_64", derive: indicator("age_discrete", 3)},
		column{name: "age65up", derive: indicator("age_discrete", 4)})},
	{posterior: "sblri-blr", rows: "y", cols: raw("y"), matrix: "X"},
	{posterior: "arK-arK", rows: "y", cols: raw("y")},
}

// data is a data.json with its numbers kept as text.
type data map[string]json.RawMessage

func (d data) vector(key string) ([]json.Number, error) {
	m, ok := d[key]
	if !ok {
		return nil, fmt.Errorf("no %q in data.json", key)
	}
	var v []json.Number
	if err := json.Unmarshal(m, &v); err != nil {
		return nil, fmt.Errorf("%q is not a vector of numbers: %v", key, err)
	}
	return v, nil
}

func (d data) matrix(key string) ([][]json.Number, error) {
	m, ok := d[key]
	if !ok {
		return nil, fmt.Errorf("no %q in data.json", key)
	}
	var v [][]json.Number
	if err := json.Unmarshal(m, &v); err != nil {
		return nil, fmt.Errorf("%q is not a matrix of numbers: %v", key, err)
	}
	return v, nil
}

func (d data) at(key string, i int) (float64, error) {
	v, err := d.vector(key)
	if err != nil {
		return 0, err
	}
	if i >= len(v) {
		return 0, fmt.Errorf("%q has %d elements, row %d asked", key, len(v), i+1)
	}
	return v[i].Float64()
}

func main() {
	pdb := flag.String("pdb", "../shared/posteriordb", "posteriordb directory (one subdirectory per posterior, each with data.json)")
	out := flag.String("out", "examples/posteriordb", "output directory: writes OUT/<posterior>/data.csv")
	flag.Parse()
	for _, s := range specs {
		if err := convert(s, *pdb, *out); err != nil {
			fmt.Fprintf(os.Stderr, "pdbcsv: %s: %v\n", s.posterior, err)
			os.Exit(1)
		}
	}
}

func convert(s spec, pdb, out string) error {
	b, err := os.ReadFile(filepath.Join(pdb, s.posterior, "data.json"))
	if err != nil {
		return err
	}
	var d data
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("data.json: %v", err)
	}
	first, err := d.vector(s.rows)
	if err != nil {
		return err
	}
	n := len(first)
	header := []string{}
	cells := make([][]string, n)
	for _, c := range s.cols {
		header = append(header, c.name)
		var v []json.Number
		if c.derive == nil {
			if v, err = d.vector(c.key); err != nil {
				return err
			}
			if len(v) != n {
				return fmt.Errorf("%q has %d elements, %q has %d", c.key, len(v), s.rows, n)
			}
		}
		for i := range n {
			if c.derive == nil {
				cells[i] = append(cells[i], v[i].String())
				continue
			}
			x, err := c.derive(d, i)
			if err != nil {
				return fmt.Errorf("column %s: %v", c.name, err)
			}
			cells[i] = append(cells[i], strconv.FormatFloat(x, 'g', -1, 64))
		}
	}
	if s.matrix != "" {
		m, err := d.matrix(s.matrix)
		if err != nil {
			return err
		}
		if len(m) != n {
			return fmt.Errorf("%q has %d rows, %q has %d", s.matrix, len(m), s.rows, n)
		}
		for j := range m[0] {
			header = append(header, s.matrix+strconv.Itoa(j+1))
		}
		for i, r := range m {
			if len(r) != len(m[0]) {
				return fmt.Errorf("%q: row %d has %d columns, row 1 has %d", s.matrix, i+1, len(r), len(m[0]))
			}
			for _, x := range r {
				cells[i] = append(cells[i], x.String())
			}
		}
	}
	dir := filepath.Join(out, s.posterior)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "data.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		f.Close()
		return err
	}
	if err := w.WriteAll(cells); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
