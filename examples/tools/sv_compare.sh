#!/usr/bin/env bash
# Compares the model parameters that MSC (CSMC kernel) and the SMC baseline
# learn on the stochastic-volatility example (the paper's Figure 3): for
# each series and seed, both fit with S = 10 particles, then a
# 10000-particle filter estimates log p(x; theta) for each, and the script
# prints the differences log p(x; theta_MSC) - log p(x; theta_SMC).
#
#   go build -o mscppl ./cmd/mscppl && examples/tools/sv_compare.sh [SEEDS] [ITERS]
set -euo pipefail
seeds=${1:-5}
iters=${2:-2000}
bin=${MSCPPL:-./mscppl}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
model=examples/stochastic_volatility_paper.msc
printf "%-8s %4s %12s %8s %12s %8s %10s\n" series seed "logp(MSC)" se "logp(SMC)" se diff
for series in monthly daily; do
  data=examples/data/dem2gbp.csv
  [ "$series" = monthly ] && data=examples/data/dem2gbp_monthly.csv
  for seed in $(seq 1 "$seeds"); do
    for method in msc smc; do
      "$bin" run "$model" "$data" --method "$method" --seed "$seed" --iters "$iters" --fixed --chains 1 --quiet --out "$out/$series-$seed-$method" > /dev/null
    done
    m=$("$bin" evidence "$model" "$data" --params "$out/$series-$seed-msc/variational.json" --particles 10000 --repeats 5 --seed "$seed" --json)
    s=$("$bin" evidence "$model" "$data" --params "$out/$series-$seed-smc/variational.json" --particles 10000 --repeats 5 --seed "$seed" --json)
    field() { echo "$1" | grep "\"$2\"" | sed 's/.*: *//; s/,$//'; }
    lm=$(field "$m" log_evidence); sm=$(field "$m" se)
    ls=$(field "$s" log_evidence); ss=$(field "$s" se)
    printf "%-8s %4s %12.3f %8.3f %12.3f %8.3f %10.3f\n" "$series" "$seed" "$lm" "$sm" "$ls" "$ss" "$(echo "$lm - $ls" | bc -l)"
  done
done
