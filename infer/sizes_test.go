package infer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSizesCheckedBeforeAllocating: --samples, --chains and --draws beyond
// what the memory can hold are refused by Fit at once, naming the flag, the
// size, the need and the limit (--samples 1000000000 ran 50 s and took 24
// GB before being killed; --draws 10000000000 ran out of memory), while
// the largest sizes within the limit pass checkSizes.
func TestSizesCheckedBeforeAllocating(t *testing.T) {
	m, err := LoadSource("n.msc", []byte("latent { z: vector[3] }\nmodel { z ~ normal(0, 1) }\n"), "")
	require.NoError(t, err)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Samples: 1000000000, Iters: 20, Fixed: true}, `--samples 1000000000 needs about .* for this model \(4 chains x 1000000000 samples x \d+ B each\), more than the limit of`},
		{Options{Draws: 10000000000, Iters: 20, Fixed: true}, `--draws 10000000000 needs about .*, more than the limit of`},
		{Options{Chains: 100000, Iters: 20, Fixed: true}, `--chains 100000 is more than the limit of 1024`},
		{Options{Samples: 3000000000, Iters: 20, Fixed: true}, `--samples 3000000000 is more than the limit of 2147483647`},
	} {
		_, err := Fit(context.Background(), m, c.o)
		require.Error(t, err)
		require.Regexp(t, c.want, err.Error())
	}
	// the limits are the largest sizes that fit: one more is refused
	lim := sizeLimits{budget: 1 << 30, why: "a test budget"}
	row := int64(m.Comp.Graph().RowFloats())
	d := int64(m.IR.LatentDim)
	perSample := 8 * (2*row + 4*d + 4)
	most := int(lim.budget / (4 * perSample))
	require.NoError(t, checkSizes(m, lim, most, 4, 0))
	require.ErrorContains(t, checkSizes(m, lim, most+1, 4, 0), "a test budget")
	perDraw := 8 * (2*d + 2*int64(m.IR.XDim) + 8)
	require.NoError(t, checkSizes(m, lim, 0, 4, int(lim.budget/perDraw)))
	require.ErrorContains(t, checkSizes(m, lim, 0, 4, int(lim.budget/perDraw)+1), "--draws")
	require.NoError(t, checkSizes(m, lim, 0, MaxChains, 0))
	require.ErrorContains(t, checkSizes(m, lim, 0, MaxChains+1, 0), "--chains")
}
