#!/usr/bin/env bash
# Plays a referee match on a Slurm cluster: the match's pairs split into
# shards run as one job array, then a merge job that depends on them all.
#
#   tools/slurm/match.sh --shards 8 --dir runs/m1 [SLURM OPTIONS] [--wait] \
#       -- --engine ./menagerie name=new --engine ./menagerie name=old option.Skill=10 \
#          --game awithlaknannai-mosona --rounds 500 --tc 5+0.05 --random-openings 6 --seed 7
#   tools/slurm/match.sh --retry DIR [SLURM OPTIONS] [--wait]
#       # the array again: finished shards play nothing, cut ones resume
#   tools/slurm/match.sh --more-rounds N DIR [SLURM OPTIONS] [--wait]
#       # a wave: the same match, N rounds longer; only the new pairs are played
#   tools/slurm/match.sh ... --wait --waves [--max-rounds M]
#       # waves of the first wave's --rounds until the SPRT decides (or M rounds)
#   tools/slurm/match.sh --status DIR
#       # where a run stands, from its folder alone
#
# SLURM OPTIONS, remembered in DIR/settings and used again by --retry and
# --more-rounds unless given again:
#   --time-limit S   seconds per shard: sbatch --time (rounded up to minutes,
#                    plus one for the summary) and the referee's own limit
#   --mem SIZE       memory per shard (sbatch --mem, e.g. 4G)
#   --account A  --partition P  --qos Q
#   --throttle K     at most K shards running at once (--array=1-N%K)
#   --cpus C         CPUs per shard; default the match's --concurrency, as
#                    whole cores (--hint=nomultithread) when the match is
#                    played on the clock (--tc, --movetime)
#   --sbatch ARG     one more sbatch argument (repeatable)
#   --referee PATH   the referee (default target/release/referee)
#
# The referee arguments after `--` are those of one whole match (a --seed
# is required; --sprt is given to the merge, not to the shards). The run
# folder DIR keeps everything: records (shard-I.txt), each attempt's logs
# (shard-I.attempt-A.log, merge.attempt-A.log), exit statuses (shard-I.exit,
# merge.exit), results (results.txt, results.json). The referee and the
# engines must be at the same paths on every node (a shared file system).
#
# --wait shows progress (games recorded, an interim score) and decides from
# the run folder, not from Slurm's job records (which Slurm forgets after
# MinJobAge). Exit status:
#   0  completed: the merge ran; the SPRT decided, or there is none
#   3  completed, and the SPRT says continue (run --more-rounds)
#   1  failed: a shard or the merge did not complete (listed, with exit codes)
#   2  refused: bad arguments, or the referee refused the match
# Without --wait: 0 once the jobs are submitted.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { echo "match.sh: $1 (see the top of $0)" >&2; exit 2; }

shards="" dir="" wait=0 retry="" more="" status_only="" waves=0 max_rounds=""
# Options given on this command line (empty: not given).
given_time_limit="" given_mem="" given_account="" given_partition="" given_qos=""
given_throttle="" given_cpus="" given_referee="" given_sbatch=()
while [ $# -gt 0 ]; do
    case "$1" in
        --shards) shards="$2"; shift 2 ;;
        --dir) dir="$2"; shift 2 ;;
        --time-limit) given_time_limit="$2"; shift 2 ;;
        --mem) given_mem="$2"; shift 2 ;;
        --account) given_account="$2"; shift 2 ;;
        --partition) given_partition="$2"; shift 2 ;;
        --qos) given_qos="$2"; shift 2 ;;
        --throttle) given_throttle="$2"; shift 2 ;;
        --cpus) given_cpus="$2"; shift 2 ;;
        --referee) given_referee="$2"; shift 2 ;;
        --sbatch) given_sbatch+=("$2"); shift 2 ;;
        --wait) wait=1; shift ;;
        --waves) waves=1; shift ;;
        --max-rounds) max_rounds="$2"; shift 2 ;;
        --retry) retry="$2"; shift 2 ;;
        --more-rounds) [ $# -ge 3 ] || usage "--more-rounds N DIR"; more="$2"; retry="$3"; shift 3 ;;
        --status) status_only="$2"; shift 2 ;;
        --) shift; break ;;
        *) usage "unknown option $1" ;;
    esac
