#!/usr/bin/env python3
"""Checks of train.py's targets that need numpy only:
`python3 tools/train/test_train.py` (the suite's trainer test runs it).

The TD returns are checked against the definition written out by hand on
small games: one head whose mover alternates, four heads whose side to
move turns with the seats, a game without a winner, and two games side by
side (a return never leaks from one game into another). The policy's
targets mark a roll as having no move played and unused keys as the
policy's zero row."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train  # noqa: E402


def records(rows):
    """Records from (game, ply, results) rows."""
    out = np.zeros(len(rows), dtype=train.RECORD)
    for i, (game, ply, results) in enumerate(rows):
        out[i]["game"] = game
        out[i]["ply"] = ply
        out[i]["results"][: len(results)] = results
        out[i]["mask"] = (1 << len(results)) - 1
    return out


def close(a, b):
    assert np.allclose(a, b, atol=1e-6), f"{a} != {b}"


def policy_targets_mark_rolls_and_unused_keys():
    # A player's position with three moves listed (the second played),
    # then a roll: nothing listed, nothing played.
    recs = np.zeros(2, dtype=train.RECORD)
    recs["keys"] = train.NO_KEY
    recs[0]["listed"], recs[0]["played"] = 3, 1
    recs[0]["keys"][:3] = [[4, 9], [5, train.NO_KEY], [6, 10]]
    recs[1]["listed"], recs[1]["played"] = 0, train.NOT_LISTED
    keys, played, listed = train.policy_target(recs, 12)
    assert played.tolist() == [1, -1], played
    assert listed[0].tolist() == [True] * 3 + [False] * (train.POLICY_MOVES - 3)
    assert not listed[1].any()
    assert keys[0, :3].tolist() == [[4, 9], [5, 12], [6, 10]]
    assert (keys[0, 3:] == 12).all() and (keys[1] == 12).all()


def one_head_alternating_mover():
    # Three positions; the mover alternates, and the first mover wins.
    recs = records([(0, 0, [2]), (0, 1, [0]), (0, 2, [2])])
    results = np.array([[1.0], [0.0], [1.0]], np.float32)
    predicted = np.array([[0.5], [0.3], [0.6]], np.float32)
    td = 0.25
    got = train.td_targets(recs, 1, results, predicted, td, train.next_in_game(recs))
    last = 1.0
    middle = 1.0 - (td * last + (1 - td) * 0.6)
    first = 1.0 - (td * middle + (1 - td) * 0.3)
    close(got[:, 0], [first, middle, last])


def four_heads_turning_with_the_seats():
    # Seats 0, 1, 2 in play of four; seat 1 wins. Heads go in turn order
    # from the side to move: at ply 0 seat 0 moves (the winner is head 1),
    # at ply 1 seat 1 (head 0), at ply 2 seat 2 (head 3).
    win0, win1, win2 = [0, 2, 0, 0], [2, 0, 0, 0], [0, 0, 0, 2]
    recs = records([(0, 0, win0), (0, 1, win1), (0, 2, win2)])
    results = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]], np.float32)
    # Predictions by seat (seat 0, 1, 2), written in each position's heads.
    by_seat = {1: [0.2, 0.5, 0.3], 2: [0.1, 0.3, 0.6]}
    side = {0: 0, 1: 1, 2: 2}

    def heads(ply, seat_values):
        h = np.zeros(4, np.float32)
        for seat, v in enumerate(seat_values):
            h[(seat - side[ply]) % 4] = v
        return h

    predicted = np.stack([heads(0, [0.3, 0.4, 0.3]), heads(1, by_seat[1]), heads(2, by_seat[2])])
    td = 0.5
    got = train.td_targets(recs, 4, results, predicted, td, train.next_in_game(recs))
    # By seat: the last position's return is the result; before it, the
    # blend of the next return and the next prediction.
    ret2 = np.array([0.0, 1.0, 0.0])
    ret1 = td * ret2 + (1 - td) * np.array(by_seat[2])
    ret0 = td * ret1 + (1 - td) * np.array(by_seat[1])
    close(got[2], heads(2, ret2))
    close(got[1], heads(1, ret1))
    close(got[0], heads(0, ret0))


def undecided_and_neighbouring_games():
    # Game 0 is a draw (its results are kept); game 1 follows it in the
    # file and its first position must not see game 0's last.
    recs = records([(0, 0, [1]), (0, 1, [1]), (1, 0, [0]), (1, 1, [2])])
    results = np.array([[0.5], [0.5], [0.0], [1.0]], np.float32)
    predicted = np.array([[0.9], [0.9], [0.2], [0.7]], np.float32)
    nxt = train.next_in_game(recs)
    assert list(nxt) == [1, -1, 3, -1], nxt
    got = train.td_targets(recs, 1, results, predicted, 0.0, nxt)
    close(got[:, 0], [0.5, 0.5, 1.0 - 0.7, 1.0])


if __name__ == "__main__":
    for check in (
        one_head_alternating_mover,
        four_heads_turning_with_the_seats,
        undecided_and_neighbouring_games,
        policy_targets_mark_rolls_and_unused_keys,
    ):
        check()
        print(f"ok {check.__name__}")
