//go:build unix

package infer

import "syscall"

// processMemoryLimit is the lower of the process's RLIMIT_DATA and
// RLIMIT_AS in bytes, or 0 when neither is set (unlimited is
// ^uint64(0)).
func processMemoryLimit() int64 {
	lim := int64(0)
	for _, res := range []int{syscall.RLIMIT_DATA, syscall.RLIMIT_AS} {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(res, &r); err == nil && r.Cur < 1<<62 {
			if lim == 0 || int64(r.Cur) < lim {
				lim = int64(r.Cur)
			}
		}
	}
	return lim
}
