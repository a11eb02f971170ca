package infer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEvidenceRand: mscppl evidence (Evidence with EvidenceRand) and
// Fitted.Evidence draw the same stream for a seed, so they agree.
func TestEvidenceRand(t *testing.T) {
	m, err := LoadSource("n.msc", []byte("latent { z: real }\nmodel { z ~ normal(0, 1) }\n"), "")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Iters: 200, Fixed: true})
	require.NoError(t, err)
	want, err := f.Evidence(500, 3, 5)
	require.NoError(t, err)
	got, err := Evidence(EvidenceRand(5), m, f.Q, 500, 3)
	require.NoError(t, err)
	require.Equal(t, want, got)
}
