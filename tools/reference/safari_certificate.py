#!/usr/bin/env python3
"""Independent checker of Safari-Dual proof certificates.

`solve ... certificate PATH` writes the proof of what its proof search
settled (the format is in src/tables/certificate.rs and protocol.md).
This program checks such a file with nothing of the engine: the move
generator of safari_perft.py (written from the rules text, the base
rules included), its own reading of how a game ends (a lion taken or on
the enemy base, no move, the 100-ply clock, threefold repetition), and,
for table leaves, its own values by the definition safari_tables.py's
backward induction uses (the best of the moves, a capture's position at
clock 0, the clock's end a draw; positions of the two lions and at most
one more piece, valued as needed). A table leaf of more pieces is
refused, as nothing here can value it, unless --tables names a folder
of endgame tables that `tables verify` has passed: such a leaf is then
looked up there through the `menagerie` Python package (a probe of the
verified files, no search; the package must be installed):

    tools/reference/safari_certificate.py CERTIFICATE [--tables DIR]
    tools/reference/safari_certificate.py --compare tests/data/safari_tables.txt

(the second compares its values of table leaves with a sample of the
plain induction over the clock, tools/reference/safari_tables.py's).

The walk of each claim is certificate_walk.py's, shared with the other
games' checkers. Prints one line per claim and exits 0 when every claim
holds, else prints why and exits 1. What was never a proof (a path that
is no regular file, a seat the game does not have, a start the notation
refuses by this checker's own reading, a ruleset word: Safari-Dual has
no options) is refused before any walk, and nothing it reads makes it
print a traceback.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from certificate_walk import Refused, VerifiedTables, board_key, main  # noqa: E402
from safari_perft import BASE, decided, lion, moves, name, parse, play  # noqa: E402
from safari_tables import LIMIT, notation  # noqa: E402

GAME, GAME_NAME = "safari-dual", "Safari-Dual"
# The game's seats, as certificates write them: Round and Angular.
SEATS = ("r", "a")
OPTIONS = {}
# The most pieces of each kind a side starts with (RULES.md section 3).
MOST = {"L": 1, "E": 3, "G": 2, "l": 1, "e": 2, "g": 3}


class Rules:
    TABLE_MEN = 3

    def __init__(self, ruleset, tables=None):
        self.tables = VerifiedTables(tables, GAME, ruleset, notation) if tables else None
        self._values = {}

    parse = staticmethod(parse)

    @staticmethod
    def enemy(side):
        return "A" if side == "R" else "R"

    @staticmethod
    def legal(board, side):
        return {name(m[0]) + name(m[1]): m for m in moves(board, side)}

    @staticmethod
    def play(board, side, move):
        """The board after `move`, and whether it captured."""
        after = play(board, move)
        return after, len(after) < len(board)

    def winner(self, board, side, clock, legal):
        """The game's own ends: a lion taken or standing on the enemy
        base, then no move (a loss), then the clock's end (a draw);
        False while the game goes on."""
        if decided(board, side):
            won = lion(board, self.enemy(side)) is None or lion(board, side) == BASE[self.enemy(side)]
            return side if won else self.enemy(side)
        if not legal:
            return self.enemy(side)
        if clock >= LIMIT:
            return None
        return False

    def value(self, board, side, clock):
        """+1, 0 or -1 for the side to move at `clock`, as a table defines
        it (no repetition rule: a table leaf is reached by a capture, with
        no earlier position to repeat): the best of its moves, a capture's
        position at clock 0, any other one ply later, the clock's end a
        draw. Worked out by distances over every position the quiet
        moves reach from this one (their material is this one's), so one
        walk answers every clock; see `distances`."""
        key = board_key(board, side)
        if key not in self._values:
            self._values.update(self.distances(board, side))
        won, lost = self._values[key]
        if won is not None and won <= LIMIT - clock:
            return 1
        if lost is not None and lost <= LIMIT - clock:
            return -1
        return 0

    def exit_value(self, board, side):
        """The value at clock 0 of a position after a capture, for its side
        to move: decided by the rules, or by the same definition."""
        result = self.winner(board, side, 0, moves(board, side))
        if result is not False:
            return 0 if result is None else 1 if result == side else -1
        return self.value(board, side, 0)

    def distances(self, board, side):
        """For every position the quiet moves reach from (board, side)
        and that no earlier walk settled: (plies to a forced win, plies to
        a forced loss), None where it has none. A position with `clock`
        to go wins (loses) exactly when its win (loss) comes within
        LIMIT - clock plies, as each ply before it is played below the
        limit. The winner takes the shortest win, the loser the longest
        loss; a move into a draw, or any winning move, keeps a position
        from losing. A capture's position is read at clock 0, so it
        counts as settled at once (its value, 0 plies away). Positions
        are settled level by level in order of plies."""
        children = self.closure(board, side)
        parents, open_moves, longest, holds_out = {}, {}, {}, set()
        levels = {}
        for key, kids in children.items():
            if not isinstance(kids, list):
                levels.setdefault(0, []).append((key, "win" if kids == key[1] else "loss"))
                continue
            open_moves[key], longest[key], win = 0, 0, None
            for kind, kid in kids:
                if kind == "open":
                    parents.setdefault(kid, []).append(key)
                    open_moves[key] += 1
                    continue
                won, lost = kid
                if lost is not None:
                    win = lost + 1 if win is None else min(win, lost + 1)
                elif won is not None:
                    longest[key] = max(longest[key], won + 1)
                else:
                    holds_out.add(key)
            if win is not None:
                holds_out.add(key)
                levels.setdefault(win, []).append((key, "win"))
            elif open_moves[key] == 0 and key not in holds_out:
                levels.setdefault(longest[key], []).append((key, "loss"))
        final, depth = {}, 0
        while levels:
            for key, kind in levels.pop(depth, []):
                if key in final:
                    continue
                final[key] = (depth, None) if kind == "win" else (None, depth)
                for parent in parents.get(key, []):
                    if parent in final:
                        continue
                    if kind == "loss":
                        levels.setdefault(depth + 1, []).append((parent, "win"))
                        continue
                    open_moves[parent] -= 1
                    longest[parent] = max(longest[parent], depth + 1)
                    if open_moves[parent] == 0 and parent not in holds_out:
                        levels.setdefault(longest[parent], []).append((parent, "loss"))
            depth += 1
        return {key: final.get(key, (None, None)) for key in children}

    def closure(self, board, side):
        """Each position the quiet moves reach from (board, side) and not
        yet settled: the winner if the rules decide it, else its moves as
        ("open", position) or ("settled", (won, lost)) for a capture's
        position or one an earlier walk settled."""
        root = board_key(board, side)
        found, order, children = {root: (board, side)}, [root], {}
        for key in order:
            here, mover = found[key]
            legal = moves(here, mover)
            result = self.winner(here, mover, 0, legal)
            if result is not False:
                children[key] = result
                continue
            enemy, kids = self.enemy(mover), []
            for move in legal:
                child, capture = self.play(here, mover, move)
                ckey = board_key(child, enemy)
                if capture:
                    value = self.exit_value(child, enemy)
                    kids.append(("settled", {1: (0, None), -1: (None, 0), 0: (None, None)}[value]))
                elif ckey in self._values:
                    kids.append(("settled", self._values[ckey]))
                else:
                    if ckey not in found:
                        found[ckey] = (child, enemy)
                        order.append(ckey)
                    kids.append(("open", ckey))
            children[key] = kids
        return children


def check_start(words):
    """The start as the game's notation has it, by this checker's own
    reading: five rows of five squares (digits for runs of empty squares,
    L E G for Round's pieces, l e g for Angular's), no more of a kind
    than a side starts with, a lion on the board that no side has
    already won with twice over, the side to move r or a, and a
    no-progress clock of 0 to the limit."""
    shown = " ".join(words)
    if len(words) != 3:
        raise Refused(f"start '{shown}': a board, a side and a clock, not {len(words)} fields")
    board, side, clock = words
    rows = board.split("/")
    if len(rows) != 5:
        raise Refused(f"start '{shown}': {len(rows)} rows, not 5")
    pieces = {kind: 0 for kind in MOST}
    for number, row in enumerate(rows, 1):
        count = 0
        for ch in row:
            if ch in "12345":
                count += int(ch)
            elif ch in MOST:
                pieces[ch] += 1
                count += 1
            else:
                raise Refused(f"start '{shown}': row {number} has '{ch}'")
        if count != 5:
            raise Refused(f"start '{shown}': row {number} has {count} squares, not 5")
    for kind, n in pieces.items():
        if n > MOST[kind]:
            raise Refused(f"start '{shown}': {n} '{kind}', more than {MOST[kind]}")
    if pieces["L"] + pieces["l"] == 0:
        raise Refused(f"start '{shown}': no lion")
    if side not in SEATS:
        raise Refused(f"start '{shown}': side '{side}', not r or a")
    if not clock.isdigit() or not 0 <= int(clock) <= LIMIT:
        raise Refused(f"start '{shown}': clock '{clock}', not 0 to {LIMIT}")
    placed, _ = parse(board + " r")
    lions = {s: lion(placed, s) for s in "RA"}
    if lions["R"] == BASE["A"] and lions["A"] == BASE["R"]:
        raise Refused(f"start '{shown}': both lions on the enemy base")


def compare(path):
    """Checks this checker's values of table leaves against a sample of
    the plain induction over the clock (`safari_tables.py`'s
    "<notation>|<value>" lines): prints the count and exits 1 if any
    differs."""
    rules, count, differ = Rules([]), 0, 0
    with open(path) as lines:
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            fen, want = line.strip().split("|")
            board, side = parse(fen)
            got = {1: "win", 0: "draw", -1: "loss"}[rules.value(board, side, int(fen.split()[2]))]
            count += 1
            if got != want:
                differ += 1
                print(f"differs: {fen}: induction {want}, checker {got}")
    print(f"{count} samples, {differ} differ")
    sys.exit(1 if differ or not count else 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"] and len(sys.argv) == 3:
        compare(sys.argv[2])
    main(sys.modules[__name__], "safari_certificate.py")
