package lower

import (
	"bytes"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMessages: reject under an if on a latent makes the log density -Inf
// exactly where the if holds, and is counted with its first message;
// print writes once per call site; in the data block a reject is an error
// at check, in the derived block at the draw that reaches it.
func TestMessages(t *testing.T) {
	var out bytes.Buffer
	MessageOutput = &out
	printed.Clear()
	defer func() { MessageOutput = os.Stderr }()

	c := compile(t, "latent { mu: real }\nmodel {\n mu ~ normal(0, 1)\n if mu > 1 { reject(\"mu = \", mu, \" is too big\") }\n print(\"at \", mu, {1, 2})\n}\n", "")
	lp := make([]float64, 1)
	for _, mu := range []float64{-3, 0.5, 1, 1.5, 4} {
		c.LogJoint([]float64{mu}, lp)
		if mu > 1 {
			require.True(t, math.IsInf(lp[0], -1), "mu = %g: %g", mu, lp[0])
		} else {
			require.InDelta(t, logNormal(mu, 0, 1), lp[0], 1e-12, "mu = %g", mu)
		}
	}
	require.Equal(t, []string{"m.msc:4:14: reject rejected 2 evaluations (each counted with log density -Inf): mu = 1.5 is too big"}, RejectNotes(c, c))
	require.Equal(t, "m.msc:5:2: print: at -3[1, 2] (printed once per call site)\n", out.String())

	err := compileErr(t, "data {\n N: int = 3\n if N > 2 { reject(\"N = \", N) }\n}\nlatent { mu: real }\nmodel { mu ~ normal(0, 1) }\n")
	require.EqualError(t, err, "m.msc:3:13: reject: N = 3")

	d := compile(t, "latent { mu: real }\nmodel { mu ~ normal(0, 1) }\nderived {\n z = mu\n if z < 0 { reject(\"z = \", z) }\n}\n", "")
	x := make([]float64, d.Model.XDim)
	d.Constrain([]float64{0.5}, x)
	require.NoError(t, RNGError(d))
	d.Constrain([]float64{-0.25}, x)
	require.EqualError(t, RNGError(d), "m.msc:5:13: reject: z = -0.25 (at a posterior draw)")
	require.Empty(t, RejectNotes(d), "a reject of the derived block is an error, not a note")
}
