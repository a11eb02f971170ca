package lower

import (
	"fmt"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
)

// VectorStateSpace is the structure of a state-space model whose state at
// each step is K-dimensional: K latent vectors of one length T that together
// form the state (a local linear trend's level and slope), each component
// drawn given the state at the step before,
//
//	x_k[t] ~ family(f(x[t-1]), ...),   y_t depends on x[t] only,
//
// as detection found it on the model's state-space view (package msc's
// VectorStateSpace and GeneralVectorStateSpace). A Gaussian transition's
// covariance is diagonal (each component has its own sd given x[t-1]).
type VectorStateSpace struct {
	c        *Compiled
	vars     []*ir.Var
	T, K     int
	pos      []int // pos[t*K+k]: the latent position of component k at step t
	steps    []vecStep
	gaussian bool
}

type vecStep struct {
	trans      []int           // factors of x_k[t] ~ ..., by k
	obs        []int           // observation factors of step t
	transOrder []autodiff.Node // the transitions' arguments (Gaussian)
	transFull  []autodiff.Node // the transitions' log densities
	obsOrder   []autodiff.Node
	obsSum     autodiff.Node // -1 without observations
}

// detectVector classifies the compile as a state-space model whose state
// is the vectors vars (one length T), or one matrix[T, K] whose row t is
// the state at step t, reporting the reason when it is not.
func detectVector(c *Compiled, vars []*ir.Var) (*VectorStateSpace, string) {
	T, K := vars[0].Type.Rows, len(vars)
	matrix := vars[0].Type.Kind == ir.Matrix
	if matrix {
		K = vars[0].Type.Cols
	}
	v := &VectorStateSpace{c: c, vars: vars, T: T, K: K, pos: make([]int, T*K), steps: make([]vecStep, T), gaussian: true}
	where := map[int][2]int{} // latent position -> (t, k)
	for t := 0; t < T; t++ {
		for k := 0; k < K; k++ {
			p := vars[min(k, len(vars)-1)].Offset + t
			if matrix {
				p = vars[0].Offset + t*K + k
			}
			v.pos[t*K+k] = p
			where[p] = [2]int{t, k}
		}
	}
	name := func(p int) string {
		tk := where[p]
		if matrix {
			return fmt.Sprintf("%s[%d, %d]", vars[0].Name, tk[0]+1, tk[1]+1)
		}
		return fmt.Sprintf("%s[%d]", vars[tk[1]].Name, tk[0]+1)
	}
	for t := range v.steps {
		v.steps[t].trans = make([]int, K)
		for k := range K {
			v.steps[t].trans[k] = -1
		}
		v.steps[t].obsSum = -1
	}
	transName := ""
	for i, f := range c.Factors {
		if f.Prior != nil {
			if len(f.Prior.LhsPos) != 1 {
				return nil, fmt.Sprintf("the statement at %s draws several elements of the state at once; each component is drawn given the state at the step before", f.Pos)
			}
			tk, ok := where[f.Prior.LhsPos[0]]
			if !ok {
				return nil, fmt.Sprintf("the statement at %s draws a latent that is not part of the state", f.Pos)
			}
			t, k := tk[0], tk[1]
			if v.steps[t].trans[k] >= 0 {
				return nil, fmt.Sprintf("%s appears on the left of ~ twice", name(f.Prior.LhsPos[0]))
			}
			for _, d := range f.deps {
				if dt := where[d]; dt[0] != t-1 {
					return nil, fmt.Sprintf("the distribution of %s (statement at %s) depends on %s, not only on the state at step %d", name(f.Prior.LhsPos[0]), f.Pos, name(d), t)
				}
			}
			v.steps[t].trans[k] = i
			if !f.Tilde.Family.GaussianMoments {
				v.gaussian = false
				transName = f.Tilde.Family.Name
			}
			continue
		}
		t := -1
		for _, d := range f.deps {
			dt := where[d][0]
			if t >= 0 && dt != t {
				return nil, fmt.Sprintf("the statement at %s depends on the state at steps %d and %d; an observation may depend on the state at one step only", f.Pos, t+1, dt+1)
			}
			t = dt
		}
		if t >= 0 {
			v.steps[t].obs = append(v.steps[t].obs, i)
		}
	}
	g := c.g
	for t := range v.steps {
		st := &v.steps[t]
		var args, full []autodiff.Node
		for k, i := range st.trans {
			if i < 0 {
				n := name(v.pos[t*K+k])
				return nil, fmt.Sprintf("%s has no distribution (no %s ~ ... statement)", n, n)
			}
			f := c.Factors[i]
			full = append(full, f.Node)
			if v.gaussian {
				args = append(args, f.Tilde.Args[1], f.Tilde.Args[2])
			}
		}
		if v.gaussian {
			st.transOrder = g.Ancestors(args...)
		}
		st.transFull = g.Ancestors(full...)
		if len(st.obs) > 0 {
			nodes := make([]autodiff.Node, len(st.obs))
			for k, i := range st.obs {
				nodes[k] = c.Factors[i].Node
			}
			st.obsSum = nodes[0]
			if len(nodes) > 1 {
				st.obsSum = g.AddN(nodes...)
			}
			st.obsOrder = g.Ancestors(st.obsSum)
		}
	}
	_ = transName
	return v, ""
}

