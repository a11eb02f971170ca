package infer

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCloneSharesTheData: a chain's compiled copy of a model (Clone) reads
// the data the model bound, not a copy of them. Before, each of the chains'
// copies held X twice (the graph's constant store and its arena) and
// adjoints for it: at 10^6 x 10 rows, 250 MB for each chain. Nor does the
// model keep the data file's text once the data are bound.
func TestCloneSharesTheData(t *testing.T) {
	const n, k = 50000, 10
	data := largeLogisticJSON(t, n, k)
	m, err := Load("../examples/logistic_large.msc", data)
	require.NoError(t, err)
	_, kept := m.Sources[data]
	require.False(t, kept, "the data file's text is kept after binding")
	require.Contains(t, m.Sources, "../examples/logistic_large.msc")
	dataBytes := uint64(8 * n * k)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, err := m.Clone()
	require.NoError(t, err)
	c.Comp.Reserve(10) // a chain's batch of samples
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("Clone and Reserve(10) allocated %.1f MB; X is %.1f MB", float64(allocated)/(1<<20), float64(dataBytes)/(1<<20))
	// the copy's own arenas (the values of 1 row, then of 10 samples, and
	// each time the adjoints of one row) and little more: a copy of X
	// would add dataBytes at least
	arena := uint64(8 * (1 + 10 + 2) * c.Comp.Graph().RowFloats())
	require.Less(t, allocated, arena+dataBytes/2, "the clone copied the data (arena %d bytes)", arena)
	runtime.KeepAlive(c)
}
