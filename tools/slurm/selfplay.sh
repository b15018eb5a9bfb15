#!/usr/bin/env bash
# Self-play data on a Slurm cluster: one job array with a task per shard
# of the games (`selfplay ... shard=I/N`), then a join job once every
# shard has succeeded, which writes the file one whole run would write.
# A task resumes its shard's file, so running the script again after a
# failure, a time limit or a cancel goes on where each shard was.
#
#   tools/slurm/selfplay.sh --dir DIR --shards N [options] -- GAME [WORDS]
#
#   --dir DIR        the shared run folder: shards data.bin.I, the joined
#                    data.bin, logs and exit files in DIR/slurm
#   --shards N       tasks of the array
#   --engine PATH    the engine [default: target/release/menagerie]
#   --mem SIZE       memory per task (sbatch --mem)
#   --time-limit S   seconds per task (sbatch --time, rounded up to minutes)
#   --account A, --partition P, --qos Q, --sbatch ARG (repeatable)
#   --wait           wait for the join and exit with its status
# after --: the selfplay line's game and words without shard= and out=,
#   e.g. -- kilkenny-cats players=3 games=100000 nodes=5000 seed=1
#
# Each task writes its status to DIR/slurm/shard-I.exit and the join to
# DIR/slurm/join.exit, which --wait reads. Exit status with --wait: 0
# joined, 1 a task or the join failed (named, with its log), 2 bad
# arguments.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { echo "selfplay.sh: $1 (see the top of $0)" >&2; exit 2; }
source "$here/sbatch-options.sh"

dir="" shards="" engine="$here/../../target/release/menagerie" wait=0 sbatch_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2"; shift 2 ;;
        --shards) shards="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --wait) wait=1; shift ;;
        --) shift; break ;;
        *) sbatch_option "$1" "${2-}" || usage "unknown option $1"; shift 2 ;;
    esac
done
[ -n "$dir" ] || usage "--dir is needed"
[[ "$shards" =~ ^[0-9]+$ ]] && [ "$shards" -ge 1 ] || usage "--shards needs a whole number"
[ $# -ge 1 ] || usage "the selfplay line's game and words are needed after --"
[ -x "$engine" ] || usage "no engine at $engine (cargo build --release first)"
mkdir -p "$dir/slurm"
dir="$(cd "$dir" && pwd)"
engine="$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")"
printf '%s\0' "$@" > "$dir/slurm/words"

common=(--parsable --ntasks=1 --cpus-per-task=1 "${sbatch_extra[@]}")
export SELFPLAY_DIR="$dir" SELFPLAY_ENGINE="$engine" SELFPLAY_SHARDS="$shards"
rm -f "$dir"/slurm/*.exit
array=$(sbatch "${common[@]}" --job-name=selfplay --array="1-$shards" \
    --output="$dir/slurm/shard-%a.log" "$here/selfplay.sbatch")
echo "selfplay.sh: shards: job array $array"
job=$(sbatch "${common[@]}" --job-name=selfplay-join --dependency="afterok:$array" \
    --kill-on-invalid-dep=yes --export=ALL,SELFPLAY_JOIN=1 \
    --output="$dir/slurm/join.log" "$here/selfplay.sbatch")
echo "selfplay.sh: join: job $job"
[ "$wait" -eq 1 ] || exit 0

while :; do
    for f in "$dir"/slurm/*.exit; do
        [ -e "$f" ] || continue
        read -r status < "$f"
        if [ "$status" != 0 ]; then
            echo "selfplay.sh: FAILED: $(basename "$f" .exit) exited with status $status; log: ${f%.exit}.log" >&2
            exit 1
        fi
    done
    if [ -e "$dir/slurm/join.exit" ]; then
        tail -1 "$dir/slurm/join.log"
        exit 0
    fi
    sleep "${POLL:-2}"
done
