#!/usr/bin/env python3
"""Independent reference for Awithlaknannai Mosona perft (RULES.md section 2).

Written from the rules text with coordinates and sets, sharing no code or
tables with the Rust engine, to cross-check its perft at small depths:

    tools/reference/awithlaknannai_perft.py [depth] [board=lined|plain] [leap=bent|straight] [notation] [--moves]

prints "depth count" for depths 1..depth, and with --moves the legal moves.
"""
import sys

MIDDLE = [(f, 2) for f in range(0, 17, 2)]
TOP = [(f, 3) for f in range(1, 16, 2)]
BOTTOM = [(f, 1) for f in range(1, 16, 2)]
POINTS = set(MIDDLE + TOP + BOTTOM)


def name(p):
    return "abcdefghijklmnopq"[p[0]] + str(p[1])


def lines(lined):
    """Every straight line of the board as a list of consecutive points."""
    result = [MIDDLE]
    if lined:
        result += [TOP, BOTTOM]
    for start in POINTS:
        for df, dr in ((1, 1), (1, -1)):
            prev = (start[0] - df, start[1] - dr)
            if prev in POINTS:
                continue
            line, p = [], start
            while p in POINTS:
                line.append(p)
                p = (p[0] + df, p[1] + dr)
            if len(line) >= 2:
                result.append(line)
    return result


def geometry(lined, straight):
    adj = {p: set() for p in POINTS}
    triples = set()
    for line in lines(lined):
        for a, b in zip(line, line[1:]):
            adj[a].add(b)
            adj[b].add(a)
        for a, b, c in zip(line, line[1:], line[2:]):
            triples.add((a, b, c))
            triples.add((c, b, a))
    return adj, triples


def parse(notation):
    fields = notation.split()
    rows = fields[0].split("/")
    board = {}
    for row, pts in zip(rows, (TOP, MIDDLE, BOTTOM)):
        cells = []
        for ch in row:
            if ch.isdigit():
                cells += [None] * int(ch)
            else:
                cells.append(ch)
        for p, c in zip(pts, cells):
            if c:
                board[p] = c
    return board, fields[1].upper()


def moves(board, side, adj, triples, straight):
    enemy = "B" if side == "W" else "W"
    chains = []

    def extend(board, at, path):
        found = False
        for b in adj[at]:
            if board.get(b) != enemy:
                continue
            for c in adj[b]:
                if c == at or c in adj[at] or c in board:
                    continue
                if straight and (at, b, c) not in triples:
                    continue
                found = True
                nb = dict(board)
                del nb[at]
                del nb[b]
                nb[c] = side
                extend(nb, c, path + [b, c])
        if not found and len(path) > 1:
            chains.append(path)

    for p, c in board.items():
        if c == side:
            extend(board, p, [p])
    if chains:
        return chains
    return [[p, q] for p, c in board.items() if c == side for q in adj[p] if q not in board]


def play(board, side, path):
    nb = dict(board)
    del nb[path[0]]
    for jumped in path[1:-1:2]:
        del nb[jumped]
    nb[path[-1]] = side
    return nb


def perft(board, side, depth, geo, straight):
    if depth == 0:
        return 1
    enemy = "B" if side == "W" else "W"
    if not any(c == enemy for c in board.values()):
        return 0  # the side to move has already taken every enemy piece
    ms = moves(board, side, *geo, straight)
    if depth == 1:
        return len(ms)
    return sum(perft(play(board, side, m), enemy, depth - 1, geo, straight) for m in ms)


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    opts = dict(a.split("=") for a in sys.argv[2:] if "=" in a)
    notation = next((a for a in sys.argv[2:] if "=" not in a and a != "--moves"), "BBBBBBBB/BBBB1WWWW/WWWWWWWW w 0")
    lined = opts.get("board", "lined") == "lined"
    straight = opts.get("leap", "bent") == "straight"
    board, side = parse(notation)
    geo = geometry(lined, straight)
    for d in range(1, depth + 1):
        print(d, perft(board, side, d, geo, straight))
    if "--moves" in sys.argv:
        for m in sorted(moves(board, side, *geo, straight)):
            print("".join(name(p) for p in m))


if __name__ == "__main__":
    main()
