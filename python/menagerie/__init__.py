"""menagerie: four small traditional board games, their exact rules and
a strong engine, from the Rust crates of the menagerie engine.

    >>> import menagerie
    >>> [g.id for g in menagerie.games()]
    ['hat-diviyan-keliya', 'awithlaknannai-mosona', 'safari-dual', 'kilkenny-cats']
    >>> s = menagerie.State("safari-dual")
    >>> s.play(s.legal_moves()[0])
    >>> s.search(nodes=2000).best in s.legal_moves()
    True

`State` is a game in progress (moves, rolls, undo, notation, result,
perft, random playouts, search, solve); `games()` and `rulesets()` list what the build
knows; every refusal raises `MenagerieError` (a `ValueError`) with the
engine's message. `menagerie.openspiel` registers the games with
OpenSpiel when it is installed.
"""

from ._menagerie import (
    GameInfo,
    MenagerieError,
    Playouts,
    SearchResult,
    Solution,
    State,
    __version__,
    games,
    rulesets,
)

__all__ = [
    "GameInfo",
    "MenagerieError",
    "Playouts",
    "SearchResult",
    "Solution",
    "State",
    "__version__",
    "games",
    "rulesets",
]
