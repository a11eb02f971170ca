package infer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// Setting is one setting of a run, in the one table (Settings) that
// serves a model's infer { } block, the REPL's :set, the help of mscppl
// run's flags and the docs' list: its key (the flag is --key with - for _),
// what it sets, and the parser that checks a value.
type Setting struct {
	// Key is the setting's name in the infer block and in :set.
	Key string
	// Help says what the setting sets and its default (the flag's help).
	Help string
	// field is the setting's field of Options: *string for a name,
	// *float64, *int or *uint64 for a number.
	field func(o *Options) any
	// name parses a name-valued setting's value against its registry
	// (nil for a number).
	name func(s string) error
	// def is a name-valued setting's default (nil: none, or one that
	// depends on the model)
	def func() string
}

// Flag is the command-line flag of the setting, without its dashes.
func (s *Setting) Flag() string { return strings.ReplaceAll(s.Key, "_", "-") }

// Settings is the table of a run's settings, in the order the docs list
// them. Its help reads the registries and the defaults as they are now.
func Settings() []Setting {
	d := msc.Defaults
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	denseUpTo := 1 // the largest d at which a dense family keeps the default S
	for math.Ceil(float64(denseUpTo+1)*d.SamplesPerDim) <= float64(d.Samples) {
		denseUpTo++
	}
	return []Setting{
		{Key: "method", Help: "Inference method. " + MethodsHelp() + ".",
			field: func(o *Options) any { return &o.Method }, name: validates(parseMethod), def: func() string { return Defaults.Method }},
		{Key: "family", Help: fmt.Sprintf("Variational family: %s (default %s up to %d dimensions, %s above).",
			strings.Join(msc.FamilyNames(), ", "), d.Family, d.FullRankLimit, d.FamilyLarge),
			field: func(o *Options) any { return &o.Family }, name: validates(parseFamily), def: func() string { return d.Family }},
		{Key: "samples", Help: fmt.Sprintf("Samples S per kernel step (default %d, d/%s above %d dimensions with a dense covariance, or the model's infer block).",
			d.Samples, strconv.FormatFloat(1/d.SamplesPerDim, 'g', 3, 64), denseUpTo),
			field: func(o *Options) any { return &o.Samples }},
		{Key: "iters", Help: fmt.Sprintf("The most iterations K of each chain (default: %s; %d with the csmc kernel, %d with particle Gibbs); the run stops earlier when the chains agree, unless --fixed.",
			ItersHelp(d.Iters), d.ItersSSM, d.ItersPG),
			field: func(o *Options) any { return &o.Iters }},
		{Key: "optimizer", Help: "Update rule: natural, rm or adam (default: the kernel's first, natural for cis, adam for the state-space kernels and advi).",
			field: func(o *Options) any { return &o.Optimizer }, name: validates(msc.ParseOptimizer), def: func() string { return msc.Natural.String() }},
		{Key: "lr", Help: fmt.Sprintf("Step size: rho_0 for natural (default %s, at most %s/d with a dense covariance), c for rm (%s), the step for adam (%s; %s for state-space proposals).",
			g(d.LRNatural), g(d.LRNaturalDim), g(d.LRRM), g(d.LRAdam), g(d.LRSSM)),
			field: func(o *Options) any { return &o.LR }},
		{Key: "proposal", Help: fmt.Sprintf("CIS proposal: q (q itself) or prior (default %s).", Defaults.Proposal),
			field: func(o *Options) any { return &o.Proposal }, name: validates(parseProposal), def: func() string { return Defaults.Proposal }},
		{Key: "kernel", Help: fmt.Sprintf("Markov kernel of MSC: %s (the kernel the model's structure allows: csmc for state-space models, kalman for static latents beside a state linear and Gaussian given them, pg for other static latents beside a state, cis otherwise), or %s (default %s).",
			AutoKernel, KernelsHelp(), Defaults.Kernel),
			field: func(o *Options) any { return &o.Kernel }, name: validates(parseKernel), def: func() string { return Defaults.Kernel }},
		{Key: "seed", Help: fmt.Sprintf("Random seed; the same seed gives the same result (default: the infer block's seed, else %d).", Defaults.Seed),
			field: func(o *Options) any { return &o.Seed }},
		{Key: "param_lr", Help: fmt.Sprintf("Adam step for the model parameters (default %s; %s with the csmc kernel, the paper's).", g(d.ParamLR), g(d.ParamLRSSM)),
			field: func(o *Options) any { return &o.ParamLR }},
		{Key: "init", Help: fmt.Sprintf("Where each chain's q starts: laplace (a Laplace approximation at the mode found from a random point, N(0, I) when there is none) or zero (N(0, I)) (default %s).", Defaults.Init),
			field: func(o *Options) any { return &o.Init }, name: validates(parseInit), def: func() string { return Defaults.Init }},
	}
}

