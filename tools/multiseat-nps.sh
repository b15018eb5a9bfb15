#!/usr/bin/env bash
# Search speed of Kilkenny Cats at 3 and 4 seats, side by side: the
# baseline engine (today's main, paranoid search) and this build with each
# MultiSeat method search the same positions (the start after each of the
# six first rolls) to the same node count, in alternating order, several
# rounds; the nodes per second of the last info line are summed per round
# and the ratio of medians printed. A benchmark, not a test: run it on a
# quiet machine, with nothing compiling.
#
#   tools/multiseat-nps.sh BASELINE-ENGINE [rounds] [nodes]
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1 rounds=${2:-5} nodes=${3:-200000}
new=target/release/menagerie
methods="paranoid brs brs-plus maxn"

# nps ENGINE PLAYERS [METHOD]: total nodes / total ms over the six positions.
nps() {
    local engine=$1 p=$2 method=${3:-}
    {
        [ -n "$method" ] && echo "setoption name MultiSeat value $method"
        for roll in 1 2 3 4 5 6; do
            echo "newgame kilkenny-cats players=$p"
            echo "position startpos moves r$roll"
            echo "go nodes $nodes"
            echo "isready"
        done
    } | "$engine" | awk '
        /^info depth/ { for (i = 1; i <= NF; i++) { if ($i == "nodes") n = $(i + 1); if ($i == "time") t = $(i + 1) } }
        /^bestmove/ { nodes += n; ms += t }
        END { printf "%.0f\n", nodes * 1000 / (ms > 0 ? ms : 1) }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for round in $(seq 1 "$rounds"); do
    for p in 3 4; do
        # Alternate who goes first, so neither always gets the warmer half.
        if [ $((round % 2)) -eq 1 ]; then
            echo "base $p $(nps "$base" "$p")" >>"$raw"
        fi
        for m in $methods; do echo "$m $p $(nps "$new" "$p" "$m")" >>"$raw"; done
        if [ $((round % 2)) -eq 0 ]; then
            echo "base $p $(nps "$base" "$p")" >>"$raw"
        fi
    done
done

printf '%-8s %-9s %12s %8s\n' seats search "median nps" "vs main"
for p in 3 4; do
    b=$(awk -v p="$p" '$1 == "base" && $2 == p { print $3 }' "$raw" | median)
    printf '%-8s %-9s %12.0f %8s\n' "$p" main "$b" 1.00
    for m in $methods; do
        v=$(awk -v p="$p" -v m="$m" '$1 == m && $2 == p { print $3 }' "$raw" | median)
        printf '%-8s %-9s %12.0f %8.2f\n' "$p" "$m" "$v" "$(echo "$v / $b" | bc -l)"
    done
done
