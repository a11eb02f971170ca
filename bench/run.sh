#!/usr/bin/env bash
# bench/run.sh: the wall time of the default run on the project's yardsticks,
# so that the next change can be compared (issue 12). Not part of the tests.
#
#   bash bench/run.sh            # from the repository root
#
# Prints, for the ten posteriordb posteriors of examples/posteriordb, the
# wall time of `mscppl run` at the defaults with its accuracy against the
# NUTS reference (examples/tools/refcheck: the worst mean error in reference
# sds and sd error, and whether both are within 0.1 sd and 10%), then the
# wall time of the default runs on Ionosphere and Pima (their accuracy
# against a long Gibbs run is checked by cmd/mscppl's
# TestProbitMatchesExactPosterior), and the micro-benchmarks of the
# iteration.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/mscppl
go build -o "$bin" ./cmd/mscppl
echo "== posteriordb (default runs)"
go run ./examples/tools/refcheck -bin "$bin" 2>/dev/null
echo "== probit regressions (default runs)"
for c in "examples/probit.msc examples/data/ionosphere.csv" "examples/probit_pima.msc examples/data/pima.csv"; do
  set -- $c
  TIMEFORMAT=%R
  t=$( { time "$bin" run "$1" "$2" --quiet --json > /dev/null; } 2>&1 )
  printf '%-28s %s s\n' "$(basename "$2")" "$t"
done
echo "== micro-benchmarks"
go test -run xxx -bench 'MSCProbitIonosphere|ProbitStep|CSMCSweepSV' -benchtime 20x ./cmd/mscppl | grep Benchmark
