package autodiff

import "testing"

// TestWork: each node counts its value and its inputs' values: a
// matrix-vector product of K x K by K counts K^2 + 2K, the exp of its K
// results 2K, their sum K + 1; the input and the constant count nothing.
func TestWork(t *testing.T) {
	const K = 5
	g := New()
	x := g.Input(K)
	A := g.ConstMatrix(K, K, make([]float64, K*K))
	mv := g.MatVec(A, x)
	e := g.Exp(mv)
	s := g.Sum(e)
	for _, c := range []struct {
		nodes []Node
		want  int
	}{{[]Node{mv}, K*K + 2*K}, {[]Node{e}, 2 * K}, {[]Node{s}, K + 1}, {[]Node{x, A}, 0}, {g.Ancestors(s), K*K + 2*K + 2*K + K + 1}} {
		if got := g.Work(c.nodes); got != c.want {
			t.Errorf("Work(%v) = %d, want %d", c.nodes, got, c.want)
		}
	}
}
