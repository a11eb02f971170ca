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
		Name: "pgpm", Help: "particle Gibbs or the pmcis kernel for static latents beside a scalar state, whichever a pilot of 512 particle Gibbs steps at each chain's start measures cheaper per independent draw of the statics (particle Gibbs for a vector state)",
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

// The pilot's schedule: particle Gibbs runs chooseAt steps; its statics
// over the second half of them measure its integrated autocorrelation
// time; then chooseTrials pmcis steps, at the particle number tune chooses
// at particle Gibbs's last statics, measure how often pmcis keeps its draw.
const (
	chooseAt     = 512
	chooseTrials = 32
)

// Choice is the pgpm kernel: a chain of particle Gibbs or of pmcis,
// whichever a pilot at the chain's start (Init) says gives an independent
// draw of the statics for less work. The pilot measures
//
//   - particle Gibbs's integrated autocorrelation time tau_pg, the largest
//     over the statics of n / ESS over the last chooseAt/2 of chooseAt
//     steps (bulk ESS, infer/diag), at its work per step, 3 S T
//     particle-steps (the sweep of S particles over T steps, and the S
//     rows of each of its two statics blocks, each a pass over the T
//     steps);
//   - pmcis's: the variance v of log Zhat over 16 filters of 32 particles
//     at particle Gibbs's last statics. pmcis needs about N = 32 v
//     particles for a variance of 1, so at least S N T particle-steps per
//     step; when that alone exceeds tau_pg times particle Gibbs's work,
//     pmcis cannot win and the pilot stops. Otherwise chooseTrials pmcis
//     steps at the N tune chooses measure rho, the mean weight of the
//     retained row, the probability that a step keeps its statics, and
//     tau_pm = (1 + rho) / (1 - rho), the autocorrelation time of a chain
//     that stays with probability rho and otherwise moves to an
//     independent draw (an upper bound: the local moves between pmcis
//     steps only shorten it), at S N T + 2 S T particle-steps per step (S
//     filters, one of them the conditional sweep, and the two local
//     blocks).
//
// The kernel with the smaller tau x work runs the chain, and the run's
// notes give both measurements. The work is counted, not timed, so that
// the same seed chooses the same kernel whatever the machine's load and
// GOMAXPROCS. The pilot is not part of the chain: it is its warm start,
// and the choice depends on the data and on the pilot's randomness, never
// on the draws the run keeps.
type Choice struct {
	p    *msc.Problem
	pg   *msc.PG
	pm   *PMCIS
	use  msc.Kernel
	S, T int

	at, trials int         // chooseAt and chooseTrials (tests shorten them)
	pgWork     float64     // particle Gibbs's work per step over S T: 3 (tests raise it to see pmcis chosen)
	hist       [][]float64 // the statics over steps at/2+1 .. at
	note       string
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
	return &Choice{p: p, pg: pg, pm: pm, use: pg, S: S, T: p.Statics.Given().Len(), hist: hist, at: chooseAt, trials: chooseTrials, pgWork: 3}, nil
}

func (c *Choice) Name() string { return "pgpm" }
func (c *Choice) Markov() bool { return true }

// Init chooses the kernel by a pilot: particle Gibbs runs c.at steps from
// its own start (its statics over the second half of them measure it), and
// pmcis takes its trial steps from particle Gibbs's draw (choose). The
// chain then goes on from the pilot's last draw with the kernel chosen,
// its step count at 0: the pilot is a warm start, and the choice depends on
// the data and the pilot's own randomness only, not on the draws the run
// keeps. (A choice made on the chain's own draws at step 512, as a first
// version did, selects them: the one-step Geweke test from exact draws
// then failed, |z| = 7.2 two steps after the choice and 4.9 twenty steps
// after.)
func (c *Choice) Init(rng *rand.Rand) error {
	if err := c.pg.Init(rng); err != nil {
		return err
	}
	for i := range c.hist {
		c.hist[i] = c.hist[i][:0]
	}
	for step := 1; step <= c.at; step++ {
		if _, err := c.pg.Step(rng); err != nil {
			return err
		}
		if step > c.at/2 {
			z := c.pg.Retained()
			for i, p := range c.p.Statics.Statics() {
				c.hist[i] = append(c.hist[i], z[p])
			}
		}
	}
	return c.choose(rng)
}

