"""The part of the certificate checkers that no game owns.

`solve ... certificate PATH` writes the proof of what its proof search
settled (the format is in src/tables/certificate.rs and protocol.md).
A game's checker (awithlaknannai_certificate.py, safari_certificate.py)
gives its own rules: a move generator written from the rules text, the
game's own reading of how a position ends, its notation, and values of
small table leaves by plain backward induction. This module reads the
file with bounds, refuses what was never a proof, and walks each claim's
tree with those rules; it shares nothing with the engine.

For each claim ("seat wins", "seat cannot win") the walk starts at the
root (the start position and the moves of the header): where the side
the claim favours moves, the chosen move must be legal; where the other
side moves, the node must list every legal move, each once; a node the
rules decide (the game's own ends, or a third occurrence of the position
since the last capture) must be a rules leaf whose result agrees with
the claim, and a rules leaf must be so decided; a table leaf's value must
be the reference's, and agree with the claim. A node met again must be
the same position with the same positions since the last capture.
"""
import os
import stat
import sys

sys.setrecursionlimit(10_000)

# Most bytes read of a certificate: far above any proof written so far
# (624,538 positions took 40 MB); a larger file is refused by its size.
MOST_BYTES = 256 << 20


class Refused(Exception):
    pass


def board_key(board, side):
    return (tuple(sorted(board.items())), side)


class VerifiedTables:
    """Values of positions beyond the reference's reach, probed in a
    folder of verified tables through the `menagerie` package (a probe of
    the files, no search)."""

    def __init__(self, folder, game, ruleset, notation):
        import menagerie

        self.menagerie, self.game, self.notation = menagerie, game, notation
        self.ruleset, self.folder, self.probes = " ".join(ruleset), str(folder), 0

    def value(self, board, side, clock):
        state = self.menagerie.State(self.game, self.ruleset, self.notation(board, side, clock))
        answer = state.solve(nodes=0, tables=self.folder)
        if answer.source != "tables":
            return None
        self.probes += 1
        return {"win": 1, "draw": 0, "loss": -1}[answer.value.split()[0]]


class State:
    """A position with its no-progress clock and the positions known since
    the last capture (itself included), which the repetition rule and a
    node's identity need."""

    def __init__(self, board, side, clock, since):
        self.board, self.side, self.clock, self.since = board, side, clock, since

    def identity(self):
        return (board_key(self.board, self.side), self.clock, tuple(sorted(self.since[:-1])))

    def after(self, rules, move):
        board, capture = rules.play(self.board, self.side, move)
        enemy = rules.enemy(self.side)
        if capture:
            return State(board, enemy, 0, [board_key(board, enemy)])
        return State(board, enemy, self.clock + 1, self.since + [board_key(board, enemy)])


def decided(rules, state, legal):
    """The winner by the rules (a side, or None for a draw), or False when
    the rules do not decide the position: the game's own ends first (a
    decisive result stands over a draw rule), then threefold repetition."""
    winner = rules.winner(state.board, state.side, state.clock, legal)
    if winner is not False:
        return winner
    if state.since.count(state.since[-1]) >= 3:
        return None
    return False


def holds(claim, winner):
    seat, kind = claim
    return (winner == seat) if kind == "wins" else (winner != seat)


def table_leaf(rules, claim, node, record, state, winner):
    """Checks a `leaf table <value>` record against the reference."""
    if len(record) != 3 or record[1] != "table":
        raise Refused(f"node {node}: unknown leaf {' '.join(record[1:])}")
    if winner is not False:
        raise Refused(f"node {node}: a table leaf the rules decide")
    men = len(state.board)
    if men <= rules.TABLE_MEN:
        value = rules.value(state.board, state.side, state.clock)
    elif rules.tables is None:
        raise Refused(f"node {node}: a table leaf of {men} men, beyond the reference's {rules.TABLE_MEN} (see --tables)")
    else:
        value = rules.tables.value(state.board, state.side, state.clock)
        if value is None:
            raise Refused(f"node {node}: a table leaf of {men} men that the tables given do not hold")
    word = {1: "win", 0: "draw", -1: "loss"}[value]
    if record[2] != word:
        source = "reference" if men <= rules.TABLE_MEN else "verified tables"
        raise Refused(f"node {node}: the table says {record[2]}, the {source} {word}")
    enemy = rules.enemy(state.side)
    table_winner = state.side if value == 1 else enemy if value == -1 else None
    if not holds(claim, table_winner):
        raise Refused(f"node {node}: the table's value goes against the claim")


