package check

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// A user function's body is resolved where it is called, with the types
// of the call's arguments (functions.go). A function that no statement
// calls is resolved once on its own, with values of its declared
// argument types, so that a mistake in it is an error too, as in Stan:
// each array dimension and vector or matrix size is genericSize, and an
// int argument is genericSize, known (so that it may size a local); an
// error about those sizes is not the function's, and is dropped. The
// body may hold the statements of any block (~, target +=, NAME_rng): where
// it is called decides which it may hold.

// genericSize is the size of the arguments of an uncalled function: a
// number that a program's own sizes are unlikely to be, so that an error
// that names it (a shape mismatch with a local of a fixed size, an index
// beyond it) is known to be about the made-up sizes, and dropped.
const genericSize = 97

// madeUpSize matches a message that names genericSize.
var madeUpSize = regexp.MustCompile(`\b` + strconv.Itoa(genericSize) + `\b`)

// uncalled resolves the body of each user function never called.
func (r *resolver) uncalled() {
	names := make([]string, 0, len(r.funcs))
	for name := range r.funcs {
		if !r.called[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		r.uncalledFunc(r.funcs[name])
	}
}

// uncalledFunc resolves fd's body with arguments of its declared types;
// the first error it gives is kept, saying so.
func (r *resolver) uncalledFunc(fd *lang.FuncDef) {
	scope, leave := r.enterFunction()
	r.anyBlock = true
	defer func() { leave(); r.anyBlock = false }()
	nerr := len(r.errs)
	defer func() {
		if len(r.errs) > nerr && madeUpSize.MatchString(r.errs[nerr].Msg) {
			r.errs = r.errs[:nerr] // about the made-up sizes, not the function
		}
		if len(r.errs) > nerr {
			e := r.errs[nerr]
			r.errs = r.errs[:nerr+1]
			e.Msg += fmt.Sprintf("; in %s, checked with arguments of its declared types (it is never called)", fd.Name)
		}
	}()
	for _, prm := range fd.Params {
		v := r.newVar(prm.Name, r.at(prm.Pos), ir.LocalVar, genericType(prm.ArrayDims(), prm.Base))
		if v.Type.Kind == ir.Int {
			v.Known = []float64{genericSize}
		}
		scope[prm.Name] = v
	}
	if fd.Void {
		r.stmts(fd.Body)
		return
	}
	n := len(fd.Body)
	r.stmts(fd.Body[:n-1])
	result := r.expr(fd.Body[n-1].Return)
	if result == nil || len(r.errs) > nerr {
		return
	}
	if rd := fd.Result.ArrayDims(); !ir.ParamAccepts(rd, fd.Result.Base, result.Type()) {
		r.errorf(result.Pos(), "%s returns %s, declared %s", fd.Name, unsized(result.Type()), ir.ParamType(rd, fd.Result.Base))
	}
}

// genericType is a value's type for an argument declared with base and
// arrayDims array dimensions, every size genericSize.
func genericType(arrayDims int, base lang.BaseType) ir.Type {
	const n = genericSize
	ints := base == lang.BaseInt
	switch {
	case arrayDims == 0 && base == lang.BaseInt:
		return ir.TInt
	case arrayDims == 0 && base == lang.BaseReal:
		return ir.TReal
	case arrayDims == 0 && base == lang.BaseVector:
		return ir.VecType(n)
	case arrayDims == 0 && base == lang.BaseRowVector:
		return ir.RowVecType(n)
	case arrayDims == 0:
		return ir.MatType(n, n)
	case arrayDims == 1 && (ints || base == lang.BaseReal):
		return ir.Type{Kind: ir.Vector, Rows: n, Array: 1, IntElems: ints}
	case arrayDims == 1 && base == lang.BaseVector:
		return ir.Type{Kind: ir.Matrix, Rows: n, Cols: n, Array: 1}
	}
	return ir.Type{Kind: ir.Matrix, Rows: n, Cols: n, Array: arrayDims, IntElems: ints}
}

// unsized names a type without its sizes (those of an uncalled function's
// values are made up).
func unsized(t ir.Type) string {
	switch {
	case t.Array > 0:
		return fmt.Sprintf("an array of %d dimension%s", t.Array, ir.Plural1(t.Array))
	case t.Kind == ir.Vector && t.IntElems:
		return "int[]"
	case t.Kind == ir.Vector:
		return "vector"
	case t.Kind == ir.Matrix:
		return "matrix"
	}
	return t.String()
}
