package stan

import (
	"math"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// Stan's static rules that the IR, whose language is more permissive,
// would not enforce: a program Stan refuses is refused here too, never run.

// reserved are Stan's reserved words (Stan Reference Manual, "Variable
// names"), which no variable, function or argument may be named; the type
// names are tokens of their own and never reach here as names.
var reserved = map[string]bool{
	"for": true, "in": true, "while": true, "repeat": true, "until": true, "if": true, "then": true,
	"else": true, "true": true, "false": true, "target": true, "functions": true, "model": true,
	"data": true, "parameters": true, "quantities": true, "transformed": true, "generated": true,
	"profile": true, "return": true, "break": true, "continue": true, "void": true, "array": true,
	"jacobian": true, "auto": true, "export": true, "extern": true, "static": true, "struct": true,
	"typedef": true, "var": true, "sum_to_zero_matrix": true,
	"print": true, "reject": true, "fatal_error": true, "lower": true, "upper": true, "offset": true,
	"multiplier": true,
}

// reservedSuffixes end the names Stan keeps for itself (__) and for
// densities called unnormalised.
var reservedSuffixes = []string{"__", "_lupdf", "_lupmf"}

// checkName refuses a name Stan does not allow for a variable, a function
// or an argument.
func (l *lowerer) checkName(name string, p lexer.Position, what string) {
	if reserved[name] {
		l.refuse(p, "%s is a reserved word in Stan and cannot name a %s", name, what)
		return
	}
	for _, s := range reservedSuffixes {
		if strings.HasSuffix(name, s) {
			l.refuse(p, "a %s's name cannot end in %s in Stan (%s)", what, s, name)
			return
		}
	}
}

// maxInt is the largest of Stan's ints (32 bits).
const maxInt = math.MaxInt32

// checkIntLiteral refuses an integer literal beyond Stan's ints.
func (l *lowerer) checkIntLiteral(text string, p lexer.Position) {
	if n, err := strconv.ParseUint(text, 10, 64); err != nil || n > maxInt {
		l.refuse(p, "the integer %s is beyond Stan's ints (at most %d); write it as a real (%s.0)", text, maxInt, text)
	}
}

// suffixRules say where calls of functions with a suffix may be: the
// blocks (roles), and the functions whose names have one of the suffixes
// in bodies.
var suffixRules = []struct {
	suffix string
	roles  []role
	bodies []string
	where  string
}{
	{"_rng", []role{roleTData, roleGQ}, []string{"_rng"}, "transformed data, generated quantities and functions whose names end in _rng"},
	{"_lupdf", []role{roleModel}, []string{"_lpdf", "_lpmf"}, "the model block and functions whose names end in _lpdf or _lpmf"},
	{"_lupmf", []role{roleModel}, []string{"_lpdf", "_lpmf"}, "the model block and functions whose names end in _lpdf or _lpmf"},
	{"_lp", []role{roleTParams, roleModel}, []string{"_lp"}, "the transformed parameters, the model block and functions whose names end in _lp"},
}

// checkCall refuses a call where Stan does not allow it.
func (l *lowerer) checkCall(c *Call) {
	for _, r := range suffixRules {
		if !strings.HasSuffix(c.Name, r.suffix) {
			continue
		}
		ok := false
		if l.fn != "" {
			for _, s := range r.bodies {
				ok = ok || strings.HasSuffix(l.fn, s)
			}
		} else {
			for _, b := range r.roles {
				ok = ok || l.role == b
			}
		}
		if !ok {
			l.refuse(c.Pos, "%s: Stan allows %s functions only in %s", c.Name, r.suffix, r.where)
		}
	}
	if (strings.HasSuffix(c.Name, "_cdf") || strings.HasSuffix(c.Name, "_lcdf") || strings.HasSuffix(c.Name, "_lccdf") ||
		strings.HasSuffix(c.Name, "_lpdf") || strings.HasSuffix(c.Name, "_lpmf") || strings.HasSuffix(c.Name, "_lupdf") ||
		strings.HasSuffix(c.Name, "_lupmf")) && !c.Bar && len(c.Args) > 1 {
		e := l.refuse(c.Pos, "%s takes its first argument before a bar: %s(y | ...)", c.Name, c.Name)
		e.Hint = "Stan 2.33 removed the form with a comma"
	}
}

// densitySuffixes end the names of user-defined densities, which take at
// least the variate.
var densitySuffixes = []string{"_lpdf", "_lpmf", "_lcdf", "_lccdf"}

// checkAssign refuses an assignment whose sides Stan types differently: an
// array and a non-array (the IR stores arrays as vectors, and would accept
// it), and the elementwise compound assignments of scalars.
func (l *lowerer) checkAssign(lhs, rhs shape, op string, p lexer.Position) {
	switch {
	case lhs.base == "" || rhs.base == "":
	case lhs.base == "int" && rhs.base == "real":
		l.refuse(p, "the value (%s) is real and the variable (%s) an int; Stan does not round", rhs, lhs)
	case lhs.arr != rhs.arr && !(lhs.arr == 0 && rhs.arr == 0):
		l.refuse(p, "the value (%s) does not have the type of the variable (%s)", rhs, lhs)
	case lhs.arr == 0 && (lhs.base == "vector" && rhs.base == "row_vector" || lhs.base == "row_vector" && rhs.base == "vector"):
		l.refuse(p, "the value (%s) does not have the type of the variable (%s)", rhs, lhs)
	case lhs.arr == 0 && rhs.arr == 0 && (op == "=" || op == "+=" || op == "-=") && (lhs.base == "vector" || lhs.base == "row_vector") && rhs.base == "matrix":
		// a matrix to a vector (aa[J, 1] += bb[1:2, 1:2]); not the
		// reverse, as a row-vector literal of rows, [r1, r2], is a matrix
		l.refuse(p, "the value (%s) does not have the type of the variable (%s)", rhs, lhs)
	case lhs.arr > 0 && op != "=":
		l.refuse(p, "%s is not defined on arrays in Stan", op)
	case (op == ".*=" || op == "./=") && lhs.scalar():
		l.refuse(p, "%s is defined on vectors and matrices, not on a scalar", op)
	}
}

// String describes a shape for messages.
func (s shape) String() string {
	b := s.base
	if b == "" {
		b = "unknown"
	}
	if s.arr > 0 {
		return "an array of " + strconv.Itoa(s.arr) + " dimension(s) of " + b
	}
	return b
}
