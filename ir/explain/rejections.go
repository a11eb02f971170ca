package explain

import (
	"github.com/mscppl/mscppl/ir/lower"
)

// lastRejection is the reason of the first op of c that rejected at its
// last evaluation since clearRejections, or "".
func lastRejection(c *lower.Compiled) string {
	for _, r := range c.Rejecters {
		if r.Last != "" {
			return r.Reason()
		}
	}
	return ""
}

// clearRejections forgets the last reasons of c's ops.
func clearRejections(c *lower.Compiled) {
	for _, r := range c.Rejecters {
		r.Last = ""
	}
}
