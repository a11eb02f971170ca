package infer

import "fmt"

// SummarySource says what a summary's latents describe. It is written to
// summary.json by its name (summary_source) and read back by it.
type SummarySource uint8

const (
	// SourceUnknown: none recorded (a summary written without one).
	SourceUnknown SummarySource = iota
	// SourcePSIS: the posterior, estimated by PSIS-weighted draws of q.
	SourcePSIS
	// SourceQ: q's own marginals (k-hat too large, or the check skipped).
	SourceQ
	// SourceChain: the retained trajectories of a state-space run.
	SourceChain
)

// summarySourceNames are the sources' names in summary.json.
var summarySourceNames = [...]string{SourceUnknown: "", SourcePSIS: "psis", SourceQ: "q", SourceChain: "chain"}

func (s SummarySource) String() string {
	if int(s) < len(summarySourceNames) {
		return summarySourceNames[s]
	}
	return fmt.Sprintf("SummarySource(%d)", s)
}

// MarshalText writes the source's name.
func (s SummarySource) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a source by its name.
func (s *SummarySource) UnmarshalText(b []byte) error {
	for i, n := range summarySourceNames {
		if n == string(b) {
			*s = SummarySource(i)
			return nil
		}
	}
	return fmt.Errorf("unknown summary source %q", b)
}
