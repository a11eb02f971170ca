package stan

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// Stan's static rules on the functions block and on names, which the IR
// (whose functions are inlined where they are called) would not enforce:
// forward declarations defined once with the same signature, densities
// that return real and take the variate their suffix says, arguments
// that are read-only, and names that Stan's library keeps.

// signature is a function's signature as written, for comparing a
// forward declaration with its definition.
func signature(fd *FuncDef) string {
	var b strings.Builder
	if fd.Void {
		b.WriteString("void")
	} else {
		b.WriteString(argTypeString(fd.Result))
	}
	b.WriteString(" " + fd.Name + "(")
	for i, a := range fd.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(argTypeString(a.Type))
	}
	b.WriteString(")")
	return b.String()
}

// argTypeString writes an unsized type in the new array syntax.
func argTypeString(t *ArgType) string {
	s := t.Base
	if n := t.Dims(); n > 0 {
		s = fmt.Sprintf("array[%s] %s", strings.Repeat(",", n-1), s)
	}
	if t.Data {
		s = "data " + s
	}
	return s
}

// declared records the function declarations (forward ones and
// definitions) of the functions block, by name and argument types (Stan
// overloads functions on their arguments).
type declared struct {
	first   map[string]*FuncDef // the first declaration of each overload
	defined map[string]bool
}

// overload is a declaration's name and argument types, without the data
// qualifiers.
func overload(fd *FuncDef) string {
	var b strings.Builder
	b.WriteString(fd.Name)
	for _, a := range fd.Args {
		b.WriteString(" " + strings.TrimPrefix(argTypeString(a.Type), "data "))
	}
	return b.String()
}

// declareFunc checks one declaration of the functions block against the
// earlier ones: an overload is declared forward at most once before its
// definition, defined once, and the two agree on the signature.
func (l *lowerer) declareFunc(d *declared, fd *FuncDef) {
	key := overload(fd)
	first, seen := d.first[key]
	switch {
	case !seen:
		d.first[key] = fd
	case d.defined[key]:
		l.refuse(fd.Pos, "function %s is declared again after its definition (%s)", fd.Name, signature(fd))
		return
	case fd.Forward:
		l.refuse(fd.Pos, "function %s is declared twice (first at %d:%d)", fd.Name, first.Pos.Line, first.Pos.Column)
		return
	case signature(first) != signature(fd):
		l.refuse(fd.Pos, "the definition of %s (%s) differs from its declaration at %d:%d (%s)",
			fd.Name, signature(fd), first.Pos.Line, first.Pos.Column, signature(first))
	}
	if !fd.Forward {
		d.defined[key] = true
	}
}

// undefined refuses the functions declared forward and never defined.
func (l *lowerer) undefined(d *declared, defs []*FuncDef) {
	for _, fd := range defs {
		if key := overload(fd); fd.Forward && d.first[key] == fd && !d.defined[key] {
			l.refuse(fd.Pos, "function %s is declared but never defined", fd.Name)
		}
	}
}

// probabilitySuffixes end the names of the functions Stan requires to
// return real: densities, mass functions and their CDFs.
var probabilitySuffixes = []string{"_lpdf", "_lpmf", "_lcdf", "_lccdf", "_cdf"}

// checkDensity refuses a density or mass function whose result is not
// real, or whose variate is not what its suffix says (an int for _lpmf, a
// real-valued one for _lpdf).
func (l *lowerer) checkDensity(fd *FuncDef) {
	for _, s := range probabilitySuffixes {
		if !strings.HasSuffix(fd.Name, s) {
			continue
		}
		if fd.Void || fd.Result.Base != "real" || fd.Result.Dims() > 0 {
			what := "void"
			if !fd.Void {
				what = argTypeString(fd.Result)
			}
			l.refuse(fd.Pos, "%s must return real (a function whose name ends in %s), not %s", fd.Name, s, what)
		}
		if len(fd.Args) == 0 {
			return
		}
		v := fd.Args[0].Type
		switch {
		case s == "_lpmf" && v.Base != "int":
			l.refuse(fd.Args[0].Pos, "the variate of %s is an int or an array of ints (a mass function, _lpmf), not %s", fd.Name, argTypeString(v))
		case s == "_lpdf" && v.Base == "int":
			l.refuse(fd.Args[0].Pos, "the variate of %s is real-valued (a density, _lpdf); an int variate is a mass function, _lpmf", fd.Name)
		}
		return
	}
}

