package stdlib

// The ops' Clone methods (VecOp.Clone), for the copies of a compiled
// model (one per chain or worker). An op that keeps no state between calls
// is shared by the copies; one that keeps scratch, a cache, a random
// stream or the errors it met gets a fresh one, as its constructor makes
// it.

// Stateless ops: shared.

func (o *GPExpQuadCov) Clone() VecOp         { return o }
func (o *DiagMatrix) Clone() VecOp           { return o }
func (o *RepVector) Clone() VecOp            { return o }
func (o *OrderedLogisticLpmf) Clone() VecOp  { return o }
func (o *DirichletLpdf) Clone() VecOp        { return o }
func (o *LKJCorrCholeskyLpdf) Clone() VecOp  { return o }
func (o *CategoricalLogitLpmf) Clone() VecOp { return o }
func (o *MatMul) Clone() VecOp               { return o }
func (o *Transpose) Clone() VecOp            { return o }
func (o *Select) Clone() VecOp               { return o }
func (o *CategoricalLpmf) Clone() VecOp      { return o }

// Clone shares the transform op: a vector transform is a value without
// scratch (Ordered, Simplex, CholeskyCorr, Stacked).
func (o vecOp) Clone() VecOp { return o }

// Stateful ops: fresh scratch.

func (o *Cholesky) Clone() VecOp                { return NewCholesky(o.n) }
func (o *MultiNormalCholeskyLpdf) Clone() VecOp { return NewMultiNormalCholeskyLpdf(o.n) }
func (o *MultiNormalLpdf) Clone() VecOp         { return NewMultiNormalLpdf(o.n) }
func (o *HMMMarginal) Clone() VecOp             { return NewHMMMarginal(o.k, o.n) }
func (o *HMMForward) Clone() VecOp              { return NewHMMForward(o.k, o.n) }

// Clone is a fresh op: its scratch and its cache of log(sd) are the
// copy's own.
func (o *SumLogDensity) Clone() VecOp { return NewSumLogDensity(o.F) }

// Clone is a fresh op with its own scratch.
func (o *NaryOp) Clone() VecOp { return NewNaryOp(o.F) }

// Clone is a fresh op: its random stream starts as a new op's (Seed
// seeds it), and it has met no bad argument yet.
func (o *RandOp) Clone() VecOp { return NewRandOp(o.F, o.n) }

// Clone is a fresh check that has found no bad argument.
func (o *ArgCheckOp) Clone() VecOp { return NewArgCheckOp(o.F) }
