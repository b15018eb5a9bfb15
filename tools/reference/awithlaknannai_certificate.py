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

For each claim ("seat wins", "seat cannot win") it walks the tree from
the root (the start position and the moves of the header): where the
side the claim favours moves, the chosen move must be legal; where the
other side moves, the node must list every legal move, each once; a
node the rules decide (no move for the side to move, the clock at its
limit, a third occurrence of the position since the last capture) must
be a rules leaf whose result agrees with the claim, and a rules leaf
must be so decided; a table leaf's value must be the reference's, and
agree with the claim. A node met again must be the same position with
the same positions since the last capture. Prints one line per claim
and exits 0 when every claim holds, else prints why and exits 1.

What was never a proof is refused before any walk: a path that is not a
regular file (opened without blocking) or is larger than MOST_BYTES, a
claim for a seat the game does not have, a start the game's notation
refuses (its rows, men, side and clock read here by this checker's own
rules), and ruleset words outside the game's options. Nothing it reads
makes it print a traceback.
"""
import os
import stat
import sys

sys.setrecursionlimit(10_000)
sys.path.insert(0, __import__("os").path.dirname(__file__))
from awithlaknannai_perft import geometry, moves, name, parse, play  # noqa: E402
from awithlaknannai_tables import LIMIT, notation  # noqa: E402

TABLE_MEN = 3
# The game's seats, as certificates write them.
SEATS = ("w", "b")
# The ruleset options of the game and their values (RULES.md section 2).
OPTIONS = {"board": ("lined", "plain"), "leap": ("bent", "straight"), "ending": ("draw", "count")}
# Points of the board's rows, top to bottom, and most men of a side.
ROW_POINTS = (8, 9, 8)
MOST_MEN = 12
# Most bytes read of a certificate: far above any proof written so far
# (29,555 positions took 2 MB); a larger file is refused by its size.
MOST_BYTES = 256 << 20


class Refused(Exception):
    pass


def board_key(board, side):
    return (tuple(sorted(board.items())), side)


def move_name(path):
    return "".join(name(p) for p in path)


class VerifiedTables:
    """Values of positions beyond the reference's reach, probed in a
    folder of verified tables through the `menagerie` package."""

    def __init__(self, folder, ruleset):
        import menagerie

        self.menagerie, self.ruleset, self.probes = menagerie, " ".join(ruleset), 0
        self.folder = str(folder)

    def value(self, board, side, clock):
        state = self.menagerie.State("awithlaknannai-mosona", self.ruleset, notation(board, side, clock))
        answer = state.solve(nodes=0, tables=self.folder)
        if answer.source != "tables":
            return None
        self.probes += 1
        return {"win": 1, "draw": 0, "loss": -1}[answer.value.split()[0]]


class Rules:
    def __init__(self, ruleset, tables=None):
        self.tables = VerifiedTables(tables, ruleset) if tables else None
        opts = dict(w.split("=") for w in ruleset)
        self.lined = opts.get("board", "lined") == "lined"
        self.straight = opts.get("leap", "bent") == "straight"
        self.by_count = opts.get("ending", "draw") == "count"
        self.geo = geometry(self.lined, self.straight)
        self._values = {}

    def legal(self, board, side):
        return {move_name(m): m for m in moves(board, side, *self.geo, self.straight)}

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
        enemy = "B" if side == "W" else "W"
        paths = moves(board, side, *self.geo, self.straight)
        if not paths:
            v = -1
        elif clock >= LIMIT:
            own = sum(1 for c in board.values() if c == side)
            other = len(board) - own
            v = (own > other) - (own < other) if self.by_count else 0
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


class State:
    """A position with its no-progress clock and the positions known since
    the last capture (itself included), which the repetition rule and a
    node's identity need."""

    def __init__(self, board, side, clock, since):
        self.board, self.side, self.clock, self.since = board, side, clock, since

    def identity(self):
        return (board_key(self.board, self.side), self.clock, tuple(sorted(self.since[:-1])))

    def after(self, path):
        enemy = "B" if self.side == "W" else "W"
        board = play(self.board, self.side, path)
        if len(path) > 2:
            return State(board, enemy, 0, [board_key(board, enemy)])
        return State(board, enemy, self.clock + 1, self.since + [board_key(board, enemy)])


