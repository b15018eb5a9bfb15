"""The games inside OpenSpiel: registered, checked by OpenSpiel's own
random simulation test, played by its bots and by the engine's bot.
Skipped without open_spiel unless MENAGERIE_REQUIRE_OPENSPIEL is set (as
.ci/run sets it)."""

import collections
import os

import numpy as np
import pytest

import menagerie

if os.environ.get("MENAGERIE_REQUIRE_OPENSPIEL"):
    import pyspiel
else:
    pyspiel = pytest.importorskip("pyspiel")

import menagerie.openspiel as mos  # noqa: E402  (needs pyspiel)
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

OPTIONS = {g.id: g.options for g in menagerie.games()}


ALL = [(g.id, r) for g in menagerie.games() for r in menagerie.rulesets(g.id)]


@pytest.mark.parametrize("game_id,ruleset", ALL)
def test_random_sim_test_passes_with_serialisation(game_id, ruleset):
    game = pyspiel.load_game(mos.short_name(game_id), mos.parameters(ruleset))
    state = game.new_initial_state()
    # The registered game plays the ruleset asked for.
    assert state._menagerie.ruleset == ruleset
    assert game.num_players() == len(state._menagerie.seats)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_registration_names_and_parameters():
    registered = set(pyspiel.registered_names())
    for g in menagerie.games():
        assert mos.short_name(g.id) in registered
    game = pyspiel.load_game("menagerie_kilkenny_cats(players=4)")
    assert game.num_players() == 4
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == 6
    with pytest.raises(Exception):
        pyspiel.load_game("menagerie_kilkenny_cats(players=9)")


def test_returns_are_zero_sum_per_seat():
    game = pyspiel.load_game("menagerie_kilkenny_cats(players=3)")
    bots = [pyspiel.make_uniform_random_bot(seat, 3) for seat in range(3)]
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), bots, np.random.RandomState(3)
    )
    assert sum(returns) == pytest.approx(0.0)
    assert sorted(returns) in ([-0.5, -0.5, 1.0], [0.0, 0.0, 0.0])


def mcts_bot(game, seed, simulations):
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(
        game,
        uct_c=2,
        max_simulations=simulations,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
    )


@pytest.mark.parametrize(
    "game_id,params",
    [
        ("safari-dual", {}),
        ("kilkenny-cats", {"players": 3}),
        ("hat-diviyan-keliya", {}),
        ("awithlaknannai-mosona", {}),
    ],
)
def test_openspiel_bots_and_the_engine_bot_play_whole_games(game_id, params):
    game = pyspiel.load_game(mos.short_name(game_id), params)
    seats = game.num_players()
    bots = [mos.MenagerieBot(nodes=500)]
    bots.append(mcts_bot(game, 1, simulations=4))
    while len(bots) < seats:
        bots.append(pyspiel.make_uniform_random_bot(len(bots), 5))
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), bots, np.random.RandomState(7)
    )
    assert len(returns) == seats
    assert sum(returns) == pytest.approx(0.0)


def test_rust_rollouts_follow_openspiels_random_rollouts():
    # A three-seat Kilkenny Cats position 6 plies before the end of a
    # random game, where one seat's chances are far below the others'
    # (random games from there are still long: 600 rollouts through
    # Python take about 8 s). Both evaluators give each seat the same
    # mean return within 0.15 (a standard error of about 0.04 on the
    # difference) and pick out the same seat, so the Rust rollouts draw
    # like OpenSpiel's and give each seat its own result.
    game = pyspiel.load_game("menagerie_kilkenny_cats(players=3)")
    rng = np.random.RandomState(11)
    state, earlier = game.new_initial_state(), []
    while not state.is_terminal():
        earlier.append(state.clone())
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(actions, p=probabilities))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    position = earlier[-6]
    python = mcts.RandomRolloutEvaluator(600, np.random.RandomState(1)).evaluate(position)
    rust = mos.RustRolloutEvaluator(600, np.random.RandomState(2)).evaluate(position)
    assert sorted(python)[1] - min(python) > 0.3
    assert np.argmin(rust) == np.argmin(python)
    assert np.abs(python - rust).max() < 0.15
    assert sum(rust) == pytest.approx(0.0)
    # Seeded: the same draws give the same value.
    again = mos.RustRolloutEvaluator(600, np.random.RandomState(2)).evaluate(position)
    assert list(again) == list(rust)


def test_mcts_with_rust_rollouts_plays_whole_games_of_every_seat_count():
    for players in (2, 3, 4):
        game = pyspiel.load_game("menagerie_kilkenny_cats", {"players": players})
        rng = np.random.RandomState(players)
        rollouts = mos.RustRolloutEvaluator(n_rollouts=1, random_state=rng)
        bots = [mcts.MCTSBot(game, 2, 20, rollouts, random_state=rng)]
        while len(bots) < players:
            bots.append(mos.MenagerieBot(nodes=300))
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert sum(returns) == pytest.approx(0.0)


# White's lone man with 175 leap chains, 71 of them between the same two
# points, and with 3,277, 664 of them so (found by random placement): more
# than any numbering of whole chains by their ends allowed (64), so
# OpenSpiel takes a chain leap by leap.
CHAINS = "2BB2B1/B3BB1B1/BBBB2BW w 0"
MORE_CHAINS = "1BB1BB1B/1B1BB2B1/2BWB3 w 0"


def chain_state(notation=CHAINS):
    game = pyspiel.load_game("menagerie_awithlaknannai_mosona")
    state = game.new_initial_state()
    state._menagerie = menagerie.State("awithlaknannai-mosona", "", notation)
    return game, state


def test_leap_chains_are_taken_leap_by_leap_and_reach_every_move_once():
    game, state = chain_state()
    legal = state._menagerie.legal_moves()
    ends = collections.Counter((m[:2], m[-2:]) for m in legal)
    assert max(ends.values()) > 64
    reached = []

    def walk(s, depth):
        for action in s.legal_actions():
            assert 0 <= action < game.num_distinct_actions()
            child = s.child(action)
            if child._menagerie.notation == s._menagerie.notation:
                # Mid-chain: the same player leaps again; the leaps taken
                # are part of the state and of its string.
                assert child.current_player() == s.current_player()
                assert str(child) != str(s)
                assert s.action_to_string(action).endswith("...")
                walk(child, depth + 1)
            else:
                reached.append(child._menagerie.history()[-1])
                assert s.action_to_string(action) == reached[-1]
                # A chain of n leaps took n actions.
                assert depth + 1 == (len(reached[-1]) - 2) // 4

    walk(state, 0)
    assert sorted(reached) == sorted(legal)


def test_the_engine_bot_plays_its_whole_chain():
    game, state = chain_state(MORE_CHAINS)
    best = state._menagerie.search(nodes=2000).best
    bot = mos.MenagerieBot(nodes=2000)
    before = state._menagerie.notation
    steps = 0
    while state._menagerie.notation == before:
        state.apply_action(bot.step(state))
        steps += 1
    assert state._menagerie.history() == [best]
    assert steps == (len(best) - 2) // 4 > 1


def test_rust_rollouts_finish_a_chain_under_way_first():
    game, state = chain_state(MORE_CHAINS)
    chain = next(a for a, _ in state._menagerie.move_actions() if len(a) > 2)
    state.apply_action(chain[0])
    assert state._partial == [chain[0]]
    value = mos.RustRolloutEvaluator(200, np.random.RandomState(4)).evaluate(state)
    assert len(value) == 2 and sum(value) == pytest.approx(0.0)
    # The state evaluated is left as it was, mid-chain.
    assert state._partial == [chain[0]]
