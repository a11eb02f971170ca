package infer

import (
	"context"
	"github.com/mscppl/mscppl/infer/msc/advice"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// A kernel and a family that exist only in this file: registering them is
// all it takes for the facade to give them the warm start, the split target,
// R-hat and the hints, which read their declared traits.

// testKernel is CIS under another name, recording the problem it was
// built for; frozen makes it report that its retained sample never moves.
type testKernel struct {
	*msc.CIS
	name   string
	p      *msc.Problem
	frozen bool
}

func (k *testKernel) Name() string { return k.name }

func (k *testKernel) Step(rng *rand.Rand) (msc.StepInfo, error) {
	info, err := k.CIS.Step(rng)
	if k.frozen {
		info.Changed = false
	}
	return info, err
}

var built = map[string]*testKernel{}

func registerTestKernel(name string, frozen bool) {
	msc.RegisterKernel(msc.KernelSpec{
		Name: name, Help: "CIS under a test's name",
		// a low priority: --kernel auto never picks it over CIS
		Method: "msc", Priority: -1, Needs: msc.CapLogJoint, Markov: true, WarmStart: true, Split: true,
		New: func(p *msc.Problem, q msc.Family, S int, _ msc.KernelOptions) (msc.Kernel, error) {
			s, err := msc.AsSampler(name, q)
			if err != nil {
				return nil, err
			}
			k := &testKernel{CIS: msc.NewCIS(p, s, S), name: name, p: p, frozen: frozen}
			built[name] = k
			return k, nil
		},
	})
}

// testFamily is the full-rank Gaussian under another name.
type testFamily struct{ *msc.FullRank }

func (f testFamily) Name() string      { return "testgauss" }
func (f testFamily) Clone() msc.Family { return testFamily{f.FullRank.Clone().(*msc.FullRank)} }

func init() {
	registerTestKernel("testkern", false)
	registerTestKernel("testfrozen", true)
	msc.RegisterFamily(msc.FamilySpec{
		Name: "testgauss", Help: "a full-rank Gaussian under a test's name",
		New:   func(d int) msc.Sampler { return testFamily{msc.NewFullRank(d)} },
		Dense: true, Gaussian: true, HeavyTails: true,
		MixingCause: "the test family's cause", MixingRemedy: "the test family's remedy",
	})
}

// TestTestOnlyKernelAndFamily: a kernel and a family registered from this
// file get the warm start, the split target, R-hat of the retained samples,
// the dense-covariance defaults and their own hints, with no other edit.
func TestTestOnlyKernelAndFamily(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the split target needs 2 cores")
	}
	// a batch of this model costs enough to be split over the cores
	model, data := probitData(t, 20000, 20)
	m, err := Load(model, data)
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Seed: 2, Chains: 1, Iters: 300, Fixed: true, Kernel: "testkern", Family: "testgauss", Draws: 200})
	require.NoError(t, err)
	require.Equal(t, "testkern", f.Summary.Kernel, "a Markov kernel is named in the summary")
	require.Equal(t, "testgauss", f.Summary.Family)
	require.Equal(t, "laplace", f.Summary.Init, "the warm start")
	st, ok := built["testkern"].p.Target.(*splitTarget)
	require.True(t, ok, "the split target")
	require.Len(t, st.parts, 2)
	require.Equal(t, "retained samples", f.Result.RhatOf, "R-hat of the kernel's retained samples")
	require.Len(t, f.Result.Rhat, 20)
	// the dense family's step: rho_0 = 0.2/d
	require.InDelta(t, msc.Defaults.LRNaturalDim/20, f.Settings.LR, 1e-15)

	// the family's mixing hint, for a kernel whose sample does not move; the
	// k-hat remedy suggests no other family for a heavy-tailed one
	g, err := LoadSource("n.msc", []byte("latent { a: real\n b: real }\nmodel { a ~ normal(0, 1)\n b ~ normal(a, 1) }\n"), "")
	require.NoError(t, err)
	f, err = Fit(context.Background(), g, Options{Seed: 1, Chains: 2, Iters: 2000, Fixed: true, Kernel: "testfrozen", Family: "testgauss"})
	require.NoError(t, err)
	w := strings.Join(f.Summary.Warnings, "\n")
	require.Contains(t, w, "the TESTFROZEN kernel is not mixing in chains 1, 2")
	require.Contains(t, w, "likely cause: the test family's cause; remedy: the test family's remedy")
	require.NotContains(t, khatAdvice(f.Q, advice.Facts{}, nil, 0), "--family")
	q, err := msc.NewFamily(msc.Defaults.Family, 2)
	require.NoError(t, err)
	require.Contains(t, khatAdvice(q, advice.Facts{}, nil, 0), "--family "+msc.HeavyTailedFamily())
}