def decided(rules, state, legal):
    """The winner by the rules ("W", "B" or None for a draw), or False
    when the rules do not decide the position."""
    enemy = "B" if state.side == "W" else "W"
    if not legal:
        return enemy
    if state.clock >= LIMIT:
        if not rules.by_count:
            return None
        own = sum(1 for c in state.board.values() if c == state.side)
        other = len(state.board) - own
        return state.side if own > other else enemy if own < other else None
    if state.since.count(state.since[-1]) >= 3:
        return None
    return False


def holds(claim, winner):
    seat, kind = claim
    return (winner == seat) if kind == "wins" else (winner != seat)


def check_claim(rules, claim, nodes, root):
    seat, kind = claim
    favoured_moves = {"wins": lambda side: side == seat, "cannot-win": lambda side: side != seat}[kind]
    seen = {0: root.identity()}
    stack = [(0, root)]
    counts = {"positions": 0, "leaves": 0}
    while stack:
        node, state = stack.pop()
        if node not in nodes:
            raise Refused(f"node {node} is referred to but not given")
        record = nodes[node]
        legal = rules.legal(state.board, state.side)
        winner = decided(rules, state, legal)
        if record[0] == "leaf":
            counts["leaves"] += 1
            if record[1:] == ["rules"]:
                if winner is False:
                    raise Refused(f"node {node}: a rules leaf the rules do not decide")
                if not holds(claim, winner):
                    raise Refused(f"node {node}: the rules' result goes against the claim")
                continue
            if len(record) != 3 or record[1] != "table":
                raise Refused(f"node {node}: unknown leaf {' '.join(record[1:])}")
            if winner is not False:
                raise Refused(f"node {node}: a table leaf the rules decide")
            men = len(state.board)
            if men <= TABLE_MEN:
                value = rules.value(state.board, state.side, state.clock)
            elif rules.tables is None:
                raise Refused(f"node {node}: a table leaf of {men} men, beyond the reference's {TABLE_MEN} (see --tables)")
            else:
                value = rules.tables.value(state.board, state.side, state.clock)
                if value is None:
                    raise Refused(f"node {node}: a table leaf of {men} men that the tables given do not hold")
            word = {1: "win", 0: "draw", -1: "loss"}[value]
            if record[2] != word:
                source = "reference" if men <= TABLE_MEN else "verified tables"
                raise Refused(f"node {node}: the table says {record[2]}, the {source} {word}")
            enemy = "B" if state.side == "W" else "W"
            table_winner = state.side if value == 1 else enemy if value == -1 else None
            if not holds(claim, table_winner):
                raise Refused(f"node {node}: the table's value goes against the claim")
            continue
        if winner is not False:
            raise Refused(f"node {node}: the rules decide this position; it must be a rules leaf")
        counts["positions"] += 1
        pairs = record[1:]
        if record[0] == "one":
            if not favoured_moves(state.side) or len(pairs) != 2:
                raise Refused(f"node {node}: one move given where every move is due")
        elif record[0] == "all":
            if favoured_moves(state.side) and len(pairs) != 2:
                raise Refused(f"node {node}: several moves given where one is chosen")
            listed = pairs[0::2]
            if sorted(listed) != sorted(legal) or len(set(listed)) != len(listed):
                raise Refused(f"node {node}: the moves listed are not every legal move")
        else:
            raise Refused(f"node {node}: unknown record {record[0]}")
        for i in range(0, len(pairs), 2):
            move, child = pairs[i], int(pairs[i + 1])
            if move not in legal:
                raise Refused(f"node {node}: {move} is not legal")
            after = state.after(legal[move])
            if child in seen:
                if seen[child] != after.identity():
                    raise Refused(f"node {child}: reached as two different positions")
                continue
            seen[child] = after.identity()
            stack.append((child, after))
    return counts


