package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/mscppl/mscppl/infer"
)

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func fmtNum(x float64) string {
	if math.Abs(x) >= 1e5 || (x != 0 && math.Abs(x) < 1e-3) {
		return fmt.Sprintf("%.4g", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// writeSummary prints a fit's summary for people.
func writeSummary(w io.Writer, s *infer.Summary) {
	fmt.Fprintf(w, "%s: %s, %s kernel, S = %d, %s family, %s updates, %d iterations, seed %d, %.2fs\n",
		s.Model, strings.ToUpper(s.Method), s.Kernel, s.Samples, s.Family, s.Optimizer, s.Iterations, s.Seed, s.ElapsedSeconds)
	if s.Reported != "" {
		fmt.Fprintf(w, "q reported: %s\n", s.Reported)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(s.LatentOrder) > 0 {
		fmt.Fprintln(tw, "latent\tmean\tsd\t")
		for _, name := range s.LatentOrder {
			m := s.Latent[name]
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, fmtNum(m.Mean), fmtNum(m.SD))
		}
	}
	tw.Flush()
	if len(s.ParamOrder) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "param\tvalue\t")
		for _, name := range s.ParamOrder {
			fmt.Fprintf(tw, "%s\t%s\t\n", name, fmtNum(s.Params[name]))
		}
		tw.Flush()
	}
	d := s.Diagnostics
	switch {
	case s.Kernel == "csmc":
		fmt.Fprintf(w, "mixing: the retained trajectory changed in %.1f%% of sweeps; mean ESS %.2f of %d\n", 100*d.ChangeRate, d.MeanESS, s.Samples)
	case s.Kernel == "cis":
		fmt.Fprintf(w, "mixing: conditional sample changed in %.1f%% of iterations (%.1f%% over the last 10%%); mean ESS %.2f of %d\n",
			100*d.ChangeRate, 100*d.ChangeRateLast, d.MeanESS, s.Samples)
	case d.MeanESS > 0:
		fmt.Fprintf(w, "mean ESS %.2f of %d\n", d.MeanESS, s.Samples)
	}
	if !s.Converged {
		fmt.Fprintln(w, "note: the run stopped early or its optimiser froze; the result is not converged")
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}
