package main

import "strings"

// jsonName turns a column name such as w.3 or M.1.2 back into the
// component name w[3], M[1,2]: the inverse of csvName (traces.go).
func jsonName(s string) string {
	name, idx, ok := strings.Cut(s, ".")
	if !ok {
		return s
	}
	return name + "[" + strings.ReplaceAll(idx, ".", ",") + "]"
}