def read_bounded(path):
    """The text of the regular file at `path`: opened without blocking (a
    FIFO or a device never holds the checker up), refused by its size
    past MOST_BYTES, and refused unless it is UTF-8."""
    kinds = [(stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket")]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise Refused(f"cannot read {path}: {e.strerror}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = next((word for test, word in kinds if test(info.st_mode)), "not a file")
            raise Refused(f"{path}: is {what}, not a regular file")
        if info.st_size > MOST_BYTES:
            raise Refused(f"{path}: {info.st_size} bytes, more than the {MOST_BYTES} a certificate may hold")
        chunks, size = [], 0
        while size <= MOST_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MOST_BYTES:
            raise Refused(f"{path}: more than the {MOST_BYTES} bytes a certificate may hold")
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path}: bytes that are not UTF-8")


def check_ruleset(words):
    """The ruleset words of the header: each a key of the game's options
    with one of its values, each key once."""
    seen = set()
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or key not in OPTIONS:
            raise Refused(f"ruleset word '{word}': not an option of the game ({', '.join(OPTIONS)})")
        if value not in OPTIONS[key]:
            raise Refused(f"ruleset word '{word}': {key} is one of {'|'.join(OPTIONS[key])}")
        if key in seen:
            raise Refused(f"ruleset option {key} given twice")
        seen.add(key)


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


def read(path):
    lines = [line.split() for line in read_bounded(path).splitlines()]
    if not lines or lines[0] != ["menagerie-certificate", "1"]:
        raise Refused("not a menagerie certificate (version 1)")
    if lines[-1] != ["end"]:
        raise Refused("the file does not end with 'end': cut short")
    header = {}
    for words in lines[1:5]:
        if words:
            header[words[0]] = words[1:]
    for key in ("game", "ruleset", "start", "moves"):
        if key not in header:
            raise Refused(f"the header has no '{key}' line")
    if header.get("game") != ["awithlaknannai-mosona"]:
        raise Refused(f"game {' '.join(header.get('game', []))}: this checker knows Awithlaknannai Mosona only")
    check_ruleset(header["ruleset"])
    check_start(header["start"])
    claims, current = [], None
    for words in lines[5:-1]:
        if not words:
            raise Refused("an empty line among the claims")
        if words[0] == "claim":
            if len(words) != 3 or words[2] not in ("wins", "cannot-win"):
                raise Refused(f"a bad claim: {' '.join(words)}")
            if words[1] not in SEATS:
                raise Refused(f"a claim for seat '{words[1]}', which the game does not have (w, b)")
            current = {}
            claims.append(((words[1].upper(), words[2]), current))
        elif current is None:
            raise Refused("a node before any claim")
        else:
            node = int(words[0])
            if node in current:
                raise Refused(f"node {node} given twice")
            current[node] = words[1:]
    if not claims:
        raise Refused("no claim")
    return header, claims


def root_state(rules, header):
    board, side = parse(" ".join(header["start"]))
    # The start's clock counts plies whose positions are unknown: they
    # count for the clock, not for repetitions (as for the engine).
    state = State(board, side, int(header["start"][2]), [board_key(board, side)])
    for move in header.get("moves", []):
        legal = rules.legal(state.board, state.side)
        if move not in legal:
            raise Refused(f"header move {move} is not legal")
        state = state.after(legal[move])
    return state


def main():
    args = sys.argv[1:]
    tables = None
    if "--tables" in args and args.index("--tables") + 1 < len(args):
        at = args.index("--tables")
        tables = args[at + 1]
        del args[at : at + 2]
    if len(args) != 1:
        print("usage: awithlaknannai_certificate.py CERTIFICATE [--tables DIR]", file=sys.stderr)
        sys.exit(2)
    try:
        if tables is not None and not os.path.isdir(tables):
            raise Refused(f"--tables {tables}: not a folder")
        header, claims = read(args[0])
        rules = Rules(header["ruleset"], tables)
        root = root_state(rules, header)
        for claim, nodes in claims:
            if rules.tables:
                rules.tables.probes = 0
            counts = check_claim(rules, claim, nodes, root)
            probed = f"; {rules.tables.probes} leaves from the verified tables" if rules.tables else ""
            print(f"claim {claim[0].lower()} {claim[1]}: holds ({counts['positions']} positions, {counts['leaves']} leaves{probed})")
    except Refused as why:
        print(f"certificate refused: {why}")
        sys.exit(1)
    except (ValueError, IndexError, KeyError) as e:
        # A line that is not a record of the format (a word missing, a
        # node id that is no number, a header line left out).
        print(f"certificate refused: malformed: {type(e).__name__}: {e}")
        sys.exit(1)
    except (MemoryError, RecursionError, OSError) as e:
        # Never a traceback: what the checker could not do, in a line.
        print(f"certificate refused: cannot be checked here: {type(e).__name__}: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
