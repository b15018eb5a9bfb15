#!/usr/bin/env bash
# CI on a real (single-node) Slurm cluster: a match played whole on this
# machine, then the same match as a job array of shards whose first try is
# cut short by its time limit (the merge job must then be cancelled, and
# match.sh must say so), retried to completion; the merged results and
# games must equal the whole match's. Tears the cluster down at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=target/release
work="$(mktemp -d /tmp/menagerie-slurm.XXXXXX)"
chmod 755 "$work"

tools/slurm/cluster.sh install
trap 'tools/slurm/cluster.sh down' EXIT
tools/slurm/cluster.sh up

match=(--engine "$PWD/$B/menagerie" name=deep --engine "$PWD/$B/menagerie" name=greedy option.Skill=10
       --game kilkenny-cats --games 8 --depth 3 --seed 5)

start=$SECONDS
"$B/referee" "${match[@]}" --quiet --record "$work/whole.txt" --json "$work/whole.json" > "$work/whole.out"
echo "slurm ci: the whole match took $((SECONDS - start)) s"

# First try: a 1-second limit cuts every shard short.
if tools/slurm/match.sh --shards 2 --dir "$work/cluster" --time-limit 1 --wait -- "${match[@]}" \
    2> "$work/first.err"; then
    echo "slurm ci: FAILED: shards cut short by their time limit were reported complete" >&2
    exit 1
fi
cat "$work/first.err"
grep -q "0 of 2 shards completed" "$work/first.err" \
    || { echo "slurm ci: FAILED: expected no completed shard" >&2; exit 1; }
merge_state=$(scontrol show job -o "$(cat "$work/cluster/merge.job")" | grep -o 'JobState=[A-Z_]*')
[ "$merge_state" = "JobState=CANCELLED" ] \
    || { echo "slurm ci: FAILED: the merge job is $merge_state, not cancelled" >&2; exit 1; }

# The retry resumes each shard from its records.
start=$SECONDS
tools/slurm/match.sh --retry "$work/cluster" --time-limit 600 --wait > "$work/cluster.out"
echo "slurm ci: the retried shards and merge took $((SECONDS - start)) s"

cmp "$work/whole.json" "$work/cluster/results.json" \
    || { echo "slurm ci: FAILED: merged results differ from the whole match's" >&2;
         diff "$work/whole.json" "$work/cluster/results.json" >&2; exit 1; }
# The same games, move for move (the time each move took aside).
games() { cat "$@" | tr '\t' '\n' | grep -E '^(index|moves)=' | paste - - | sort; }
cmp <(games "$work/whole.txt") <(games "$work"/cluster/shard-*.txt) \
    || { echo "slurm ci: FAILED: the shards played other games" >&2; exit 1; }
grep -q "Merged 8 of 8 games" "$work/cluster.out"
echo "slurm ci: ok: the sharded match on Slurm equals the whole match"
cat "$work/cluster.out"
rm -rf "$work"
