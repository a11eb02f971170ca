package infer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// TestItersHelp: the cap on the iterations, a step function of the
// dimension, in words.
func TestItersHelp(t *testing.T) {
	require.Equal(t, "100000 up to 10 dimensions, 40000 above", ItersHelp(msc.DefaultIters))
	require.Equal(t, "5000", ItersHelp(func(int) int { return 5000 }))
	require.Equal(t, "3 up to 1 dimension, 2 up to 99 dimensions, 1 above", ItersHelp(func(d int) int {
		switch {
		case d < 2:
			return 3
		case d < 100:
			return 2
		}
		return 1
	}))
}
