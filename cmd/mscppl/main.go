// Command mscppl runs .msc probabilistic programs with Markovian Score
// Climbing. See the README and docs/commands.md for a tour.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
