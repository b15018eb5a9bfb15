#!/usr/bin/env bash
# CI on a real (single-node) Slurm cluster that forgets finished jobs after
# MinJobAge=2 s (shorter than any match here), so that nothing may depend
# on Slurm's job records:
#   1. a match played whole on this machine;
#   2. the same match as a job array of shards whose first try is cut
#      short by its time limit (match.sh must fail, naming exit 130, with
#      no merge), a second try in which one shard is cancelled with
#      scancel while it plays (Slurm signals every process of the job: no
#      game may be recorded as a crash), and a third that completes: the
#      merged results and games must equal the whole match's;
#   3. an SPRT run in waves (--waves) to a decision, equal to the same SPRT
#      match played whole;
#   4. --status on the first run once Slurm has forgotten its jobs;
#   5. endgame tables built as job arrays by number of men, with one
#      task's slice deleted and built again by a second run: the files
#      must equal a build on this machine, and verify (one task per
#      slice and its mirror, each leaving its record);
#   6. self-play data as a job array of shards joined after: the joined
#      file must equal one whole run's on this machine, and so must a
#      second run (which resumes every finished shard); and one
#      generation of tools/train/generations.py with --slurm-shards,
#      whose self-play must equal a local run of its line;
#   7. a proof search split by its first moves as a job array, merged
#      after: the merged certificate must equal a local split run's and
#      pass the independent checker, and a second run must resume every
#      task from its checkpoint.
# Tears the cluster down at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=target/release
work="$(mktemp -d /tmp/menagerie-slurm.XXXXXX)"
chmod 755 "$work"
fail() { echo "slurm ci: FAILED: $*" >&2; exit 1; }

tools/slurm/cluster.sh install
status=0
MIN_JOB_AGE=2 tools/slurm/cluster.sh up || status=$?
if [ $status -eq 3 ]; then
    echo "slurm ci: SKIPPED: this machine runs a Slurm of its own, which CI does not touch" >&2
    exit 0
fi
[ $status -eq 0 ] || fail "the cluster did not come up"
trap 'tools/slurm/cluster.sh down' EXIT
export POLL=1 PROGRESS_EVERY=5 INTERIM_EVERY=5

match=(--engine "$PWD/$B/menagerie" name=deep --engine "$PWD/$B/menagerie" name=greedy option.Skill=10
       --game kilkenny-cats --games 8 --depth 3 --seed 5)

start=$SECONDS
"$B/referee" "${match[@]}" --quiet --record "$work/whole.txt" --json "$work/whole.json" > "$work/whole.out"
echo "slurm ci: the whole match took $((SECONDS - start)) s"

# 2a. A 1-second limit cuts every shard short.
status=0
tools/slurm/match.sh --shards 2 --dir "$work/cluster" --time-limit 1 --mem 1G --throttle 2 --wait -- "${match[@]}" \
    2> "$work/first.err" || status=$?
cat "$work/first.err"
[ $status -eq 1 ] || fail "shards cut short by their time limit: match.sh exited $status, not 1"
grep -q "0 of 2 shards completed" "$work/first.err" || fail "expected no completed shard"
grep -q "shard 1: exit 130" "$work/first.err" || fail "the cut shard's exit status is not named"
[ ! -e "$work/cluster/merge.exit" ] || fail "the merge ran after failed shards"
grep -q 'mem="1G"' "$work/cluster/settings" && grep -q 'throttle="2"' "$work/cluster/settings" \
    || fail "the Slurm options are not remembered for --retry"
grep -q "^Score of" "$work/cluster/shard-1.attempt-1.log" || fail "the cut shard's log has no summary"

