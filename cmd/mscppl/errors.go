package main

import "github.com/mscppl/mscppl/infer"

// userErrorf builds an error caused by the user's input (exit status 1),
// with an optional hint.
func userErrorf(hint, format string, args ...any) error { return infer.Errorf(hint, format, args...) }
