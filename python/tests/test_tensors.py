"""What a learner sees: the observation planes of every game (shapes, a
hand-checked position each, the symmetry between seats), OpenSpiel's
tensors and RL environment over them, the declared longest game, and
games and states that pickle. Skipped without open_spiel unless
MENAGERIE_REQUIRE_OPENSPIEL is set (as .ci/run sets it)."""

import multiprocessing
import os
import pickle
import random
from operator import methodcaller

import numpy as np
import pytest

import menagerie

if os.environ.get("MENAGERIE_REQUIRE_OPENSPIEL"):
    import pyspiel
else:
    pyspiel = pytest.importorskip("pyspiel")

import menagerie.openspiel as mos  # noqa: E402  (needs pyspiel)
from open_spiel.python import rl_environment  # noqa: E402

ALL = [(g.id, r) for g in menagerie.games() for r in menagerie.rulesets(g.id)]


def planes(state, seat):
    shape = state.observation_shape
    return np.array(state.observation(seat), np.float32).reshape(shape)


def plane(state, name):
    return state.plane_names().index(name)


@pytest.mark.parametrize("game_id,ruleset", ALL)
def test_every_game_and_seat_count_has_planes_of_its_declared_shape(game_id, ruleset):
    state = menagerie.State(game_id, ruleset)
    n_planes, points = state.observation_shape
    assert len(state.plane_names()) == n_planes
    for seat in state.seats:
        values = planes(state, seat)
        assert values.shape == (n_planes, points)
        assert values.min() >= 0.0 and values.max() <= 1.0
    # The seat to move, and the seats in play, as constant planes.
    mover = planes(state, state.side)
    assert mover[plane(state, "place 0 to move")].min() == 1.0
    in_play = [plane(state, f"place {p} in play") for p in range(len(state.seats))]
    assert all(mover[i].min() == 1.0 for i in in_play) or game_id == "kilkenny-cats"
    with pytest.raises(menagerie.MenagerieError, match="observation: no seat 'x'"):
        state.observation("x")


def test_the_shapes_python_readme_gives():
    text = open(os.path.join(os.path.dirname(__file__), "..", "README.md")).read()
    line = " ".join(text.split("Shapes at the default rulesets:")[1].split("\n\n")[0].split())
    for game_id, name in [
        ("hat-diviyan-keliya", "Hat Diviyan Keliya"),
        ("awithlaknannai-mosona", "Awithlaknannai Mosona"),
        ("safari-dual", "Safari-Dual"),
        ("kilkenny-cats", "Kilkenny Cats"),
    ]:
        planes, points = menagerie.State(game_id).observation_shape
        assert f"{name} {planes} x {points}" in line


def test_safari_dual_by_hand():
    state = menagerie.State("safari-dual", notation="4l/5/Eg1E1/4G/L3G r 7")
    assert state.observation_shape == (12, 25)
    rnd = planes(state, "r")
    # Round's lion on a1 (point 0), Angular's on e5 (point 24).
    assert rnd[plane(state, "lion of place 0"), 0] == 1.0
    assert rnd[plane(state, "lion of place 1"), 24] == 1.0
    assert rnd[plane(state, "giraffe of place 1"), 11] == 1.0  # b3
    assert rnd[plane(state, "place 0 to move")].min() == 1.0
    assert rnd[plane(state, "no-progress clock")].min() == pytest.approx(0.07)
    assert rnd[: 6].sum() == 7  # seven men
    # Angular sees the board turned half round: its lion at its own a1.
    ang = planes(state, "a")
    assert ang[plane(state, "lion of place 0"), 0] == 1.0
    assert ang[plane(state, "lion of place 1"), 24] == 1.0
    assert ang[plane(state, "giraffe of place 0"), 24 - 11] == 1.0
    assert ang[plane(state, "place 1 to move")].min() == 1.0
    assert state.observation_point("b3", "a") == 13


def test_hat_diviyan_keliya_by_hand():
    state = menagerie.State("hat-diviyan-keliya", "start=ludovici board=small", "T/1L1/3/3 t 0 6 0")
    obs = planes(state, "t")
    assert obs[plane(state, "tiger of place 0")].sum() == 1
    assert obs[plane(state, "leopard of place 1")].sum() == 1
    # Six leopards of seven in hand, none captured, no tiger in hand.
    assert obs[plane(state, "leopards in hand")].min() == pytest.approx(6 / 7)
    assert obs[plane(state, "tigers in hand")].max() == 0.0
    assert obs[plane(state, "leopards captured")].max() == 0.0


def test_kilkenny_cats_looks_the_same_to_every_seat_at_its_symmetric_start():
    state = menagerie.State("kilkenny-cats", "players=4")
    views = [planes(state, seat) for seat in state.seats]
    to_move = [plane(state, f"place {p} to move") for p in range(4)]
    rest = [i for i in range(len(views[0])) if i not in to_move]
    for view in views[1:]:
        assert np.array_equal(view[rest], views[0][rest])
    # Eight cats a seat, each seat's mice where it sees them, and the roll.
    assert [views[0][plane(state, f"cat of place {p}")].sum() for p in range(4)] == [8] * 4
    assert views[0][plane(state, "mice of place 0")].sum() == 2
    state.play("r4")
    assert planes(state, "s")[plane(state, "roll 4")].min() == 1.0


