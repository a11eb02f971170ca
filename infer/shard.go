package infer

// Shard is the Index-th (from 1) of Count slices of a list of jobs; the
// zero Shard is the whole list.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Range is the slice [lo, hi) of n jobs that the shard runs: contiguous,
// the shards' sizes differing by one at most.
func (s Shard) Range(n int) (lo, hi int, err error) {
	if s.Count == 0 {
		return 0, n, nil
	}
	if s.Index < 1 || s.Index > s.Count {
		return 0, 0, Errorf("use --shard i/n with 1 <= i <= n", "--shard %d/%d is out of range", s.Index, s.Count)
	}
	return (s.Index - 1) * n / s.Count, s.Index * n / s.Count, nil
}