// Len is the number of time steps.
func (v *VectorStateSpace) Len() int { return v.T }

// StateDim is the dimension K of the state.
func (v *VectorStateSpace) StateDim() int { return v.K }

// Index is the latent position of component k at step t.
func (v *VectorStateSpace) Index(t, k int) int { return v.pos[t*v.K+k] }

// ReserveParticles prepares evaluations over n particles.
func (v *VectorStateSpace) ReserveParticles(n int) { v.c.Reserve(n) }

// Load writes the n particles' states (n x K) at step t into the latent rows.
func (v *VectorStateSpace) Load(t int, x []float64, n int) {
	K := v.K
	for i := range n {
		row := v.c.g.Value(v.c.LatentNode, i)
		for k := range K {
			row[v.pos[t*K+k]] = x[i*K+k]
		}
	}
}

// Transition writes the mean and the (diagonal) Cholesky factor of x_t
// given x_{t-1} = prev for each particle.
func (v *VectorStateSpace) Transition(t int, prev, mean, chol []float64) {
	K, c := v.K, v.c
	n := len(mean) / K
	if t > 0 {
		v.Load(t-1, prev, n)
	}
	st := &v.steps[t]
	c.g.ForwardNodes(st.transOrder, n)
	clear(chol[:n*K*K])
	for k, fi := range st.trans {
		f := &c.Factors[fi]
		for i := range n {
			mean[i*K+k] = c.g.Value(f.Tilde.Args[1], i)[0]
			chol[i*K*K+k*K+k] = c.g.Value(f.Tilde.Args[2], i)[0]
		}
	}
}

// TransitionLogDensity writes log p(x_t = cur | x_{t-1} = prev).
func (v *VectorStateSpace) TransitionLogDensity(t int, prev, cur, out []float64) {
	c := v.c
	n := len(out)
	if t > 0 {
		v.Load(t-1, prev, n)
	}
	v.Load(t, cur, n)
	st := &v.steps[t]
	c.g.ForwardNodes(st.transFull, n)
	for i := range n {
		s := 0.0
		for _, fi := range st.trans {
			s += c.g.Value(c.Factors[fi].Node, i)[0]
		}
		out[i] = s
	}
}

// ObsLogDensity writes the log density of the observations at step t.
func (v *VectorStateSpace) ObsLogDensity(t int, cur, out []float64) {
	c := v.c
	n := len(out)
	st := &v.steps[t]
	if st.obsSum < 0 {
		clear(out)
		return
	}
	v.Load(t, cur, n)
	c.g.ForwardNodes(st.obsOrder, n)
	for i := range n {
		out[i] = c.g.Value(st.obsSum, i)[0]
	}
}

// GaussianTransition reports whether every transition is a normal.
func (v *VectorStateSpace) GaussianTransition() bool { return v.gaussian }

// stateNames lists the state's vectors, for Structure's text.
func stateNames(vs []*ir.Var) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// VectorStateSpaceOf returns the model's structure when its latents are
// exactly a state of several components (found on its view), or nil.
func VectorStateSpaceOf(c *Compiled) *VectorStateSpace {
	if c.sv == nil || len(c.sv.statics) > 0 {
		return nil
	}
	return c.sv.vss
}
