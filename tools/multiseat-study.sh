#!/usr/bin/env bash
# The multi-seat study of Kilkenny Cats (tools/multiseat-study.md): every
# MultiSeat method alone against the greedy player (Skill 1) in every
# other seat, and against today's paranoid search, at 3 and 4 seats, in
# lone seating at a fixed node count per move, so that the machine's load
# decides nothing. Each match's summary and JSON go to the output folder;
# a table of shares is printed at the end.
#
#   tools/multiseat-study.sh [--sets N] [--nodes N] [--seed S] [--out DIR]
#                            [--methods "paranoid brs brs-plus maxn mcts greedy"]
#                            [--players "3 4"] [--only greedy|paranoid]
#
# Against paranoid, a match stops when its SPRT decides (elo0=0 elo1=15
# against each other seat, alpha=beta=0.05) or after --sets sets.
set -euo pipefail
cd "$(dirname "$0")/.."

sets=400 nodes=20000 seed=2026 out=target/multiseat-study
methods="paranoid brs brs-plus maxn" players="3 4" only=""
while [ $# -gt 0 ]; do
    case $1 in
        --sets) sets=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --methods) methods=$2; shift 2 ;;
        --players) players=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
engine=${ENGINE:-target/release/menagerie}
referee=${REFEREE:-target/release/referee}
[ -x "$engine" ] && [ -x "$referee" ] || cargo build --release --quiet
mkdir -p "$out"

# match NAME PLAYERS OPPONENT-SETTINGS... : one lone-seating match.
match() {
    local name=$1 p=$2 method=$3; shift 3
    # The greedy model must not share its name with the greedy players.
    local label=$method
    [ "$method" != greedy ] || label=greedy-model
    "$referee" --engine "$engine" "name=$label" "option.MultiSeat=$method" \
        --engine "$engine" "$@" \
        --game kilkenny-cats "players=$p" --seating lone --games $((sets * p)) \
        --nodes "$nodes" --random-openings 2 --seed "$seed" \
        --concurrency "${CONCURRENCY:-2}" --quiet ${SPRT:+--sprt $SPRT} \
        --record "$out/$name.records" --json "$out/$name.json" >"$out/$name.txt"
}

for p in $players; do
    for method in $methods; do
        if [ "$only" != paranoid ]; then
            rm -f "$out/greedy-$p-$method.records"
            match "greedy-$p-$method" "$p" "$method" name=greedy option.Skill=1
        fi
        if [ "$only" != greedy ] && [ "$method" != paranoid ]; then
            rm -f "$out/paranoid-$p-$method.records"
            SPRT="elo0=0 elo1=15 alpha=0.05 beta=0.05" \
                match "paranoid-$p-$method" "$p" "$method" name=paranoid option.MultiSeat=paranoid
        fi
    done
done

printf '%-28s %s\n' match "share of the lone engine (par 1/N), Elo against each other seat"
for f in "$out"/*.txt; do
    printf '%-28s %s\n' "$(basename "$f" .txt)" \
        "$(grep -h '^Share' "$f" | sed 's/^Share of wins of [^ ]* alone: //') $(grep -h '^SPRT' "$f" || true)"
done