// Step steps the kernel chosen.
func (c *Choice) Step(rng *rand.Rand) (msc.StepInfo, error) { return c.use.Step(rng) }

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
	msc.Gather(pm.theta, pm.statics, pm.cur)
	S, T := float64(c.S), float64(c.T)
	workPG := c.pgWork * S * T
	perDraw := tauPG * workPG
	head := fmt.Sprintf(", the less work per independent draw of the statics in a pilot of %d steps: particle Gibbs's autocorrelation time %.1f steps (%s, steps %d-%d) x %.3g particle-steps per step = %.3g; ",
		c.at, tauPG, c.staticName(slow), c.at/2+1, c.at, workPG, perDraw)
	// pmcis's work per step alone bounds its work per independent draw
	// from below: with the variance v of log Zhat at 32 particles, N is
	// about 32 v, and when S N T exceeds particle Gibbs's work per
	// independent draw pmcis cannot win, and is not tried
	pm.ss.SetStatics(pm.theta)
	if err := pm.setParticles(pmStartParticles); err != nil {
		return err
	}
	v := pm.logZVariance(rng)
	if n := math.Ceil(pmStartParticles * v / pmTargetVar); math.IsInf(v, 0) || math.IsNaN(v) || S*n*T > perDraw {
		c.note = "pgpm: particle Gibbs" + head + fmt.Sprintf("pmcis's variance of log Zhat at %d particles, %.3g, asks for about %.3g particles per filter, %.3g particle-steps per step at least", pmStartParticles, v, n, S*n*T)
		c.pg.SetRetained(pm.cur)
		return nil
	}
	if err := pm.tune(rng, fmt.Sprintf("particle Gibbs's retained theta of step %d", c.at), pm.maxParticles()); err != nil {
		return err
	}
	if err := pm.condition(rng); err != nil {
		return err
	}
	rho := 0.0
	for range c.trials {
		if _, err := pm.Step(rng); err != nil {
			return err
		}
		rho += pm.stay / float64(c.trials)
	}
	rho = math.Min(rho, 1-1e-9)
	tauPM := (1 + rho) / (1 - rho)
	workPM := S*float64(pm.N)*T + 2*S*T
	chosen := "particle Gibbs"
	if tauPM*workPM < perDraw {
		chosen, c.use = "pmcis", pm
		pm.steps, pm.retuneAt = 0, pmRetuneStep // tune measured N just now; again at steps 100, 200, 400, ...
	} else {
		c.pg.SetRetained(pm.cur)
	}
	c.note = "pgpm: " + chosen + head + fmt.Sprintf("pmcis's %.1f (it kept its draw with probability %.2f over %d steps at N = %d) x %.3g = %.3g", tauPM, rho, c.trials, pm.N, workPM, tauPM*workPM)
	return nil
}

// staticName names the i-th static for the note (its unconstrained
// value's name, or its position among the statics).
func (c *Choice) staticName(i int) string {
	if j := c.p.Statics.Statics()[i]; j < len(c.p.Names) {
		return c.p.Names[j]
	}
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
		return nil
	}
	if c.use == msc.Kernel(c.pm) {
		return append([]string{c.note}, c.pm.Notes()[1:]...)
	}
	return []string{c.note}
}

// Path says for mscppl check how a run takes p, a model with static latents
// beside a state that does not enter linearly and Gaussian given them (the
// reason in p.NotLinear): particle Gibbs or pmcis, chosen by a pilot at
// each chain's start, for a scalar state; particle Gibbs for a vector one.
func Path(p *msc.Problem) string {
	if K := p.Statics.Given().StateDim(); K != 1 {
		return fmt.Sprintf("state space: particle Gibbs (CSMC for the state given the statics, CIS for them given it; the pseudo-marginal kernel pmcis takes a scalar state, this one has %d components); the Kalman marginal does not apply: %v", K, p.NotLinear)
	}
	return fmt.Sprintf("state space: particle Gibbs (CSMC for the state given the statics, CIS for them given it) or pseudo-marginal CIS (pmcis: the statics weighed by a particle filter's likelihood), whichever a pilot of %d particle Gibbs steps at each chain's start measures cheaper per independent draw of the statics (the run's notes give both measurements; --kernel pg or pmcis forces one); the Kalman marginal does not apply: %v", chooseAt, p.NotLinear)
}
