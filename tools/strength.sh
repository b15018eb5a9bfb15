#!/usr/bin/env bash
# Strength evidence through the referee: the engine at full strength with
# 100 ms per move against Skill 0 (a uniformly random mover) and Skill 1
# (1-ply greedy), GAMES games per pairing (default 100), as a Markdown table.
#
#   tools/strength.sh [games] > tools/strength-results.md
#
# Deterministic games start from 4 random plies (each opening played twice,
# sides swapped); Kilkenny Cats gets its variety from the dice.
# BIN names another directory holding menagerie and referee (to keep
# building while a long run goes on with a copy).
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100}
bin=${BIN:-target/release}
engine=$bin/menagerie
[ -x "$engine" ] || cargo build --release
echo "| game | ruleset | opponent | games | full strength scores | W-L-D | Elo (95%) |"
echo "|---|---|---|---|---|---|---|"
for spec in "hat-diviyan-keliya|" "hat-diviyan-keliya|board=large" "awithlaknannai-mosona|" "safari-dual|" "kilkenny-cats|" "kilkenny-cats|players=3"; do
    game=${spec%%|*} rules=${spec#*|}
    openings=4
    [ "$game" = kilkenny-cats ] && openings=0
    for skill in 0 1; do
        summary=$("$bin/referee" \
            --engine "$engine" name=full \
            --engine "$engine" name=skill$skill option.Skill=$skill option.Seed=7 \
            --game "$game" $rules --games "$games" --movetime 100 \
            --random-openings "$openings" --seed 2026 --concurrency "${CONCURRENCY:-2}" --quiet)
        score=$(grep '^Score of' <<<"$summary" | sed -E 's/.*: ([0-9]+) - ([0-9]+) - ([0-9]+) +\[([0-9.]+)\].*/\1-\2-\3 \4/')
        elo=$(grep '^Elo difference' <<<"$summary" | sed -E 's/Elo difference: ([^,]*),.*/\1/')
        wld=${score% *} pct=$(awk "BEGIN { printf \"%.1f%%\", 100 * ${score#* } }")
        name=$([ "$skill" = 0 ] && echo "Skill 0 (random)" || echo "Skill 1 (greedy)")
        echo "| $game | ${rules:-default} | $name | $games | $pct | $wld | $elo |"
    done
done
