"""OpenSpiel's own learners and PettingZoo's API test on the four games,
as a researcher would run them: JAX DQN learns Safari-Dual and beats a
random player, OpenSpiel's AlphaZero trains a few steps, and every game
and seat count passes `pettingzoo.test.api_test` through Shimmy.

These need JAX, Flax, Optax and Shimmy (python/requirements-learn.txt),
which the package itself does not: without them the tests are skipped,
unless MENAGERIE_REQUIRE_LEARNING is set (as .ci/run sets it in the venv
that has them)."""

import json
import math
import os
import warnings

import numpy as np
import pytest

import menagerie

if os.environ.get("MENAGERIE_REQUIRE_LEARNING"):
    import pyspiel
    import jax  # noqa: F401
    import shimmy  # noqa: F401
else:
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    pytest.importorskip("shimmy")

import menagerie.openspiel as mos  # noqa: E402  (needs pyspiel)
from open_spiel.python import rl_environment  # noqa: E402

ALL = [(g.id, r) for g in menagerie.games() for r in menagerie.rulesets(g.id)]


@pytest.mark.parametrize("game_id,ruleset", ALL)
def test_pettingzoo_api_test_passes_through_shimmy(game_id, ruleset):
    from pettingzoo.test import api_test
    from shimmy import OpenSpielCompatibilityV0

    # By name and parameters: Shimmy loads the game again by name at every
    # reset, so a game object passed as env= would lose its parameters.
    name, params = mos.short_name(game_id), mos.parameters(ruleset)
    game = pyspiel.load_game(name, params)
    env = OpenSpielCompatibilityV0(game_name=name, config=params, render_mode=None)
    with warnings.catch_warnings():
        # Shimmy declares every tensor's bounds as -inf..inf, and the API
        # test warns of that; the planes themselves hold 0..1.
        warnings.filterwarnings("ignore", message=".*observation space value is")
        api_test(env, num_cycles=60)
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{p}" for p in range(game.num_players())]
    for agent in env.possible_agents:
        seen = env.observe(agent)
        assert seen.shape == tuple(game.observation_tensor_shape())
        assert 0.0 <= float(np.min(seen)) and float(np.max(seen)) <= 1.0
    env.close()


# DQN on Safari-Dual: one learner per seat, each playing a seeded random
# player, then measured greedily against it from both seats. The budget
# is in agent steps, not seconds, so a busy machine changes only how long
# it takes. MENAGERIE_DQN_STEPS raises it for the longer measurement in
# python/README.md.
DQN_STEPS = int(os.environ.get("MENAGERIE_DQN_STEPS", "16000"))
DQN_GAMES_PER_SEAT = int(os.environ.get("MENAGERIE_DQN_GAMES", "100"))


def _random_action(rng, time_step):
    player = time_step.observations["current_player"]
    return int(rng.choice(time_step.observations["legal_actions"][player]))


def _play(env, agents, seat, rng, learn):
    time_step = env.reset()
    while not time_step.last():
        player = time_step.observations["current_player"]
        if player == seat:
            action = agents[seat].step(time_step, is_evaluation=not learn).action
        else:
            action = _random_action(rng, time_step)
        time_step = env.step([action])
    if learn:
        agents[seat].step(time_step)
    return time_step.rewards[seat]


def test_openspiel_dqn_learns_safari_dual_and_beats_a_random_player():
    from open_spiel.python.jax import dqn

    game = pyspiel.load_game("menagerie_safari_dual")
    env = rl_environment.Environment(game, seed=1)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    assert size == 12 * 25 + 25 and actions == 625
    agents = [
        dqn.DQN(
            player_id=seat,
            state_representation_size=size,
            num_actions=actions,
            hidden_layers_sizes=[128],
            replay_buffer_capacity=10_000,
            batch_size=32,
            learn_every=4,
            min_buffer_size_to_learn=200,
            learning_rate=3e-3,
            optimizer_str="adam",
            epsilon_decay_duration=DQN_STEPS // 2,
            epsilon_end=0.1,
            update_target_network_every=250,
            seed=7 + seat,
        )
        for seat in range(2)
    ]
    rng = np.random.default_rng(5)
    episodes = 0
    while sum(agent._iteration for agent in agents) < DQN_STEPS:
        _play(env, agents, episodes % 2, rng, learn=True)
        episodes += 1
    rewards = [
        _play(env, agents, seat, rng, learn=False)
        for seat in range(2)
        for _ in range(DQN_GAMES_PER_SEAT)
    ]
    scores = np.array([(r + 1) / 2 for r in rewards])
    mean = scores.mean()
    # A one-sided 99% bound on the mean score (draws count a half).
    low = mean - 2.33 * scores.std(ddof=1) / math.sqrt(len(scores))
    print(
        f"DQN after {DQN_STEPS} steps ({episodes} games): {mean:.3f} of "
        f"{len(scores)} games against random, 99% lower bound {low:.3f}"
    )
    assert low > 0.5, (mean, low)


def test_openspiel_alpha_zero_trains_a_few_steps_on_safari_dual(tmp_path):
    from open_spiel.python.algorithms.alpha_zero import alpha_zero

    config = alpha_zero.Config(
        game="menagerie_safari_dual",
        path=str(tmp_path),
        learning_rate=0.001,
        weight_decay=1e-4,
        decouple_weight_decay=False,
        train_batch_size=16,
        replay_buffer_size=256,
        replay_buffer_reuse=4,
        max_steps=2,
        checkpoint_freq=1,
        actors=1,
        evaluators=0,
        evaluation_window=10,
        eval_levels=2,
        uct_c=2.0,
        max_simulations=8,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=10,
        nn_model="mlp",
        nn_width=32,
        nn_depth=1,
        observation_shape=None,
        output_size=None,
        verbose=False,
        quiet=True,
    )
    # Its actor runs in a process started by 'spawn', which unpickles the
    # game: that re-registers the menagerie games in the child.
    alpha_zero.alpha_zero(config)
    files = set(os.listdir(tmp_path))
    assert {"checkpoint-1", "checkpoint-2", "learner.jsonl"} <= files, files
    steps = [json.loads(line) for line in (tmp_path / "learner.jsonl").open()]
    assert [step["step"] for step in steps] == [1, 2]
    # Both steps learned from games the actor played out.
    assert all(step["total_states"] > 0 for step in steps)
    assert all(math.isfinite(step["loss"]["sum"]) for step in steps), steps[-1]