// validates makes a name's parser a check.
func validates[T any](parse func(string) (T, error)) func(string) error {
	return func(s string) error { _, err := parse(s); return err }
}

// SettingKeys are the keys of Settings, in its order.
func SettingKeys() []string {
	var out []string
	for _, s := range Settings() {
		out = append(out, s.Key)
	}
	return out
}

// lookupSetting is the setting of a key in the table.
func lookupSetting(table []Setting, key string) (Setting, bool) {
	for _, s := range table {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// CheckSetting checks the value text of the setting key (as the REPL's
// :set takes it: a name, or a number) by the setting's parser.
func CheckSetting(key, text string) error {
	s, ok := lookupSetting(Settings(), key)
	if !ok {
		return Errorf("the keys are "+strings.Join(SettingKeys(), ", "), "unknown setting %q", key)
	}
	v := ir.SettingValue{Str: text, IsStr: true}
	if x, err := strconv.ParseFloat(text, 64); err == nil {
		if _, isName := s.field(&Options{}).(*string); !isName {
			v = ir.SettingValue{Num: x}
		}
	}
	if e := s.take(&Options{}, v); e != nil {
		return Errorf(e.Hint, "%s", e.Msg)
	}
	return nil
}

// take sets the setting's field of o to v when the field is unset (a flag
// overrides the infer block), after checking v: a positioned error at v.
func (s *Setting) take(o *Options, v ir.SettingValue) *lang.Error {
	got := func() string {
		if v.IsStr {
			return v.Str
		}
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	}
	switch p := s.field(o).(type) {
	case *string:
		if !v.IsStr {
			return lang.Errorf(v.Pos, "setting %s takes a name such as %s", s.Key, s.example())
		}
		if err := s.name(v.Str); err != nil {
			e := lang.Errorf(v.Pos, "setting %s: %v", s.Key, err)
			e.Hint = hintOf(err)
			return e
		}
		if *p == "" {
			*p = v.Str
		}
	case *uint64: // the seed
		if v.IsStr || v.Num != math.Trunc(v.Num) || v.Num < 0 || v.Num > 1<<53 {
			e := lang.Errorf(v.Pos, "setting %s must be a non-negative integer (at most 2^53), got %s", s.Key, got())
			e.Hint = "for example seed = 42"
			return e
		}
		if *p == 0 {
			*p = uint64(v.Num)
		}
	case *float64:
		if e := s.positive(v); e != nil {
			return e
		}
		if *p == 0 {
			*p = v.Num
		}
	case *int:
		if e := s.positive(v); e != nil {
			return e
		}
		if v.Num != math.Trunc(v.Num) || v.Num > maxInt32 {
			return lang.Errorf(v.Pos, "setting %s must be a positive integer, got %g", s.Key, v.Num)
		}
		if *p == 0 {
			*p = int(v.Num)
		}
	}
	return nil
}

// positive checks a number setting's value: 0 would mean "the default" on
// the command line, and a learning rate of 0 a q that never moves, so a
// setting written in the infer block must be a usable value.
func (s *Setting) positive(v ir.SettingValue) *lang.Error {
	if v.IsStr {
		return lang.Errorf(v.Pos, "setting %s takes a number", s.Key)
	}
	if !(v.Num > 0) || math.IsInf(v.Num, 0) {
		return lang.Errorf(v.Pos, "setting %s must be positive, got %g", s.Key, v.Num)
	}
	return nil
}

// example is a value of a name-valued setting, for its messages: its
// default, when it has one.
func (s *Setting) example() string {
	if s.def == nil {
		return ""
	}
	return s.def()
}

// hintOf is the hint of a user error ("" for another error).
func hintOf(err error) string {
	if ue, ok := err.(*UserError); ok {
		return ue.Hint
	}
	return ""
}

// checkBlock checks the settings of a model's infer block against the
// table: an unknown key at the key (with the nearest key as a hint), a
// value its parser refuses at the value.
func checkBlock(set ir.Settings) error {
	var errs lang.ErrorList
	table, keys := Settings(), SettingKeys()
	for _, key := range blockKeys(set) {
		v := set[key]
		s, ok := lookupSetting(table, key)
		if !ok {
			e := lang.Errorf(v.KeyPos, "unknown setting %q", key)
			if near := lang.Suggest(key, keys); near != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", near)
			} else {
				e.Hint = "the settings are " + strings.Join(keys, ", ")
			}
			errs = append(errs, e)
			continue
		}
		if e := s.take(&Options{}, v); e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// SettingFlag is the command-line flag of the setting key, without its
// dashes (param_lr is --param-lr).
func SettingFlag(key string) string {
	s := Setting{Key: key}
	return s.Flag()
}
