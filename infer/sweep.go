package infer

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// SweepOptions configure Sweep.
type SweepOptions struct {
	Samples []int    // numbers of samples S to try
	Inits   int      // random initialisations per S and method
	Methods []string // msc, is, advi, msc-prior
	Seed    uint64
	Fit     Options // shared fit options (Iters, Optimizer, LR)
	Shard   Shard   // the numbers of samples to run (zero: all)
}

// SweepResult is a sweep with its setting, as the set of sweep --out
// records it (a shard's rows are those of its numbers of samples).
type SweepResult struct {
	Model   string     `json:"model"`
	Data    string     `json:"data,omitempty"`
	Samples []int      `json:"samples"`
	Methods []string   `json:"methods"`
	Inits   int        `json:"inits"`
	Iters   int        `json:"iters"`
	Seed    uint64     `json:"seed"`
	Shard   Shard      `json:"shard,omitzero"`
	Rows    []SweepRow `json:"rows"`
}

// MergeSweep combines the results of the shards of one sweep into the
// result of the whole, as one process would have made it.
func MergeSweep(parts []*SweepResult) (*SweepResult, error) {
	if len(parts) == 0 {
		return nil, Errorf("", "nothing to merge")
	}
	a := *parts[0]
	ordered, err := orderShards(len(parts), len(a.Samples), "numbers of samples", func(i int) (Shard, bool) {
		p := parts[i]
		return p.Shard, p.Model == a.Model && p.Data == a.Data && slices.Equal(p.Samples, a.Samples) && slices.Equal(p.Methods, a.Methods) &&
			p.Inits == a.Inits && p.Iters == a.Iters && p.Seed == a.Seed
	})
	if err != nil {
		return nil, err
	}
	out := a
	out.Shard, out.Rows = Shard{}, nil
	for mi := range a.Methods {
		for _, i := range ordered {
			for _, r := range parts[i].Rows {
				if r.Method == a.Methods[mi] {
					out.Rows = append(out.Rows, r)
				}
			}
		}
	}
	return &out, nil
}

// SweepRow is the spread of the fitted means for one method and S.
type SweepRow struct {
	Method  string `json:"method"`
	Samples int    `json:"samples"`
	// Spread is the sd across initialisations of the fitted mean of each
	// latent component, averaged over components; MaxSpread its largest.
	Spread    float64 `json:"spread"`
	MaxSpread float64 `json:"max_spread"`
}

// Sweep fits the model from many random initialisations (the mean of q
// started at N(0, I) draws) for each method and number of samples, and
// reports the spread of the fitted means (the paper's Figure 2). Fits run
// in parallel; the result does not depend on the number of cores.
func Sweep(ctx context.Context, m *Model, o SweepOptions) ([]SweepRow, error) {
	for _, meth := range o.Methods {
		if m, ok := lookupMethod(meth); !ok || m.stateSpaceOnly() || m.solve != nil {
			return nil, Errorf("sweep compares stochastic methods: "+joinAnd(sweepMethods()), "unknown or unsuitable method %q in --methods", meth)
		}
	}
	if o.Inits < 2 {
		return nil, Errorf("", "--inits must be at least 2 to measure a spread")
	}
	lo, hi, err := o.Shard.Range(len(o.Samples))
	if err != nil {
		return nil, err
	}
	d := m.IR.LatentDim
	var rows []SweepRow
	for mi, method := range o.Methods {
		for si := lo; si < hi; si++ {
			S := o.Samples[si]
			means := make([][]float64, o.Inits)
			errs := make([]error, o.Inits)
			Parallel(o.Inits, func(i int) {
				mc, err := m.Clone()
				if err != nil {
					errs[i] = err
					return
				}
				rng := rand.New(rand.NewPCG(o.Seed, uint64(i)<<16|uint64(si)<<8|uint64(mi)))
				init := make([]float64, d)
				for j := range init {
					init[j] = rng.NormFloat64()
				}
				fo := o.Fit
				fo.Method, fo.Samples, fo.InitMean, fo.Seed, fo.Trace = method, S, init, o.Seed, nil
				fo.SkipCheck = true // a sweep studies q from each start
				if fo.Chains == 0 {
					fo.Chains = 1
				}
				f, err := fitWith(ctx, mc, fo, rng)
				if err != nil {
					errs[i] = err
					return
				}
				mean, sd := make([]float64, d), make([]float64, d)
				if q, ok := f.Q.(interface{ Moments(m, s []float64) }); ok {
					q.Moments(mean, sd)
				}
				means[i] = mean
			})
			for _, err := range errs {
				if err != nil {
					return nil, err
				}
			}
			row := SweepRow{Method: method, Samples: S}
			col := make([]float64, o.Inits)
			for j := 0; j < d; j++ {
				for i := range means {
					col[i] = means[i][j]
				}
				_, sd := MeanSD(col)
				row.Spread += sd / float64(d)
				row.MaxSpread = math.Max(row.MaxSpread, sd)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}
