#!/bin/sh
# examples/plots/make.sh: the pictures of README's section on mscppl plot,
# from one run of examples/plots/eight_schools.msc. Run it from the
# repository's root: examples/plots/make.sh
set -e
go build -o mscppl ./cmd/mscppl
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
./mscppl run examples/plots/eight_schools.msc examples/data/eight_schools.csv --seed 1 --quiet --out "$dir/run"
# trace and rank read the chains' samples, DIR/output_N.csv
if [ -f "$dir/run/output_1.csv" ]; then
	./mscppl plot trace "$dir/run" examples/plots/trace.png --max 3
	./mscppl plot rank "$dir/run" examples/plots/rank.png --max 2
fi
./mscppl plot pairs "$dir/run" mu tau big_tau examples/plots/pairs.png
./mscppl plot marginals "$dir/run" examples/plots/marginals.png --max 4
./mscppl plot q "$dir/run" examples/plots/q.png --max 4
