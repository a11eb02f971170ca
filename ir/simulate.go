package ir

import (
	"fmt"
	"slices"
)

// SetData replaces the values of data variables by name (the values a
// Simulator drew), before the model is compiled. A name the model does not
// declare as data, or a value of another length, is an error.
func (m *Model) SetData(values map[string][]float64) error {
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		i := slices.IndexFunc(m.Data, func(v *Var) bool { return v.Name == name })
		if i < 0 {
			return fmt.Errorf("no data variable %s", name)
		}
		v, val := m.Data[i], values[name]
		if len(val) != len(v.Value) {
			return fmt.Errorf("data %s has %d values, not %d", name, len(v.Value), len(val))
		}
		v.Value = val
	}
	return nil
}
