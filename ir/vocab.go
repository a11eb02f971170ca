package ir

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// The vocabulary of the language has two registries, each read by the
// resolver, the compiler, check's hints, the REPL's completion and the
// README test (vocab_test.go):
//
//   - the built-in functions: the table of Function entries in
//     builtins.go, one per function (name, arity, check, lowering, doc);
//   - the distributions, scalar and multivariate: stdlib's registry of
//     Family entries (stdlib.Lookup, stdlib.FamilyNames). A distribution
//     also gives the functions NAME_lpdf (NAME_lpmf), NAME_cdf, NAME_lcdf
//     and NAME_lccdf when it has them, and NAME_rng (DerivedNames).

// Function is a built-in function of the language: one entry of the
// vocabulary. Its gradient is that of the tape operations it lowers to,
// or of the stdlib op it puts on the tape.
type Function struct {
	Name string
	// Params names the arguments, for messages and docs ("v, n").
	Params string
	// Doc is one line on the function, for completion help and the docs.
	Doc string
	// Alias, for another name of a function (dot_product), is the name of
	// the canonical entry: the call is checked and lowered as that one.
	Alias string

	// Arity lists the numbers of arguments it takes (one for most).
	Arity []int
	// ints is how many of the last arguments are integers known before
	// inference (sizes and offsets, as in head(v, n)): check reads them
	// in site.ints.
	ints int
	// check types a call: it returns the typed expression (a Call or
	// Builtin of this entry, a NaryCall, MatCall or Num), or reports an
	// error and returns nil.
	check func(k *site) Expr
	// Tape, for an elementwise function the tape has, is its operation.
	Tape func(*autodiff.Graph, autodiff.Node) autodiff.Node
	// ODE, for an ODE solver (whose first argument names a user function,
	// not an expression), is the layout of its arguments: the resolver
	// resolves the whole call itself (arity is then its least number of
	// arguments).
	ODE *odeForm
	// Elementwise: a Call of it applies to each element of its one
	// argument (vectorised loops batch it).
	Elementwise bool
	// Elem and nary are the stdlib op it puts on the tape, if any (for
	// the tests of its values).
	Elem *stdlib.ElemFunc
	Nary *stdlib.NaryFunc
}

// site is a call being checked: its arguments resolved, its integer
// arguments folded.
type site struct {
	// errorf reports an error at a position (the resolver's).
	errorf func(p lang.Pos, format string, args ...any) *lang.Error
	pos    lang.Pos
	name   string // as written
	def    *Function
	args   []Expr
	ints   []int
}

func (k *site) t(i int) Type { return k.args[i].Type() }

// bad reports "NAME takes WANT, got T" for the type of the first argument.
func (k *site) bad(want string) Expr {
	k.errorf(k.pos, "%s takes %s, got %s", k.name, want, k.t(0))
	return nil
}

// badf reports "NAME: MESSAGE".
func (k *site) badf(format string, a ...any) Expr {
	k.errorf(k.pos, "%s: %s", k.name, fmt.Sprintf(format, a...))
	return nil
}

// builtin is the Builtin node of this call, of type t.
func (k *site) builtin(t Type) Expr {
	return &Builtin{ExprBase: ExprBase{k.pos, t}, Name: k.name, Def: k.def, Args: k.args, Ints: k.ints}
}

// call is the Call node of this call, of type t.
func (k *site) call(t Type) Expr {
	return &Call{ExprBase: ExprBase{k.pos, t}, Name: k.name, Def: k.def, Args: k.args}
}

// functions are the entries of the table (builtins.go) by name, aliases
// included; filled in by init (the table's checks reach the resolver,
// which reads this map).
var FunctionsByName = map[string]*Function{}

func init() {
	for _, f := range functionTable {
		if _, dup := FunctionsByName[f.Name]; dup || f.Doc == "" && f.Alias == "" {
			panic("ir: function " + f.Name + " listed twice or without Doc")
		}
		FunctionsByName[f.Name] = f
	}
	for _, f := range functionTable {
		if f.Alias != "" {
			to := FunctionsByName[f.Alias]
			if to == nil || to.Alias != "" {
				panic("ir: alias " + f.Name + " of " + f.Alias)
			}
			f.Params, f.Arity = to.Params, to.Arity
			if f.Doc == "" {
				f.Doc = "another name of " + to.Name
			}
		}
	}
	FnLogSumExp, FnDot = FunctionsByName["log_sum_exp"], FunctionsByName["dot"]
	FnCol, FnRow = FunctionsByName["col"], FunctionsByName["row"]
}

// The entries that the later stages recognise (the forward algorithm's
// log_sum_exp, a row's dot product, a matrix column): compared by entry,
// never by name.
var FnLogSumExp, FnDot, FnCol, FnRow *Function

