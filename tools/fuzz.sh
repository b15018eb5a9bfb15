#!/usr/bin/env bash
# Fuzzes the engine binary with random sessions for a while (default: an
# hour), checking its promises on each (examples/fuzz_engine.rs says
# which). A failing session is written to $TMPDIR/menagerie-fuzz with its
# seed, and the script exits 1.
#
#   tools/fuzz.sh [minutes] [seed]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-60}"
seed="${2:-$(date +%s)}"
cargo build --release --bin menagerie --example fuzz_engine
echo "fuzzing for $minutes minutes from seed $seed"
exec target/release/examples/fuzz_engine --minutes "$minutes" --seed "$seed" \
    --engine target/release/menagerie
