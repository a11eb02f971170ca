package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Moments of one scalar component.
type Moments struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Diagnostics of a run.
type Diagnostics struct {
	ChangeRate     float64 `json:"change_rate"`      // fraction of iterations whose conditional sample changed
	ChangeRateLast float64 `json:"change_rate_last"` // same over the last 10% of iterations
	MeanESS        float64 `json:"mean_ess"`         // mean effective sample size of the normalised weights
	AllInfIters    int     `json:"all_inf_iterations,omitempty"`
}

// Summary is the machine-readable result of `mscppl run --json`.
type Summary struct {
	Model          string             `json:"model"`
	Data           string             `json:"data,omitempty"`
	Method         string             `json:"method"`
	Kernel         string             `json:"kernel"`
	Family         string             `json:"family"`
	Optimizer      string             `json:"optimizer"`
	Samples        int                `json:"samples"`
	Iterations     int                `json:"iterations"`
	Seed           uint64             `json:"seed"`
	Reported       string             `json:"reported"` // which iterate the summary describes
	Latent         map[string]Moments `json:"latent"`
	LatentOrder    []string           `json:"latent_order"`
	Params         map[string]float64 `json:"params"`
	ParamOrder     []string           `json:"param_order,omitempty"`
	Identified     map[string]float64 `json:"identified,omitempty"`
	Diagnostics    Diagnostics        `json:"diagnostics"`
	Converged      bool               `json:"converged"`
	Warnings       []string           `json:"warnings,omitempty"`
	ElapsedSeconds float64            `json:"elapsed_seconds"`
}

func (s *Summary) writeJSON(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func fmtNum(x float64) string {
	if math.Abs(x) >= 1e5 || (x != 0 && math.Abs(x) < 1e-3) {
		return fmt.Sprintf("%.4g", x)
	}
	return fmt.Sprintf("%.4f", x)
}

func (s *Summary) writeText(w io.Writer) {
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
	for k, v := range s.Identified {
		fmt.Fprintf(w, "identified: %s = %s (the params themselves are not identified separately)\n", k, fmtNum(v))
	}
	d := s.Diagnostics
	if s.Kernel == "csmc" {
		fmt.Fprintf(w, "mixing: the retained trajectory changed in %.1f%% of sweeps; mean ESS %.2f of %d\n", 100*d.ChangeRate, d.MeanESS, s.Samples)
	} else if s.Method == "msc" {
		fmt.Fprintf(w, "mixing: conditional sample changed in %.1f%% of iterations (%.1f%% over the last 10%%); mean ESS %.2f of %d\n",
			100*d.ChangeRate, 100*d.ChangeRateLast, d.MeanESS, s.Samples)
	} else if d.MeanESS > 0 {
		fmt.Fprintf(w, "mean ESS %.2f of %d\n", d.MeanESS, s.Samples)
	}
	if !s.Converged {
		fmt.Fprintln(w, "note: the run stopped early; the result is not converged")
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}
