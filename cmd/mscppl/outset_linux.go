package main

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// exchange swaps the folders a and b atomically (renameat2 with
// RENAME_EXCHANGE), or returns errNoExchange when the kernel or the file
// system cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}

// processRunning reports whether a process with this id runs.
func processRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
