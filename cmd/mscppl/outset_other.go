//go:build !linux

package main

import (
	"os"
	"runtime"
	"syscall"
)

// exchange: only Linux swaps two folders atomically; elsewhere the set
// takes DIR's place with two renames (outset.go).
func exchange(a, b string) error { return errNoExchange }

// processRunning reports whether a process with this id runs (on Windows
// finding it is enough: it cannot take signal 0).
func processRunning(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return runtime.GOOS == "windows" || p.Signal(syscall.Signal(0)) == nil
}
