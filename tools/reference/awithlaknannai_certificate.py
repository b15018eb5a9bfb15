#!/usr/bin/env python3
"""Independent checker of Awithlaknannai Mosona proof certificates.

`solve ... certificate PATH` writes the proof of what its proof search
settled (the format is in src/tables/certificate.rs and protocol.md).
This program checks such a file with nothing of the engine: the move
generator of awithlaknannai_perft.py (written from the rules text), its
own reading of the draw rules, and, for table leaves, its own values by
the definition awithlaknannai_tables.py's backward induction uses (the
best of the moves, the clock's end a draw or a count; positions of at
most 3 men, valued as needed). A table leaf of more men is refused, as
nothing here can value it, unless --tables names a folder of endgame
tables that `tables verify` has passed: such a leaf is then looked up
there through the `menagerie` Python package (a probe of the verified
files, no search; the package must be installed):

    tools/reference/awithlaknannai_certificate.py CERTIFICATE [--tables DIR]

The walk of each claim is certificate_walk.py's, shared with the other
games' checkers. Prints one line per claim and exits 0 when every claim
holds, else prints why and exits 1.

What was never a proof is refused before any walk: a path that is not a
regular file (opened without blocking) or is larger than the walk's
bound, a claim for a seat the game does not have, a start the game's
notation refuses (its rows, men, side and clock read here by this
checker's own rules), and ruleset words outside the game's options.
Nothing it reads makes it print a traceback.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from awithlaknannai_perft import geometry, moves, name, parse, play  # noqa: E402
from awithlaknannai_tables import LIMIT, notation  # noqa: E402
from certificate_walk import Refused, VerifiedTables, board_key, main  # noqa: E402

GAME, GAME_NAME = "awithlaknannai-mosona", "Awithlaknannai Mosona"
# The game's seats, as certificates write them.
SEATS = ("w", "b")
# The ruleset options of the game and their values (RULES.md section 2).
OPTIONS = {"board": ("lined", "plain"), "leap": ("bent", "straight"), "ending": ("draw", "count")}
# Points of the board's rows, top to bottom, and most men of a side.
ROW_POINTS = (8, 9, 8)
MOST_MEN = 12


def move_name(path):
    return "".join(name(p) for p in path)


class Rules:
    TABLE_MEN = 3

    def __init__(self, ruleset, tables=None):
        self.tables = VerifiedTables(tables, GAME, ruleset, notation) if tables else None
        opts = dict(w.split("=") for w in ruleset)
        self.lined = opts.get("board", "lined") == "lined"
        self.straight = opts.get("leap", "bent") == "straight"
        self.by_count = opts.get("ending", "draw") == "count"
        self.geo = geometry(self.lined, self.straight)
        self._values = {}

    parse = staticmethod(parse)

    @staticmethod
    def enemy(side):
        return "B" if side == "W" else "W"

    def legal(self, board, side):
        return {move_name(m): m for m in moves(board, side, *self.geo, self.straight)}

    @staticmethod
    def play(board, side, path):
        """The board after `path`, and whether it captured."""
        return play(board, side, path), len(path) > 2

    def count(self, board, side):
        """The result when the clock runs out: a draw, or with
        ending=count the side with more men."""
        if not self.by_count:
            return None
        own = sum(1 for c in board.values() if c == side)
        other = len(board) - own
        return side if own > other else self.enemy(side) if own < other else None

    def winner(self, board, side, clock, legal):
        """The game's own ends: no move loses, the clock's end is a draw
        (or the count); False while the game goes on."""
        if not legal:
            return self.enemy(side)
        if clock >= LIMIT:
            return self.count(board, side)
        return False

    def value(self, board, side, clock):
        """+1, 0 or -1 for the side to move, as a table defines it (no
        repetition rule: a table leaf is reached by a capture, with no
        earlier position to repeat): the best of its moves, a capture's
        position at clock 0, any other one ply later; no move a loss;
        the clock at its limit a draw (or the count). Every move either
        captures or advances the clock, so the recursion ends."""
        memo = (board_key(board, side), clock)
        if memo in self._values:
            return self._values[memo]
        enemy = self.enemy(side)
        paths = moves(board, side, *self.geo, self.straight)
        if not paths:
            v = -1
        elif clock >= LIMIT:
            result = self.count(board, side)
            v = 0 if result is None else 1 if result == side else -1
        else:
            v = -1
            for path in paths:
                child = play(board, side, path)
                capture = len(path) > 2
                v = max(v, -self.value(child, enemy, 0 if capture else clock + 1))
                if v == 1:
                    break
        self._values[memo] = v
        return v


def check_start(words):
    """The start as the game's notation has it, by this checker's own
    reading: three rows of 8, 9 and 8 points (digits for runs of empty
    points, W and B for men), at most 12 men a side, the side to move w
    or b, and a no-progress clock of 0 to the limit."""
    if len(words) != 3:
        raise Refused(f"start '{' '.join(words)}': a board, a side and a clock, not {len(words)} fields")
    board, side, clock = words
    rows = board.split("/")
    if len(rows) != len(ROW_POINTS):
        raise Refused(f"start '{' '.join(words)}': {len(rows)} rows, not {len(ROW_POINTS)}")
    men = {"W": 0, "B": 0}
    for number, (row, points) in enumerate(zip(rows, ROW_POINTS), 1):
        count = 0
        for ch in row:
            if ch in "12345678" or (ch == "9" and points == 9):
                count += int(ch)
            elif ch in men:
                men[ch] += 1
                count += 1
            else:
                raise Refused(f"start '{' '.join(words)}': row {number} has '{ch}'")
        if count != points:
            raise Refused(f"start '{' '.join(words)}': row {number} has {count} points, not {points}")
    for colour, n in men.items():
        if n > MOST_MEN:
            raise Refused(f"start '{' '.join(words)}': {n} {colour} men, more than {MOST_MEN}")
    if side not in SEATS:
        raise Refused(f"start '{' '.join(words)}': side '{side}', not w or b")
    if not clock.isdigit() or not 0 <= int(clock) <= LIMIT:
        raise Refused(f"start '{' '.join(words)}': clock '{clock}', not 0 to {LIMIT}")


if __name__ == "__main__":
    main(sys.modules[__name__], "awithlaknannai_certificate.py")
