#!/usr/bin/env python3
"""Independent reference for Safari-Dual perft (RULES.md section 3).

Written from the rules text with plain dictionaries, sharing nothing with
the Rust engine, to cross-check its move generation and captures:

    tools/reference/safari_perft.py [depth] [notation] [--moves]
"""
import sys

DIRS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
BASE = {"R": (0, 0), "A": (4, 4)}


def owner(c):
    return "R" if c.isupper() else "A"


def pairs(p, q):
    kp, kq = p.upper(), q.upper()
    if kp == kq and kp in "EG":
        return True
    if owner(p) != owner(q):
        return False
    return (kp == "L" and kq in "EG") or (kq == "L" and kp in "EG")


def parse(notation):
    fields = notation.split()
    board = {}
    for r, row in enumerate(fields[0].split("/")):
        rank, f = 4 - r, 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[(f, rank)] = ch
                f += 1
    return board, fields[1].upper()


def lion(board, side):
    want = "L" if side == "R" else "l"
    return next((s for s, c in board.items() if c == want), None)


def captures(board, frm, to):
    p = board[frm]
    b = dict(board)
    del b[frm]
    b[to] = p
    taken = set()
    for df, dr in DIRS:
        passed, s = [], to
        while True:
            s = (s[0] + df, s[1] + dr)
            if not (0 <= s[0] < 5 and 0 <= s[1] < 5) or s not in b:
                break
            q = b[s]
            if passed and pairs(p, q):
                taken |= set(passed)
                break
            if owner(q) != owner(p):
                passed.append(s)
                continue
            break
    return b, taken


def decided(board, side):
    other = "A" if side == "R" else "R"
    if lion(board, side) is None or lion(board, other) == BASE[side]:
        return True
    if lion(board, other) is None or lion(board, side) == BASE[other]:
        return True
    return False


def moves(board, side):
    if decided(board, side):
        return []
    result = []
    home = lion(board, side) == BASE[side]
    enemy_lion = lion(board, "A" if side == "R" else "R")
    for s, c in board.items():
        if owner(c) != side:
            continue
        for df, dr in DIRS:
            t = (s[0] + df, s[1] + dr)
            if not (0 <= t[0] < 5 and 0 <= t[1] < 5) or t in board:
                continue
            if t == BASE[side] and not home:
                _, taken = captures(board, s, t)
                if enemy_lion not in taken:
                    continue
            result.append((s, t))
    lost = 5 - sum(1 for c in board.values() if owner(c) == side and c.upper() != "L")
    if home and lost >= 3:
        lion_moves = [m for m in result if m[0] == BASE[side]]
        if lion_moves:
            return lion_moves
    return result


def play(board, move):
    b, taken = captures(board, *move)
    for s in taken:
        del b[s]
    return b


def perft(board, side, depth):
    if depth == 0:
        return 1
    ms = moves(board, side)
    if depth == 1:
        return len(ms)
    other = "A" if side == "R" else "R"
    return sum(perft(play(board, m), other, depth - 1) for m in ms)


def name(s):
    return "abcde"[s[0]] + str(s[1] + 1)


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    notation = next((a for a in sys.argv[2:] if a != "--moves"), "2gel/3ge/E3g/GE3/LGE2 r 0")
    board, side = parse(notation)
    for d in range(1, depth + 1):
        print(d, perft(board, side, d))
    if "--moves" in sys.argv:
        for m in sorted(moves(board, side)):
            b, taken = captures(board, *m)
            print(name(m[0]) + name(m[1]), " ".join(sorted(name(t) for t in taken)))


if __name__ == "__main__":
    main()
