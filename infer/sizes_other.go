//go:build !unix

package infer

// processMemoryLimit is 0: no process limit is read on this system.
func processMemoryLimit() int64 { return 0 }
