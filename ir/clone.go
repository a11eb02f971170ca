package ir

import (
	"github.com/mscppl/mscppl/stdlib"
)

// Clone is a fresh op with its own scratch that has rejected nothing.
func (o *HmmOp) Clone() stdlib.VecOp {
	v := o.VecOp.Clone()
	if v == nil {
		return nil
	}
	return &HmmOp{VecOp: v, Rejections: o.Rejections.Fresh(), K: o.K}
}

// Counts is the op's count of rejections.
func (o *HmmOp) Counts() *Rejections { return &o.Rejections }

// Fresh is r's description with nothing counted, for a copy of its op.
func (r *Rejections) Fresh() Rejections {
	return Rejections{Op: r.Op, Pos: r.Pos, Unit: r.Unit, Derived: r.Derived, Done: r.Done}
}
