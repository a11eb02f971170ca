package main

import "github.com/mscppl/mscppl/infer"

// userError is an error caused by the user's input (exit status 1).
type userError = infer.UserError

func userErrorf(hint, format string, args ...any) error { return infer.Errorf(hint, format, args...) }
