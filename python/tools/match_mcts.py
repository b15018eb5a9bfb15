"""The engine against OpenSpiel's MCTS bot (random rollouts), inside
OpenSpiel: `python match_mcts.py GAME PARAMS GAMES SIMULATIONS MOVETIME_MS
OUT.jsonl [ROLLOUTS]`. MOVETIME_MS `equal` gives the engine, at each of its moves,
the mean time of MCTS's moves so far (three MCTS moves from the start
measure it before the first game). The engine takes one seat, MCTS every other, the engine's
seat turning each game; one JSON line per game is appended to OUT (a
cut run resumes after the games it holds). Prints the engine's share
(1 a win, 1/2 a draw, 0 a loss) with its 95% interval, par 1/seats, and
each side's mean seconds per move. ROLLOUTS `python` (the default) is
OpenSpiel's RandomRolloutEvaluator; `rust` is
menagerie.openspiel.RustRolloutEvaluator, the same rollouts played by the
Rust rules (the only practical way in Kilkenny Cats, whose random games
run to about 900 plies)."""

import json
import math
import os
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

import menagerie.openspiel as mos


class EqualTime:
    """The engine at MCTS's mean seconds per move so far."""

    def __init__(self, mcts_timed, seed):
        self.mcts = mcts_timed
        # One bot for the game: it takes a leap chain it chose leap by leap.
        self.bot = mos.MenagerieBot(movetime_ms=1, seed=seed)

    def restart_at(self, state):
        self.bot.restart_at(state)

    def inform_action(self, state, player, action):
        pass

    def step(self, state):
        ms = max(1, round(1000 * np.mean(self.mcts.seconds)))
        self.bot._search["movetime_ms"] = ms
        return self.bot.step(state)


class Timed:
    """A bot that records the seconds of each of its moves."""

    def __init__(self, bot):
        self.bot, self.seconds = bot, []

    def restart_at(self, state):
        self.bot.restart_at(state)

    def inform_action(self, state, player, action):
        self.bot.inform_action(state, player, action)

    def step(self, state):
        began = time.perf_counter()
        action = self.bot.step(state)
        self.seconds.append(time.perf_counter() - began)
        return action


def main():
    game_id, params, games, sims, movetime, out = sys.argv[1:7]
    rollouts = sys.argv[7] if len(sys.argv) > 7 else "python"
    evaluator = {"python": mcts.RandomRolloutEvaluator, "rust": mos.RustRolloutEvaluator}[
        rollouts
    ]
    params = json.loads(params)
    game = pyspiel.load_game(mos.short_name(game_id), params)
    seats = game.num_players()
    done = []
    if os.path.exists(out):
        with open(out) as f:
            done = [json.loads(line) for line in f if line.strip()]
    if any(d.get("rollouts", "python") != rollouts for d in done):
        sys.exit(f"{out} holds games played with other rollouts than {rollouts}")

    def mcts_bot(rng):
        return mcts.MCTSBot(
            game,
            uct_c=2,
            max_simulations=int(sims),
            evaluator=evaluator(n_rollouts=1, random_state=rng),
            random_state=rng,
        )

    # MCTS's move times over the whole run, for `equal`.
    mcts_seconds = [s for d in done for s in d.get("mcts_times", [])]
    if movetime == "equal" and not mcts_seconds:
        probe = Timed(mcts_bot(np.random.RandomState(999)))
        for _ in range(3):
            probe.step(game.new_initial_state())
        mcts_seconds = probe.seconds
    for index in range(len(done), int(games)):
        rng = np.random.RandomState(index)
        mcts_timed = Timed(mcts_bot(rng))
        if movetime == "equal":
            mcts_timed.seconds = mcts_seconds
            engine = Timed(EqualTime(mcts_timed, index))
        else:
            engine = Timed(mos.MenagerieBot(movetime_ms=int(movetime), seed=index))
        opponent = mcts_timed
        seat = index % seats
        before = len(mcts_seconds) if movetime == "equal" else 0
        bots = [engine if s == seat else opponent for s in range(seats)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        r = returns[seat]
        score = 1.0 if r > 0 else 0.5 if r == 0 else 0.0
        record = {
            "game": index,
            "seat": seat,
            "score": score,
            "engine_s": sum(engine.seconds) / max(1, len(engine.seconds)),
            "mcts_s": float(np.mean(mcts_timed.seconds[before:] or [0.0])),
            "rollouts": rollouts,
        }
        if movetime == "equal":
            record["mcts_times"] = mcts_timed.seconds[before:]
        with open(out, "a") as f:
            f.write(json.dumps(record) + "\n")
        done.append(record)
    scores = [d["score"] for d in done]
    n = len(scores)
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1))
    half = 1.96 * sd / math.sqrt(n)
    print(
        f"{game_id} {params} seats {seats}: engine {mean:.3f} +/- {half:.3f} "
        f"over {n} games (par {1 / seats:.3f}); seconds per move: engine "
        f"{np.mean([d['engine_s'] for d in done]):.3f}, MCTS ({sims} simulations) "
        f"{np.mean([d['mcts_s'] for d in done]):.3f}"
    )


if __name__ == "__main__":
    main()
