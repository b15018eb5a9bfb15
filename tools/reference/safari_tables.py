#!/usr/bin/env python3
"""Independent reference for Safari-Dual's endgame tables.

Values every position of both lions and at most one elephant or giraffe
(either side's, either side to move) at every no-progress clock, by plain
backward induction over the clock, with the move generator of
safari_perft.py (written from the rules text, sharing nothing with the
engine). With so few pieces every side has lost at least three, so each
lion on its base must leave it when it can: the base rules are in every
sample.

A position whose side to move has no move is decided (a lion taken or on
the enemy base) or lost; else with the clock at 100 the game is a draw;
below 100 it is worth the best of its moves, a capture's position read at
clock 0, any other move's one clock later. It knows nothing of slices,
numbering, symmetries or the engine's walk. Prints a seeded sample of
each material as "<notation>|<value>" lines, the value for the side to
move (win, draw or loss):

    tools/reference/safari_tables.py [per material] [seed]

tests/data/safari_tables.txt holds such a sample; the suite checks that
the engine's `solve` gives each the same value from its tables.

Larger slices are past a plain induction in Python, so for them it checks
the engine's values where they meet the rules, with its own move
generator: for random positions of every material up to MEN pieces (each
side to move, random clocks), the engine's value (`solve` with the tables
in DIR) must be what the rules make of the engine's values of the
position's successors by this generator (a capture's at clock 0, any
other's one ply later; a position without moves, or at the clock's end,
by the rules alone), and the engine must list exactly this generator's
moves:

    tools/reference/safari_tables.py check ENGINE DIR MEN [per material] [seed]

It prints one line per material and exits 1 if any position disagrees.
"""
import itertools
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from safari_perft import decided, lion, moves, play  # noqa: E402

LIMIT = 100
SQUARES = [(f, r) for r in range(5) for f in range(5)]
BASE = {"R": (0, 0), "A": (4, 4)}


def other(side):
    return "A" if side == "R" else "R"


def key(board, side):
    return (tuple(sorted(board.items())), side)


def notation(board, side, clock):
    rows = []
    for rank in range(4, -1, -1):
        row, run = "", 0
        for f in range(5):
            c = board.get((f, rank))
            if c:
                row += (str(run) if run else "") + c
                run = 0
            else:
                run += 1
        rows.append(row + (str(run) if run else ""))
    return "/".join(rows) + " " + side.lower() + " " + str(clock)


def positions(helper):
    """Both lions and `helper` (a piece letter, or None), each side to move."""
    for lr, la in itertools.permutations(SQUARES, 2):
        if lr == BASE["A"] and la == BASE["R"]:
            continue  # both lions on the enemy's base: no game gets there
        rest = [s for s in SQUARES if s not in (lr, la)] if helper else [None]
        for s in rest:
            board = {lr: "L", la: "l"}
            if helper:
                board[s] = helper
            for side in "RA":
                yield board, side


def ended(board, side):
    """+1 or -1 for the side to move if it has no move, else None."""
    if moves(board, side):
        return None
    if decided(board, side):
        mine, theirs = lion(board, side), lion(board, other(side))
        won = theirs is None or mine == BASE[other(side)]
        return 1 if won else -1
    return -1


def values(groups):
    """value[(key, clock)], +1 win, 0 draw, -1 loss for the side to move;
    smaller material first, as a capture's position is read at clock 0."""
    value = {}
    for group in groups:
        graph = []
        for board, side in group:
            end = ended(board, side)
            children = []
            if end is None:
                for m in moves(board, side):
                    child = play(board, m)
                    children.append((key(child, other(side)), len(child) < len(board), child))
            graph.append((key(board, side), end, children))
        for clock in range(LIMIT, -1, -1):
            for k, end, children in graph:
                if end is not None:
                    v = end
                elif clock >= LIMIT:
                    v = 0
                else:
                    v = -1
                    for child_key, capture, child in children:
                        if capture:
                            child_end = ended(child, child_key[1])
                            w = child_end if child_end is not None else value[(child_key, 0)]
                        else:
                            w = value[(child_key, clock + 1)]
                        v = max(v, -w)
                        if v == 1:
                            break
                value[(k, clock)] = v
    return value


