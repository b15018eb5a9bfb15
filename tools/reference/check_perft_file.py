#!/usr/bin/env python3
"""Checks every line of tests/data/perft.txt for the games that have an
independent reference here against that reference (slow depths skipped).

    tools/reference/check_perft_file.py [max_count]
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data", "perft.txt")
REFERENCES = {
    "awithlaknannai-mosona": "awithlaknannai_perft.py",
    "safari-dual": "safari_perft.py",
    "kilkenny-cats": "kilkenny_perft.py",
}


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000_000
    failures = 0
    for line in open(DATA):
        if not line.strip() or line.startswith("#"):
            continue
        game, rules, position, counts = [p.strip() for p in line.split("|")]
        script = REFERENCES.get(game)
        if not script or not os.path.exists(os.path.join(HERE, script)):
            continue
        pairs = [tuple(map(int, c.split("="))) for c in counts.split()]
        pairs = [(d, n) for d, n in pairs if n <= limit]
        if not pairs:
            continue
        depth = max(d for d, _ in pairs)
        args = [sys.executable, os.path.join(HERE, script), str(depth)] + rules.split()
        if position != "startpos":
            args.append(position)
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        got = {int(a): int(b) for a, b in (l.split() for l in out.splitlines()[:depth])}
        for d, n in pairs:
            status = "ok" if got.get(d) == n else f"MISMATCH reference {got.get(d)}"
            if status != "ok":
                failures += 1
            print(f"{game} {rules} {position} depth {d}: {n} {status}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