def check_moves(node, record, legal, favoured):
    """The moves of an inner node: one where the claim's side chooses,
    every legal move (each once) where the other side answers."""
    pairs = record[1:]
    if record[0] == "one":
        if not favoured or len(pairs) != 2:
            raise Refused(f"node {node}: one move given where every move is due")
    elif record[0] == "all":
        if favoured and len(pairs) != 2:
            raise Refused(f"node {node}: several moves given where one is chosen")
        listed = pairs[0::2]
        if sorted(listed) != sorted(legal) or len(set(listed)) != len(listed):
            raise Refused(f"node {node}: the moves listed are not every legal move")
    else:
        raise Refused(f"node {node}: unknown record {record[0]}")
    return pairs


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
            table_leaf(rules, claim, node, record, state, winner)
            continue
        if winner is not False:
            raise Refused(f"node {node}: the rules decide this position; it must be a rules leaf")
        counts["positions"] += 1
        pairs = check_moves(node, record, legal, favoured_moves(state.side))
        for i in range(0, len(pairs), 2):
            move, child = pairs[i], int(pairs[i + 1])
            if move not in legal:
                raise Refused(f"node {node}: {move} is not legal")
            after = state.after(rules, legal[move])
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


def check_ruleset(game, words):
    """The ruleset words of the header: each a key of the game's options
    with one of its values, each key once."""
    seen = set()
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or key not in game.OPTIONS:
            known = ", ".join(game.OPTIONS) or "it has none"
            raise Refused(f"ruleset word '{word}': not an option of the game ({known})")
        if value not in game.OPTIONS[key]:
            raise Refused(f"ruleset word '{word}': {key} is one of {'|'.join(game.OPTIONS[key])}")
        if key in seen:
            raise Refused(f"ruleset option {key} given twice")
        seen.add(key)


def read(path, game):
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
    if header.get("game") != [game.GAME]:
        raise Refused(f"game {' '.join(header.get('game', []))}: this checker knows {game.GAME_NAME} only")
    check_ruleset(game, header["ruleset"])
    game.check_start(header["start"])
    return header, read_claims(game, lines[5:-1])


def read_claims(game, lines):
    claims, current = [], None
    for words in lines:
        if not words:
            raise Refused("an empty line among the claims")
        if words[0] == "claim":
            if len(words) != 3 or words[2] not in ("wins", "cannot-win"):
                raise Refused(f"a bad claim: {' '.join(words)}")
            if words[1] not in game.SEATS:
                raise Refused(f"a claim for seat '{words[1]}', which the game does not have ({', '.join(game.SEATS)})")
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
    return claims


def root_state(rules, header):
    board, side = rules.parse(" ".join(header["start"]))
    # The start's clock counts plies whose positions are unknown: they
    # count for the clock, not for repetitions (as for the engine).
    state = State(board, side, int(header["start"][2]), [board_key(board, side)])
    for move in header.get("moves", []):
        legal = rules.legal(state.board, state.side)
        if move not in legal:
            raise Refused(f"header move {move} is not legal")
        state = state.after(rules, legal[move])
    return state


def main(game, program):
    """The command line of a game's checker: `program CERTIFICATE
    [--tables DIR]`; one line per claim, exit 0 when every claim holds."""
    args = sys.argv[1:]
    tables = None
    if "--tables" in args and args.index("--tables") + 1 < len(args):
        at = args.index("--tables")
        tables = args[at + 1]
        del args[at : at + 2]
    if len(args) != 1:
        print(f"usage: {program} CERTIFICATE [--tables DIR]", file=sys.stderr)
        sys.exit(2)
    try:
        if tables is not None and not os.path.isdir(tables):
            raise Refused(f"--tables {tables}: not a folder")
        header, claims = read(args[0], game)
        rules = game.Rules(header["ruleset"], tables)
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
    except (MemoryError, RecursionError, OSError, ImportError) as e:
        # Never a traceback: what the checker could not do, in a line
        # (--tables without the `menagerie` package included).
        print(f"certificate refused: cannot be checked here: {type(e).__name__}: {e}")
        sys.exit(1)
