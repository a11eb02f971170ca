package ir

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/stdlib"
)

// Local matrices filled element by element (Stan's log_omega for
// hmm_marginal: for n in 1..N { for k in 1..K { log_omega[k, n] = ... } })
// can be used whole, and a loop that fills rows or columns of one over
// their whole length is vectorised (vecloop.go): log_omega[k, n] = e over
// n in 1..N makes row k the vector e over the range, in one piece.

// vecFill marks, in a vectorised loop's vecAssigned, a local matrix whose
// rows or columns the body fills (m[k, n] = e or m[n, k] = e).
const vecFill vecLocal = 100

// vecFillOK reports whether st is m[k, n] = e or m[n, k] = e for a local
// matrix m defined before the loop (or filled element by element), n the
// loop variable over the whole of that dimension, k known before
// inference, e vectorisable (ok) and not reading m; it marks m.
func (cp *compiler) vecFillOK(st *Assign, v *Var, lo, hi int, ok bool) bool {
	l := st.Local
	if !ok || len(st.Idx) != 2 || l.Type.Kind != Matrix || !cp.outerLocal(l) || refersTo(st.X, l) {
		return false
	}
	if a := cp.vecAsg[l]; a != 0 && a != vecFill {
		return false
	}
	var size int
	switch {
	case isRefTo(st.Idx[1], v) && cp.knownInt(st.Idx[0], v):
		size = l.Type.Cols
	case isRefTo(st.Idx[0], v) && cp.knownInt(st.Idx[1], v):
		size = l.Type.Rows
	default:
		return false
	}
	if lo != 1 || hi != size {
		return false
	}
	cp.vecAsg[l] = vecFill
	return true
}

// vecFillAssign compiles m[k, n] = e (or m[n, k] = e) over the loop's
// range: the elements of row (column) k are those of the vector e.
func (cp *compiler) vecFillAssign(s *Assign) {
	v, g := s.Local, cp.g
	t := v.Type
	x := cp.expr(s.X)
	el := cp.elems[v.ID]
	if el == nil { // split the current value into its elements
		el = cp.splitLocal(v)
	}
	cp.env[v.ID] = -1
	rowwise := isRefTo(s.Idx[1], cp.vec.v)
	k := cp.intExpr(s.Idx[0])
	if !rowwise {
		k = cp.intExpr(s.Idx[1])
	}
	for i := 0; i <= cp.vec.hi-cp.vec.lo; i++ {
		xi := x
		if g.Len(x) > 1 {
			xi = g.Index(x, i)
		}
		n := cp.vec.lo + i
		if rowwise {
			el[(k-1)*t.Cols+n-1] = xi
		} else {
			el[(n-1)*t.Cols+k-1] = xi
		}
	}
	cp.localDeps[v.ID] = mergeDeps(cp.localDeps[v.ID], cp.depsOf(s.X, nil))
}

// stackMatrix is the whole value of a local matrix filled element by
// element: a row (or, for a matrix filled column by column, a column)
// whose elements are those of one node (filled by a vectorised loop, or
// m[i] = row) is that node, or its slice, and one whose elements are one
// scalar is that scalar repeated, instead of one scalar each.
func (cp *compiler) stackMatrix(v *Var) autodiff.Node {
	g := cp.g
	el := cp.elems[v.ID]
	R, C := v.Type.Rows, v.Type.Cols
	if R > 1 {
		// column by column: el[r*C + c] for r = 0..R-1
		cols := make([]autodiff.Node, C)
		col := make([]autodiff.Node, R)
		for c := range cols {
			for r := range col {
				col[r] = el[r*C+c]
			}
			if !cp.isWhole(col) {
				cols = nil
				break
			}
		}
		if cols != nil {
			for c := range cols {
				for r := range col {
					col[r] = el[r*C+c]
				}
				cols[c] = cp.wholePart(col)
			}
			lens := make([]int, C)
			for c := range lens {
				lens[c] = R
			}
			n := cols[0]
			if C > 1 {
				n = g.Custom(concatN(lens), R*C, cols...)
			}
			return g.Reshape(g.Custom(stdlib.NewTranspose(C, R), R*C, n), R, C)
		}
	}
	var parts []autodiff.Node
	var lens []int
	var scalars []autodiff.Node
	flush := func() {
		if len(scalars) > 0 {
			parts, lens = append(parts, g.Stack(scalars...)), append(lens, len(scalars))
			scalars = nil
		}
	}
	for i := 0; i < len(el); {
		// the longest run from i that wholePart makes one node of
		j := cp.runEnd(el, i)
		if j-i == 1 {
			scalars = append(scalars, el[i])
			i++
			continue
		}
		flush()
		parts, lens = append(parts, cp.wholePart(el[i:j])), append(lens, j-i)
		i = j
	}
	flush()
	n := parts[0]
	if len(parts) > 1 {
		n = g.Custom(concatN(lens), len(el), parts...)
	}
	return g.Reshape(n, R, C)
}

// wholePart returns one node whose elements are els (two or more): the
// node they index, in order (or its slice), or a scalar repeated; -1 if
// there is none.
func (cp *compiler) wholePart(els []autodiff.Node) autodiff.Node {
	if !cp.isWhole(els) {
		return -1
	}
	g := cp.g
	src, off, ok := g.IndexOf(els[0])
	if !ok || els[len(els)-1] == els[0] {
		return g.Custom(stdlib.NewRepVector(len(els)), len(els), els[0])
	}
	if off == 0 && len(els) == g.Len(src) {
		return src
	}
	return g.Slice(src, off, off+len(els))
}

// runEnd returns the end j of the longest run el[i:j] that isWhole
// accepts (i + 1 when there is none).
func (cp *compiler) runEnd(el []autodiff.Node, i int) int {
	j := i + 1
	for j < len(el) && el[j] == el[i] {
		j++
	}
	if j > i+1 {
		return j
	}
	src, off, ok := cp.g.IndexOf(el[i])
	if !ok {
		return j
	}
	for j < len(el) {
		s2, o2, ok2 := cp.g.IndexOf(el[j])
		if !ok2 || s2 != src || o2 != off+j-i {
			break
		}
		j++
	}
	return j
}

// isWhole reports whether wholePart makes one node of els (and adds
// nothing to the graph).
func (cp *compiler) isWhole(els []autodiff.Node) bool {
	if len(els) < 2 {
		return false
	}
	same := true
	for _, e := range els[1:] {
		same = same && e == els[0]
	}
	if same {
		return true
	}
	src, off, ok := cp.g.IndexOf(els[0])
	if !ok {
		return false
	}
	for i, e := range els[1:] {
		s2, o2, ok2 := cp.g.IndexOf(e)
		if !ok2 || s2 != src || o2 != off+i+1 {
			return false
		}
	}
	return true
}

// concatN is the autodiff op that concatenates vectors of the given
// lengths.
type concatN []int

func (concatN) Name() string { return "concat" }

func (o concatN) Forward(out []float64, in [][]float64) {
	off := 0
	for k, n := range o {
		copy(out[off:off+n], in[k])
		off += n
	}
}

func (o concatN) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	off := 0
	for k, n := range o {
		if d := din[k]; d != nil {
			for i, x := range dout[off : off+n] {
				d[i] += x
			}
		}
		off += n
	}
}
