package pmcis

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/diag"
	"github.com/mscppl/mscppl/infer/msc"
)

func init() {
	msc.RegisterKernel(msc.KernelSpec{
		Name: "pgpm", Help: "particle Gibbs or the pmcis kernel for static latents beside a scalar state, whichever the chain measures cheaper per independent draw of the statics at step 512 (particle Gibbs for a vector state)",
		Method: "msc", Priority: 3, Needs: msc.CapLogJoint | msc.CapStatics, Markov: true, StateSpace: true, Statics: true,
		Optimizers: []msc.Optimizer{msc.Natural},
		New: func(p *msc.Problem, q msc.Family, S int, _ msc.KernelOptions) (msc.Kernel, error) {
			f, ok := q.(*msc.PGFamily)
			if !ok {
				return nil, fmt.Errorf("the pgpm kernel takes the particle-gibbs family, not %s", q.Name())
			}
			if p.Statics != nil && p.Statics.Given().StateDim() != 1 {
				return msc.NewPG(p, f, S) // pmcis takes a scalar state
			}
			return NewChoice(p, f, S)
		},
	})
}

// The choice's schedule: particle Gibbs runs the first chooseAt steps (q
// adapts meanwhile); its statics over the second half of them measure its
// integrated autocorrelation time; then chooseTrials pmcis steps, at the
// particle number tune chooses at the retained statics, measure how often
// pmcis keeps its draw.
const (
	chooseAt     = 512
	chooseTrials = 32
)

// Choice is the pgpm kernel: one chain of particle Gibbs or of pmcis,
// whichever its own measurements say gives an independent draw of the
// statics for less work. Particle Gibbs runs first. At step chooseAt the
// chain measures
//
//   - particle Gibbs's integrated autocorrelation time tau_pg, the largest
//     over the statics of n / ESS over its last chooseAt/2 steps (bulk
//     ESS, infer/diag), at its work per step, 3 S T particle-steps (the
//     sweep of S particles over T steps, and the S rows of each of its two
//     statics blocks, each a pass over the T steps);
//   - pmcis's: chooseTrials of its steps from particle Gibbs's retained
//     draw, at the N that makes the variance of log Zhat about 1 there.
//     The mean weight rho of the retained row is the probability that a
//     step keeps its statics, and tau_pm = (1 + rho) / (1 - rho), the
//     autocorrelation time of a chain that stays with probability rho and
//     otherwise moves to an independent draw (an upper bound: the local
//     moves between pmcis steps only shorten it), at S N T + 2 S T
//     particle-steps per step (S filters, one of them the conditional
//     sweep, and the two local blocks).
//
// It keeps the kernel with the smaller tau x work for the rest of the run
// and says so in the run's notes with both measurements. The work is
// counted, not timed, so that the same seed chooses the same kernel
// whatever the machine's load and GOMAXPROCS. Every step, before, during
// and after the choice, is a step of an invariant kernel, so the chain is
// a chain of the posterior throughout; the choice depends only on its
// past.
type Choice struct {
	p    *msc.Problem
	pg   *msc.PG
	pm   *PMCIS
	use  msc.Kernel
	S, T int

	steps int
	hist  [][]float64 // the statics over steps chooseAt/2+1 .. chooseAt
	note  string
}

// NewChoice returns the pgpm kernel with S particles and proposals.
func NewChoice(p *msc.Problem, q *msc.PGFamily, S int) (*Choice, error) {
	pg, err := msc.NewPG(p, q, S)
	if err != nil {
		return nil, err
	}
	pm, err := NewPMCIS(p, q, S)
	if err != nil {
		return nil, err
	}
	k := len(p.Statics.Statics())
	hist := make([][]float64, k)
	for i := range hist {
		hist[i] = make([]float64, 0, chooseAt/2)
	}
	return &Choice{p: p, pg: pg, pm: pm, use: pg, S: S, T: p.Statics.Given().Len(), hist: hist}, nil
}

func (c *Choice) Name() string { return "pgpm" }
func (c *Choice) Markov() bool { return true }

// Init starts particle Gibbs.
func (c *Choice) Init(rng *rand.Rand) error { return c.pg.Init(rng) }

// Step steps the kernel in use, and at step chooseAt chooses.
func (c *Choice) Step(rng *rand.Rand) (msc.StepInfo, error) {
	info, err := c.use.Step(rng)
	if err != nil || c.steps >= chooseAt {
		return info, err
	}
	c.steps++
	if c.steps > chooseAt/2 {
		z := c.pg.Retained()
		for i, p := range c.p.Statics.Statics() {
			c.hist[i] = append(c.hist[i], z[p])
		}
	}
	if c.steps == chooseAt {
		err = c.choose(rng)
	}
	return info, err
}