# 2b. One shard cancelled by scancel once it has recorded a game more.
before=$(cat "$work/cluster/shard-1.txt" 2>/dev/null | wc -l)
status=0
tools/slurm/match.sh --retry "$work/cluster" --time-limit 600 --wait 2> "$work/second.err" &
waiter=$!
deadline=$((SECONDS + 120))
until [ "$(cat "$work/cluster/attempt")" = 2 ] && [ -s "$work/cluster/array.job" ] \
    && [ "$(wc -l < "$work/cluster/shard-1.txt")" -gt "$before" ]; do
    [ $SECONDS -lt $deadline ] || fail "shard 1 recorded nothing in its second try"
    sleep 0.2
done
scancel "$(cat "$work/cluster/array.job")_1"
wait $waiter || status=$?
cat "$work/second.err"
[ $status -eq 1 ] || fail "a cancelled shard: match.sh exited $status, not 1"
grep -q "shard 1: exit 130" "$work/second.err" || fail "the cancelled shard's exit status is not named"

# 2c. The last try completes.
start=$SECONDS
tools/slurm/match.sh --retry "$work/cluster" --wait > "$work/cluster.out"
echo "slurm ci: the last try took $((SECONDS - start)) s"
cmp "$work/whole.json" "$work/cluster/results.json" \
    || { diff "$work/whole.json" "$work/cluster/results.json" >&2; fail "merged results differ from the whole match's"; }
# The same games, move for move (the time each move took aside).
games() { cat "$@" | tr '\t' '\n' | grep -E '^(index|moves)=' | paste - - | sort; }
cmp <(games "$work/whole.txt") <(games "$work"/cluster/shard-*.txt) || fail "the shards played other games"
if grep -q 'reason=crash' "$work"/cluster/shard-*.txt; then fail "a cancel was recorded as a crash"; fi
grep -q "Merged 8 of 8 games" "$work/cluster.out" || fail "the merge did not count 8 games"
ls "$work"/cluster/shard-1.attempt-{1,2,3}.log > /dev/null || fail "an attempt's log is missing"
echo "slurm ci: ok: cut, cancelled and retried, the sharded match equals the whole match"

# 3. An SPRT in waves of one round, to a decision; the same SPRT played whole.
sprt=(--sprt elo0=-200 elo1=0 alpha=0.25 beta=0.25)
duel=(--engine "$PWD/$B/menagerie" name=deep --engine "$PWD/$B/menagerie" name=greedy option.Skill=1
      --game kilkenny-cats --depth 2 --seed 9)
"$B/referee" "${duel[@]}" --rounds 10 "${sprt[@]}" --quiet --json "$work/sprt-whole.json" > /dev/null
status=0
tools/slurm/match.sh --shards 2 --dir "$work/waves" --wait --waves --max-rounds 10 \
    -- "${duel[@]}" --rounds 1 "${sprt[@]}" > "$work/waves.out" 2> "$work/waves.err" || status=$?
cat "$work/waves.err" "$work/waves.out"
[ $status -eq 0 ] || fail "waves to a decision: match.sh exited $status, not 0"
grep -q "SPRT: H[01] accepted" "$work/waves.err" || fail "no SPRT decision reported"
cmp "$work/sprt-whole.json" "$work/waves/results.json" \
    || { diff "$work/sprt-whole.json" "$work/waves/results.json" >&2; fail "the waves' SPRT differs from the whole match's"; }
echo "slurm ci: ok: waves ran to the decision the whole match reaches"

# 4. Slurm forgets the first run's jobs; --status still reads the run folder.
deadline=$((SECONDS + 120))
while scontrol show job "$(cat "$work/cluster/array.job")" > /dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "Slurm kept the job records past MinJobAge"
    sleep 2
done
tools/slurm/match.sh --status "$work/cluster" > "$work/status.out" || fail "--status after the purge"
grep -q "Merged 8 of 8 games" "$work/status.out" || fail "--status did not report the results"
echo "slurm ci: ok: the run folder alone tells the result after Slurm forgot the jobs"
cat "$work/cluster.out"

