package check

import (
	"fmt"
	"math"
	"slices"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// BuildJSON is Build for a model whose data file is JSON (CmdStan's and
// posteriordb's format): each data declaration without a value binds to
// the field of its name. A declaration with a value (N: int = 3) keeps its
// value; the field of that name, if any, is ignored.
func BuildJSON(f *lang.File, data *dataset.JSONData) (*ir.Model, error) {
	return build(f, &resolver{json: data})
}

// elemType is the type of an element of a vector or matrix: int for an
// integer array, so that g[n] can index another vector.
func elemType(t ir.Type) ir.Type {
	if t.IntElems {
		return ir.TInt
	}
	return ir.TReal
}

// checkInts reports the first non-integer value of int array data, or one
// of plus or minus maxExactInt or beyond (2^53 itself is refused with them:
// 2^53 + 1 in the file was read as 2^53).
func (r *resolver) checkInts(v *ir.Var, p lang.Pos) bool {
	for i, x := range v.Value {
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			r.errorf(p, "int data %s has a non-integer value %g at element %d (%s)", v.Name, x, i+1, v.Source)
			return false
		}
		if math.Abs(x) >= ir.MaxExactInt { // (2^53 + 1 reads as 2^53: the text is gone)
			r.errorf(p, "int data %s has the value %g at element %d (%s), beyond the integers a float64 holds exactly (plus or minus 2^53 = %d)", v.Name, x, i+1, v.Source, int64(ir.MaxExactInt))
			return false
		}
	}
	return true
}

// jsonDecl binds a data declaration to the JSON field of its name.
func (r *resolver) jsonDecl(d *lang.Decl, p lang.Pos, bij stdlib.Bijection) {
	file := r.json.File
	if d.From != nil {
		e := r.errorf(r.at(d.From.Pos), "from selects CSV columns, but the data file %s is JSON", file)
		e.Hint = fmt.Sprintf("with a JSON file, data %s binds to the field %q; remove the from clause", d.Name, d.Name)
		return
	}
	if d.Standardized {
		e := r.errorf(p, "standardized applies to CSV columns, but the data file %s is JSON", file)
		e.Hint = "standardize the values in the file, or in the model"
		return
	}
	base := d.Type.Base
	scalar := len(d.Type.Dims) == 0
	if !scalar && d.Init != nil {
		r.errorf(r.at(d.Init.Pos), "vector, matrix and int array data come from the data file, not from a value")
		return
	}
	f, ok := r.json.Field(d.Name)
	if !ok {
		miss := r.json.Missing(d.Name)
		r.errorf(p, "data %s: %s", d.Name, miss.Msg).Hint = miss.Hint
		return
	}
	declared := base.String()
	if base == lang.BaseInt && !scalar {
		declared = "int array"
	}
	if r.arrayType != nil {
		declared = r.arrayType.String()
	}
	wantDims := len(d.Type.Dims)
	if wantDims == 2 && len(f.Dims) == 1 && f.Dims[0] == 0 && r.arrayType == nil {
		// a matrix with no rows, written [] (as CmdStan writes it)
		if !r.jsonBindSize(d.Type.Dims[0], 0, f, "rows") {
			return
		}
		cols, ok := r.sizeExpr(d.Type.Dims[1])
		if !ok {
			return
		}
		v := r.newVar(d.Name, p, ir.DataVar, ir.MatType(0, cols))
		v.Source = fmt.Sprintf("field %q of %s (no rows)", d.Name, file)
		r.checkBounds(v, bij, p)
		r.m.Data = append(r.m.Data, v)
		r.declare(v)
		return
	}
	if len(f.Dims) != wantDims {
		e := r.errorf(p, "data %s is %s, but field %q of %s is %s", d.Name, article(declared), d.Name, file, f.Shape())
		e.Hint = fmt.Sprintf("the field is at %s", f.Pos)
		return
	}
	for i, x := range f.Values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			r.errorf(f.ElemPos(i), "data %s%s is %g; mscppl needs finite data", d.Name, elemName(f, i), x)
			return
		}
	}
	source := fmt.Sprintf("field %q of %s", d.Name, file)
	var t ir.Type
	switch {
	case scalar:
		t = ir.TReal
		if base == lang.BaseInt {
			t = ir.TInt
		}
		source = fmt.Sprintf("= %g, %s", f.Values[0], source)
	case wantDims == 1:
		if !r.jsonBindSize(d.Type.Dims[0], f.Dims[0], f, "values") {
			return
		}
		t = ir.VecType(f.Dims[0])
		if base == lang.BaseInt {
			t = ir.IntArrayType(f.Dims[0])
		}
	default:
		if !r.jsonBindSize(d.Type.Dims[0], f.Dims[0], f, "rows") || !r.jsonBindSize(d.Type.Dims[1], f.Dims[1], f, "columns") {
			return
		}
		t = ir.MatType(f.Dims[0], f.Dims[1])
	}
	if base == lang.BaseInt {
		for i, x := range f.Values {
			if x != math.Trunc(x) {
				r.errorf(f.ElemPos(i), "int data %s has a non-integer value %g%s", d.Name, x, atElem(f, i))
				return
			}
			if math.Abs(x) >= ir.MaxExactInt { // (2^53 + 1 reads as 2^53: the text is gone)
				r.errorf(f.ElemPos(i), "int data %s has the value %g%s, beyond the integers a float64 holds exactly (plus or minus 2^53 = %d)", d.Name, x, atElem(f, i), int64(ir.MaxExactInt))
				return
			}
		}
	}
	if old, ok := r.global[d.Name]; ok && old.Kind == ir.SizeVar && scalar && base == lang.BaseInt && old.Value[0] == f.Values[0] {
		// a size bound by an earlier declaration's length, declared now
		old.Kind, old.Source = ir.DataVar, source
		r.checkBounds(old, bij, p)
		r.m.Data = append(r.m.Data, old)
		return
	}
	v := r.newVar(d.Name, p, ir.DataVar, t)
	// The field's values themselves, not a copy (a 10^6 x 10 matrix is 80
	// MB): data values are not written after binding (standardized, the
	// one transformation, is refused above), and Clip keeps an append to
	// v.Value from writing into them.
	v.Value = slices.Clip(f.Values)
	v.Source = source
	r.checkBounds(v, bij, p)
	r.m.Data = append(r.m.Data, v)
	r.declare(v)
}

