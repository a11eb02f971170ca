package ir

func IntArrayType(n int) Type { return Type{Kind: Vector, Rows: n, IntElems: true} }

// maxExactInt is the largest integer a float64 holds exactly (2^53): int
// data beyond it would be rounded, and a size or bound made from it wrong.
const MaxExactInt = 1 << 53