# 5. Endgame tables by slice on the cluster, equal to a local build.
"$B/menagerie" tables build awithlaknannai-mosona board=plain men=5 "dir=$work/tables-local" > /dev/null
tools/slurm/tables.sh --dir "$work/tables" --men 5 --wait -- board=plain > "$work/tables.out" \
    || { cat "$work/tables.out" "$work"/tables/slurm/*.log; fail "the tables' job arrays failed"; }
grep -q "built and verified: .*complete to 5 men" "$work/tables.out" || fail "tables.sh did not report the tables"
rm "$work/tables/awithlaknannai-mosona/plain-bent-draw/3v2.mtb"
tools/slurm/tables.sh --dir "$work/tables" --men 5 --wait -- board=plain >> "$work/tables.out" \
    || fail "the second run of tables.sh failed"
grep -q "tables 3v2 and 2v3: [0-9]" "$work/tables/slurm/5-2.log" || fail "the deleted slice was not built again"
diff -r -x '*.verified' "$work/tables-local/awithlaknannai-mosona" "$work/tables/awithlaknannai-mosona" \
    || fail "the cluster's tables differ from the local build"
# The verification ran as one task per slice and its mirror; each slice
# has its record, and the engine, asked again, derives nothing anew.
for f in "$work"/tables/awithlaknannai-mosona/plain-bent-draw/*.mtb; do
    [ -e "$f.verified" ] || fail "no verification record beside $f"
done
"$B/menagerie" tables verify awithlaknannai-mosona board=plain "dir=$work/tables" | tail -1 \
    | grep -q "0 mismatches, 0 damaged files, 0 skipped, 10 verified before" \
    || fail "a verification after the cluster's derived slices again"
# Safari-Dual's slices count two kinds (2+1v0 and its mirror 0v2+1): the
# engine's plan gives the arrays, and the cluster's tables are the local
# build's, verified task by task.
"$B/menagerie" tables build safari-dual men=4 "dir=$work/safari-local" > /dev/null
tools/slurm/tables.sh --game safari-dual --dir "$work/safari" --men 4 --wait > "$work/safari.out" \
    || { cat "$work/safari.out" "$work"/safari/slurm/*.log; fail "Safari-Dual's job arrays failed"; }
grep -q "built and verified: .*15 slices, complete to 4 men" "$work/safari.out" \
    || fail "tables.sh did not report Safari-Dual's tables: $(cat "$work/safari.out")"
diff -r -x '*.verified' "$work/safari-local/safari-dual" "$work/safari/safari-dual" \
    || fail "the cluster's Safari-Dual tables differ from the local build"
[ -e "$work/safari/safari-dual/standard/0v1+1.mtb.verified" ] || fail "no record of the mirror 0v1+1's verification"
# A task that cannot write its slice fails the build, named; the arrays
# after it never run. (A folder that cannot be made is refused before any
# job is submitted; a folder where the first slice's file should be gets
# that far, and its task fails.)
mkdir -p "$work/tables-bad/awithlaknannai-mosona/lined-bent-draw/1v1.mtb"
status=0
tools/slurm/tables.sh --dir "$work/tables-bad" --men 3 --wait > /dev/null 2> "$work/tables-bad.err" || status=$?
[ $status -eq 1 ] || fail "a failing tables task: tables.sh exited $status, not 1"
grep -q "FAILED: 2-1 exited with status 1" "$work/tables-bad.err" || fail "the failed tables task was not named"
[ ! -e "$work/tables-bad/slurm/3-1.exit" ] || fail "the 3-men array ran after the 2-men one failed"
echo "slurm ci: ok: endgame tables built by slice on the cluster, resumed, equal to a local build; a failed task is named"
cat "$work/tables.out"

# 6. Self-play data by shard on the cluster, joined, equal to a local run.
words=(kilkenny-cats players=3 games=7 nodes=150 seed=5)
"$B/menagerie" selfplay "${words[@]}" "out=$work/selfplay-local.bin" > /dev/null
for attempt in 1 2; do
    tools/slurm/selfplay.sh --dir "$work/selfplay" --shards 3 --wait -- "${words[@]}" > "$work/selfplay.out" \
        || { cat "$work/selfplay.out" "$work"/selfplay/slurm/*.log; fail "the self-play job array failed (run $attempt)"; }
    cmp "$work/selfplay-local.bin" "$work/selfplay/data.bin" \
        || fail "the cluster's joined self-play data differs from a local run (run $attempt)"
done
grep -q "resuming after" "$work/selfplay/slurm/shard-1.log" || fail "the second run did not resume its shards"
echo "slurm ci: ok: self-play data played by shard on the cluster, joined and resumed, equal to a local run"

# 6b. A generation of the self-play loop (tools/train/generations.py)
# whose self-play runs on the cluster: the same games as a local run of
# its line, the trainer and the gate after them (JAX, from .ci/run's
# target/train-venv).
python=target/train-venv/bin/python
[ -x "$python" ] || fail "no $python: the loop's trainer needs JAX (.ci/run installs it)"
"$python" tools/train/generations.py run "$work/generations" --game safari-dual --generations 1 \
    --games 12 --nodes 100 --openings 2 --seed 40 --gate-games 4 --gate-nodes 100 --concurrency 1 \
    --train "--epochs 1 --hidden 16 --batch 128 --policy 1" --slurm-shards 3 \
    --python "$python" --engine "$B/menagerie" --referee "$B/referee" > "$work/generations.out" 2>&1 \
    || { cat "$work/generations.out" "$work"/generations/g1-slurm3/slurm/*.log; fail "the loop's generation on the cluster failed"; }
[ -e "$work/generations/g1-slurm3/data.bin.3" ] || fail "the loop's self-play did not run as 3 shards"
"$B/menagerie" selfplay safari-dual games=12 nodes=100 openings=2 seed=41 \
    "network=$work/generations/g0/safari-dual.nnue" "out=$work/generations-local.bin" > /dev/null
cmp "$work/generations-local.bin" "$work/generations/g1.bin" \
    || fail "the loop's self-play on the cluster differs from a local run of its line"
grep -q "generation 1: " "$work/generations.out" || fail "the loop's generation did not reach its gate"
echo "slurm ci: ok: a generation of the self-play loop with its self-play on the cluster, equal to a local run"

# 7. A proof split by the first move on the cluster, merged, checked.
split=(--position "fen 8/2B1W1W2/8 b 0" --depth 1 --nodes 3000000)
python3 tools/slurm/proof_split.py plan "$work/proof-local" --engine "$B/menagerie" --depth 1 \
    --game awithlaknannai-mosona --position "fen 8/2B1W1W2/8 b 0" > /dev/null
python3 tools/slurm/proof_split.py run "$work/proof-local" --engine "$B/menagerie" --nodes 3000000
python3 tools/slurm/proof_split.py merge "$work/proof-local" > /dev/null
for attempt in 1 2; do
    tools/slurm/proof.sh --dir "$work/proof" "${split[@]}" --wait > "$work/proof.out" \
        || { cat "$work/proof.out" "$work"/proof/slurm/*.log; fail "the proof's job array failed (run $attempt)"; }
    grep -qx "Value: loss" "$work/proof.out" || { cat "$work/proof.out"; fail "the merged proof's value (run $attempt)"; }
    cmp "$work/proof-local/proof.cert" "$work/proof/proof.cert" \
        || fail "the cluster's merged certificate differs from a local split run (run $attempt)"
done
grep -q "resumed from the checkpoint" "$work/proof/task-1.out" || fail "the second run did not resume its tasks"
python3 tools/reference/awithlaknannai_certificate.py "$work/proof/proof.cert" \
    || fail "the merged certificate does not hold"
echo "slurm ci: ok: a proof split by its first moves on the cluster, merged, resumed, equal to a local split, checked"
rm -rf "$work"