func article(s string) string {
	if s[0] == 'i' || s[0] == 'a' {
		return "an " + s
	}
	return "a " + s
}

// elemName is the Stan-style 1-based index of value i of f: "[3]", "[2, 1]".
func elemName(f *dataset.JSONField, i int) string {
	switch len(f.Dims) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("[%d]", i+1)
	}
	return fmt.Sprintf("[%d, %d]", i/f.Dims[1]+1, i%f.Dims[1]+1)
}

func atElem(f *dataset.JSONField, i int) string {
	if len(f.Dims) == 0 {
		return ""
	}
	return " at element " + elemName(f, i)
}

// jsonBindSize is bindSize for a JSON field: a new size name binds to the
// field's length (and must agree with a scalar field of that name, if the
// file has one); a known size must equal it.
func (r *resolver) jsonBindSize(e *lang.Expr, n int, f *dataset.JSONField, what string) bool {
	file := r.json.File
	if name, ok := plainName(e); ok {
		if _, known := r.global[name]; !known {
			if g, ok := r.json.Field(name); ok && len(g.Dims) == 0 && g.Values[0] != float64(n) {
				e := r.errorf(r.at(e.Pos), "the size %s is %g in %s, but field %q has %d %s", name, g.Values[0], file, f.Name, n, what)
				e.Hint = fmt.Sprintf("declare %s: int before %s to read it from the file", name, f.Name)
				return false
			}
			v := r.newVar(name, r.at(e.Pos), ir.SizeVar, ir.TInt)
			v.Value = []float64{float64(n)}
			v.Source = fmt.Sprintf("the number of %s of field %q of %s", what, f.Name, file)
			r.global[name] = v
			return true
		}
	}
	want, ok := r.sizeExpr(e)
	if !ok {
		return false
	}
	if want != n {
		r.errorf(r.at(e.Pos), "the size %s is %d, but field %q of %s has %d %s", e.String(), want, f.Name, file, n, what)
		return false
	}
	return true
}
