#!/usr/bin/env python3
"""Independent reference for Awithlaknannai Mosona's endgame tables.

Values every position of at most 3 men (both sides to move) at every
no-progress clock by plain backward induction over the clock, with the
move generator of awithlaknannai_perft.py (written from the rules text,
sharing nothing with the engine): with the clock at 50 the game is over
(a draw, or with ending=count a win for the side with more men) unless the
side to move has no move or no men; below 50 a position is worth the best
of its moves, a capture's position read at clock 0, any other move's one
clock later. It knows nothing of slices, numbering, symmetries or the
engine's walk. Prints a seeded sample as "<notation>|<value>" lines, the
value for the side to move (win, draw or loss):

    tools/reference/awithlaknannai_tables.py [board=lined|plain] [leap=bent|straight] [ending=draw|count] [count] [seed]

tests/data/awithlaknannai_tables.txt holds samples of two rulesets; the
suite checks that the engine's `solve` gives each the same value.
"""
import itertools
import random
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from awithlaknannai_perft import BOTTOM, MIDDLE, POINTS, TOP, geometry, moves, play  # noqa: E402

LIMIT = 50
ORDER = sorted(POINTS)
SLICES = [(1, 1), (2, 1), (1, 2)]


def key(board, side):
    return (tuple(sorted((p, c) for p, c in board.items())), side)


def notation(board, side, clock):
    rows = []
    for pts in (TOP, MIDDLE, BOTTOM):
        row, run = "", 0
        for p in pts:
            c = board.get(p)
            if c:
                row += (str(run) if run else "") + c
                run = 0
            else:
                run += 1
        rows.append(row + (str(run) if run else ""))
    return "/".join(rows) + " " + side.lower() + " " + str(clock)


def positions(white, black):
    for ws in itertools.combinations(ORDER, white):
        rest = [p for p in ORDER if p not in ws]
        for bs in itertools.combinations(rest, black):
            board = {p: "W" for p in ws}
            board.update({p: "B" for p in bs})
            for side in "WB":
                yield board, side


def values(lined, straight, by_count):
    """value[(key, clock)] for every position of at most 3 men: +1 win,
    0 draw, -1 loss for the side to move."""
    geo = geometry(lined, straight)
    value = {}
    for white, black in SLICES:
        group = list(positions(white, black))
        for clock in range(LIMIT, -1, -1):
            for board, side in group:
                enemy = "B" if side == "W" else "W"
                ms = moves(board, side, *geo, straight)
                if not ms:
                    v = -1
                elif clock >= LIMIT:
                    own = sum(1 for c in board.values() if c == side)
                    other = len(board) - own
                    v = (own > other) - (own < other) if by_count else 0
                else:
                    v = -1
                    for m in ms:
                        child = play(board, side, m)
                        if len(m) > 2:
                            if not any(c == enemy for c in child.values()):
                                v = 1
                            else:
                                v = max(v, -value[(key(child, enemy), 0)])
                        else:
                            v = max(v, -value[(key(child, enemy), clock + 1)])
                        if v == 1:
                            break
                value[(key(board, side), clock)] = v
    return value


def main():
    opts = dict(a.split("=") for a in sys.argv[1:] if "=" in a)
    rest = [a for a in sys.argv[1:] if "=" not in a]
    count = int(rest[0]) if rest else 200
    seed = int(rest[1]) if len(rest) > 1 else 1
    lined = opts.get("board", "lined") == "lined"
    straight = opts.get("leap", "bent") == "straight"
    by_count = opts.get("ending", "draw") == "count"
    value = values(lined, straight, by_count)
    rng = random.Random(seed)
    names = {1: "win", 0: "draw", -1: "loss"}
    sample = []
    for white, black in SLICES:
        sample += list(positions(white, black))
    for board, side in rng.sample(sample, count):
        clock = rng.randrange(LIMIT + 1)
        print(notation(board, side, clock) + "|" + names[value[(key(board, side), clock)]])


if __name__ == "__main__":
    main()
