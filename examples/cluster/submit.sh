#!/bin/bash
# examples/cluster/submit.sh: queue the SBC job array (sbc.sbatch) and a
# merge that runs once every task has succeeded (docs/cluster.md).
#
#   examples/cluster/submit.sh            # then look at sbc/summary.json
#
# The settings are sbc.sbatch's environment variables (MODEL, DATA, SIMS,
# SEED, SHARDS, MSCPPL) and OUT, the merged set's folder. Extra arguments go
# to both sbatch calls (for instance --partition=NAME or --wait).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MSCPPL=${MSCPPL:-mscppl}
SHARDS=${SHARDS:-sbc-shards}
OUT=${OUT:-sbc}
export MSCPPL SHARDS

array=$(sbatch --parsable "$@" "$here/sbc.sbatch")
array=${array%%;*}
sbatch --parsable --dependency=afterok:"$array" --job-name=mscppl-merge --output=merge-%j.log "$@" \
  --wrap "\"$MSCPPL\" merge \"$SHARDS\"/shard-* --out \"$OUT\""
