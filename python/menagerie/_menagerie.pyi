"""Types of the compiled module (python/lib.rs)."""

import os
from typing import Optional, Union

class MenagerieError(ValueError):
    """A request the rules or the engine refuse; the message names the
    call and the problem, as the engine's `info string error:` does."""

class GameInfo:
    id: str
    name: str
    aliases: list[str]
    seats: list[str]
    seat_names: list[str]
    options: list[tuple[str, list[str]]]
    has_chance: bool
    move_syntax: str
    num_actions: int

class SearchResult:
    best: str
    score: str
    depth: int
    nodes: int
    pv: list[str]

class Solution:
    value: str
    moves: list[tuple[str, str]]
    source: str

class Playouts:
    games: int
    moves: int
    wins: list[int]
    draws: int

class State:
    def __init__(
        self,
        game: str,
        ruleset: str = "",
        notation: Optional[str] = None,
        moves: list[str] = ...,
    ) -> None: ...
    @property
    def game(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def notation(self) -> str: ...
    @property
    def seats(self) -> list[str]: ...
    @property
    def side(self) -> str: ...
    @property
    def side_index(self) -> int: ...
    @property
    def is_chance(self) -> bool: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def winner(self) -> Optional[str]: ...
    @property
    def end_reason(self) -> Optional[str]: ...
    def returns(self) -> list[float]: ...
    def legal_moves(self) -> list[str]: ...
    def move_actions(self) -> list[tuple[list[int], str]]: ...
    def action_text(self, action: int) -> Optional[str]: ...
    def chance_outcomes(self) -> list[tuple[str, float]]: ...
    def play(self, move: str) -> None: ...
    def play_moves(self, moves: list[str]) -> None: ...
    def undo(self) -> None: ...
    def history(self) -> list[str]: ...
    def perft(self, depth: int) -> int: ...
    def random_playouts(self, games: int = 1, seed: int = 0) -> Playouts: ...
    def board(self) -> str: ...
    def copy(self) -> "State": ...
    def __copy__(self) -> "State": ...
    def __deepcopy__(self, memo: object) -> "State": ...
    def search(
        self,
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime_ms: Optional[int] = None,
        skill: int = 20,
        multiseat: str = "brs",
        seed: int = 0,
        threads: int = 1,
        hash_mib: int = 16,
        network: bool = True,
        exact: bool = True,
        tables: Optional[Union[str, os.PathLike[str]]] = None,
    ) -> SearchResult: ...
    def solve(
        self, *, nodes: int = 1000000, tables: Optional[Union[str, os.PathLike[str]]] = None
    ) -> Solution: ...

def games() -> list[GameInfo]: ...
def rulesets(game: str) -> list[str]: ...
