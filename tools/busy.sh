#!/usr/bin/env bash
# Runs a command beside CPU hogs, as a busy machine would run it, and
# stops the hogs however the command ends (a test suite must pass there
# too: its verdicts wait for events, never for the machine's speed).
#
# Usage: tools/busy.sh [-n HOGS] [-r RUNS] [COMMAND ...]
#   -n HOGS   busy-looping processes beside the command (default 4)
#   -r RUNS   run the command this many times; all must pass (default 1)
#   COMMAND   default: .ci/run on a clean clone of this checkout's HEAD
#             in a temporary folder (what CI runs)
# Each run's output goes to target/busy/run-N.log; the exit status is
# the number of failed runs (0: all passed).
set -euo pipefail
cd "$(dirname "$0")/.."

hogs=4
runs=1
while getopts "n:r:" opt; do
    case $opt in
        n) hogs=$OPTARG ;;
        r) runs=$OPTARG ;;
        *) echo "usage: $0 [-n HOGS] [-r RUNS] [COMMAND ...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))

pids=()
stop_hogs() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap stop_hogs EXIT INT TERM
for _ in $(seq "$hogs"); do
    ( while :; do :; done ) &
    pids+=("$!")
done

mkdir -p target/busy
failed=0
for run in $(seq "$runs"); do
    log="target/busy/run-$run.log"
    started=$SECONDS
    if [ "$#" -gt 0 ]; then
        status=0; "$@" >"$log" 2>&1 || status=$?
    else
        clone=$(mktemp -d /tmp/menagerie-busy.XXXXXX)
        git clone -q . "$clone"
        status=0; (cd "$clone" && .ci/run) >"$log" 2>&1 || status=$?
        rm -rf "$clone"
    fi
    load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
    if [ "$status" -eq 0 ]; then
        echo "busy: run $run of $runs passed in $((SECONDS - started)) s beside $hogs hogs (load $load); log $log"
    else
        echo "busy: run $run of $runs FAILED (status $status) in $((SECONDS - started)) s beside $hogs hogs (load $load); log $log"
        failed=$((failed + 1))
    fi
done
exit "$failed"
