#!/usr/bin/env bash
# Builds endgame tables on a Slurm cluster: one job array per number of
# men, a task per slice and its mirror, each array starting once the one
# before it has succeeded (a slice reads only the slices of fewer men),
# then a verification of every table. Tasks that find their slice built
# exit at once, so running the script again resumes an interrupted build.
#
#   tools/slurm/tables.sh --dir DIR --men N [options] [-- RULESET WORDS]
#
#   --dir DIR        the shared table folder (the engine's TablePath)
#   --men N          every slice of up to N men (2 or more)
#   --game ID        the game [default: awithlaknannai-mosona]
#   --engine PATH    the engine [default: target/release/menagerie]
#   --cpus N         threads per task [default: 2]
#   --mem SIZE       memory per task (sbatch --mem, e.g. 8G)
#   --time-limit S   seconds per task (sbatch --time, rounded up to minutes)
#   --account A, --partition P, --qos Q, --sbatch ARG (repeatable)
#   --no-verify      skip the verification job
#   --wait           wait for the build and exit with its status
# after --: ruleset options, e.g. -- board=plain ending=count
#
# Every task writes its status to DIR/slurm/<men>-<task>.exit and each
# verification task to DIR/slurm/verify-<task>.exit (one task per slice
# and its mirror; a record beside each verified slice lets a re-run skip
# it while neither it nor what it reads changes), which --wait reads: Slurm
# forgets finished jobs. Exit status with --wait: 0 built and verified,
# 1 a task or the verification failed (named, with its log), 2 bad
# arguments.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { echo "tables.sh: $1 (see the top of $0)" >&2; exit 2; }
source "$here/sbatch-options.sh"

dir="" men="" game="awithlaknannai-mosona" engine="$here/../../target/release/menagerie"
cpus=2 verify=1 wait=0 sbatch_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir="$2"; shift 2 ;;
        --men) men="$2"; shift 2 ;;
        --game) game="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --cpus) cpus="$2"; shift 2 ;;
        --no-verify) verify=0; shift ;;
        --wait) wait=1; shift ;;
        --) shift; break ;;
        *) sbatch_option "$1" "${2-}" || usage "unknown option $1"; shift 2 ;;
    esac
done
rules=("$@")
[ -n "$dir" ] || usage "--dir is needed"
[[ "$men" =~ ^[0-9]+$ ]] && [ "$men" -ge 2 ] || usage "--men needs a whole number of 2 or more"
[[ "$cpus" =~ ^[0-9]+$ ]] && [ "$cpus" -ge 1 ] || usage "--cpus needs a whole number"
[ -x "$engine" ] || usage "no engine at $engine (cargo build --release first)"
mkdir -p "$dir/slurm"
dir="$(cd "$dir" && pwd)"
engine="$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")"
# The engine refuses a bad game or ruleset before anything is submitted.
# The game and ruleset must be the engine's; damaged files are fine (the
# jobs build them again), so only an error about the request itself stops.
status_out=$("$engine" tables status "$game" "${rules[@]}" "dir=$dir" 2>&1) \
    || grep -q "cannot be used (build again" <<< "$status_out" \
    || usage "the engine refused: tables status $game ${rules[*]}: $(tail -1 <<< "$status_out")"

common=(--parsable --cpus-per-task="$cpus" --ntasks=1 "${sbatch_extra[@]}")
export TABLES_DIR="$dir" TABLES_ENGINE="$engine" TABLES_GAME="$game" TABLES_CPUS="$cpus"
export TABLES_RULES="${rules[*]}"
rm -f "$dir"/slurm/*.exit
previous=""
levels=()
# The engine's plan: per number of men, the pairs a build makes (each
# reads only pairs of fewer men, so one level is one job array).
plan_out=$("$engine" tables plan "$game" "${rules[@]}" "men=$men") \
    || usage "the engine refused: tables plan $game ${rules[*]} men=$men: $(tail -1 <<< "$plan_out")"
totals=()
while read -r total names; do
    read -r -a pairs <<< "$names"
    printf '%s\n' "${pairs[@]}" > "$dir/slurm/pairs-$total"
    totals+=("$total")
done < <(sed -n 's/^info string tables plan \([0-9]*\) men: \([^(]*\) (.*/\1 \2/p' <<< "$plan_out")
for total in "${totals[@]}"; do
    pairs=()
    mapfile -t pairs < "$dir/slurm/pairs-$total"
    job=$(sbatch "${common[@]}" --job-name="tables-$total" --array="1-${#pairs[@]}" \
        ${previous:+--dependency=afterok:$previous --kill-on-invalid-dep=yes} \
        --export=ALL,TABLES_MEN="$total" --output="$dir/slurm/$total-%a.log" "$here/tables.sbatch")
    echo "tables.sh: $total men: job array $job, slices ${pairs[*]}"
    previous="$job"
    levels+=("$total:${#pairs[@]}")
done
verify_tasks=0
if [ "$verify" -eq 1 ]; then
    # One task per slice and its mirror, every number of men, once the
    # last build has succeeded. Each leaves a record per slice it
    # verified, so a re-run skips what was verified and has not changed.
    cat $(for total in "${totals[@]}"; do echo "$dir/slurm/pairs-$total"; done) > "$dir/slurm/pairs-verify"
    verify_tasks=$(wc -l < "$dir/slurm/pairs-verify")
    job=$(sbatch "${common[@]}" --job-name=tables-verify --array="1-$verify_tasks" \
        --dependency="afterok:$previous" --kill-on-invalid-dep=yes \
        --export=ALL,TABLES_MEN="$men",TABLES_VERIFY=1 \
        --output="$dir/slurm/verify-%a.log" "$here/tables.sbatch")
    echo "tables.sh: verification: job array $job, $verify_tasks tasks"
fi
[ "$wait" -eq 1 ] || exit 0

# Waits on the exit files alone; a cancelled dependency never runs, so a
# failed task ends the wait at once.
failed() {
    for f in "$dir"/slurm/*.exit; do
        [ -e "$f" ] || continue
        read -r status < "$f"
        if [ "$status" != 0 ]; then echo "$f"; fi
    done
}
while :; do
    bad=$(failed)
    if [ -n "$bad" ]; then
        for f in $bad; do
            echo "tables.sh: FAILED: $(basename "$f" .exit) exited with status $(cat "$f"); log: ${f%.exit}.log" >&2
        done
        exit 1
    fi
    done_all=1
    for level in "${levels[@]}"; do
        total="${level%%:*}" count="${level##*:}"
        for i in $(seq 1 "$count"); do [ -e "$dir/slurm/$total-$i.exit" ] || done_all=0; done
    done
    for i in $(seq 1 "$verify_tasks"); do [ -e "$dir/slurm/verify-$i.exit" ] || done_all=0; done
    if [ "$done_all" -eq 1 ]; then
        what=built; [ "$verify" -eq 0 ] || what="built and verified"
        echo "tables.sh: $what: $("$engine" tables status "$game" "${rules[@]}" "dir=$dir" | tail -1)"
        exit 0
    fi
    sleep "${POLL:-2}"
done
