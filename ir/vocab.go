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
	Ints int
	// check types a call: it returns the typed expression (a Call or
	// Builtin of this entry, a NaryCall, MatCall or Num), or reports an
	// error and returns nil.
	Check func(k *Site) Expr
	// Tape, for an elementwise function the tape has, is its operation.
	Tape func(*autodiff.Graph, autodiff.Node) autodiff.Node
	// ODE, for an ODE solver (whose first argument names a user function,
	// not an expression), is the layout of its arguments: the resolver
	// resolves the whole call itself (arity is then its least number of
	// arguments).
	ODE *OdeForm
	// Elementwise: a Call of it applies to each element of its one
	// argument (vectorised loops batch it).
	Elementwise bool
	// RowRefused: a row_vector argument is refused (RowRefused), since
	// the function's value would depend on whether it is a row or a
	// column (rows(r) is 1 in Stan).
	RowRefused bool
	// Elem and nary are the stdlib op it puts on the tape, if any (for
	// the tests of its values).
	Elem *stdlib.ElemFunc
	Nary *stdlib.NaryFunc
}

// site is a call being checked: its arguments resolved, its integer
// arguments folded.
type Site struct {
	// errorf reports an error at a position (the resolver's).
	Errorf func(p lang.Pos, format string, args ...any) *lang.Error
	Pos    lang.Pos
	Name   string // as written
	Def    *Function
	Args   []Expr
	Ints   []int
}

func (k *Site) t(i int) Type { return k.Args[i].Type() }

// bad reports "NAME takes WANT, got T" for the type of the first argument.
func (k *Site) bad(want string) Expr {
	k.Errorf(k.Pos, "%s takes %s, got %s", k.Name, want, k.t(0))
	return nil
}

// badf reports "NAME: MESSAGE".
func (k *Site) badf(format string, a ...any) Expr {
	k.Errorf(k.Pos, "%s: %s", k.Name, fmt.Sprintf(format, a...))
	return nil
}

// builtin is the Builtin node of this call, of type t.
func (k *Site) builtin(t Type) Expr {
	return &Builtin{ExprBase: ExprBase{k.Pos, t}, Name: k.Name, Def: k.Def, Args: k.Args, Ints: k.Ints}
}

// call is the Call node of this call, of type t.
func (k *Site) call(t Type) Expr {
	return &Call{ExprBase: ExprBase{k.Pos, t}, Name: k.Name, Def: k.Def, Args: k.Args}
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
func ArityText(ns []int) (string, string) {
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
const BarMessage = "only a log density or a log CDF (NAME_lpdf, NAME_lpmf, NAME_lcdf, NAME_lccdf) takes a bar: %s(y | ...)"

// fnCall is a Call of the entry name made by the resolver itself (dot for
// v' * w, sum of a vector of log CDFs).
func FnCall(name string, pos lang.Pos, t Type, args ...Expr) *Call {
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
func UnsupportedStan(name string) bool {
	for _, p := range unsupported {
		if strings.HasPrefix(name, p) || strings.HasSuffix(name, p) {
			return true
		}
	}
	return false
}

// builtinName reports whether name is taken by the vocabulary: a
// built-in function, a distribution or a distribution's function.
func BuiltinName(name string) bool {
	if _, ok := FunctionsByName[name]; ok {
		return true
	}
	if _, ok := stdlib.Lookup(name); ok {
		return true
	}
	_, ok := slices.BinarySearch(DerivedNames(), name)
	return ok
}

// rowRefusedStan are Stan's functions outside the vocabulary whose value
// depends on whether an argument is a row or a column (the Stan front end
// refuses a row_vector argument of theirs, as RowRefused does for the
// entries marked so).
var rowRefusedStan = []string{"transpose", "multiply", "crossprod", "tcrossprod", "quad_form", "append_col", "to_array_2d"}

// RowRefused reports whether a call of the function name refuses a
// row_vector argument: the vocabulary's entries marked RowRefused (rows,
// cols, dims, append_row, ...) and Stan's functions of rowRefusedStan.
// The resolver and the Stan front end (package lang/stan) both read it.
func RowRefused(name string) bool {
	if f, ok := FunctionsByName[name]; ok {
		if f.Alias != "" {
			f = FunctionsByName[f.Alias]
		}
		return f.RowRefused
	}
	return slices.Contains(rowRefusedStan, name)
}
