package ir

import (
	"github.com/mscppl/mscppl/autodiff"
)

func MergeDeps(a, b []int) []int {
	seen := make(map[int]bool, len(a))
	for _, p := range a {
		seen[p] = true
	}
	for _, p := range b {
		if !seen[p] {
			a = append(a, p)
			seen[p] = true
		}
	}
	return a
}

func CopyElems(src [][]autodiff.Node) [][]autodiff.Node {
	out := make([][]autodiff.Node, len(src))
	for i, el := range src {
		if el != nil {
			out[i] = append([]autodiff.Node(nil), el...)
		}
	}
	return out
}
