package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// ResolveExpr parses src as one expression (positions carry name, line
// 1 being the start of src) and resolves and checks it against the
// model: it may use the model's data, sizes, params, latents and
// top-level local definitions. Errors are positioned in src.
func ResolveExpr(m *ir.Model, name string, src []byte) (ir.Expr, error) {
	px, err := lang.ParseExpr(name, src)
	if err != nil {
		return nil, err
	}
	r := &resolver{
		file:        name,
		m:           m,
		global:      map[string]*ir.Var{},
		unknownHint: "an expression may use the model's data, params, latents and top-level local definitions",
	}
	for _, v := range m.Vars {
		switch v.Kind {
		case ir.DataVar, ir.SizeVar, ir.ParamVar, ir.LatentVar:
			r.global[v.Name] = v
		}
	}
	top := map[string]*ir.Var{}
	for _, s := range m.Body {
		if a, ok := s.(*ir.Assign); ok {
			top[a.Local.Name] = a.Local
		}
	}
	r.scopes = []map[string]*ir.Var{top}
	x := r.expr(px)
	if len(r.errs) > 0 || x == nil {
		r.errs.Sort()
		return nil, r.errs
	}
	return x, nil
}
