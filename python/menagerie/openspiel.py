"""The menagerie games inside OpenSpiel (`pip install open_spiel`).

Importing this module registers every game of the build with
`pyspiel.register_game` as ``menagerie_<id>`` (dashes become
underscores), one OpenSpiel parameter per ruleset option:

    >>> import pyspiel, menagerie.openspiel
    >>> game = pyspiel.load_game("menagerie_kilkenny_cats", {"players": 3})
    >>> game.num_players()
    3

Seats are OpenSpiel players in the game's turn order; a due die roll is
OpenSpiel's chance player, its outcomes equally likely; actions are the
game's action numbers (`menagerie.State.move_actions`), a roll's
outcomes numbered from 0. A move is one action, except an
Awithlaknannai Mosona leap chain, one action per leap (as OpenSpiel's
checkers takes multiple jumps): the same player acts until the chain
ends. Returns are zero-sum: +1 to the winner, -1/(n-1) to each other
seat, 0 to all in a draw. `MenagerieBot` is an OpenSpiel bot that plays
the engine's move. `RustRolloutEvaluator` is OpenSpiel's random-rollout
evaluator for MCTS with the rollouts played by the Rust rules.
"""

from __future__ import annotations

import re

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from . import _menagerie

def short_name(game_id: str) -> str:
    """OpenSpiel's name of the menagerie game `game_id`."""
    return "menagerie_" + game_id.replace("-", "_")


def _parameter_default(values):
    default = values[0]
    return int(default) if all(v.isdigit() for v in values) else default


def _ruleset_words(info, params) -> str:
    words = []
    for key, values in info.options:
        value = params.get(key, _parameter_default(values))
        words.append(f"{key}={value}")
    return " ".join(words)


def parameters(ruleset: str) -> dict:
    """The OpenSpiel parameters of a menagerie ruleset: ``"players=3"`` is
    ``{"players": 3}`` (whole numbers as int), for ``pyspiel.load_game``."""
    params = {}
    for word in ruleset.split():
        key, value = word.split("=")
        params[key] = int(value) if value.isdigit() else value
    return params


class _Observer:
    """What a player sees, as OpenSpiel asks for it: `tensor` holds the
    menagerie planes of `State.observation` (see python/README.md) and
    one plane more, the points of the leaps already taken of a move under
    way (an Awithlaknannai Mosona chain, leap by leap); `dict["board"]` is
    the same numbers as (planes, points). The games have perfect
    information and their positions (clock included) decide what can
    follow, so the information state is this observation too."""

    def __init__(self, shape, params):
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        planes, points = shape
        self.tensor = np.zeros((planes + 1) * points, np.float32)
        self.dict = {"board": self.tensor.reshape(planes + 1, points)}
        self._points = points

    def set_from(self, state, player):
        m = state._menagerie
        seat = m.seats[player]
        self.tensor[: -self._points] = m.observation(seat)
        chain = self.tensor[-self._points :]
        chain.fill(0.0)
        for action in state._partial:
            for name in re.findall(r"[a-q][0-9]+", m.action_text(action) or ""):
                point = m.observation_point(name, seat)
                if point is not None:
                    chain[point] = 1.0

    def string_from(self, state, player):
        del player
        return str(state)


