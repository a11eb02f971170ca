package ir

// IsMatrixRow reports whether e is a row m[i] of a matrix m.
func IsMatrixRow(e Expr) bool {
	ix, ok := e.(*Index)
	return ok && len(ix.Idx) == 1 && ix.X.Type().Kind == Matrix && ix.Idx[0].Type().Kind == Int
}

// Slice is x[a:b] of a vector, or a block of a matrix M[a:b, c:d] where
// either slot may be a single index (M[:, j] is column j as a vector,
// M[i, a:b] part of row i). The bounds are known before inference
// (1-based, inclusive); Keep says which dimensions the result keeps.
type Slice struct {
	ExprBase
	X      Expr
	Lo, Hi [2]int
	Keep   [2]bool
	// Dyn, where not nil, is the single index of a dimension that is not
	// kept, known when the model is compiled but not before (a loop
	// variable: alpha[k, :], X[:, j]); Lo and Hi are then 1.
	Dyn [2]Expr
}

// Index is the single index of dimension d (not kept).
func (e *Slice) Index(d int) Expr {
	if e.Dyn[d] != nil {
		return e.Dyn[d]
	}
	return &Num{ExprBase: ExprBase{e.Pos(), TInt}, V: float64(e.Lo[d])}
}
