#!/usr/bin/env bash
# Plays a referee match on a Slurm cluster: the match's pairs split into
# shards run as one job array, then a merge job that depends on them all.
#
#   tools/slurm/match.sh --shards 8 --dir runs/m1 [--time-limit 3600] [--wait] \
#       -- --engine ./menagerie name=new --engine ./menagerie name=old option.Skill=10 \
#          --game awithlaknannai-mosona --rounds 500 --tc 5+0.05 --random-openings 6 --seed 7
#   tools/slurm/match.sh --retry runs/m1 [--time-limit S] [--wait]
#       # the array again: finished shards play nothing, cut ones resume
#
# The referee arguments after `--` are those of one whole match (a --seed
# is required; --sprt is given to the merge, not to the shards). Records go
# to DIR/shard-I.txt, logs to DIR/*.log, results to DIR/results.txt and
# DIR/results.json. The referee must be reachable at the same path from
# every node (a shared file system), or give --referee PATH.
#
# --wait polls the jobs (`sbatch --wait` is not a reliable signal) and
# exits 0 only if every array task and the merge COMPLETED.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
shards=""
dir=""
time_limit=""
wait=0
retry=""
referee=""
sbatch_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --shards) shards="$2"; shift 2 ;;
        --dir) dir="$2"; shift 2 ;;
        --time-limit) time_limit="$2"; shift 2 ;;
        --referee) referee="$2"; shift 2 ;;
        --sbatch) sbatch_extra+=("$2"); shift 2 ;;
        --wait) wait=1; shift ;;
        --retry) retry="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "match.sh: unknown option $1 (see the top of $0)" >&2; exit 2 ;;
    esac
done

if [ -n "$retry" ]; then
    dir="$retry"
    given_limit="$time_limit"
    # shellcheck disable=SC1091
    . "$dir/settings"
    time_limit="${given_limit:-$time_limit}"
else
    [ -n "$shards" ] && [ -n "$dir" ] && [ $# -gt 0 ] \
        || { echo "match.sh: needs --shards N --dir DIR -- REFEREE ARGS" >&2; exit 2; }
    [ "$shards" -ge 1 ] 2>/dev/null || { echo "match.sh: --shards must be at least 1" >&2; exit 2; }
    if [ -z "$referee" ]; then
        referee="$(cd "$here/../.." && pwd)/target/release/referee"
    fi
    [ -x "$referee" ] || { echo "match.sh: no referee at $referee (cargo build --release)" >&2; exit 2; }
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
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
        || { echo "match.sh: the match needs --seed: every shard must play the same games" >&2; exit 2; }
    time_limit="${time_limit:-86400}"
    printf 'shards=%q\nreferee=%q\ntime_limit=%q\n' "$shards" "$referee" "$time_limit" > "$dir/settings"
    # Settings, engines and options checked once here, before any job.
    mapfile -d '' -t check < "$dir/args"
    "$referee" "${check[@]}" --shard "1/$shards" --dry-run >/dev/null \
        || { echo "match.sh: the referee refused the match (above)" >&2; exit 2; }
fi

export MATCH_DIR="$dir" SHARDS="$shards" REFEREE="$referee" TIME_LIMIT="$time_limit"
array=$(sbatch --parsable --array="1-$shards" --output="$dir/shard-%a.log" \
    --export=ALL "${sbatch_extra[@]}" "$here/shard.sbatch")
array="${array%%;*}"
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="$dir/merge.log" --export=ALL "${sbatch_extra[@]}" "$here/merge.sbatch")
merge="${merge%%;*}"
echo "$array" > "$dir/array.job"
echo "$merge" > "$dir/merge.job"
echo "match.sh: shards: job array $array (1-$shards), merge: job $merge, in $dir"
[ $wait -eq 1 ] || exit 0

# The state of every task of a job: one word per line.
states() {
    scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}
while states "$array" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUE|SUSPENDED' \
    || states "$merge" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING'; do
    # A merge whose dependency can never be met is cancelled by Slurm
    # (kill_invalid_depend); then only the array is left to finish.
    if ! states "$merge" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING' \
        && ! states "$array" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUE|SUSPENDED'; then
        break
    fi
    sleep 1
done
completed=$(states "$array" | grep -c '^COMPLETED$' || true)
failed=$(scontrol show job -o "$array" | grep -v 'JobState=COMPLETED' \
    | grep -o 'ArrayTaskId=[0-9-]*' | cut -d= -f2 | paste -sd, - || true)
if [ "$completed" -ne "$shards" ]; then
    echo "match.sh: $completed of $shards shards completed; failed or missing: ${failed:-?}" >&2
    echo "match.sh: logs in $dir/shard-*.log; run again with: $0 --retry $dir --wait" >&2
    exit 1
fi
if [ "$(states "$merge")" != "COMPLETED" ]; then
    echo "match.sh: the merge job ended $(states "$merge"); see $dir/merge.log" >&2
    exit 1
fi
cat "$dir/results.txt"