def materials(men):
    """The helpers (piece letters) of every material of up to `men` pieces
    with both lions, within the pieces each side starts with."""
    out = []
    for e in range(4):
        for g in range(3):
            for e2 in range(3):
                for g2 in range(4):
                    if 2 + e + g + e2 + g2 <= men:
                        out.append("E" * e + "G" * g + "e" * e2 + "g" * g2)
    return out


def random_position(rng, helpers):
    squares = rng.sample(SQUARES, 2 + len(helpers))
    board = {squares[0]: "L", squares[1]: "l"}
    for s, c in zip(squares[2:], helpers):
        board[s] = c
    return board, rng.choice("RA")


def engine_values(engine, tables, fens):
    """The engine's `solve` of each notation: (value word, {move: word}),
    in runs of 200 (the engine bounds the lines waiting behind work)."""
    answers = []
    for start in range(0, len(fens), 200):
        answers += engine_run(engine, tables, fens[start:start + 200])
    return answers


def engine_run(engine, tables, fens):
    import subprocess
    lines = [f"setoption name TablePath value {tables}", "newgame safari-dual"]
    for fen in fens:
        lines += [f"position fen {fen}", "solve"]
    out = subprocess.run([engine], input="\n".join(lines + ["quit"]) + "\n",
                         capture_output=True, text=True, check=True).stdout
    answers, moves_seen = [], {}
    for line in out.splitlines():
        if line.startswith("Value: "):
            answers.append((line.split()[1], moves_seen))
            moves_seen = {}
        elif ": " in line and not line.startswith("info"):
            mv, value = line.split(": ", 1)
            moves_seen[mv] = value.split()[0]
        elif line.startswith("info string error"):
            raise SystemExit(f"the engine refused: {line}")
    if len(answers) != len(fens):
        raise SystemExit(f"{len(answers)} answers to {len(fens)} positions")
    return answers


def name(s):
    return "abcde"[s[0]] + str(s[1] + 1)


def check(engine, tables, men, count, seed):
    rng = random.Random(seed)
    numbers = {"win": 1, "draw": 0, "loss": -1}
    bad = 0
    for helpers in materials(men):
        samples, fens = [], []
        while len(samples) < count:
            board, side = random_position(rng, helpers)
            if lion(board, "R") == BASE["A"] and lion(board, "A") == BASE["R"]:
                continue
            clock = rng.randrange(LIMIT + 1)
            children = []
            for m in moves(board, side):
                child = play(board, m)
                capture = len(child) < len(board)
                children.append((name(m[0]) + name(m[1]), child, capture))
                fens.append(notation(child, other(side), 0 if capture else min(clock + 1, LIMIT)))
            samples.append((board, side, clock, children))
            fens.append(notation(board, side, clock))
        answers = iter(engine_values(engine, tables, fens))
        wrong = 0
        for board, side, clock, children in samples:
            child_values = [next(answers) for _ in children]
            value, listed = next(answers)
            end = ended(board, side)
            if end is not None:
                expected = end
            elif clock >= LIMIT:
                expected = 0
            else:
                expected = max(-numbers[v] for v, _ in child_values)
            # A game over by the clock has no moves to list.
            playable = {c[0] for c in children} if clock < LIMIT else set()
            if numbers.get(value) != expected or set(listed) != playable:
                wrong += 1
                print(f"disagrees: {notation(board, side, clock)}: engine {value}, rules {expected}")
        bad += wrong
        label = helpers or "lions alone"
        print(f"{label}: {count} positions, {wrong} disagree")
    return bad


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "check":
        engine, tables, men = sys.argv[2], sys.argv[3], int(sys.argv[4])
        count = int(sys.argv[5]) if len(sys.argv) > 5 else 20
        seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
        sys.exit(1 if check(engine, tables, men, count, seed) else 0)
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    materials = [None, "E", "G", "e", "g"]
    groups = [list(positions(h)) for h in materials]
    value = values(groups)
    rng = random.Random(seed)
    names = {1: "win", 0: "draw", -1: "loss"}
    print(f"# tools/reference/safari_tables.py {count} {seed}")
    for group in groups:
        for board, side in rng.sample(group, count):
            clock = rng.randrange(LIMIT + 1)
            print(notation(board, side, clock) + "|" + names[value[(key(board, side), clock)]])


if __name__ == "__main__":
    main()
