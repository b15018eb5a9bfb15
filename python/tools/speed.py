"""Random games per second through the Python package, beside OpenSpiel's
own (C++) games of similar size driven the same way from Python, in one
run: `python speed.py [seconds per game]`. For menagerie's games also
`State.random_playouts` (whole random games in one call, played in
Rust). The engine's `bench playouts` (the same random games inside
Rust) is another column of README's table; run it beside this one."""

import random
import sys
import time

import menagerie

try:
    import pyspiel
except ImportError:  # the menagerie rows alone
    pyspiel = None

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0


def menagerie_games(game, ruleset, rng):
    start = menagerie.State(game, ruleset)
    played, plies, began = 0, 0, time.perf_counter()
    while time.perf_counter() - began < SECONDS:
        state = start.copy()
        while not state.is_over:
            state.play(rng.choice(state.legal_moves()))
            plies += 1
        played += 1
    spent = time.perf_counter() - began
    return played / spent, plies / spent


def menagerie_playouts(game, ruleset):
    start = menagerie.State(game, ruleset)
    played, plies, began, seed = 0, 0, time.perf_counter(), 0
    while time.perf_counter() - began < SECONDS:
        totals = start.random_playouts(64, seed)
        played, plies, seed = played + totals.games, plies + totals.moves, seed + 1
    spent = time.perf_counter() - began
    return played / spent, plies / spent


def openspiel_games(name, rng):
    game = pyspiel.load_game(name)
    played, plies, began = 0, 0, time.perf_counter()
    while time.perf_counter() - began < SECONDS:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        played += 1
    spent = time.perf_counter() - began
    return played / spent, plies / spent


def main():
    rng = random.Random(1)
    print("| game | random games/s | plies/s | random_playouts, plies/s |")
    print("|---|---:|---:|---:|")
    for game, ruleset in [
        ("hat-diviyan-keliya", ""),
        ("awithlaknannai-mosona", ""),
        ("safari-dual", ""),
        ("kilkenny-cats", "players=2"),
        ("kilkenny-cats", "players=4"),
    ]:
        games, plies = menagerie_games(game, ruleset, rng)
        _, in_rust = menagerie_playouts(game, ruleset)
        print(f"| menagerie {game} {ruleset} | {games:.1f} | {plies:.0f} | {in_rust:.0f} |")
    if pyspiel is not None:
        for name in ["tic_tac_toe", "breakthrough(rows=6,columns=6)", "checkers", "backgammon"]:
            games, plies = openspiel_games(name, rng)
            print(f"| OpenSpiel {name} | {games:.1f} | {plies:.0f} |")


if __name__ == "__main__":
    main()