done
number() { [[ "$2" =~ ^[0-9]+$ ]] || usage "$1 needs a whole number, not '$2'"; }
[ -z "$given_time_limit" ] || number --time-limit "$given_time_limit"
[ -z "$given_throttle" ] || number --throttle "$given_throttle"
[ -z "$given_cpus" ] || number --cpus "$given_cpus"
[ -z "$more" ] || number --more-rounds "$more"
[ -z "$max_rounds" ] || number --max-rounds "$max_rounds"

# The value after FLAG in the match's arguments (DIR/args), if any.
arg_value() {
    local flag="$1" previous="" arg
    while IFS= read -r -d '' arg; do
        if [ "$previous" = "$flag" ]; then printf '%s' "$arg"; return 0; fi
        previous="$arg"
    done < "$dir/args"
    return 1
}

load_settings() {
    [ -f "$dir/settings" ] || usage "$dir is not a run folder of match.sh (no settings)"
    shards="" referee="" time_limit="" mem="" account="" partition="" qos="" throttle=""
    cpus="1" sbatch_extra=() total=""
    # shellcheck disable=SC1091
    . "$dir/settings"
}

save_settings() {
    # Global when read back inside load_settings.
    declare -p shards referee time_limit mem account partition qos throttle cpus \
        sbatch_extra total | sed 's/^declare /declare -g /' > "$dir/settings"
}

