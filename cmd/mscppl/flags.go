package main

import (
	"fmt"
	"math"
	"reflect"

	"github.com/alecthomas/kong"
)

// flagMinimum is the least value of each size flag: a smaller value given
// on the command line is an error (exit status 2), never a silent return
// to the default (0 used to mean the default for --samples, --chains,
// --draws, --iters and --max-nodes). The same names in every command.
var flagMinimum = map[string]int64{
	"samples":      2,   // the kernel needs a proposal beside the retained sample
	"chains":       1,   //
	"draws":        100, // the PSIS check's tail fit
	"iters":        1,   //
	"average-last": 1,   //
	"max-nodes":    1,   //
	"splits":       1,   // cv
	"inits":        2,   // sweep: a spread needs two fits
	"particles":    2,   // evidence
	"repeats":      2,   // evidence: a standard error needs two estimates
	"max":          1,   // plot
}

// checkFlagValues rejects the values of the flags set on the command line
// (or by a default) that no run can use: a size below its minimum, a step
// size that is not positive and finite, a fraction outside (0, 1), a
// negative time limit. It returns a usageError naming the flag.
func checkFlagValues(k *kong.Context) error {
	for _, f := range k.Flags() {
		if !f.Set || !f.Target.IsValid() {
			continue
		}
		name := "--" + f.Name
		v := f.Target
		switch v.Kind() {
		case reflect.Int, reflect.Int64:
			if least, ok := flagMinimum[f.Name]; ok && v.Int() < least {
				return flagError(k, "%s must be at least %d, got %d", name, least, v.Int())
			}
		case reflect.Float64:
			x := v.Float()
			switch f.Name {
			case "lr", "param-lr":
				if !(x > 0) || math.IsInf(x, 0) {
					return flagError(k, "%s must be positive and finite, got %g", name, x)
				}
			case "test-fraction":
				if !(x > 0 && x < 1) {
					return flagError(k, "%s must be strictly between 0 and 1, got %g", name, x)
				}
			case "max-seconds":
				if !(x >= 0) {
					return flagError(k, "%s must be 0 (no limit) or positive, got %g", name, x)
				}
			}
		}
	}
	return nil
}

func flagError(k *kong.Context, format string, args ...any) error {
	return usageError{userErrorf(fmt.Sprintf("leave the flag out for its default; run '%s --help' for the usage", commandPath(k)), format, args...)}
}
