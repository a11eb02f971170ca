package diag

import "testing"

// TestESSBatch: on AR(1) chains the batch-means ESS is near the exact
// N (1 - phi) / (1 + phi): the mean of N_eff / ESSBatch (the batch means'
// variance, unbiased up to the batches' own autocorrelation) over 40
// seeds within 15% of 1 (one figure has 19 degrees of freedom, a relative
// sd of 0.32, so the mean's sd is 0.05); on chains
// that are each well mixed but disagree (offsets of +-1), it is far below
// N, which an MCSE must see; constant draws give NaN.
func TestESSBatch(t *testing.T) {
	const C, n = 4, 1000
	for _, phi := range []float64{0, 0.5, 0.9} {
		want := float64(C*n) * (1 - phi) / (1 + phi)
		r := 0.0
		for seed := range uint64(40) {
			r += want / ESSBatch(ar1Chains(100+seed, C, n, phi)) / 40
		}
		if r < 0.85 || r > 1.15 {
			t.Errorf("phi %.1f: mean of %.0f / ESSBatch is %.3f, want 1 within 0.15", phi, want, r)
		}
	}
	ch := ar1Chains(12, C, n, 0)
	for i := range ch {
		for j := range ch[i] {
			ch[i][j] += float64(2*(i%2) - 1)
		}
	}
	if got, bulk := ESSBatch(ch), ESSBulk(ch); !(got < 100) {
		t.Errorf("disagreeing chains: ESSBatch %.0f (ESSBulk %.0f), want below 100 (4 chains, 2 means)", got, bulk)
	}
	if got := ESSBatch([][]float64{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}); got == got {
		t.Errorf("constant draws: ESSBatch %v, want NaN", got)
	}
}
