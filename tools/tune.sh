#!/usr/bin/env bash
# Self-play tuning of evaluation weights through the referee: plays the
# engine with one weight changed against the engine with its defaults.
#
#   tools/tune.sh <game> <weight> <value> [games] [movetime-ms]
#   tools/tune.sh safari-dual safari.mobility 6 200 20
#
# The weights are the Tune.* options of src/tune.rs. Deterministic games
# get random openings so that games differ; results go to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
game=$1 weight=$2 value=$3 games=${4:-200} movetime=${5:-20}
engine=target/release/menagerie
[ -x "$engine" ] || cargo build --release
openings=6
[ "$game" = kilkenny-cats ] && openings=0
target/release/referee \
    --engine "$engine" name=tuned "option.Tune.$weight=$value" \
    --engine "$engine" name=default \
    --game "$game" --games "$games" --movetime "$movetime" \
    --random-openings "$openings" --seed "${SEED:-2026}" --concurrency "${CONCURRENCY:-2}" --quiet \
    | grep -E '^(Score|Elo)'
