package lower

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
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
func (cp *compiler) vecFillOK(st *ir.Assign, v *ir.Var, lo, hi int, ok bool) bool {
	l := st.Local
	if !ok || len(st.Idx) != 2 || l.Type.Kind != ir.Matrix || !cp.outerLocal(l) || refersTo(st.X, l) {
		return false
	}
	if a := cp.vecAsg[l]; a != 0 && a != vecFill {
		return false
	}
	var size int
	switch {
	case IsRefTo(st.Idx[1], v) && cp.knownInt(st.Idx[0], v):
		size = l.Type.Cols
	case IsRefTo(st.Idx[0], v) && cp.knownInt(st.Idx[1], v):
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
func (cp *compiler) vecFillAssign(s *ir.Assign) {
	v, g := s.Local, cp.g
	t := v.Type
	x := cp.expr(s.X)
	el := cp.elems[v.ID]
	if el == nil { // split the current value into its elements
		el = cp.splitLocal(v)
	}
	cp.env[v.ID] = -1
	rowwise := IsRefTo(s.Idx[1], cp.vec.v)
	k := cp.intExpr(s.Idx[0])
	if !rowwise {
		k = cp.intExpr(s.Idx[1])
	}
	for i := 0; i <= cp.vec.hi-cp.vec.lo; i++ {
		xi := x
		if g.Len(x) > 1 {
			xi = cp.lazyIndex(x, i)
		}
		n := cp.vec.lo + i
		if rowwise {
			el[(k-1)*t.Cols+n-1] = xi
		} else {
			el[(n-1)*t.Cols+k-1] = xi
		}
	}
	cp.localDeps[v.ID] = ir.MergeDeps(cp.localDeps[v.ID], cp.depsOf(s.X, nil))
}

// lazyElem is element i of node src, as an element of a local filled
// element by element: the Index node is made when the element is read
// (node), so the elements of a row filled in one piece, or of
// hmm_forward's rows, cost no node unless something reads them alone.
type lazyElem struct {
	src  autodiff.Node
	i    int
	node autodiff.Node // the Index node, once made (-1 before)
}

// lazyIndex is the element code of element i of src: -2 - its index in
// cp.lazy (-1 is an element not assigned).
func (cp *compiler) lazyIndex(src autodiff.Node, i int) autodiff.Node {
	cp.lazy = append(cp.lazy, lazyElem{src: src, i: i, node: -1})
	return autodiff.Node(-1 - len(cp.lazy))
}

// elemNode is the node of an element: n itself, or the Index node of a
// lazy element (made on first use); -1 stays -1.
func (cp *compiler) elemNode(n autodiff.Node) autodiff.Node {
	if n >= -1 {
		return n
	}
	l := &cp.lazy[-2-n]
	if l.node < 0 {
		l.node = cp.g.Index(l.src, l.i)
	}
	return l.node
}

// elemIndex reports whether the element n is element i of a node src (a
// lazy element, or an Index node), without adding to the graph.
func (cp *compiler) elemIndex(n autodiff.Node) (src autodiff.Node, i int, ok bool) {
	if n < -1 {
		l := cp.lazy[-2-n]
		return l.src, l.i, true
	}
	return cp.g.IndexOf(n)
}

// stackElems is the whole value of a local (of type t) filled element by
// element: a run of elements that are consecutive elements of one node
// (a row filled by a vectorised loop, m[i] = row, hmm_forward's rows) is
// that node, or its slice, and a run of one scalar is that scalar
// repeated, instead of one scalar each. A matrix filled column by column
// is stacked by columns and transposed.
func (cp *compiler) stackElems(el []autodiff.Node, t ir.Type) autodiff.Node {
	g := cp.g
	if t.Kind != ir.Matrix {
		return cp.stackRuns(el)
	}
	R, C := t.Rows, t.Cols
	if R > 1 && C > 1 {
		// column by column: el[r*C + c] for r = 0..R-1
		cols := make([]autodiff.Node, C)
		col := make([]autodiff.Node, R)
		whole := true
		for c := 0; c < C && whole; c++ {
			for r := range col {
				col[r] = el[r*C+c]
			}
			whole = cp.runEnd(col, 0) == R
		}
		if whole {
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
			n := g.Custom(stdlib.Concat(lens), R*C, cols...)
			return g.Reshape(g.Custom(stdlib.NewTranspose(C, R), R*C, n), R, C)
		}
	}
	return g.Reshape(cp.stackRuns(el), R, C)
}

// stackRuns is the vector of the elements el, by runs (see stackElems).
func (cp *compiler) stackRuns(el []autodiff.Node) autodiff.Node {
	g := cp.g
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
		j := cp.runEnd(el, i)
		if j-i == 1 {
			scalars = append(scalars, cp.elemNode(el[i]))
			i++
			continue
		}
		flush()
		parts, lens = append(parts, cp.wholePart(el[i:j])), append(lens, j-i)
		i = j
	}
	flush()
	if len(parts) == 1 {
		return parts[0]
	}
	return g.Custom(stdlib.Concat(lens), len(el), parts...)
}

// wholePart is one node whose elements are els, a run runEnd found (two
// or more): a scalar repeated, or the node they index, in order (or its
// slice).
func (cp *compiler) wholePart(els []autodiff.Node) autodiff.Node {
	g := cp.g
	if els[len(els)-1] == els[0] {
		return g.Custom(stdlib.NewRepVector(len(els)), len(els), cp.elemNode(els[0]))
	}
	src, off, _ := cp.elemIndex(els[0])
	if off == 0 && len(els) == g.Len(src) {
		return src
	}
	return g.Slice(src, off, off+len(els))
}

// runEnd returns the end j of the longest run el[i:j] of one element
// repeated, or of consecutive elements of one node (i + 1 when there is
// none).
func (cp *compiler) runEnd(el []autodiff.Node, i int) int {
	j := i + 1
	for j < len(el) && el[j] == el[i] {
		j++
	}
	if j > i+1 {
		return j
	}
	src, off, ok := cp.elemIndex(el[i])
	if !ok {
		return j
	}
	for j < len(el) {
		s2, o2, ok2 := cp.elemIndex(el[j])
		if !ok2 || s2 != src || o2 != off+j-i {
			break
		}
		j++
	}
	return j
}
