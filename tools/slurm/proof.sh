#!/usr/bin/env bash
# A proof search split over a Slurm cluster: every line of DEPTH moves
# from the position is a task of one job array (tools/slurm/proof_split.py
# plans them with the engine), each a `solve` with a checkpoint and a
# certificate; a merge job once every task has ended (well or not) settles
# the tree from the tasks' certificates and writes DIR/proof.cert, one
# certificate of the position. A task resumes from its checkpoint, so
# running the script again with a larger --nodes goes on where each was.
#
#   tools/slurm/proof.sh --dir DIR --position POSITION [options]
#
#   --dir DIR        the shared run folder: plan.json, task-I.{ckpt,cert,out},
#                    proof.cert, logs and exit files in DIR/slurm
#   --position P     the `position` command's words, e.g. "startpos" or
#                    "fen 8/2B1W1W2/8 b 0 moves e2d3"
#   --game WORDS     the game and ruleset [default: awithlaknannai-mosona]
#   --depth D        moves per line [default: 1]
#   --nodes N        each task's node budget, earlier runs' included
#                    [default: 1000000]
#   --memory MIB     each task's bound on stored positions (solve memory)
#   --tables PATH    the endgame tables (the engine's TablePath)
#   --engine PATH    the engine [default: target/release/menagerie]
#   --mem SIZE       memory per task (sbatch --mem)
#   --time-limit S   seconds per task (sbatch --time, rounded up to minutes)
#   --account A, --partition P, --qos Q, --sbatch ARG (repeatable)
#   --wait           wait for the merge, print its value, exit with its status
#
# A re-run plans again only if DIR has no plan.json. Every task writes its
# status to DIR/slurm/task-I.exit and the merge to DIR/slurm/merge.exit.
# Exit status with --wait: 0 merged (the value may still be a bound or
# unknown), 1 a task or the merge failed (named, with its log), 2 bad
# arguments.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { echo "proof.sh: $1 (see the top of $0)" >&2; exit 2; }
source "$here/sbatch-options.sh"

dir="" position="" game="awithlaknannai-mosona" depth=1 nodes=1000000 memory="" tables=""
engine="$here/../../target/release/menagerie" wait=0 sbatch_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2"; shift 2 ;;
        --position) position="$2"; shift 2 ;;
        --game) game="$2"; shift 2 ;;
        --depth) depth="$2"; shift 2 ;;
        --nodes) nodes="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --tables) tables="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --wait) wait=1; shift ;;
        *) sbatch_option "$1" "${2-}" || usage "unknown option $1"; shift 2 ;;
    esac
done
[ -n "$dir" ] || usage "--dir is needed"
[ -n "$position" ] || usage "--position is needed"
[[ "$depth" =~ ^[0-9]+$ ]] || usage "--depth needs a whole number"
[[ "$nodes" =~ ^[0-9]+$ ]] || usage "--nodes needs a whole number"
[ -x "$engine" ] || usage "no engine at $engine (cargo build --release first)"
mkdir -p "$dir/slurm"
dir="$(cd "$dir" && pwd)"
engine="$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")"
split="$here/proof_split.py"

if [ ! -e "$dir/plan.json" ]; then
    python3 "$split" plan "$dir" --engine "$engine" --depth "$depth" --game "$game" --position "$position" > /dev/null
fi
tasks=$(python3 -c 'import json,sys; print(sum(1 for n in json.load(open(sys.argv[1]))["nodes"] if n["task"] is not None))' "$dir/plan.json")
task_args=(--engine "$engine" --nodes "$nodes")
[ -z "$memory" ] || task_args+=(--memory "$memory")
[ -z "$tables" ] || task_args+=(--tables "$tables")
printf '%s\0' "${task_args[@]}" > "$dir/slurm/task-args"

common=(--parsable --ntasks=1 --cpus-per-task=1 "${sbatch_extra[@]}")
export PROOF_DIR="$dir" PROOF_SPLIT="$split"
rm -f "$dir"/slurm/*.exit
array=$(sbatch "${common[@]}" --job-name=proof --array="1-$tasks" \
    --output="$dir/slurm/task-%a.log" "$here/proof.sbatch")
echo "proof.sh: $tasks tasks: job array $array"
job=$(sbatch "${common[@]}" --job-name=proof-merge --dependency="afterany:$array" \
    --export=ALL,PROOF_MERGE=1 --output="$dir/slurm/merge.log" "$here/proof.sbatch")
echo "proof.sh: merge: job $job"
[ "$wait" -eq 1 ] || exit 0

while [ ! -e "$dir/slurm/merge.exit" ]; do sleep "${POLL:-2}"; done
for f in "$dir"/slurm/*.exit; do
    read -r status < "$f"
    if [ "$status" != 0 ]; then
        echo "proof.sh: FAILED: $(basename "$f" .exit) exited with status $status; log: ${f%.exit}.log" >&2
        exit 1
    fi
done
grep -E '^(merge:|Value:)' "$dir/slurm/merge.log"