apply_given() {
    time_limit="${given_time_limit:-$time_limit}"
    mem="${given_mem:-$mem}"
    account="${given_account:-$account}"
    partition="${given_partition:-$partition}"
    qos="${given_qos:-$qos}"
    throttle="${given_throttle:-$throttle}"
    cpus="${given_cpus:-$cpus}"
    referee="${given_referee:-$referee}"
    if [ ${#given_sbatch[@]} -gt 0 ]; then sbatch_extra=("${given_sbatch[@]}"); fi
}

# The games of the whole match, as the referee counts them.
count_games() {
    local check
    mapfile -d '' -t check < "$dir/args"
    "$referee" "${check[@]}" --dry-run | grep -o '[0-9]* games' | head -1 | cut -d' ' -f1
}

if [ -n "$status_only" ]; then
    dir="$status_only"
elif [ -n "$retry" ]; then
    dir="$retry"
    load_settings
    apply_given
    if [ -n "$more" ]; then
        rounds="$(arg_value --rounds)" \
            || usage "--more-rounds needs a match given in --rounds (this one has --games)"
        # The same arguments with the longer --rounds.
        mapfile -d '' -t old < "$dir/args"
        : > "$dir/args.new"
        previous=""
        for arg in "${old[@]}"; do
            if [ "$previous" = "--rounds" ]; then arg=$((rounds + more)); fi
            printf '%s\0' "$arg" >> "$dir/args.new"
            previous="$arg"
        done
        mv "$dir/args.new" "$dir/args"
        echo "match.sh: a wave of $more more rounds: $rounds to $((rounds + more))"
        total="$(count_games)"
    fi
    save_settings
else
    [ -n "$shards" ] && [ -n "$dir" ] && [ $# -gt 0 ] \
        || usage "needs --shards N --dir DIR -- REFEREE ARGS"
    number --shards "$shards"
    [ "$shards" -ge 1 ] || usage "--shards must be at least 1"
    referee="" time_limit="" mem="" account="" partition="" qos="" throttle="" cpus=""
    sbatch_extra=() total=""
    apply_given
    if [ -z "$referee" ]; then
        referee="$(cd "$here/../.." && pwd)/target/release/referee"
    fi
    [ -x "$referee" ] || usage "no referee at $referee (cargo build --release)"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    [ ! -e "$dir/settings" ] || usage "$dir holds a run already: use --retry or --more-rounds, or another --dir"
    # The match's arguments, NUL-separated; --sprt and its values go to the merge.
    : > "$dir/args"
    : > "$dir/sprt"
    in_sprt=0
    for arg in "$@"; do
        if [ "$arg" = "--sprt" ]; then in_sprt=1; printf '%s\0' "$arg" >> "$dir/sprt"; continue; fi
        if [ $in_sprt -eq 1 ] && [[ "$arg" == *=* && "$arg" != --* ]]; then
            printf '%s\0' "$arg" >> "$dir/sprt"; continue
        fi
        in_sprt=0
        printf '%s\0' "$arg" >> "$dir/args"
    done
    grep -qz -- '^--seed$' "$dir/args" \
        || { rm -f "$dir/args" "$dir/sprt"; usage "the match needs --seed: every shard must play the same games"; }
    # Settings, engines and options checked once here, before any job.
    mapfile -d '' -t check < "$dir/args"
    "$referee" "${check[@]}" --shard "1/$shards" --dry-run >/dev/null \
        || { rm -f "$dir/args" "$dir/sprt"; echo "match.sh: the referee refused the match (above)" >&2; exit 2; }
    if [ -z "$cpus" ]; then
        cpus="$(arg_value --concurrency || echo 1)"
    fi
    total="$(count_games)"
    save_settings
fi

# On the clock, a shard's games need cores of their own.
on_the_clock() {
    grep -qzE -- '^(--tc|--movetime|tc=.*|movetime=.*)$' "$dir/args"
}

submit() {
    attempt=$(( $(cat "$dir/attempt" 2>/dev/null || echo 0) + 1 ))
    echo "$attempt" > "$dir/attempt"
    local common=(--parsable --export=ALL --cpus-per-task="$cpus")
    if on_the_clock; then common+=(--hint=nomultithread); fi
    if [ -n "$time_limit" ]; then common+=(--time=$(( (time_limit + 59) / 60 + 1 ))); fi
    [ -z "$mem" ] || common+=(--mem="$mem")
    [ -z "$account" ] || common+=(--account="$account")
    [ -z "$partition" ] || common+=(--partition="$partition")
    [ -z "$qos" ] || common+=(--qos="$qos")
    common+=("${sbatch_extra[@]}")
    export MATCH_DIR="$dir" SHARDS="$shards" REFEREE="$referee" TIME_LIMIT="${time_limit:-0}" \
        ATTEMPT="$attempt"
    array=$(sbatch "${common[@]}" --array="1-$shards${throttle:+%$throttle}" \
        --output="$dir/shard-%a.attempt-$attempt.log" --open-mode=append "$here/shard.sbatch")
    array="${array%%;*}"
    merge=$(sbatch "${common[@]}" --cpus-per-task=1 --dependency="afterok:$array" \
        --kill-on-invalid-dep=yes --output="$dir/merge.attempt-$attempt.log" "$here/merge.sbatch")
    merge="${merge%%;*}"
    echo "$array" > "$dir/array.job"
    echo "$merge" > "$dir/merge.job"
    echo "match.sh: attempt $attempt: shards: job array $array (1-$shards), merge: job $merge, in $dir"
}

# Games recorded so far, over every shard.
recorded() {
    local n=0 f
    for f in "$dir"/shard-*.txt; do
        [ -e "$f" ] && n=$((n + $(grep -c $'\tsum=' "$f" || true)))
    done
    echo "$n"
}

# The attempt's exit status of shard I (or of the merge), empty if none.
exit_of() {
    local file="$dir/$1.exit" a s
    [ -f "$file" ] || return 0
    read -r a s < "$file"
    [ "$a" = "$(cat "$dir/attempt")" ] && echo "$s"
    return 0
}

# Whether Slurm still has a job of this attempt pending or running. A job
# Slurm does not know any more has ended; a controller that does not
# answer is asked again.
active() {
    local out
    while :; do
        if out=$(squeue -h -o '%i' -j "$(cat "$dir/array.job"),$(cat "$dir/merge.job")" 2>&1); then
            [ -n "$out" ]
            return
        fi
        case "$out" in
            *"Invalid job id"*) return 1 ;;
        esac
        echo "match.sh: squeue: $out; asking again" >&2
        sleep 10
    done
}

progress() {
    local done_shards=0 i
    for ((i = 1; i <= shards; i++)); do
        [ "$(exit_of "shard-$i")" = "0" ] && done_shards=$((done_shards + 1))
    done
    echo "match.sh: $(date +%T): $(recorded) of ${total:-?} games recorded, $done_shards of $shards shards done" >&2
}

interim() {
    local files=() f
    for f in "$dir"/shard-*.txt; do [ -s "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] || return 0
    "$referee" merge "${files[@]}" 2>/dev/null | grep -m1 '^Score of' | sed 's/^/match.sh: interim: /' >&2 || true
}

# Reads the run folder: prints what failed; 0 completed and decided (or no
# SPRT), 3 completed and continue, 1 failed.
verdict() {
    local failed=() i s verdict
    for ((i = 1; i <= shards; i++)); do
        s="$(exit_of "shard-$i")"
        case "$s" in
            0) ;;
            "") failed+=("shard $i: no exit status (never ran, or killed: SIGKILL after the time limit, out of memory, a failed node); log $dir/shard-$i.attempt-$attempt.log") ;;
            130) failed+=("shard $i: exit 130 (stopped by a signal: cancelled, time limit, preempted; finished games kept); log $dir/shard-$i.attempt-$attempt.log") ;;
            *) failed+=("shard $i: exit $s; log $dir/shard-$i.attempt-$attempt.log") ;;
        esac
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "match.sh: $((shards - ${#failed[@]})) of $shards shards completed; failed:" >&2
        printf '  %s\n' "${failed[@]}" >&2
        echo "match.sh: run again with: $0 --retry $dir --wait" >&2
        return 1
    fi
    s="$(exit_of merge)"
    if [ "$s" != "0" ]; then
        echo "match.sh: every shard completed, but the merge ${s:+exited with status $s}${s:-left no exit status}; see $dir/merge.attempt-$attempt.log" >&2
        echo "match.sh: run again with: $0 --retry $dir --wait" >&2
        return 1
    fi
    if grep -q '^Missing' "$dir/results.txt"; then
        echo "match.sh: the merge found pairs missing:" >&2
        grep '^Missing' "$dir/results.txt" >&2
        return 1
    fi
    cat "$dir/results.txt"
    verdict="$(grep -o '"verdict": *"[^"]*"' "$dir/results.json" | sed 's/.*: *"\(.*\)"/\1/' || true)"
    if [ "$verdict" = "continue" ]; then
        echo "match.sh: completed; the SPRT says continue: $0 --more-rounds N $dir --wait" >&2
        return 3
    fi
    echo "match.sh: completed${verdict:+; SPRT: $verdict}" >&2
    return 0
}

