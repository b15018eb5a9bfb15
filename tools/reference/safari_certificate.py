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
        """For every position the quiet moves reach from (board, side):
        (plies to a forced win, plies to a forced loss), None where it has
        none. A position with `clock` to go wins (loses) exactly when its
        win (loss) comes within LIMIT - clock plies: each of the plies
        before it is played below the limit. The winner takes the
        shortest win, the loser the longest loss; a move into a draw (or
        a capture into one) keeps a position from losing. Positions are
        settled in order of distance, so the last losing move to settle
        is the longest."""
        found, order, children = {board_key(board, side): (board, side)}, [board_key(board, side)], {}
        for key in order:
            here, mover = found[key]
            legal = moves(here, mover)
            result = self.winner(here, mover, 0, legal)
            kids = []
            if result is False:
                for move in legal:
                    child, capture = self.play(here, mover, move)
                    ckey = board_key(child, self.enemy(mover))
                    if capture:
                        kids.append(("exit", self.exit_value(child, self.enemy(mover))))
                        continue
                    if ckey not in found:
                        found[ckey] = (child, self.enemy(mover))
                        order.append(ckey)
                    kids.append(("quiet", ckey))
            children[key] = (result, kids)
        parents = {key: [] for key in order}
        for key, (_, kids) in children.items():
            for kind, ckey in kids:
                if kind == "quiet":
                    parents[ckey].append(key)
        dist = {key: (None, None) for key in order}
        open_moves = {key: len(children[key][1]) for key in order}
        level = []
        for key, (result, kids) in children.items():
            mover = key[1]
            if result is not False:
                # Decided by the rules: a draw here is the clock's, which
                # the walk's own clock already answers.
                if result is not None:
                    dist[key] = (0, None) if result == mover else (None, 0)
                    level.append(key)
                continue
            exits = [v for kind, v in kids if kind == "exit"]
            if -1 in exits:
                dist[key] = (1, None)
            open_moves[key] -= len(exits)
            if 0 in exits or 1 in exits:
                open_moves[key] = -1  # a move that does not lose: never lost
        settled_at = {}
        for key in order:
            if dist[key][0] == 1:
                settled_at.setdefault(1, []).append(key)
            elif open_moves[key] == 0 and children[key][0] is False:
                # Every move is a capture into the opponent's win.
                dist[key] = (None, 1)
                settled_at.setdefault(1, []).append(key)
        settled_at.setdefault(0, []).extend(level)
        depth = 0
        while depth in settled_at or any(d > depth for d in settled_at):
            for key in settled_at.get(depth, []):
                won, lost = dist[key]
                for parent in parents[key]:
                    if dist[parent] != (None, None):
                        continue
                    if lost == depth:
                        dist[parent] = (depth + 1, None)
                        settled_at.setdefault(depth + 1, []).append(parent)
                    elif won == depth:
                        open_moves[parent] -= 1
                        if open_moves[parent] == 0:
                            dist[parent] = (None, depth + 1)
                            settled_at.setdefault(depth + 1, []).append(parent)
            depth += 1
        return dist


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


if __name__ == "__main__":
    main(sys.modules[__name__], "safari_certificate.py")
