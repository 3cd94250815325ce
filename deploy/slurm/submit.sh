#!/bin/bash
# Submits a litebench sweep as a Slurm job array of N shards and a merge that runs after it.
#
#   LITEBENCH=/path/to/litebench LITEBENCH_OUT=/shared/sweep1 \
#   LITEBENCH_ARGS="--preset table1 --sweep sweep1 --trials 10" deploy/slurm/submit.sh N [sbatch options]
#
# Prints the array job's id and the merge job's id. Results: $LITEBENCH_OUT/all.db;
# `litebench show --sweep sweep1 --results $LITEBENCH_OUT/all.db` shows every shard.
set -euo pipefail
if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: submit.sh N [sbatch options]   (N: the number of shards, at least 1)" >&2
  exit 2
fi
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
: "${LITEBENCH_OUT:?set LITEBENCH_OUT to a directory all nodes can write}"
: "${LITEBENCH_ARGS:?set LITEBENCH_ARGS to the arguments of litebench run}"
mkdir -p "$LITEBENCH_OUT"
array=$(sbatch --parsable --export=ALL --chdir="$LITEBENCH_OUT" --array="0-$((n - 1))" "$@" "$here/litebench-shards.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --chdir="$LITEBENCH_OUT" --dependency="afterany:$array" "$@" "$here/litebench-merge.sbatch")
echo "array $array merge ${merge%%;*}"
