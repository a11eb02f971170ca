package main

import (
	"encoding/json"
	"fmt"

	"github.com/mscppl/mscppl/infer"
)

// writeOutputs adds variational.json and summary.json to the set, the
// summary last (its timing holds the time the other files took).
func writeOutputs(set *outSet, f *infer.Fitted) error {
	v, err := f.Variational()
	if err != nil {
		return err
	}
	for _, x := range []struct {
		name string
		v    any
	}{{"variational.json", v}, {"summary.json", f.Summary}} {
		b, err := json.MarshalIndent(x.v, "", "  ")
		if err != nil {
			return err
		}
		if err := set.write(x.name, append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

type evidenceCmd struct {
	Model string `arg:"" help:"The model file: .msc, or a Stan program (.stan)."`
	Data  string `arg:"" optional:"" help:"The data file, CSV or CmdStan JSON."`

	Params    string `required:"" help:"The variational.json written by mscppl run --out DIR (params and proposal)." placeholder:"FILE.json"`
	Particles int    `default:"${evidence_particles}" help:"Particles (state-space models) or importance samples per estimate."`
	Repeats   int    `default:"${evidence_repeats}" help:"Independent estimates, for the Monte Carlo standard error."`
	Seed      uint64 `default:"${seed}" help:"Random seed."`
	JSON      bool   `name:"json" help:"Print the machine-readable result on stdout."`
}

func (c *evidenceCmd) Run(e *env) error {
	if c.Particles < 2 || c.Repeats < 2 {
		return userErrorf("", "--particles and --repeats must be at least 2")
	}
	m, err := e.load(c.Model, c.Data, 0)
	if err != nil {
		return err
	}
	q, err := infer.ReadVariational(c.Params, m)
	if err != nil {
		return err
	}
	r, err := infer.Evidence(infer.EvidenceRand(c.Seed), m, q, c.Particles, c.Repeats)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, r)
	}
	fmt.Fprintf(e.stdout, "log p(x; theta) = %.4f +- %.4f (%s, %d repeats of %d)\n", r.LogEvidence, r.SE, r.Estimator, r.Repeats, r.Particles)
	return nil
}
