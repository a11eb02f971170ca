#!/usr/bin/env bash
# bench/run.sh: the wall time of the default run on the project's yardsticks,
# so that the next change can be compared (issue 12). Not part of the tests.
#
#   bash bench/run.sh            # from the repository root
#
# Prints, for the ten posteriordb posteriors of examples/posteriordb and the
# probit regressions on Ionosphere and Pima, the wall time of `mscppl run` at
# the defaults with its accuracy (examples/tools/refcheck: the worst mean
# error in reference sds and sd error, and whether both are within 0.1 sd
# and 10%) against the NUTS reference of posteriordb or, for the probit
# regressions, examples/reference/probit_*.csv (a 150000-sweep Gibbs run,
# written by `go test ./cmd/mscppl -run TestProbitMatchesExactPosterior
# -update`), then the micro-benchmarks of the iteration (one core).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/mscppl
go build -o "$bin" ./cmd/mscppl
echo "== posteriordb and the probit regressions (default runs)"
go run ./examples/tools/refcheck -bin "$bin" -extra "examples/probit.msc:examples/data/ionosphere.csv:examples/reference/probit_ionosphere.csv examples/probit_pima.msc:examples/data/pima.csv:examples/reference/probit_pima.csv" 2>/dev/null
echo "== micro-benchmarks"
go test -run xxx -bench 'MSCProbitIonosphere|ProbitStep|CSMCSweepSV' -benchtime 20x -cpu 1 ./cmd/mscppl | grep Benchmark
