package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPosteriordbJSON loads posteriordb's data files unchanged (copies
// under testdata/posteriordb, CC-BY 4.0; see PROVENANCE there).
func TestPosteriordbJSON(t *testing.T) {
	const dir = "testdata/posteriordb/"
	code, out, errs := mscppl("check", dir+"eight_schools.msc", dir+"eight_schools.json")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, `J          int                = 8, field "J" of `+dir+"eight_schools.json")
	require.Contains(t, out, `sigma      vector[8]          field "sigma" of `+dir+"eight_schools.json")

	code, out, errs = mscppl("check", dir+"kidiq.msc", dir+"kidiq.json")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, `mom_hs     int[434]           field "mom_hs" of `+dir+"kidiq.json")

	s := runJSON(t, "run", dir+"eight_schools.msc", dir+"eight_schools.json", "--seed", "1")
	mu := s.Latent["mu"]
	require.InDelta(t, 4.41, mu.Mean, 1.5, "posteriordb reference mean of mu is 4.41 (sd 3.31)")
}
