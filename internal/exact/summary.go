package exact

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Summary is one scalar quantity's exact posterior summary: its mean, sd
// and 5%, 50% and 95% quantiles (NaN when not defined, as a median in a
// gap between two modes of equal mass).
type Summary struct {
	Name                    string
	Mean, SD, Q05, Q50, Q95 float64
}

// Indicator is the summary of a 0/1 quantity (a derived comparison such as
// pos = theta > 0) whose mean is p: its sd is sqrt(p (1 - p)) and its
// quantiles are 0 or 1 (NaN when p is within 1e-9 of 5%, 50% or 95%, where
// the quantile is either).
func Indicator(name string, p float64) Summary {
	q := func(level float64) float64 {
		switch {
		case math.Abs(1-p-level) < 1e-9:
			return math.NaN()
		case 1-p >= level:
			return 0
		}
		return 1
	}
	return Summary{Name: name, Mean: p, SD: math.Sqrt(p * (1 - p)), Q05: q(0.05), Q50: q(0.5), Q95: q(0.95)}
}

// csvHeader is the header of an exact answer's file, the format of
// examples/reference.
const csvHeader = "name,mean,sd,q05,q50,q95"

// fmtNum writes x so that it reads back as the same float64 ("NA" for NaN).
func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return "NA"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// WriteSummaries writes rows name,mean,sd,q05,q50,q95 with a header.
func WriteSummaries(w io.Writer, rows []Summary) error {
	var b strings.Builder
	b.WriteString(csvHeader + "\n")
	for _, s := range rows {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s\n", s.Name, fmtNum(s.Mean), fmtNum(s.SD), fmtNum(s.Q05), fmtNum(s.Q50), fmtNum(s.Q95))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadSummaries reads a file written by WriteSummaries (or any CSV with
// columns name, mean and sd, the quantile columns being optional; "NA" is
// NaN).
func ReadSummaries(path string) ([]Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, h := range []string{"name", "mean", "sd"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s: no %q column", path, h)
		}
	}
	var out []Summary
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		num := func(c string) (float64, error) {
			i, ok := col[c]
			if !ok || rec[i] == "NA" {
				return math.NaN(), nil
			}
			return strconv.ParseFloat(rec[i], 64)
		}
		s := Summary{Name: rec[col["name"]]}
		var errs [5]error
		s.Mean, errs[0] = num("mean")
		s.SD, errs[1] = num("sd")
		s.Q05, errs[2] = num("q05")
		s.Q50, errs[3] = num("q50")
		s.Q95, errs[4] = num("q95")
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// NormalMixture is the distribution sum_i W[i] N(M[i], S[i]^2) (the W sum
// to 1): a quantity that is normal given a parameter integrated out by a
// quadrature rule, as each group effect of the hierarchy given tau or x
// given v in the funnel.
type NormalMixture struct{ W, M, S []float64 }

// CDF is the mixture's distribution function.
func (m NormalMixture) CDF(x float64) float64 {
	s := 0.0
	for i, w := range m.W {
		if w != 0 {
			s += w * 0.5 * math.Erfc(-(x-m.M[i])/(m.S[i]*math.Sqrt2))
		}
	}
	return s
}

// Summary is the mixture's mean, sd and quantiles (by bisection on the
// CDF to 1e-12 sd).
func (m NormalMixture) Summary(name string) Summary {
	mean, m2 := 0.0, 0.0
	for i, w := range m.W {
		mean += w * m.M[i]
		m2 += w * (m.S[i]*m.S[i] + m.M[i]*m.M[i])
	}
	s := Summary{Name: name, Mean: mean, SD: math.Sqrt(max(0, m2-mean*mean))}
	s.Q05 = quantileOf(m.CDF, 0.05, mean, s.SD)
	s.Q50 = quantileOf(m.CDF, 0.5, mean, s.SD)
	s.Q95 = quantileOf(m.CDF, 0.95, mean, s.SD)
	return s
}

// quantileOf is the p-quantile of the distribution function cdf, whose
// mean and sd are about center and scale: the bracket center +- scale is
// doubled until it holds the quantile, then bisected to 1e-12 scale.
func quantileOf(cdf func(float64) float64, p, center, scale float64) float64 {
	lo, hi := center-scale, center+scale
	for w := scale; cdf(lo) > p; w *= 2 {
		lo -= w
	}
	for w := scale; cdf(hi) < p; w *= 2 {
		hi += w
	}
	return bisect(func(x float64) float64 { return cdf(x) - p }, lo, hi, 1e-12*scale)
}

// RepoRoot is the nearest directory at or above the working directory with
// a go.mod (the working directory itself when there is none), for the
// tools that read the repository's files.
func RepoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return wd
		}
		d = parent
	}
}