// choose measures pmcis from particle Gibbs's retained draw and keeps the
// kernel with less work per independent draw.
func (c *Choice) choose(rng *rand.Rand) error {
	tauPG, slow := 0.0, 0
	for i, h := range c.hist {
		ess := diag.ESSBulk([][]float64{h})
		tau := float64(len(h)) / math.Max(ess, 1)
		if math.IsNaN(ess) { // a static that never moved
			tau = float64(len(h))
		}
		if tau > tauPG {
			tauPG, slow = tau, i
		}
	}
	pm := c.pm
	pm.rng = rng
	copy(pm.cur, c.pg.Retained())
	pm.getTheta(pm.cur, pm.theta)
	if err := pm.tune(rng, fmt.Sprintf("particle Gibbs's retained theta of step %d", chooseAt), pm.maxParticles()); err != nil {
		return err
	}
	if err := pm.condition(rng); err != nil {
		return err
	}
	rho := 0.0
	for range chooseTrials {
		if _, err := pm.Step(rng); err != nil {
			return err
		}
		rho += pm.stay / chooseTrials
	}
	rho = math.Min(rho, 1-1e-9)
	tauPM := (1 + rho) / (1 - rho)
	S, T, N := float64(c.S), float64(c.T), float64(pm.N)
	workPG, workPM := 3*S*T, S*N*T+2*S*T
	chosen := "particle Gibbs"
	if tauPM*workPM < tauPG*workPG {
		chosen, c.use = "pmcis", pm
		pm.retuneAt = 2 * chooseAt // tune measured N just now
	} else {
		c.pg.SetRetained(pm.cur)
	}
	c.note = fmt.Sprintf("pgpm: %s from step %d, the less work per independent draw of the statics: particle Gibbs's autocorrelation time %.1f steps (%s, steps %d-%d) x %.3g particle-steps per step = %.3g; pmcis's %.1f (it kept its draw with probability %.2f over %d steps at N = %d) x %.3g = %.3g",
		chosen, chooseAt+1, tauPG, c.staticName(slow), chooseAt/2+1, chooseAt, workPG, tauPG*workPG, tauPM, rho, chooseTrials, pm.N, workPM, tauPM*workPM)
	c.hist = nil
	return nil
}

// staticName names the i-th static for the note: its position in the
// latent vector, which the run's summary lists.
func (c *Choice) staticName(i int) string {
	return fmt.Sprintf("static %d of %d", i+1, len(c.p.Statics.Statics()))
}

// Weighted is the kernel in use's.
func (c *Choice) Weighted() ([]float64, []float64) { return c.use.Weighted() }

// Retained is the kernel in use's retained latent vector.
func (c *Choice) Retained() []float64 { return c.use.Retained() }

// Refresh is the kernel in use's.
func (c *Choice) Refresh() { c.use.Refresh() }

// Notes is the choice, and pmcis's choice of N when it runs.
func (c *Choice) Notes() []string {
	if c.note == "" {
		return []string{fmt.Sprintf("pgpm: particle Gibbs throughout: the run ended before step %d, where the chain measures pmcis against it", chooseAt)}
	}
	if c.use == msc.Kernel(c.pm) {
		return append([]string{c.note}, c.pm.Notes()[1:]...)
	}
	return []string{c.note}
}

// Path says for mscppl check how a run takes p, a model with static latents
// beside a state that does not enter linearly and Gaussian given them (the
// reason in p.NotLinear): particle Gibbs or pmcis, chosen by each chain at
// step chooseAt, for a scalar state; particle Gibbs for a vector one.
func Path(p *msc.Problem) string {
	if K := p.Statics.Given().StateDim(); K != 1 {
		return fmt.Sprintf("state space: particle Gibbs (CSMC for the state given the statics, CIS for them given it; the pseudo-marginal kernel pmcis takes a scalar state, this one has %d components); the Kalman marginal does not apply: %v", K, p.NotLinear)
	}
	return fmt.Sprintf("state space: particle Gibbs (CSMC for the state given the statics, CIS for them given it) or pseudo-marginal CIS (pmcis: the statics weighed by a particle filter's likelihood), whichever each chain measures cheaper per independent draw of the statics at step %d (the run's notes give both measurements; --kernel pg or pmcis forces one); the Kalman marginal does not apply: %v", chooseAt, p.NotLinear)
}