wait_for_attempt() {
    local last_progress=0 last_interim=$SECONDS
    while active; do
        if [ $((SECONDS - last_progress)) -ge "${PROGRESS_EVERY:-10}" ]; then
            progress
            last_progress=$SECONDS
        fi
        if [ $((SECONDS - last_interim)) -ge "${INTERIM_EVERY:-60}" ]; then
            interim
            last_interim=$SECONDS
        fi
        sleep "${POLL:-2}"
    done
    progress
}

if [ -n "$status_only" ]; then
    load_settings
    attempt="$(cat "$dir/attempt" 2>/dev/null || echo 0)"
    echo "match.sh: attempt $attempt; $(recorded) of ${total:-?} games recorded" >&2
    if [ -f "$dir/array.job" ] && active; then
        echo "match.sh: jobs still pending or running" >&2
        interim
        exit 0
    fi
    set +e
    verdict
    exit $?
fi

submit
[ $wait -eq 1 ] || exit 0
while :; do
    wait_for_attempt
    set +e
    verdict
    result=$?
    set -e
    if [ $result -ne 3 ] || [ $waves -eq 0 ]; then
        exit $result
    fi
    # One more wave of the first wave's length, up to --max-rounds.
    rounds="$(arg_value --rounds)" || usage "--waves needs a match given in --rounds"
    wave="${wave:-$rounds}"
    limit="${max_rounds:-$((wave * 10))}"
    if [ $((rounds + wave)) -gt "$limit" ]; then
        echo "match.sh: --max-rounds $limit reached without an SPRT decision" >&2
        exit 3
    fi
    "$0" --more-rounds "$wave" "$dir" > /dev/null
    attempt="$(cat "$dir/attempt")"
    echo "match.sh: wave to $((rounds + wave)) rounds submitted (attempt $attempt)"
    load_settings
done
