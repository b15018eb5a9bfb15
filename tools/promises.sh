#!/usr/bin/env bash
# The engine's promises, measured at length (examples/promises.rs):
#   - the full matrix: every game and ruleset x Skill 0, 1, 10, 20 x Threads
#     1, 2, 4 x every kind of limit, on an idle machine and beside CPU hogs:
#     one legal bestmove per go, how far past its limit each answer came,
#     how fast isready and stop were answered;
#   - whole games on a 20 ms + 20 ms clock (and 50 ms + 1 s) beside the
#     hogs: moves past the clock and the least time left.
# Usage: tools/promises.sh [hogs]   (default 1; docs/promises.md quotes a run)
set -euo pipefail
cd "$(dirname "$0")/.."
hogs=${1:-1}
cargo build --release --bins --examples -q
p=target/release/examples/promises
status=0
$p matrix --hogs 0 || status=1
$p matrix --hogs "$hogs" || status=1
$p timing --tc 20+20 --games 3 --hogs "$hogs" || status=1
$p timing --tc 50+1000 --games 2 --hogs "$hogs" || status=1
exit $status