def test_awithlaknannai_mosona_looks_the_same_to_both_sides_at_its_start():
    state = menagerie.State("awithlaknannai-mosona")
    white, black = planes(state, "w"), planes(state, "b")
    to_move = [plane(state, "place 0 to move"), plane(state, "place 1 to move")]
    rest = [i for i in range(len(white)) if i not in to_move]
    assert np.array_equal(white[rest], black[rest])
    assert white[plane(state, "man of place 0")].sum() == 12


@pytest.mark.parametrize("game_id,ruleset", ALL)
def test_openspiel_tensors_and_the_rl_environment_run_every_game(game_id, ruleset):
    game = pyspiel.load_game(mos.short_name(game_id), mos.parameters(ruleset))
    assert game.get_type().provides_observation_tensor
    assert game.get_type().provides_information_state_tensor
    shape = game.observation_tensor_shape()
    assert game.information_state_tensor_shape() == shape
    env = rl_environment.Environment(game, seed=7)
    rng = random.Random(f"{game_id} {ruleset}")
    time_step = env.reset()
    steps = 0
    while not time_step.last():
        player = time_step.observations["current_player"]
        tensor = time_step.observations["info_state"][player]
        assert len(tensor) == shape[0] * shape[1]
        action = rng.choice(time_step.observations["legal_actions"][player])
        time_step = env.step([action])
        steps += 1
    assert steps <= game.max_game_length()
    assert sum(time_step.rewards) == pytest.approx(0.0)


def test_a_chain_under_way_is_in_the_tensor():
    game = pyspiel.load_game("menagerie_awithlaknannai_mosona")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])  # f1g2i2 ...
    # Play on until a move of several leaps is under way.
    rng = random.Random(3)
    while not state.is_terminal() and not state._partial:
        before = state.clone()
        for action in state.legal_actions():
            probe = before.clone()
            probe.apply_action(action)
            if probe._partial:
                state = probe
                break
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state._partial, "a chain was found"
    tensor = np.array(state.observation_tensor(state.current_player()))
    chain = tensor.reshape(game.observation_tensor_shape())[-1]
    assert chain.sum() >= 2  # the points of the leap taken


def stall(state, rng):
    """A move that makes the game long: one that keeps the no-progress
    clock running without ending the game, else progress (a capture, a
    drop, a landing) that does not end it, else any."""
    moves = state.legal_moves()
    if state.is_chance:
        return rng.choice(moves)
    rng.shuffle(moves)
    progress = []
    for move in moves:
        child = state.copy()
        child.play(move)
        if child.is_over:
            continue
        if child.clock > state.clock:
            return move
        progress.append(move)
    return (progress or moves)[0]


@pytest.mark.parametrize(
    "game_id,ruleset",
    [
        ("kilkenny-cats", "players=4"),
        ("kilkenny-cats", "players=2"),
        ("hat-diviyan-keliya", "start=apex board=large"),
        ("safari-dual", ""),
        ("awithlaknannai-mosona", "board=lined leap=bent ending=draw"),
    ],
)
def test_the_longest_stalling_games_stay_under_the_declared_length(game_id, ruleset):
    state = menagerie.State(game_id, ruleset)
    bound = state.most_actions
    game = pyspiel.load_game(mos.short_name(game_id), mos.parameters(ruleset))
    assert game.max_game_length() == bound
    rng = random.Random(game_id)
    longest = 0
    for _ in range(2):
        s = state.copy()
        while not s.is_over:
            before = s.most_actions
            s.play(stall(s, rng))
            # The bound counts down: it never grows along a game.
            assert s.most_actions < before
        longest = max(longest, len(s.history()))
    assert longest <= bound
    print(f"{game_id} {ruleset}: longest stalling game {longest} actions, bound {bound}")


def test_openspiel_games_and_states_pickle_as_pyspiels_do():
    game = pyspiel.load_game("menagerie_kilkenny_cats", {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(30):
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state) and again.history() == state.history()
    assert pickle.loads(pickle.dumps(game)).num_players() == 3
    # The serialisation OpenSpiel itself uses also reads back.
    assert str(pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]) == str(state)


