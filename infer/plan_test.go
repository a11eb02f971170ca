package infer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// TestResolvePlan: the options and the model's infer block resolve once
// into typed choices: a flag overrides its setting, an alias is its base
// method with its proposal, auto leaves the kernel to the model, and the
// family's default depends on the dimension (with a warning above the
// full-rank limit).
func TestResolvePlan(t *testing.T) {
	cis, _ := msc.LookupKernel("cis")
	fam := func(name string) *msc.FamilySpec { f, _ := msc.LookupFamily(name); return f }
	small := "latent { a: real }\nmodel { a ~ normal(0, 1) }\n"
	large := fmt.Sprintf("latent { a: vector[%d] }\nmodel { a ~ normal(0, 1) }\n", msc.Defaults.FullRankLimit+1)
	for _, c := range []struct {
		name, src string
		opt       Options
		want      plan
		note      bool
	}{
		{"defaults", small, Options{},
			plan{method: &method{name: Defaults.Method}, family: fam(msc.Defaults.Family), seed: Defaults.Seed, draws: DefaultDraws}, false},
		{"alias", small, Options{Method: "msc-prior"},
			plan{method: &method{name: "msc"}, family: fam(msc.Defaults.Family), proposal: ProposePrior, seed: Defaults.Seed, draws: DefaultDraws}, false},
		{"block", small + "infer {\n family = meanfield\n seed = 7\n init = zero\n kernel = cis\n optimizer = adam\n samples = 5\n lr = 0.5\n}\n", Options{},
			plan{method: &method{name: "msc"}, kernel: cis, family: fam("meanfield"), init: InitZero, optimizer: msc.Adam, samples: 5, lr: 0.5, seed: 7, draws: DefaultDraws}, false},
		{"flags over the block", small + "infer {\n family = meanfield\n seed = 7\n samples = 5\n}\n", Options{Family: "student_t", Seed: 3, Samples: 9, Draws: 200},
			plan{method: &method{name: "msc"}, family: fam("student_t"), samples: 9, seed: 3, draws: 200}, false},
		{"large", large, Options{},
			plan{method: &method{name: "msc"}, family: fam(msc.Defaults.FamilyLarge), seed: Defaults.Seed, draws: DefaultDraws}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := LoadSource("m.msc", []byte(c.src), "")
			require.NoError(t, err)
			p, err := c.opt.resolve(m.IR)
			require.NoError(t, err)
			require.Equal(t, c.want.method.name, p.method.name)
			require.Same(t, c.want.family, p.family)
			require.Equal(t, c.want.kernel, p.kernel)
			require.Equal(t, [3]uint8{uint8(c.want.proposal), uint8(c.want.init), uint8(c.want.optimizer)}, [3]uint8{uint8(p.proposal), uint8(p.init), uint8(p.optimizer)})
			require.Equal(t, [3]int{c.want.samples, c.want.draws, 0}, [3]int{p.samples, p.draws, 0})
			require.Equal(t, c.want.lr, p.lr)
			require.Equal(t, c.want.seed, p.seed)
			require.Equal(t, c.note, p.familyNote != "", "the family's note: %q", p.familyNote)
		})
	}
}

// TestCheckSetting: :set checks a value with the infer block's parser of its
// key, and names the keys for an unknown one.
func TestCheckSetting(t *testing.T) {
	for _, c := range []struct{ key, value, err string }{
		{"samples", "4", ""},
		{"lr", "0.01", ""},
		{"seed", "12", ""},
		{"method", "msc-prior", ""},
		{"kernel", AutoKernel, ""},
		{"kernel", "csmc", ""},
		{"family", "meanfield", ""},
		{"init", "zero", ""},
		{"proposal", "prior", ""},
		{"optimizer", "rm", ""},
		{"samples", "0", "setting samples must be positive, got 0"},
		{"samples", "2.5", "setting samples must be a positive integer, got 2.5"},
		{"iters", "many", "setting iters takes a number"},
		{"seed", "-1", "setting seed must be a non-negative integer"},
		{"family", "nofamily", "setting family: unknown family \"nofamily\""},
		{"kernel", "smc", "setting kernel: unknown kernel \"smc\""}, // a baseline's kernel, not a Markov one
		{"method", "nomethod", "setting method: unknown method \"nomethod\""},
		{"proposal", "3", "setting proposal: unknown proposal \"3\""},
		{"optimizer", "sgd", "setting optimizer: unknown optimizer \"sgd\""},
		{"colour", "blue", "unknown setting \"colour\""},
	} {
		err := CheckSetting(c.key, c.value)
		if c.err == "" {
			require.NoError(t, err, ":set %s %s", c.key, c.value)
			continue
		}
		require.Error(t, err, ":set %s %s", c.key, c.value)
		require.Contains(t, err.Error(), c.err)
	}
	var ue *UserError
	require.ErrorAs(t, CheckSetting("colour", "blue"), &ue)
	require.Equal(t, "the keys are "+strings.Join(SettingKeys(), ", "), ue.Hint)
	require.ErrorAs(t, CheckSetting("method", "nomethod"), &ue)
	require.Equal(t, "the methods are "+joinAnd(Methods()), ue.Hint)
}

// TestSettingsTable: every setting has a help and a key of its own, and a
// name-valued setting's default is a value its parser takes.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		require.False(t, seen[s.Key], "%s twice", s.Key)
		seen[s.Key] = true
		require.NotEmpty(t, s.Help, s.Key)
		require.Equal(t, s.Key, strings.ReplaceAll(s.Flag(), "-", "_"))
		if s.def != nil {
			require.NoError(t, s.name(s.def()), "the default of %s", s.Key)
		}
	}
	require.Equal(t, "param-lr", SettingFlag("param_lr"))
}

// TestRebindKeepsCompileOptions: a model compiled again (Rebind, as
// cross-validation and SBC do) keeps the limits Load was given.
func TestRebindKeepsCompileOptions(t *testing.T) {
	dir := t.TempDir()
	csv := func(n int) string {
		var b strings.Builder
		b.WriteString("x\n")
		for i := range n {
			fmt.Fprintf(&b, "%d\n", i)
		}
		p := filepath.Join(dir, fmt.Sprintf("d%d.csv", n))
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	// a random walk: its graph grows with the rows
	src := []byte("data { x: vector[N] }\nlatent { z: vector[N] }\nmodel {\n  z[1] ~ normal(0, 1)\n  for i in 2..N {\n    z[i] ~ normal(z[i - 1], 1)\n  }\n  x ~ normal(z, 1)\n}\n")
	small, err := LoadSource("m.msc", src, csv(3))
	require.NoError(t, err)
	big, err := LoadSource("m.msc", src, csv(30))
	require.NoError(t, err)
	limit := small.Comp.Graph().NumNodes()
	require.Less(t, limit, big.Comp.Graph().NumNodes())
	m, err := LoadSource("m.msc", src, csv(3), LoadOptions{MaxNodes: limit})
	require.NoError(t, err)
	_, err = m.Rebind(big.Table)
	require.Error(t, err, "the big table's graph is over the limit Load was given")
	require.Contains(t, err.Error(), "nodes")
	_, err = m.Rebind(m.Table)
	require.NoError(t, err)
}
