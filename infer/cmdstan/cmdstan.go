// Package cmdstan reads and writes CSV files in CmdStan's layout (the
// "Stan CSV" format of CmdStan's guide): comment lines starting with #
// that hold the configuration as indented "key = value" lines, one header
// line of column names (lp__ and the sampler's columns ending in __ first,
// then the model's, a vector a's components as a.1, a.2 and a matrix L's
// as L.1.1, L.2.1 in column-major order), then one row per draw; comment
// blocks after the header (the adaptation's step size and mass matrix, the
// elapsed times) are skipped on reading. Values are decimal numbers, nan,
// inf or -inf.
package cmdstan

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// File is one CmdStan CSV file.
type File struct {
	// Config are the comment lines before the header, without their "# "
	// prefix, indentation kept ("method = sample (Default)", "  sample",
	// "    num_samples = 1000").
	Config []string
	// Columns are the header's column names.
	Columns []string
	// Rows are the draws, one value per column.
	Rows [][]float64
	// Trailer are the comment lines after the rows, without their "# "
	// prefix (CmdStan's elapsed times: " Elapsed Time: 0.02 seconds
	// (Warm-up)", ...); on reading, every comment line after the header.
	Trailer []string
}

// Value returns the value of the first configuration line key = value
// (indentation ignored, a trailing "(Default)" dropped).
func (f *File) Value(key string) (string, bool) {
	for _, l := range f.Config {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if ok && strings.TrimSpace(k) == key {
			v = strings.TrimSpace(v)
			v = strings.TrimSpace(strings.TrimSuffix(v, "(Default)"))
			return v, true
		}
	}
	return "", false
}

// Column returns the draws of the named column (nil when there is none).
func (f *File) Column(name string) []float64 {
	for j, c := range f.Columns {
		if c == name {
			out := make([]float64, len(f.Rows))
			for i, r := range f.Rows {
				out[i] = r[j]
			}
			return out
		}
	}
	return nil
}

// Read reads a CmdStan CSV file. Comment lines after the header are
// skipped; a row with a wrong number of fields or a field that is not a
// number is an error naming its line.
func Read(r io.Reader) (*File, error) {
	f := &File{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(t, "#"):
			t = strings.TrimPrefix(strings.TrimPrefix(t, "#"), " ")
			if f.Columns == nil {
				f.Config = append(f.Config, t)
			} else {
				f.Trailer = append(f.Trailer, t)
			}
		case strings.TrimSpace(t) == "":
		case f.Columns == nil:
			f.Columns = strings.Split(t, ",")
		default:
			fields := strings.Split(t, ",")
			if len(fields) != len(f.Columns) {
				return nil, fmt.Errorf("line %d: %d values for the %d columns of the header", line, len(fields), len(f.Columns))
			}
			row := make([]float64, len(fields))
			for j, s := range fields {
				v, err := parse(s)
				if err != nil {
					return nil, fmt.Errorf("line %d, column %s: %q is not a number", line, f.Columns[j], s)
				}
				row[j] = v
			}
			f.Rows = append(f.Rows, row)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if f.Columns == nil {
		return nil, fmt.Errorf("no header line (the column names)")
	}
	return f, nil
}

func parse(s string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "nan", "-nan":
		return math.NaN(), nil
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// Format writes a value as CmdStan does: the shortest decimal that reads
// back as the same float64, nan, inf or -inf.
func Format(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Bytes writes the file: the configuration lines as comments, the header,
// the rows, the trailer's comment lines.
func (f *File) Bytes() []byte {
	var b bytes.Buffer
	for _, l := range f.Config {
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	b.WriteString(strings.Join(f.Columns, ",") + "\n")
	for _, r := range f.Rows {
		for j, v := range r {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(Format(v))
		}
		b.WriteByte('\n')
	}
	for _, l := range f.Trailer {
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	return b.Bytes()
}

// Name turns a component name such as a[3] or L[2,1] into its CmdStan
// column name a.3, L.2.1 (a scalar's name is its own).
func Name(s string) string {
	return strings.NewReplacer("[", ".", "]", "", ",", ".", " ", "").Replace(s)
}

// Order returns the order in which CmdStan writes the given component
// names (a[1], L[2,1], ...): each variable's components stay together
// where they are, a multi-index variable's in column-major order (L[1,1],
// L[2,1], L[1,2], L[2,2]), as readers such as cmdstanpy reshape them.
// out[k] is the index in names of the k-th column.
func Order(names []string) []int {
	out := make([]int, len(names))
	for i := range out {
		out[i] = i
	}
	base := func(s string) string { b, _, _ := strings.Cut(s, "["); return b }
	for lo := 0; lo < len(names); {
		hi := lo + 1
		for hi < len(names) && base(names[hi]) == base(names[lo]) {
			hi++
		}
		run := out[lo:hi]
		idx := make(map[int][]int, len(run))
		for _, k := range run {
			idx[k] = indices(names[k])
		}
		slices.SortStableFunc(run, func(a, b int) int {
			x, y := idx[a], idx[b]
			if len(x) != len(y) {
				return 0
			}
			for j := len(x) - 1; j >= 0; j-- {
				if x[j] != y[j] {
					return x[j] - y[j]
				}
			}
			return 0
		})
		lo = hi
	}
	return out
}

// indices parses the indices of a[3] or L[2,1] (none for a scalar).
func indices(s string) []int {
	_, in, ok := strings.Cut(strings.TrimSuffix(s, "]"), "[")
	if !ok {
		return nil
	}
	var out []int
	for _, p := range strings.Split(in, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}
