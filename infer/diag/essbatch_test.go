package diag

import (
	"testing"
)

// TestESSBatch: on AR(1) chains the batch-means ESS is near the exact
// N (1 - phi) / (1 + phi) (within 25%: the batch means' variance from 4 x
// 31 batches has a relative sd of about 13%, and batches of 31 draws at
// phi = 0.5 bias it by a few percent); on chains that are each well mixed
// but disagree (offsets of +-1), it is far below N, which an MCSE must
// see.
func TestESSBatch(t *testing.T) {
	const C, n = 4, 1000
	for _, phi := range []float64{0, 0.5} {
		want := float64(C*n) * (1 - phi) / (1 + phi)
		got := ESSBatch(ar1Chains(11, C, n, phi))
		if relErr(got, want) > 0.25 {
			t.Errorf("phi %.1f: ESSBatch %.0f, want about %.0f", phi, got, want)
		}
	}
	ch := ar1Chains(12, C, n, 0)
	for i := range ch {
		for j := range ch[i] {
			ch[i][j] += float64(2*(i%2) - 1)
		}
	}
	if got := ESSBatch(ch); !(got < 100) {
		t.Errorf("disagreeing chains: ESSBatch %.0f, want below 100 (4 chains, 2 means)", got)
	}
	if got := ESSBatch([][]float64{{1, 1, 1, 1}}); got == got {
		t.Errorf("constant draws: ESSBatch %v, want NaN", got)
	}
}
