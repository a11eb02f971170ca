package autodiff

// IndexOf reports whether n is an Index node (Graph.Index), and if so
// the node it reads and the element (0-based): a compiler that made a
// value element by element can put a run of them back together as the
// node they came from.
func (g *Graph) IndexOf(n Node) (src Node, i int, ok bool) {
	r := &g.recs[n]
	if r.op != opIndex {
		return 0, 0, false
	}
	return r.a, int(r.lo), true
}

// OpOf returns the Op of a Custom node (Graph.Custom), for tests and tools
// that look for an op in a compiled graph.
func (g *Graph) OpOf(n Node) (Op, bool) {
	r := &g.recs[n]
	if r.op != opCustom {
		return nil, false
	}
	return g.ops[r.ext], true
}

// ArgsOf returns the input nodes of a Custom node (nil for another node),
// for tools that read an op's inputs after an evaluation. The slice is the
// graph's own: not to be modified.
func (g *Graph) ArgsOf(n Node) []Node {
	r := &g.recs[n]
	if r.op != opCustom {
		return nil
	}
	return g.args[r.argOff : r.argOff+r.argN : r.argOff+r.argN]
}
