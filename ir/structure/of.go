package structure

import (
	"fmt"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/stdlib"
)

// Kind is what a compiled model is, for the inference that suits it.
type Kind int

// The kinds of model, from the most specific structure found.
const (
	// KindGeneral: none of the structures below (independent or
	// hierarchical terms: CIS with a full-rank or mean-field q).
	KindGeneral Kind = iota
	// KindGLM: one likelihood statement whose argument is linear in the
	// latents (EP applies; cross-validation scores it by its test error).
	KindGLM
	// KindStateSpace: a Markov chain of latent states with observations
	// (CSMC, particle Gibbs when static latents sit beside the states).
	KindStateSpace
	// KindHMM: a hidden Markov model whose discrete states are summed out
	// on the tape (hmm_marginal, or the forward algorithm as one node).
	KindHMM
)

var kindNames = [...]string{KindGeneral: "general", KindGLM: "GLM", KindStateSpace: "state-space", KindHMM: "hidden Markov model"}

func (k Kind) String() string { return kindNames[k] }

// Structure is what Of finds in a compiled model.
type Structure struct {
	Kind Kind
	// StateSpace is the state-space detection's result (its Reason says
	// why a model that looks like one is not).
	StateSpace lower.Structure
	// GLM is the model as a GLM, when it is one.
	GLM *GLM
}

// Of analyses a compiled model: its kind (state-space with the state's
// dimension and its transition's form, hidden Markov model, GLM, or
// general). It evaluates the model (the GLM check): the model must not be
// in use meanwhile. Its facts, costlier to find, are FactsOf's.
func Of(c *lower.Compiled) Structure {
	s := Structure{StateSpace: lower.StructureOf(c)}
	switch st := s.StateSpace; {
	case st.StateSpace:
		s.Kind = KindStateSpace
	case hasHMM(c):
		s.Kind = KindHMM
	default:
		if glm, err := RecogniseGLM(c); err == nil {
			s.Kind, s.GLM = KindGLM, glm
		}
	}
	return s
}

// K is the dimension of a state-space model's state (0 for another kind).
func (s Structure) K() int {
	if s.Kind != KindStateSpace {
		return 0
	}
	return s.StateSpace.StateDim()
}

// hasHMM reports whether the tape sums out a hidden Markov model's states.
func hasHMM(c *lower.Compiled) bool {
	g := c.Graph()
	for n := range g.NumNodes() {
		op, ok := g.OpOf(autodiff.Node(n))
		if !ok {
			continue
		}
		switch op.(type) {
		case *stdlib.HMMForward, *stdlib.HMMMarginal, *lower.HmmOp:
			return true
		}
	}
	return false
}

// String says what the model is, in check's words (a model that looks
// like a state-space model but is not one: why not).
func (s Structure) String() string {
	switch {
	case s.Kind == KindStateSpace, s.StateSpace.Attempt:
		return s.StateSpace.String()
	case s.Kind == KindGLM:
		return fmt.Sprintf("GLM: %s at %s, its argument linear in the %d latents (EP applies)", s.GLM.Family.Name, s.GLM.Pos, s.GLM.D)
	case s.Kind == KindHMM:
		return "hidden Markov model: its discrete states summed out on the tape"
	}
	return s.Kind.String()
}
