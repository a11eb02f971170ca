package ir

import (
	"fmt"

	"github.com/mscppl/mscppl/stdlib"
)

func BijString(b stdlib.Bijection) string {
	if b.Identity() {
		return "(none)"
	}
	return b.String()
}

func Plural(t Type, i int) string {
	if t.Kind == Matrix {
		if i == 0 {
			return "rows"
		}
		return "columns"
	}
	return "elements"
}

// LatentNames returns the names of the latent components, like "w[3]".
func (m *Model) LatentNames() []string {
	out := make([]string, m.XDim)
	for _, v := range m.Latents {
		for i := 0; i < v.Type.Len(); i++ {
			out[v.XOffset+i] = ComponentName(v, i)
		}
	}
	return out
}

// UnconstrainedNames names the components of the unconstrained latent
// vector (what q describes): the latents' own names, except that a latent
// with a vector constraint has UDim components named name__u[i].
func (m *Model) UnconstrainedNames() []string {
	out := make([]string, m.LatentDim)
	for _, v := range m.Latents {
		for i := 0; i < v.UDim(); i++ {
			if v.VecBij != nil {
				out[v.Offset+i] = fmt.Sprintf("%s__u[%d]", v.Name, i+1)
			} else {
				out[v.Offset+i] = ComponentName(v, i)
			}
		}
	}
	return out
}

// IdentityIndex returns the unconstrained position of constrained latent
// component j when that component is unconstrained (x = u), else -1.
func (m *Model) IdentityIndex(j int) int {
	for _, v := range m.Latents {
		if j >= v.XOffset && j < v.XOffset+v.Type.Len() {
			if v.Special() || !v.Bij.Identity() {
				return -1
			}
			return v.Offset + j - v.XOffset
		}
	}
	return -1
}

// ParamNames returns the names of the param components.
func (m *Model) ParamNames() []string { return componentNames(m.Params, m.ParamDim) }

func componentNames(vs []*Var, n int) []string {
	out := make([]string, n)
	for _, v := range vs {
		for i := 0; i < v.Type.Len(); i++ {
			out[v.Offset+i] = ComponentName(v, i)
		}
	}
	return out
}

func ComponentName(v *Var, i int) string {
	switch v.Type.Kind {
	case Vector:
		return fmt.Sprintf("%s[%d]", v.Name, i+1)
	case Matrix:
		return fmt.Sprintf("%s[%d,%d]", v.Name, i/v.Type.Cols+1, i%v.Type.Cols+1)
	}
	return v.Name
}