def test_a_process_pool_takes_and_gives_back_states_results_and_errors():
    # What a pool sends is pickled both ways: the tasks (methods of
    # states, by name) and their answers, errors included.
    game = pyspiel.load_game("menagerie_safari_dual")
    spiel_states = [game.new_initial_state() for _ in range(2)]
    states = [menagerie.State("safari-dual"), menagerie.State("kilkenny-cats", "players=3")]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        # A game alone, first: the fresh process has not imported
        # menagerie.openspiel, so loading it by name must do that.
        players = pool.map_async(methodcaller("num_players"), [game]).get(timeout=300)
        clones = pool.map_async(methodcaller("clone"), spiel_states).get(timeout=300)
        results = pool.map_async(methodcaller("search", nodes=500), states[:1]).get(timeout=300)
        playouts = pool.map_async(methodcaller("random_playouts", 3, 1), states).get(timeout=300)
        with pytest.raises(menagerie.MenagerieError, match="play"):
            pool.map_async(methodcaller("play", "zz9"), states[:1]).get(timeout=300)
    assert players == [2]
    assert [str(c) for c in clones] == [str(s) for s in spiel_states]
    assert results[0].best in states[0].legal_moves()
    assert playouts == [s.random_playouts(3, 1) for s in states]


def test_results_and_errors_pickle_and_say_where_they_come_from():
    state = menagerie.State("hat-diviyan-keliya")
    for value in [
        state.search(nodes=300),
        state.random_playouts(2, 5),
        state.solve(),
        menagerie.games()[0],
    ]:
        assert pickle.loads(pickle.dumps(value)) == value
    error = menagerie.MenagerieError("play: illegal move")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is menagerie.MenagerieError and str(again) == str(error)
    assert menagerie.MenagerieError.__module__ == "menagerie"
    assert menagerie.__version__.count(".") == 2


def test_sizes_and_limits_out_of_range_are_refused():
    state = menagerie.State("safari-dual")
    # One kind of error for every whole number out of range, whether the
    # rules bound it or its type: never an OverflowError.
    refused = [
        ("search", {"nodes": 0}, "^search: nodes 0 is out of range 1..=18446744073709551615"),
        ("search", {"nodes": -1}, "nodes -1 is out of range"),
        ("search", {"nodes": 2**70}, f"nodes {2**70} is out of range"),
        ("search", {"depth": 2**40}, "depth 1099511627776 is out of range 0..=4294967295"),
        ("search", {"depth": 2**200}, "depth .* is out of range"),
        ("search", {"depth": 1, "skill": 21}, "skill 21 is out of range 0..=20"),
        ("search", {"depth": 1, "threads": 257}, "threads 257 is out of range 1..=256"),
        ("search", {"depth": 1, "threads": 0}, "threads 0 is out of range 1..=256"),
        ("search", {"depth": 1, "hash_mib": 2**44}, "hash_mib 17592186044416 is out of range 1..=65536"),
        ("search", {"depth": 1, "seed": -3}, "seed -3 is out of range"),
        ("solve", {"nodes": -5}, "^solve: nodes -5 is out of range"),
        ("perft", {"depth": -1}, "^perft: depth -1 is out of range"),
        ("random_playouts", {"games": 2**64}, "^random_playouts: games 18446744073709551616 is out of range"),
        ("action_text", {"action": -1}, "^action_text: action -1 is out of range"),
    ]
    for method, arguments, message in refused:
        with pytest.raises(menagerie.MenagerieError, match=message):
            getattr(state, method)(**arguments)
    # Not a number at all stays Python's TypeError.
    with pytest.raises(TypeError):
        state.search(nodes="many")
    assert state.history() == [] and state.search(nodes=1).best in state.legal_moves()
    # The named margin (python/README.md): depth 1 ends, then a look
    # after each iteration and every 1,024 nodes, and the unwinding after
    # it: 2,048 a thread; nodes=1 is the first iteration alone.
    assert state.search(nodes=1).nodes == state.search(depth=1).nodes
    for n in [1, 5000, 20000]:
        assert state.search(nodes=n).nodes <= max(n, state.search(depth=1).nodes) + 2048


def test_solution_values_are_the_words_its_docstring_gives():
    doc = menagerie.Solution.value.__doc__
    solved = menagerie.State("hat-diviyan-keliya").solve()
    assert solved.value.split()[0] in ("win", "loss", "draw") and "`win N`" in doc
    proof = menagerie.State("safari-dual").solve(nodes=2000)
    assert proof.source == "proof"
    assert f"`{proof.value}`" in doc


def test_a_bad_action_is_refused_as_openspiel_refuses_it():
    state = pyspiel.load_game("menagerie_safari_dual").new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="apply_action: 12345 is not a legal action"):
        state.apply_action(12345)
    assert state.history() == []


def test_a_state_changed_while_another_thread_searches_it_is_refused_clearly():
    import threading

    state = menagerie.State("safari-dual")
    refusals = []
    while not refusals:
        searching = threading.Thread(target=lambda: state.search(movetime_ms=1500))
        searching.start()
        while searching.is_alive() and not refusals:
            try:
                if state.history():
                    state.undo()
                else:
                    state.play(state.legal_moves()[0])
            except menagerie.MenagerieError as error:
                refusals.append(str(error))
        searching.join()
    assert "the state is in use by another thread" in refusals[0]
    assert refusals[0].split(":")[0] in ("play", "undo")
    # Refused, nothing changed: the moves are where the last success left them.
    if state.history():
        state.undo()
    assert state.history() == []
