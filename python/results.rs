//! What the calls return: plain values that print, compare and pickle
//! (each rebuilt from its fields, a game's facts from its id).

use menagerie_rules::catalogue::{self, GameEntry};
use menagerie_search as search;
use pyo3::prelude::*;

use crate::{refuse, GAMES};

/// What a game declares about itself.
#[pyclass(frozen, get_all, module = "menagerie")]
pub(crate) struct GameInfo {
    /// The id `State` and the protocol's `newgame` take.
    pub(crate) id: String,
    /// The game's name for people.
    pub(crate) name: String,
    /// Other names `State` accepts.
    pub(crate) aliases: Vec<String>,
    /// The letter of every seat the game can have, in turn order.
    pub(crate) seats: Vec<String>,
    /// The name of every seat, in the same order.
    pub(crate) seat_names: Vec<String>,
    /// Each ruleset option with its values, the default first.
    pub(crate) options: Vec<(String, Vec<String>)>,
    /// Whether a die is rolled (chance outcomes to play).
    pub(crate) has_chance: bool,
    /// How the game's moves are written.
    pub(crate) move_syntax: String,
    /// How many action numbers the game's moves can be made of
    /// (`State.move_actions`): OpenSpiel's `num_distinct_actions`.
    pub(crate) num_actions: usize,
}

#[pymethods]
impl GameInfo {
    /// The game's facts, by id: a pickled `GameInfo` loads as this
    /// build's entry of the same game.
    #[new]
    fn new(id: &str) -> PyResult<GameInfo> {
        catalogue::entry(&GAMES, id)
            .map(GameInfo::of)
            .map_err(|e| refuse("GameInfo")(&e))
    }

    fn __getnewargs__(&self) -> (String,) {
        (self.id.clone(),)
    }

    fn __eq__(&self, other: &GameInfo) -> bool {
        self.id == other.id
    }

    fn __repr__(&self) -> String {
        format!("GameInfo(id={:?}, name={:?})", self.id, self.name)
    }
}

impl GameInfo {
    pub(crate) fn of<A: catalogue::Attach>(entry: &GameEntry<A>) -> GameInfo {
        GameInfo {
            id: entry.id.to_string(),
            name: entry.name.to_string(),
            aliases: entry.aliases.iter().map(|a| a.to_string()).collect(),
            seats: entry.seat_letters.iter().map(|c| c.to_string()).collect(),
            seat_names: entry.seat_names.iter().map(|n| n.to_string()).collect(),
            options: entry
                .options
                .iter()
                .map(|o| {
                    (
                        o.key.to_string(),
                        o.values.iter().map(|v| v.to_string()).collect(),
                    )
                })
                .collect(),
            has_chance: entry.has_chance,
            move_syntax: entry.move_syntax.to_string(),
            num_actions: entry.actions,
        }
    }
}

/// What a search found.
#[pyclass(frozen, get_all, module = "menagerie")]
pub(crate) struct SearchResult {
    /// The move to play, in the game's notation.
    pub(crate) best: String,
    /// The score for the side to move as the protocol prints it:
    /// `cp N`, `win N` or `loss N` (N in moves of the side to move).
    pub(crate) score: String,
    /// The depth of the last iteration reported.
    pub(crate) depth: u32,
    pub(crate) nodes: u64,
    /// The principal variation of the last iteration reported.
    pub(crate) pv: Vec<String>,
}

#[pymethods]
impl SearchResult {
    #[new]
    fn new(best: String, score: String, depth: u32, nodes: u64, pv: Vec<String>) -> SearchResult {
        SearchResult {
            best,
            score,
            depth,
            nodes,
            pv,
        }
    }

    fn __getnewargs__(&self) -> (String, String, u32, u64, Vec<String>) {
        (
            self.best.clone(),
            self.score.clone(),
            self.depth,
            self.nodes,
            self.pv.clone(),
        )
    }

    fn __eq__(&self, other: &SearchResult) -> bool {
        self.__getnewargs__() == other.__getnewargs__()
    }

    fn __repr__(&self) -> String {
        format!(
            "SearchResult(best={:?}, score={:?}, depth={}, nodes={}, pv={:?})",
            self.best, self.score, self.depth, self.nodes, self.pv
        )
    }
}

/// Keeps the last iteration's depth and line.
#[derive(Default)]
pub(crate) struct LastInfo {
    pub(crate) depth: u32,
    pub(crate) pv: Vec<String>,
}

impl search::Reporter for LastInfo {
    fn info(&mut self, info: &search::Info) {
        self.depth = info.depth;
        self.pv = info.pv.iter().map(|m| m.to_string()).collect();
    }
    fn text(&mut self, _: &str) {}
}

/// Totals of uniformly random games played to their end.
#[pyclass(frozen, get_all, module = "menagerie")]
pub(crate) struct Playouts {
    pub(crate) games: u64,
    /// Moves and rolls played over all the games.
    pub(crate) moves: u64,
    /// Games won by each seat, in `State.seats` order.
    pub(crate) wins: Vec<u64>,
    pub(crate) draws: u64,
}

#[pymethods]
impl Playouts {
    #[new]
    fn new(games: u64, moves: u64, wins: Vec<u64>, draws: u64) -> Playouts {
        Playouts {
            games,
            moves,
            wins,
            draws,
        }
    }

    fn __getnewargs__(&self) -> (u64, u64, Vec<u64>, u64) {
        (self.games, self.moves, self.wins.clone(), self.draws)
    }

    fn __eq__(&self, other: &Playouts) -> bool {
        self.__getnewargs__() == other.__getnewargs__()
    }

    fn __repr__(&self) -> String {
        format!(
            "Playouts(games={}, moves={}, wins={:?}, draws={})",
            self.games, self.moves, self.wins, self.draws
        )
    }
}

/// What `solve` knows of a position.
#[pyclass(frozen, get_all, module = "menagerie")]
pub(crate) struct Solution {
    /// For the side to move: from the solved game or the tables `win N`,
    /// `loss N` (N its moves to the end) or `draw`; from a proof search
    /// `win`, `loss`, `draw` (no distance), or where it did not settle
    /// the position `at least draw`, `at most draw` or `unknown`.
    pub(crate) value: String,
    /// Each legal move with its value for the side that plays it (empty
    /// for a proof search's answer).
    pub(crate) moves: Vec<(String, String)>,
    /// `solved` (the whole game), `tables` (an endgame table), `rules`
    /// (the game is over: no moves) or `proof` (a proof-number search).
    pub(crate) source: String,
}

#[pymethods]
impl Solution {
    #[new]
    fn new(value: String, moves: Vec<(String, String)>, source: String) -> Solution {
        Solution {
            value,
            moves,
            source,
        }
    }

    #[allow(clippy::type_complexity)]
    fn __getnewargs__(&self) -> (String, Vec<(String, String)>, String) {
        (self.value.clone(), self.moves.clone(), self.source.clone())
    }

    fn __eq__(&self, other: &Solution) -> bool {
        self.__getnewargs__() == other.__getnewargs__()
    }

    fn __repr__(&self) -> String {
        format!(
            "Solution(value={:?}, source={:?}, moves={:?})",
            self.value, self.source, self.moves
        )
    }
}
