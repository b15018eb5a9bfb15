#!/usr/bin/env bash
# Speed of the working tree against a baseline commit, measured side by side
# in one run so that both see the same machine load: builds the baseline in
# a git worktree (its own Cargo.toml profile, as it shipped), then runs
# `bench playouts` and `bench perft` of both binaries alternately for
# several rounds and prints, per game, the median of the per-round ratios
# new/base and the ratio of the best rounds. Single thread, release builds.
#
#   tools/speed.sh [--base COMMIT] [--rounds N] [--playouts GAMES]
#
# Default: --base a0f4ca0 (main before the speed work) --rounds 5
# --playouts 100000. Build products live under target/speed/.
set -euo pipefail
cd "$(dirname "$0")/.."

base=a0f4ca0
rounds=5
playouts=100000
while [ $# -gt 0 ]; do
    case "$1" in
        --base) base="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --playouts) playouts="$2"; shift 2 ;;
        *) echo "usage: $0 [--base COMMIT] [--rounds N] [--playouts GAMES]" >&2; exit 2 ;;
    esac
done

root="$PWD/target/speed"
tree="$root/base-tree"
mkdir -p "$root"
if [ -d "$tree" ]; then
    git -C "$tree" checkout -q --detach "$base"
else
    git worktree add -q --detach "$tree" "$base"
fi
echo "building the baseline $(git -C "$tree" log --oneline -1)" >&2
(cd "$tree" && CARGO_TARGET_DIR="$root/target-base" cargo build --release --quiet --bin menagerie)
echo "building the working tree" >&2
cargo build --release --quiet --bin menagerie
base_bin="$root/target-base/release/menagerie"
new_bin="$PWD/target/release/menagerie"

raw="$root/runs.txt"
: > "$raw"
# One measurement: "<which> <round> <kind> <game> <rate>" lines. Perft
# rates are nodes per second summed over each game's bench positions.
measure() {
    local which="$1" bin="$2" round="$3"
    # What was computed (playout results, perft counts), apart from speed:
    # it must be the same for both binaries.
    "$bin" "bench playouts $playouts" | tee >(sed -n 's/^info string playouts \([^|]*\)|.*| avg length/\1 avg length/p' | sed 's/ |//g' > "$root/results-$which.txt") | awk -v w="$which" -v r="$round" '
        /^info string playouts / {
            game = $4
            for (i = 1; i <= NF; i++) if ($i == "games/s") rate = $(i + 1)
            print w, r, "playouts", game, rate
        }' >> "$raw"
    "$bin" "bench perft" | tee >(sed -n 's/^info string perft \(.*\) | nodes \([0-9]*\).*/\1 nodes \2/p' > "$root/perft-$which.txt") | awk -v w="$which" -v r="$round" '
        /^info string perft / {
            game = $4
            for (i = 1; i <= NF; i++) {
                if ($i == "nodes") nodes[game] += $(i + 1)
                if ($i == "time") ms[game] += $(i + 1)
            }
        }
        END { for (g in nodes) printf "%s %s perft %s %.0f\n", w, r, g, nodes[g] * 1000 / (ms[g] > 0 ? ms[g] : 1) }' >> "$raw"
}

for round in $(seq 1 "$rounds"); do
    echo "round $round of $rounds" >&2
    # Alternate which binary goes first, so neither always gets the
    # warmer (or the more loaded) half of a round.
    if [ $((round % 2)) -eq 1 ]; then
        measure base "$base_bin" "$round"
        measure new "$new_bin" "$round"
    else
        measure new "$new_bin" "$round"
        measure base "$base_bin" "$round"
    fi
done

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
# Two estimates: the median of the per-round ratios, and the ratio of each
# binary's best round. On a shared machine load only ever slows a run, so
# the best round is the least disturbed one; where the two disagree, the
# load changed within rounds and more rounds are needed.
echo "$rounds rounds; ratio = median of the per-round new/base; best = best new / best base"
printf "%-9s %-24s %14s %14s %7s %7s\n" bench game base/s new/s ratio best
awk '{ print $3, $4 }' "$raw" | sort -u | while read -r kind game; do
    pick() { awk -v w="$1" -v k="$kind" -v g="$game" '$1 == w && $3 == k && $4 == g { print $2, $5 }' "$raw" | sort; }
    b=$(pick base | awk '{ print $2 }' | median)
    n=$(pick new | awk '{ print $2 }' | median)
    ratio=$(join <(pick base) <(pick new) | awk '{ print $3 / $2 }' | median)
    best=$(join <(pick base) <(pick new) | awk '$2 > b { b = $2 } $3 > n { n = $3 } END { print n / b }')
    printf "%-9s %-24s %14.0f %14.0f %6.2fx %6.2fx\n" "$kind" "$game" "$b" "$n" "$ratio" "$best"
done
echo
for kind in results perft; do
    if cmp -s "$root/$kind-base.txt" "$root/$kind-new.txt"; then
        echo "$kind: identical for both binaries"
    else
        echo "$kind: DIFFERENT (see $root/$kind-base.txt and $root/$kind-new.txt)"
        status=1
    fi
done
exit "${status:-0}"
