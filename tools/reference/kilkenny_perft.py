#!/usr/bin/env python3
"""Independent reference for Kilkenny Cats perft (RULES.md section 4).

Written from the rules text with (file, rank) tuples, sharing nothing with
the Rust engine. Perft counts player moves: at a position awaiting a roll it
sums over the six rolls without spending depth; `pass` counts as one move.

    tools/reference/kilkenny_perft.py [depth] [players=2|3|4] [notation] [--moves]
"""
import sys

FILES = "abcdefghijklmnop"
MICE = {  # square -> owner, in notation order
    (7, 16): "S", (8, 16): "S", (7, 1): "N", (8, 1): "N",
    (15, 8): "W", (15, 9): "W", (0, 8): "E", (0, 9): "E",
}
MICE_ORDER = [(7, 16), (8, 16), (7, 1), (8, 1), (15, 8), (15, 9), (0, 8), (0, 9)]
ORDER = "SWNE"
SEATS = {2: "SN", 3: "SWN", 4: "SWNE"}
DIRS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]


def playable(s):
    return 1 <= s[0] <= 14 and 2 <= s[1] <= 15


def start(players):
    cats = {}
    seats = SEATS[players]
    for i in range(8):
        cats[(4 + i, 4)] = "S"
        cats[(4 + i, 13)] = "N"
        if "W" in seats:
            cats[(3, 5 + i)] = "W"
        if "E" in seats:
            cats[(12, 5 + i)] = "E"
    return {"cats": cats, "seats": seats, "side": "S", "roll": None}


def parse(notation, players):
    f = notation.split()
    cats = {}
    for i, row in enumerate(f[0].split("/")):
        rank, file = 15 - i, 1
        num = ""
        for ch in row + " ":
            if ch.isdigit():
                num += ch
                continue
            if num:
                file += int(num)
                num = ""
            if ch != " ":
                cats[(file, rank)] = ch
                file += 1
    for sq, ch in zip(MICE_ORDER, f[4]):
        if ch != "-":
            cats[sq] = ch
    return {"cats": cats, "seats": f[3].upper(), "side": f[1].upper(),
            "roll": None if f[2] == "-" else int(f[2])}


def out(state, seat):
    return not any(c == seat and playable(s) for s, c in state["cats"].items())


def decided(state):
    for seat in state["seats"]:
        if sum(1 for s, c in state["cats"].items() if c == seat and s in MICE) == 2:
            return True
    return sum(1 for seat in state["seats"] if not out(state, seat)) <= 1


def moves(state):
    if decided(state):
        return []
    if state["roll"] is None:
        return [("roll", n) for n in range(1, 7)]
    seat, roll, cats = state["side"], state["roll"], state["cats"]
    result = []
    for frm, c in cats.items():
        if c != seat or not playable(frm):
            continue
        for df, dr in DIRS:
            path = [(frm[0] + df * k, frm[1] + dr * k) for k in range(1, roll + 1)]
            if any(not playable(s) or s in cats for s in path[:-1]):
                continue
            to = path[-1]
            if playable(to):
                if cats.get(to) == seat:
                    continue
            elif MICE.get(to) != seat or to in cats:
                continue
            result.append(("step", frm, to))
    return result or [("pass",)]


def play(state, move):
    new = {"cats": dict(state["cats"]), "seats": state["seats"], "side": state["side"], "roll": None}
    if move[0] == "roll":
        new["roll"] = move[1]
        return new
    if move[0] == "step":
        _, frm, to = move
        new["cats"][to] = new["cats"].pop(frm)
    seats = state["seats"]
    i = seats.index(state["side"])
    order = [seats[(i + k) % len(seats)] for k in range(1, len(seats) + 1)]
    new["side"] = next((s for s in order if not out(new, s)), order[0])
    return new


def perft(state, depth):
    if depth == 0:
        return 1
    ms = moves(state)
    if state["roll"] is None:
        return sum(perft(play(state, m), depth) for m in ms)
    if depth == 1:
        return len(ms)
    return sum(perft(play(state, m), depth - 1) for m in ms)


def name(s):
    return FILES[s[0]] + str(s[1])


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    opts = dict(a.split("=") for a in sys.argv[2:] if "=" in a)
    players = int(opts.get("players", 2))
    notation = next((a for a in sys.argv[2:] if "=" not in a and a != "--moves"), None)
    state = parse(notation, players) if notation else start(players)
    for d in range(1, depth + 1):
        print(d, perft(state, d))
    if "--moves" in sys.argv:
        for m in moves(state):
            print({"roll": lambda: f"r{m[1]}", "step": lambda: name(m[1]) + name(m[2]),
                   "pass": lambda: "pass"}[m[0]]())


if __name__ == "__main__":
    main()
