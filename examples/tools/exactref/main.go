// Command exactref writes the exact answers of internal/exact's cases
// (each case's mscppl model, its data and its exact posterior) into a
// directory, as internal/exact/testdata holds them, and prints the facts
// beside them (log evidence, the modes' masses, the quadratures' margins):
//
//	go run ./examples/tools/exactref -dir internal/exact/testdata
//
// With -mh N it also runs the long random-walk Metropolis cross-check of
// the hierarchy (case 2) on (mu, log tau), 4 chains of N iterations after
// N/10 of burn-in, and prints each of mu, tau and a[j] against the exact
// answer, in Monte Carlo standard errors and in posterior sds:
//
//	go run ./examples/tools/exactref -dir /tmp/x -mh 2000000
//
// The same files are checked by go test ./internal/exact -run
// TestCaseFiles, which -update rewrites.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/mscppl/mscppl/internal/exact"
)

func main() {
	dir := flag.String("dir", "internal/exact/testdata", "the directory to write the models, data and NAME_exact.csv files into")
	mh := flag.Int("mh", 0, "iterations of each of 4 Metropolis chains of the hierarchy's cross-check (0: none)")
	flag.Parse()
	if err := run(*dir, *mh); err != nil {
		fmt.Fprintln(os.Stderr, "exactref:", err)
		os.Exit(1)
	}
}

func run(dir string, mh int) error {
	cases, err := exact.Cases()
	if err != nil {
		return err
	}
	for _, c := range cases {
		if err := c.WriteFiles(dir); err != nil {
			return err
		}
		fmt.Printf("%s:\n", c.Name)
		for _, s := range c.Exact {
			fmt.Printf("  %-10s mean %10.6f  sd %9.6f  q05 %10.6f  q50 %10.6f  q95 %10.6f\n", s.Name, s.Mean, s.SD, s.Q05, s.Q50, s.Q95)
		}
		for _, n := range c.Notes {
			fmt.Printf("  %s\n", n)
		}
	}
	d := exact.SimulateHier()
	h, err := exact.ExactHier(d)
	if err != nil {
		return err
	}
	mu, tau, edge := exact.HierGrid(d, 400, 800, h.Mu.Mean-9*h.Mu.SD, h.Mu.Mean+9*h.Mu.SD, -30, 3.3)
	fmt.Printf("hierarchy by a 400 x 800 grid over (mu, log tau) (border %.0f below the maximum), in exact sds from the exact answer:\n", edge)
	for _, p := range [][2]exact.Summary{{mu, h.Mu}, {tau, h.Tau}} {
		g, e := p[0], p[1]
		fmt.Printf("  %-4s mean %+.1e  sd %+.1e  q05 %+.1e  q50 %+.1e  q95 %+.1e\n", e.Name,
			(g.Mean-e.Mean)/e.SD, (g.SD-e.SD)/e.SD, (g.Q05-e.Q05)/e.SD, (g.Q50-e.Q50)/e.SD, (g.Q95-e.Q95)/e.SD)
	}
	if mh == 0 {
		return nil
	}
	res, acc := exact.HierMH(d, 4, mh, mh/10, 1)
	ex := h.Summaries()
	fmt.Printf("hierarchy by random-walk Metropolis, 4 x %d iterations (acceptance %.2f); differences from the exact answer in MCSEs and in exact sds:\n", mh, acc)
	worst := 0.0
	for i, r := range res {
		e := ex[i]
		z := (r.Mean - e.Mean) / r.MCSE
		worst = max(worst, math.Abs(z))
		fmt.Printf("  %-6s mean %9.5f (exact %9.5f, MCSE %.1e = %.3f sd; %+.1f MCSE)  sd %.5f (exact %.5f, %+.2f%%)", e.Name, r.Mean, e.Mean, r.MCSE, r.MCSE/e.SD, z, r.SD, e.SD, 100*(r.SD/e.SD-1))
		if !math.IsNaN(r.Q05) {
			fmt.Printf("  q05 %.5f q50 %.5f q95 %.5f (exact %.5f %.5f %.5f)", r.Q05, r.Q50, r.Q95, e.Q05, e.Q50, e.Q95)
		}
		fmt.Println()
	}
	fmt.Printf("  largest |mean - exact| / MCSE: %.2f over %d quantities\n", worst, len(res))
	return nil
}
