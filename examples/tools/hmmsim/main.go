// Command hmmsim writes a simulated data set of the shape of posteriordb's
// hmm_drive (two states, two normal emission series with sd 0.1; see
// internal/simdata.HMMDriveData for the parameters) with T observations,
// in CmdStan's JSON format:
//
//	go run ./examples/tools/hmmsim -T 1000 -dir /tmp
//	mscppl run examples/hmm_drive_sim.msc /tmp/hmm_drive_1000.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mscppl/mscppl/internal/simdata"
)

func main() {
	t := flag.Int("T", 1000, "number of observations")
	dir := flag.String("dir", ".", "directory to write hmm_drive_T.json into")
	flag.Parse()
	path, err := simdata.HMMDriveJSON(*dir, *t)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(path)
}
