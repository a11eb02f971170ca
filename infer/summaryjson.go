package infer

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// ordered is a JSON object whose keys are written in a given order: the
// model's order (latent_order, param_order, the unconstrained names), not
// Go's sorted map order, so that a[2] comes before a[10]. Keys of the map
// that the order does not name follow in natural order.
type ordered[V any] struct {
	order []string
	m     map[string]V
}

func (o ordered[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	write := func(k string) error {
		v, ok := o.m[k]
		if !ok {
			return nil
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
		return nil
	}
	seen := make(map[string]bool, len(o.order))
	for _, k := range o.order {
		if !seen[k] {
			seen[k] = true
			if err := write(k); err != nil {
				return nil, err
			}
		}
	}
	var rest []string
	for k := range o.m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(rest, naturalCompare)
	for _, k := range rest {
		if err := write(k); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// naturalCompare orders names with their numbers compared as numbers:
// a[2] before a[10], L[1,2] before L[1,10].
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			x, _ := strconv.Atoi(a[:da])
			y, _ := strconv.Atoi(b[:db])
			if x != y {
				return x - y
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// array is a list written as [] when empty, never null.
func array(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MarshalJSON writes the summary with every map of components in the
// model's order and warnings and notes as arrays (empty, never null).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	uorder := s.unconstrainedOrder
	chains := make([]chainJSON, len(s.Chains))
	for i, c := range s.Chains {
		chains[i] = chainJSON{plainChain: plainChain(c),
			QMean: ordered[float64]{uorder, c.QMean}, QSD: ordered[float64]{uorder, c.QSD},
			Params: ordered[float64]{s.ParamOrder, c.Params}, Warnings: array(c.Warnings)}
	}
	var qlatent *ordered[Moments]
	if len(s.QLatent) > 0 {
		qlatent = &ordered[Moments]{s.LatentOrder, s.QLatent}
	}
	latent, params := s.Latent, s.Params
	if params == nil {
		params = map[string]float64{}
	}
	return json.Marshal(struct {
		plain
		Latent      ordered[Moments]  `json:"latent"`
		LatentOrder []string          `json:"latent_order"`
		QLatent     *ordered[Moments] `json:"q_latent,omitempty"`
		Params      ordered[float64]  `json:"params"`
		Chains      []chainJSON       `json:"chains,omitempty"`
		Diagnostics diagnosticsJSON   `json:"diagnostics"`
		Warnings    []string          `json:"warnings"`
		Notes       []string          `json:"notes"`
	}{
		plain: plain(s), Latent: ordered[Moments]{s.LatentOrder, latent}, LatentOrder: array(s.LatentOrder),
		QLatent: qlatent, Params: ordered[float64]{s.ParamOrder, params}, Chains: chains,
		Diagnostics: diagnosticsJSON{plainDiagnostics: plainDiagnostics(s.Diagnostics),
			Rhat: ordered[Figure]{uorder, s.Diagnostics.Rhat}},
		Warnings: array(s.Warnings), Notes: array(s.Notes),
	})
}

type plainChain ChainSummary

type chainJSON struct {
	plainChain
	QMean    ordered[float64] `json:"q_mean_unconstrained,omitzero"`
	QSD      ordered[float64] `json:"q_sd_unconstrained,omitzero"`
	Params   ordered[float64] `json:"params,omitzero"`
	Warnings []string         `json:"warnings"`
}

type plainDiagnostics Diagnostics

type diagnosticsJSON struct {
	plainDiagnostics
	Rhat ordered[Figure] `json:"rhat,omitzero"`
}

// IsZero lets omitzero leave out an absent map.
func (o ordered[V]) IsZero() bool { return len(o.m) == 0 }

// MarshalJSON writes a non-finite mean or sd (a figure that could not be
// computed) as null, like the other figures.
func (m Moments) MarshalJSON() ([]byte, error) {
	return json.Marshal(momentsJSON{Figure(m.Mean), Figure(m.SD), m.Q05, m.Q50, m.Q95, m.MCSE})
}

// UnmarshalJSON reads null as NaN.
func (m *Moments) UnmarshalJSON(b []byte) error {
	var j momentsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*m = Moments{float64(j.Mean), float64(j.SD), j.Q05, j.Q50, j.Q95, j.MCSE}
	return nil
}

type momentsJSON struct {
	Mean Figure `json:"mean"`
	SD   Figure `json:"sd"`
	Q05  Figure `json:"q05"`
	Q50  Figure `json:"q50"`
	Q95  Figure `json:"q95"`
	MCSE Figure `json:"mcse_mean"`
}