// libraryFunctions are the names of Stan's library functions that take
// functions as arguments: a user function cannot take them (Stan cannot
// overload them).
var libraryFunctions = map[string]bool{"reduce_sum": true, "reduce_sum_static": true, "map_rect": true,
	"integrate_1d": true, "algebra_solver": true, "algebra_solver_newton": true, "solve_newton": true,
	"solve_newton_tol": true, "solve_powell": true, "solve_powell_tol": true,
	"ode_rk45": true, "ode_rk45_tol": true, "ode_bdf": true, "ode_bdf_tol": true, "ode_adams": true,
	"ode_adams_tol": true, "ode_ckrk": true, "ode_ckrk_tol": true, "ode_adjoint_tol_ctl": true,
	"integrate_ode_rk45": true, "integrate_ode_bdf": true, "integrate_ode_adams": true, "dae": true,
	"dae_tol": true, "hmm_marginal": true, "hmm_latent_rng": true, "hmm_hidden_state_prob": true}

// libraryPrefixes begin the names of the embedded Laplace approximations,
// which take functions too.
var libraryPrefixes = []string{"laplace_"}

// checkLibraryName refuses a user function named as one of Stan's
// higher-order library functions.
func (l *lowerer) checkLibraryName(name string, p lexer.Position) {
	clash := libraryFunctions[name]
	for _, s := range libraryPrefixes {
		clash = clash || strings.HasPrefix(name, s)
	}
	if clash {
		l.refuse(p, "%s is a function of Stan's library, which a user function cannot take as its name", name)
	}
}

// removedFunctions are the functions Stan 2.33 removed, with what
// replaces each.
var removedFunctions = map[string]string{
	"fabs":                     "abs",
	"multiply_log":             "lmultiply",
	"binomial_coefficient_log": "lchoose",
	"cov_exp_quad":             "gp_exp_quad_cov",
	"if_else":                  "the conditional operator c ? a : b",
	"increment_log_prob":       "target +=",
}

// checkRemoved refuses a call of a function Stan removed.
func (l *lowerer) checkRemoved(c *Call) {
	if _, user := l.funcs[c.Name]; user {
		return
	}
	if by, ok := removedFunctions[c.Name]; ok {
		e := l.refuse(c.Pos, "%s was removed from Stan (2.33)", c.Name)
		e.Hint = "use " + by
	}
}

// checkODE refuses a call of one of Stan's ODE solvers (ode_rk45, ...)
// whose right-hand side does not return a vector, Stan's ODE state.
func (l *lowerer) checkODE(c *Call) {
	if !strings.HasPrefix(c.Name, "ode_") || len(c.Args) == 0 {
		return
	}
	f := rootName(c.Args[0])
	sh, ok := l.funcs[f]
	if ok && (sh.base != "vector" || sh.arr != 0) {
		l.refuse(c.Args[0].Pos, "the right-hand side of %s, %s, returns %s; Stan's ODE state is a vector", c.Name, f, sh)
	}
}

// dataSizes refuses a size of a declaration of the parameters, transformed
// parameters or generated quantities that reads one of their variables
// (Stan's sizes there are data).
func (l *lowerer) dataSizes(t *Type, d *Declarator) {
	for _, e := range append(append(append([]*Expr(nil), t.Array...), t.Sizes...), d.Old...) {
		bad := ""
		walkIdents(e, func(n string) {
			if bad == "" && l.blockVars[n] {
				bad = n
			}
		})
		if bad != "" {
			l.refuse(e.Pos, "the size of %s reads %s, which is not data; Stan's sizes of block variables are data", d.Name, bad)
		}
	}
}

// returnFits reports whether a value of shape got may be returned by a
// function declared to return want, as far as the shapes are known: the
// same array dimensions, a scalar for a scalar, and an int for an int.
func returnFits(want, got shape) bool {
	switch {
	case want.base == "" || got.base == "":
		return true
	case want.arr != got.arr:
		return false
	case want.scalar() != got.scalar():
		return false
	}
	return !(want.base == "int" && got.base == "real")
}

// isArg reports whether name is an argument of the function being
// lowered.
func (l *lowerer) isArg(name string) bool {
	_, ok := l.args[name]
	return ok
}

// checkDataArgs refuses an argument of a user function declared data
// only that reads a parameter (in the transformed parameters and the
// model block) or an argument of the enclosing function that is not
// data only.
func (l *lowerer) checkDataArgs(c *Call) {
	flags := l.dataArgs[c.Name]
	for i, a := range c.Args {
		if i >= len(flags) || !flags[i] {
			continue
		}
		bad := ""
		walkIdents(a, func(n string) {
			switch {
			case bad != "":
			case l.fn != "" && l.args[n]:
				bad = n
			case l.fn == "" && (l.role == roleTParams || l.role == roleModel) && l.blockVars[n]:
				bad = n
			}
		})
		if bad != "" {
			l.refuse(a.Pos, "argument %d of %s is data only, and %s is not data", i+1, c.Name, bad)
		}
	}
}