def _game_class(info):
    players = [
        int(v) for key, values in info.options if key == "players" for v in values
    ] or [len(info.seats)]
    game_type = pyspiel.GameType(
        short_name=short_name(info.id),
        long_name=f"menagerie {info.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if info.has_chance
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            key: _parameter_default(values) for key, values in info.options
        },
    )

    class Game(pyspiel.Game):
        __doc__ = f"{info.name} from menagerie, as an OpenSpiel game."

        def __init__(self, params=None):
            params = dict(params or {})
            self.ruleset = _ruleset_words(info, params)
            start = _menagerie.State(info.id, self.ruleset)
            seats = len(start.seats)
            outcomes = len(start.chance_outcomes()) if info.has_chance else 0
            if info.has_chance and outcomes == 0:
                # The roll is due after the first move: count the faces then.
                probe = start.copy()
                while not probe.is_chance and not probe.is_over:
                    probe.play(probe.legal_moves()[0])
                outcomes = len(probe.chance_outcomes())
            game_info = pyspiel.GameInfo(
                num_distinct_actions=info.num_actions,
                max_chance_outcomes=outcomes,
                num_players=seats,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=start.most_actions,
            )
            super().__init__(game_type, game_info, params)
            self._shape = start.observation_shape

        def new_initial_state(self):
            return State(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            del iig_obs_type
            return _Observer(self._shape, params)

        def observation_tensor_shape(self):
            planes, points = self._shape
            return [planes + 1, points]

        def information_state_tensor_shape(self):
            return self.observation_tensor_shape()

        def __reduce__(self):
            # pyspiel's own convention: a game pickles as its parameters
            # and loads again by name, through this module, so that a
            # process that never imported it (multiprocessing's 'spawn')
            # registers the games before it loads one.
            return (_load_game, (short_name(info.id), self.get_parameters()))

    class State(pyspiel.State):
        __doc__ = f"A position of {info.name}, kept by menagerie's rules."

        def __init__(self, game):
            super().__init__(game)
            self._menagerie = _menagerie.State(info.id, game.ruleset)
            # The actions taken so far of a move made of several (a leap
            # chain, leap by leap); the move is played when they end it.
            self._partial = []

        def current_player(self):
            m = self._menagerie
            if m.is_over:
                return pyspiel.PlayerId.TERMINAL
            if m.is_chance:
                return pyspiel.PlayerId.CHANCE
            return m.side_index

        def _choices(self):
            """Each legal action and the move it ends, or None where the
            move goes on: at a roll the outcomes, numbered from 0 (OpenSpiel
            wants chance actions below `max_chance_outcomes`); else the next
            action of every legal move that starts with the actions taken
            so far."""
            m = self._menagerie
            if m.is_chance:
                return {i: move for i, move in enumerate(m.legal_moves())}
            done = len(self._partial)
            choices = {}
            for actions, move in m.move_actions():
                if actions[:done] == self._partial:
                    choices[actions[done]] = move if len(actions) == done + 1 else None
            return choices

        def _legal_actions(self, player):
            del player
            return sorted(self._choices())

        def chance_outcomes(self):
            p = dict(self._menagerie.chance_outcomes())
            return [(action, p[move]) for action, move in self._choices().items()]

        def _apply_action(self, action):
            choices = self._choices()
            if action not in choices:
                # OpenSpiel's own games refuse with SpielError; a bare
                # KeyError would name nothing.
                raise pyspiel.SpielError(
                    f"apply_action: {action} is not a legal action here "
                    f"(legal: {sorted(choices)})"
                )
            move = choices[action]
            if move is None:
                self._partial.append(action)
            else:
                self._partial = []
                self._menagerie.play(move)

        def _action_to_string(self, player, action):
            del player
            choices = self._choices()
            if action not in choices:
                return f"action {action}"
            if choices[action] is None:
                return f"{self._menagerie.action_text(action)}..."
            return choices[action]

        def is_terminal(self):
            return self._menagerie.is_over

        def returns(self):
            return self._menagerie.returns()

        def __reduce__(self):
            # As pyspiel's states: the game, then the actions from its start.
            return (_state_from_history, (self.get_game(), self.history()))

        def __str__(self):
            # Mid-chain the leaps taken so far are part of the state.
            taken = (self._menagerie.action_text(a) for a in self._partial)
            return " ".join([self._menagerie.notation, *taken])

    pyspiel.register_game(game_type, Game)
    return Game


def _load_game(name, params):
    return pyspiel.load_game(name, params)


def _state_from_history(game, actions):
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


GAMES = {info.id: _game_class(info) for info in _menagerie.games()}


class MenagerieBot(pyspiel.Bot):
    """An OpenSpiel bot that plays the menagerie engine's move; rolls are
    left to OpenSpiel's chance player. `search` takes the keywords of
    `menagerie.State.search` (depth, nodes, movetime_ms, skill, ...)."""

    def __init__(self, **search):
        pyspiel.Bot.__init__(self)
        self._search = search or {"nodes": 10_000}
        # The position last searched and its best move, whose actions are
        # taken one by one where it is a leap chain.
        self._chosen = None

    def restart_at(self, state):
        del state
        self._chosen = None

    def step(self, state):
        m = state._menagerie
        position = (m.notation, m.history())
        if self._chosen is None or self._chosen[0] != position:
            self._chosen = (position, m.search(**self._search).best)
        actions = next(a for a, move in m.move_actions() if move == self._chosen[1])
        done = len(state._partial)
        if actions[:done] != state._partial:
            # A chain begun by another player: go on with its first move.
            return min(state._choices())
        return actions[done]


class RustRolloutEvaluator(mcts.RandomRolloutEvaluator):
    """OpenSpiel's `RandomRolloutEvaluator` (each rollout a uniformly
    random game to its end; the mean returns; the same uniform prior)
    with the rollouts played in Rust by `menagerie.State.random_playouts`
    rather than action by action through Python, which makes MCTS
    usable on games of hundreds of plies (a Kilkenny Cats random game
    is about 900). In every game whose moves are one action each, the
    rollouts follow OpenSpiel's distribution exactly (a uniform choice
    among the legal actions, rolls by their probabilities); an
    Awithlaknannai Mosona leap chain under way is finished action by
    action as OpenSpiel would, after which whole moves are drawn
    uniformly (OpenSpiel's evaluator would draw chains leap by leap).
    The draws come from `random_state`, so a seeded MCTS stays
    reproducible."""

    def evaluate(self, state):
        working = state
        if state._partial:
            working = state.clone()
            while working._partial and not working.is_terminal():
                working.apply_action(self._random_state.choice(working.legal_actions()))
        seed = int(self._random_state.randint(0, 2**62, dtype=np.int64))
        totals = working._menagerie.random_playouts(self.n_rollouts, seed)
        n = len(totals.wins)
        lost = -1.0 / (n - 1)
        return np.array(
            [
                (won + (totals.games - totals.draws - won) * lost) / totals.games
                for won in totals.wins
            ]
        )
