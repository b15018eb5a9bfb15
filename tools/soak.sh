#!/usr/bin/env bash
# The referee's soak on a busy machine: the README's match (full against
# Skill 5, Awithlaknannai Mosona, --tc 2+0.02 --concurrency 2) beside CPU
# hogs, with engine processes paused now and then (SIGSTOP, 50-300 ms,
# SIGCONT), as a busy scheduler, swapping or a cluster's other jobs do.
# Then every recorded move is checked against the engines' own logs
# (RUST_LOG=debug: each move must be its engine's answer to that very
# position; examples/answer_check.rs), and the records are replayed.
#
# Usage: tools/soak.sh [GAMES] [TC] [HOGS] [PAUSES] [SETTING]
#   defaults: 1000 games, 2+0.02, 4 hogs, PAUSES=yes (no: none);
#   SETTING: one more engine setting for both engines, such as
#   'option.Move Overhead=100'
# SOAK_DIR names the output folder (default target/soak).
# Output in target/soak/ (records, engine logs, referee output); the
# exit status is 0 when every check passed. docs/promises.md quotes runs.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-1000}
tc=${2:-2+0.02}
hogs=${3:-4}
pauses=${4:-yes}
setting=()
if [ -n "${5:-}" ]; then setting=("$5"); fi

cargo build --release --quiet
cargo build --release --quiet --example answer_check
dir=${SOAK_DIR:-target/soak}
rm -rf "$dir"
mkdir -p "$dir/logs" "$dir/bin"
# Copies: a build during the soak changes nothing under way.
cp target/release/menagerie target/release/referee target/release/examples/answer_check "$dir/bin/"
engine=$PWD/$dir/bin/menagerie
for name in full skill5; do
    cat > "$dir/$name.sh" <<WRAP
#!/bin/sh
echo \$\$ >> $PWD/$dir/pids
RUST_LOG=menagerie_engine=debug exec $engine 2>> $PWD/$dir/logs/$name.\$\$.log
WRAP
    chmod +x "$dir/$name.sh"
done

hog_pids=()
cleanup() {
    for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "${referee:-}" ]; then kill "$referee" 2>/dev/null || true; fi
}
trap cleanup EXIT INT TERM
for _ in $(seq "$hogs"); do
    ( while :; do :; done ) &
    hog_pids+=("$!")
done

started=$SECONDS
"$dir/bin/referee" --engine "$dir/full.sh" name=full "${setting[@]}" \
    --engine "$dir/skill5.sh" name=skill5 option.Skill=5 "${setting[@]}" \
    --game awithlaknannai-mosona --games "$games" --tc "$tc" \
    --random-openings 6 --concurrency 2 --seed 60 --rating-interval 100 \
    --record "$dir/games.txt" > "$dir/referee.txt" 2>&1 &
referee=$!

# A pause of 50-300 ms of one engine process, at random, every 0.1-1 s.
paused=0
if [ "$pauses" = yes ]; then
    while kill -0 "$referee" 2>/dev/null; do
        pid=$(shuf -n 1 "$dir/pids" 2>/dev/null || true)
        if [ -n "$pid" ] && grep -qa menagerie "/proc/$pid/cmdline" 2>/dev/null; then
            kill -STOP "$pid" 2>/dev/null || true
            sleep "0.$(printf '%03d' $((50 + RANDOM % 251)))"
            kill -CONT "$pid" 2>/dev/null || true
            paused=$((paused + 1))
        fi
        sleep "0.$(printf '%03d' $((100 + RANDOM % 900)))"
    done
fi
status=0
wait "$referee" || status=$?
referee=""
seconds=$((SECONDS - started))

echo "soak: $games games at --tc $tc --concurrency 2 beside $hogs hogs, $paused pauses, ${setting[*]:-default settings}, $seconds s, referee status $status"
grep "^Score of" "$dir/referee.txt" | tail -1 || true
grep -E "^(Endings|Forfeits|Engine restarts|Replies to no request|Machine|Warning)" "$dir/referee.txt" || true
recorded=$(grep -c . "$dir/games.txt" || true)
echo "soak: $recorded games recorded of $games"
check=0
"$dir/bin/answer_check" "$dir/games.txt" "$dir"/logs/*.log || check=1
"$dir/bin/referee" replay "$dir/games.txt" | tail -1 || check=1
if [ "$status" -ne 0 ] || [ "$check" -ne 0 ] || [ "$recorded" -ne "$games" ]; then
    echo "soak: FAILED"
    exit 1
fi
echo "soak: passed"
