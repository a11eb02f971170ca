package infer

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// MaxChains bounds --chains: chains run in parallel on the cores, each
// with its own copy of the compiled model, so thousands of them only
// multiply the memory and the set-up time (the stopping rule needs no
// more than a handful).
const MaxChains = 1024

// sizeLimits are what checkSizes compares the sizes a fit asks for with.
type sizeLimits struct {
	// budget is the bytes one fit may plan to hold: half the machine's
	// memory, or half the process's data or address-space limit when that
	// is lower.
	budget int64
	// why says where budget comes from, for the message.
	why string
}

// machineLimits reads the machine's memory and the process's limits.
func machineLimits() sizeLimits {
	total, why := int64(16)<<30, "half of 16 GiB, assumed: the machine's memory is unknown"
	if m := memTotal(); m > 0 {
		total, why = m, "half the machine's memory"
	}
	if r := processMemoryLimit(); r > 0 && r < total {
		total, why = r, "half the memory limit set on the process"
	}
	return sizeLimits{budget: total / 2, why: why}
}

// memTotal is MemTotal of /proc/meminfo in bytes, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// checkSizes refuses, before anything is allocated, the sizes of a fit
// that could not be held: S samples per step in each of C chains (each
// row of a batch takes the graph's RowFloats values, in the chain's model
// and in the copy a split target evaluates; the adjoints are of one row), M draws
// of q behind the PSIS check (each a row of the latents in both spaces
// with its weights), and the number of chains itself. The
// message names the flag, the size, what it needs and the limit.
// A size of 0 is not checked (the caller checks it later, once known).
func checkSizes(m *Model, lim sizeLimits, samples, chains, draws int) error {
	if chains > MaxChains {
		return Errorf(fmt.Sprintf("chains run in parallel on the cores; use --chains %d or fewer", MaxChains), "--chains %d is more than the limit of %d", chains, MaxChains)
	}
	d := int64(m.IR.LatentDim)
	row := int64(m.Comp.Graph().RowFloats())
	// per sample of one chain: values in two copies of the graph (the
	// adjoints are of one row), and the sample, its draw and its weights
	// in q's space
	perSample := 8 * (2*row + 4*d + 4)
	chains = max(chains, 1)
	if need := float64(samples) * float64(chains) * float64(perSample); need > float64(lim.budget) || float64(samples)*float64(row) > math.MaxInt32 {
		most := min(lim.budget/(int64(chains)*perSample), math.MaxInt32/max(row, 1))
		return Errorf(fmt.Sprintf("use --samples %d or fewer with %d chains (the graph of this model has %d values per sample)", most, chains, row),
			"--samples %d needs about %s for this model (%d chains x %d samples x %s each), more than the limit of %s (%s)",
			samples, bytesString(need), chains, samples, bytesString(float64(perSample)), bytesString(float64(lim.budget)), lim.why)
	}
	// per draw: the draw in q's space and the latents' own space (twice:
	// the draws and their resample), its log weight, weight and ranks
	perDraw := 8 * (2*d + 2*int64(m.IR.XDim) + 8)
	if need := float64(draws) * float64(perDraw); need > float64(lim.budget) || draws > math.MaxInt32 {
		most := min(lim.budget/perDraw, math.MaxInt32)
		return Errorf(fmt.Sprintf("use --draws %d or fewer", most),
			"--draws %d needs about %s for this model (%d draws x %s each), more than the limit of %s (%s)",
			draws, bytesString(need), draws, bytesString(float64(perDraw)), bytesString(float64(lim.budget)), lim.why)
	}
	return nil
}

// bytesString writes a size as 1.5 GiB, 12 MiB, 800 B.
func bytesString(b float64) string {
	for _, u := range []struct {
		unit  string
		scale float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.scale {
			return strconv.FormatFloat(b/u.scale, 'g', 3, 64) + " " + u.unit
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}
