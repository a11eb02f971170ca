package main

import (
	"fmt"
	"os"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/lang/stan"
)

type translateCmd struct {
	Model string `arg:"" help:"The Stan program (.stan)."`
}

// Run prints the .msc program a Stan program is lowered to (package
// lang/stan), the one check and run use; the notes go to stderr.
func (c *translateCmd) Run(e *env) error {
	if !infer.IsStan(c.Model) {
		return usageError{userErrorf("translate takes a Stan program, a file whose name ends in .stan", "%s is not a Stan program", c.Model)}
	}
	src, err := os.ReadFile(c.Model)
	if err != nil {
		return infer.FileError(c.Model, "model", err)
	}
	src = lang.Normalize(src)
	e.sources[c.Model] = src
	f, notes, err := stan.Parse(c.Model, src)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "note: %v\n", n)
	}
	fmt.Fprint(e.stdout, lang.FormatFile(f))
	return nil
}
