package infer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRhatFig: an R-hat near 1 prints with three decimals, one of chains
// far apart with three significant digits, an undefined one as n/a.
func TestRhatFig(t *testing.T) {
	for _, tc := range []struct {
		r    float64
		want string
	}{
		{1.0041, "1.004"},
		{1.934, "1.934"},
		{999.5, "999.500"},
		{22190991411599992, "2.22e+16"},
		{math.NaN(), "n/a"},
	} {
		require.Equal(t, tc.want, rhatFig(Figure(tc.r)), "%g", tc.r)
	}
}
