// Command kalmanref writes the exact answers of the state-space test cases
// of internal/kalman (each case's model, its simulated data and its exact
// posterior by the Kalman filter and smoother on a grid over its static
// parameters) into a directory, as internal/kalman/testdata holds them:
//
//	go run ./examples/tools/kalmanref -dir internal/kalman/testdata
//
// The same files are checked by go test ./internal/kalman -run
// TestCaseFiles, which -update rewrites; case (e), var2, by
// MSCPPL_LONG=1 go test ./internal/kalman -run TestVAR2Case.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mscppl/mscppl/internal/kalman"
)

func main() {
	dir := flag.String("dir", "internal/kalman/testdata", "the directory to write NAME.msc, NAME.csv and NAME_exact.csv into")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "kalmanref:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	cases, err := kalman.Cases()
	if err != nil {
		return err
	}
	// case (e), whose grid takes a minute (checked by the long tier's
	// TestVAR2Case)
	v, err := kalman.VAR2()
	if err != nil {
		return err
	}
	cases = append(cases, v)
	for _, c := range cases {
		if err := c.WriteFiles(dir); err != nil {
			return err
		}
		for _, p := range c.Params {
			fmt.Printf("%s: %s %.5f (sd %.5f)\n", c.Name, p.Name, p.Mean, p.SD)
		}
	}
	return nil
}
