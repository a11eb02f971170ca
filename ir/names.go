package ir

import (
	"sort"

	"github.com/mscppl/mscppl/stdlib"
)

// DistributionNames are the names that may follow ~: the scalar families
// of stdlib and the multivariate distributions, sorted (for completion).
func DistributionNames() []string {
	out := append(stdlib.FamilyNames(), vecDistNames()...)
	sort.Strings(out)
	return out
}