// Functions lists the built-in functions, aliases included, sorted by name.
func Functions() []*Function {
	out := make([]*Function, 0, len(FunctionsByName))
	for _, f := range FunctionsByName {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FunctionNames lists the built-in functions' names, sorted.
func FunctionNames() []string {
	out := make([]string, 0, len(FunctionsByName))
	for n := range FunctionsByName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DistributionNames are the names that may follow ~: the distributions of
// stdlib's registry, scalar and multivariate, sorted.
func DistributionNames() []string { return stdlib.FamilyNames() }

// DerivedNames are the functions that come with the distributions:
// NAME_lpdf (NAME_lpmf for discrete ones), NAME_cdf, NAME_lcdf and
// NAME_lccdf where the distribution has them, and NAME_rng for scalar ones, sorted.
func DerivedNames() []string {
	var out []string
	for _, n := range stdlib.FamilyNames() {
		f, _ := stdlib.Lookup(n)
		out = append(out, f.DensityName())
		if f.LogCDF != nil {
			out = append(out, n+"_lcdf")
		}
		if f.CDF != nil {
			out = append(out, n+"_cdf")
		}
		if f.LogCCDF != nil {
			out = append(out, n+"_lccdf")
		}
		if f.Scalar() {
			out = append(out, n+"_rng")
		}
	}
	sort.Strings(out)
	return out
}

// CDFFamilies are the distributions with NAME_cdf, NAME_lcdf and
// NAME_lccdf, sorted.
func CDFFamilies() []string {
	var out []string
	for _, n := range stdlib.FamilyNames() {
		if f, _ := stdlib.Lookup(n); f.LogCDF != nil {
			out = append(out, n)
		}
	}
	return out
}

// CallableNames are all the names a call may use: the built-in functions
// and the distributions' functions (DerivedNames), sorted.
func CallableNames() []string {
	out := append(FunctionNames(), DerivedNames()...)
	sort.Strings(out)
	return slices.Compact(out)
}

// arityText is "1", "1 or 2", "0, 1 or 3", and the plural of argument.
func arityText(ns []int) (string, string) {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	text := s[len(s)-1]
	if len(s) > 1 {
		text = strings.Join(s[:len(s)-1], ", ") + " or " + text
	}
	return text, Plural1(ns[len(ns)-1])
}

// barMessage is the error for a bar in a call that takes none.
const barMessage = "only a log density or a log CDF (NAME_lpdf, NAME_lpmf, NAME_lcdf, NAME_lccdf) takes a bar: %s(y | ...)"

// callFunction resolves a call of a built-in function: the arity, the
// arguments (the last def.ints of them folded to integers), then the
// entry's check.
func (r *resolver) callFunction(c *lang.Call, f *Function) Expr {
	pos := r.at(c.Pos)
	def := f
	if f.Alias != "" {
		def = FunctionsByName[f.Alias]
	}
	if c.Bar {
		r.errorf(pos, barMessage, c.Name)
		return nil
	}
	if def.ODE != nil {
		return r.odeCall(c, pos, *def.ODE)
	}
	if !slices.Contains(def.Arity, len(c.Args)) {
		n, s := arityText(def.Arity)
		r.errorf(pos, "%s takes %s argument%s, got %d", c.Name, n, s, len(c.Args))
		return nil
	}
	k := &site{errorf: r.errorf, pos: pos, name: c.Name, def: def}
	nv := len(c.Args) - def.ints
	k.args = make([]Expr, nv)
	for i := range k.args {
		if k.args[i] = r.expr(c.Args[i]); k.args[i] == nil {
			return nil
		}
	}
	k.ints = make([]int, def.ints)
	for i := range k.ints {
		x := r.expr(c.Args[nv+i])
		if x == nil {
			return nil
		}
		v, ok := foldConst(x)
		if !ok && x.Type().Kind == Int && !dependsOnUnknowns(x) && (def == FnCol || def == FnRow) {
			return r.dynColRow(k.args[0], x, def == FnCol, pos) // col(X, j) in a loop over j
		}
		if !ok || x.Type().Kind != Int {
			r.errorf(x.Pos(), "argument %d of %s must be an integer known before inference", nv+i+1, c.Name)
			return nil
		}
		if k.ints[i], ok = ExactInt(v); !ok {
			r.errorf(x.Pos(), "%s", BigIntMsg(x, v))
			return nil
		}
		markSizeUse(x, x.Pos())
	}
	return def.check(k)
}

// fnCall is a Call of the entry name made by the resolver itself (dot for
// v' * w, sum of a vector of log CDFs).
func fnCall(name string, pos lang.Pos, t Type, args ...Expr) *Call {
	return &Call{ExprBase: ExprBase{pos, t}, Name: name, Def: FunctionsByName[name], Args: args}
}

// unsupported are prefixes and suffixes of Stan's functions and
// distributions that the language does not have yet, so that they are
// named as unsupported rather than unknown (a name of the registries is
// never looked up here).
var unsupported = []string{"ode_adams", "ode_ckrk", "ode_adjoint", "integrate_ode_adams", "algebra_solver", "solve_", "map_rect", "reduce_sum", "dae",
	"hmm_", "wishart", "inv_wishart", "ordered_probit", "gaussian_dlm", "von_mises", "neg_binomial",
	"hypergeometric", "multinomial", "skew_double", "pareto_type_2", "exp_mod_normal", "wiener", "loglogistic",
	"discrete_range", "matrix_exp", "eigen", "svd", "qr_", "inverse", "mdivide", "append_col", "append_array",
	"to_matrix", "rep_array", "diag_matrix_", "diag_post_multiply", "quad_form", "crossprod", "tcrossprod",
	"sort_", "rank", "reverse"}

// unsupportedStan reports whether name is a Stan function or distribution
// the language does not have yet.
func unsupportedStan(name string) bool {
	for _, p := range unsupported {
		if strings.HasPrefix(name, p) || strings.HasSuffix(name, p) {
			return true
		}
	}
	return false
}

// builtinName reports whether name is taken by the vocabulary: a
// built-in function, a distribution or a distribution's function.
func builtinName(name string) bool {
	if _, ok := FunctionsByName[name]; ok {
		return true
	}
	if _, ok := stdlib.Lookup(name); ok {
		return true
	}
	_, ok := slices.BinarySearch(DerivedNames(), name)
	return ok
}
