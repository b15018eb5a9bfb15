//! The `menagerie._menagerie` extension module: the games' rules and the
//! engine's search for Python, through the same catalogue and sessions
//! the engine uses (no second copy of the rules). `menagerie/__init__.py`
//! re-exports it; `_menagerie.pyi` gives its types.

use std::sync::atomic::AtomicBool;

use menagerie_engine::session::{
    choose_network, EngineSession, SolveRequest, Solved, Unsolved, GAMES,
};
use menagerie_rules::catalogue;
use menagerie_rules::game::{Outcome, Status};
use menagerie_search as search;
use menagerie_tables::exact::Source;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod args;
mod results;

use results::{GameInfo, LastInfo, Playouts, SearchResult, Solution};

create_exception!(
    menagerie,
    MenagerieError,
    PyValueError,
    "A request the rules or the engine refuse; the message is the engine's."
);

/// The error of `command`, worded as the engine words it.
fn refuse(command: &'static str) -> impl Fn(&dyn std::fmt::Display) -> PyErr {
    move |error| MenagerieError::new_err(format!("{command}: {error}"))
}

thread_local! {
    /// The table of this thread's last search, with its size in MiB, kept
    /// for the next search when it clears in place. A fresh table's pages
    /// come from the system as the search first touches them: that made a
    /// 20,000-node search take more than twice as long (11.5 ms against 4.9).
    static KEPT_TABLE: std::cell::Cell<Option<(usize, search::Shared)>> =
        const { std::cell::Cell::new(None) };
}

/// A table of `hash_mib` MiB for a search: this thread's kept one,
/// cleared (the same results as a fresh one), or a new one.
fn table_for(hash_mib: usize) -> Result<search::Shared, search::tt::TableError> {
    match KEPT_TABLE.take() {
        Some((mib, shared)) if mib == hash_mib => {
            shared.tt.clear();
            shared
                .stop
                .store(false, std::sync::atomic::Ordering::Relaxed);
            Ok(shared)
        }
        // Another size: the kept table is freed before the new one is had.
        _ => search::Shared::try_with_stop(hash_mib, Default::default()),
    }
}

/// Keeps a search's table for this thread's next search, unless clearing
/// it would hand its pages back anyway (a large table is not held on to).
fn keep_table(hash_mib: usize, shared: search::Shared) {
    if shared.tt.clears_in_place() {
        KEPT_TABLE.set(Some((hash_mib, shared)));
    }
}

/// Runs `work` on a thread of its own, the GIL released, while this
/// thread looks for signals every 20 ms: Ctrl-C (or any signal handler
/// that raises) sets `stop`, waits for `work` to wind down (the state is
/// never left half changed: these calls change nothing) and raises the
/// handler's exception. A panic in `work` becomes a `MenagerieError`.
/// The wait ends as soon as `work` does, not at the next look: a table
/// probe takes microseconds, and a checker makes a hundred thousand.
fn interruptible<T: Send>(
    py: Python<'_>,
    command: &'static str,
    stop: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    use std::sync::mpsc::RecvTimeoutError;
    let (finished, finishing) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name(format!("menagerie {command}"))
            .spawn_scoped(scope, move || {
                // Dropped at the end, or on a panic: either wakes the wait.
                let _finished = finished;
                work()
            })
            .map_err(|e| refuse(command)(&format!("cannot start a thread: {e}")))?;
        let mut signalled = None;
        let mut finishing = finishing;
        loop {
            // The receiver goes to the wait and back: it may not be shared.
            let waited;
            (finishing, waited) = py.detach(move || {
                let waited = finishing.recv_timeout(std::time::Duration::from_millis(20));
                (finishing, waited)
            });
            if waited != Err(RecvTimeoutError::Timeout) {
                break;
            }
            if signalled.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    signalled = Some(e);
                }
            }
        }
        let done = worker
            .join()
            .map_err(|_| refuse(command)(&"the computation failed (a bug: please report it)"));
        match signalled {
            Some(e) => Err(e),
            None => done,
        }
    })
}

/// The state to change, or a clear refusal while another thread reads
/// it (a search, a solve, perft or playouts hold it for their length).
fn changing<'py>(slf: &Bound<'py, State>, command: &'static str) -> PyResult<PyRefMut<'py, State>> {
    slf.try_borrow_mut().map_err(|_| {
        refuse(command)(
            &"the state is in use by another thread (a search, solve, perft or playouts): \
              wait for it, or play on a copy()",
        )
    })
}

/// Every game of this build, the default first.
#[pyfunction]
fn games() -> Vec<GameInfo> {
    GAMES.iter().map(GameInfo::of).collect()
}

/// Every ruleset of `game` (each option combination), as `key=value` words.
#[pyfunction]
fn rulesets(game: &str) -> PyResult<Vec<String>> {
    let entry = catalogue::entry(&GAMES, game).map_err(|e| refuse("rulesets")(&e))?;
    Ok(entry.all_rulesets().iter().map(|r| r.to_string()).collect())
}

/// A game in progress: a position of one game and ruleset with the
/// history its draw rules need.
#[pyclass(module = "menagerie")]
struct State {
    session: Box<dyn EngineSession>,
}

impl State {
    /// The seat in play whose letter is `letter`.
    fn seat_named(
        &self,
        letter: &str,
        command: &'static str,
    ) -> PyResult<menagerie_rules::game::Seat> {
        self.session
            .seats_in_play()
            .into_iter()
            .find(|&s| self.session.seat_letter_of(s).to_string() == letter)
            .ok_or_else(|| {
                let letters = self.session.seat_letters().into_iter().collect::<String>();
                refuse(command)(&format!("no seat '{letter}' in play (seats: {letters})"))
            })
    }
}

#[pymethods]
impl State {
    /// The start of `game` (id or alias) under `ruleset` (`key=value`
    /// words, defaults for the rest), or the position `notation` of it,
    /// with `moves` (moves and rolls) played from there.
    #[new]
    #[pyo3(signature = (game, ruleset = "", notation = None, moves = Vec::new()))]
    fn new(
        game: &str,
        ruleset: &str,
        notation: Option<&str>,
        moves: Vec<String>,
    ) -> PyResult<State> {
        let words: Vec<&str> = ruleset.split_whitespace().collect();
        let mut session =
            catalogue::new_session_named(&GAMES, game, &words).map_err(|e| refuse("State")(&e))?;
        session
            .set_position(notation, &moves)
            .map_err(|e| refuse("State")(&e))?;
        Ok(State { session })
    }

    /// Pickling: the set position and the moves since, so that the copy
    /// keeps the history the draw rules and `undo` need.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (&'static str, String, String, Vec<String>),
    ) {
        let mut base = self.session.boxed();
        while base.take_back() {}
        (
            py.get_type::<State>(),
            (
                self.session.game_id(),
                self.session.ruleset().to_string(),
                base.notation(),
                self.session.moves_played(),
            ),
        )
    }

    /// The game's id.
    #[getter]
    fn game(&self) -> &'static str {
        self.session.game_id()
    }

    /// Every option of the ruleset as `key=value` words.
    #[getter]
    fn ruleset(&self) -> String {
        self.session.ruleset().to_string()
    }

    /// The position in the game's notation (`State(game, ruleset,
    /// notation)` reads it back).
    #[getter]
    fn notation(&self) -> String {
        self.session.notation()
    }

    /// The letters of the seats in play, in turn order.
    #[getter]
    fn seats(&self) -> Vec<String> {
        self.session
            .seat_letters()
            .iter()
            .map(|c| c.to_string())
            .collect()
    }

    /// The letter of the seat to move (or to roll).
    #[getter]
    fn side(&self) -> String {
        self.session.side_letter().to_string()
    }

    /// The place of the seat to move in `seats`.
    #[getter]
    fn side_index(&self) -> usize {
        self.session.seat_order().0
    }

    /// Whether a die roll is due: the moves are then the chance outcomes.
    #[getter]
    fn is_chance(&self) -> bool {
        self.session.status() == Status::Ongoing && self.session.awaiting_chance()
    }

    /// Whether the game is over, by its rules or the draw rules.
    #[getter]
    fn is_over(&self) -> bool {
        self.session.status() != Status::Ongoing
    }

    /// The winner's letter; None while the game goes on or in a draw.
    #[getter]
    fn winner(&self) -> Option<String> {
        match self.session.status() {
            Status::Over(Outcome::Win(seat), _) => {
                Some(self.session.seat_letter_of(seat).to_string())
            }
            _ => None,
        }
    }

    /// Why the game ended (`tiger-trapped`, `no-progress`, ...); None
    /// while it goes on.
    #[getter]
    fn end_reason(&self) -> Option<String> {
        match self.session.status() {
            Status::Over(_, reason) => Some(reason.to_string()),
            Status::Ongoing => None,
        }
    }

    /// Each seat's return in `seats` order, zero-sum as OpenSpiel's are:
    /// +1 for the winner and -1/(n-1) for each of the n-1 others; 0 for
    /// all in a draw and while the game goes on.
    fn returns(&self) -> Vec<f64> {
        let seats = self.session.seats_in_play();
        let others = seats.len().saturating_sub(1).max(1) as f64;
        match self.session.status() {
            Status::Over(Outcome::Win(winner), _) => seats
                .iter()
                .map(|&s| if s == winner { 1.0 } else { -1.0 / others })
                .collect(),
            _ => vec![0.0; seats.len()],
        }
    }

    /// The position as the seat `seat` (a letter of `seats`) sees it, as
    /// `observation_shape` planes of points, flat, plane after plane
    /// (docs in python/README.md: the men by kind and place from the
    /// seat, the seat to move, the seats in play, a roll due, the
    /// no-progress clock, the game's own planes).
    fn observation(&self, seat: &str) -> PyResult<Vec<f32>> {
        let seat = self.seat_named(seat, "observation")?;
        Ok(self.session.observation(seat).1)
    }

    /// Plies since the last capture, drop or landing (the no-progress
    /// clock).
    #[getter]
    fn clock(&self) -> u32 {
        self.session.clock()
    }

    /// Most actions (moves, rolls and the leaps of a chain, one each) a
    /// game can still take from here, by the rules: the no-progress clock
    /// ends a game, and captures, drops and landings, the only moves that
    /// restart it, are few.
    #[getter]
    fn most_actions(&self) -> u64 {
        self.session.most_actions()
    }

    /// (planes, points) of `observation`.
    #[getter]
    fn observation_shape(&self) -> (usize, usize) {
        let shape = self.session.observation_shape();
        (shape.planes, shape.points)
    }

    /// The name of each plane of `observation`, in order.
    fn plane_names(&self) -> Vec<String> {
        self.session.plane_names()
    }

    /// Where the point named `point` (`a1`) lies within a plane of
    /// `observation(seat)`; None for a name that is no point.
    fn observation_point(&self, point: &str, seat: &str) -> PyResult<Option<usize>> {
        let seat = self.seat_named(seat, "observation_point")?;
        Ok(self.session.observation_point(point, seat))
    }

    /// The legal moves (the chance outcomes when a roll is due), none
    /// when the game is over.
    fn legal_moves(&self) -> Vec<String> {
        self.session.legal_moves()
    }

    /// The legal moves as sequences of action numbers, in the order of
    /// `legal_moves`: each number below the game's `num_actions`; in one
    /// position no move's sequence is the same as or the start of
    /// another's. A move is one action (its from-and-to points), except
    /// an Awithlaknannai Mosona leap chain: one action per leap.
    fn move_actions(&self) -> Vec<(Vec<usize>, String)> {
        self.session.move_actions()
    }

    /// How an action that does not end a move is written: the points of
    /// one leap of an Awithlaknannai Mosona chain (`m2k2i2`); `None` for
    /// other numbers.
    fn action_text(
        &self,
        #[pyo3(from_py_with = args::action_number)] action: usize,
    ) -> Option<String> {
        self.session.action_text(action)
    }

    /// The outcomes of the roll due with their probabilities; empty where
    /// a player moves.
    fn chance_outcomes(&self) -> Vec<(String, f64)> {
        if !self.is_chance() {
            return Vec::new();
        }
        // Every outcome of a game's chance node is equally likely (the
        // game trait's convention); the die's faces are the outcomes.
        let outcomes = self.session.legal_moves();
        let p = 1.0 / outcomes.len() as f64;
        outcomes.into_iter().map(|o| (o, p)).collect()
    }

    /// Plays a move or a roll written in the game's notation.
    fn play(slf: &Bound<'_, Self>, r#move: &str) -> PyResult<()> {
        changing(slf, "play")?
            .session
            .play_moves(&[r#move.to_string()])
            .map_err(|e| refuse("play")(&e))
    }

    /// Plays several moves in order; all or nothing.
    fn play_moves(slf: &Bound<'_, Self>, moves: Vec<String>) -> PyResult<()> {
        changing(slf, "play_moves")?
            .session
            .play_moves(&moves)
            .map_err(|e| refuse("play_moves")(&e))
    }

    /// Takes back the last move or roll played on this state.
    fn undo(slf: &Bound<'_, Self>) -> PyResult<()> {
        if changing(slf, "undo")?.session.take_back() {
            Ok(())
        } else {
            Err(MenagerieError::new_err(
                "undo: no move played since the position was set",
            ))
        }
    }

    /// The moves and rolls played since the position was set.
    fn history(&self) -> Vec<String> {
        self.session.moves_played()
    }

    /// The leaf count of the move tree `depth` player moves deep (a roll
    /// spends no depth: its outcomes are summed).
    fn perft(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::perft_depth)] depth: u32,
    ) -> PyResult<u64> {
        let session = &self.session;
        let stop = AtomicBool::new(false);
        interruptible(py, "perft", &stop, || {
            session.perft_divide(depth, &stop, &mut |_, _| {})
        })?
        .ok_or_else(|| refuse("perft")(&"stopped"))
    }

    /// `games` games from here, each move and roll drawn uniformly among
    /// the legal ones (as `bench playouts` plays them), every rule
    /// applied; the repetition rule counts positions from here on. The
    /// state is unchanged. A game already over counts `games` times as it
    /// ended. The random draws come from `seed` alone.
    #[pyo3(signature = (games = 1, seed = 0))]
    fn random_playouts(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::playouts_games)] games: u64,
        #[pyo3(from_py_with = args::playouts_seed)] seed: u64,
    ) -> PyResult<Playouts> {
        let seats = self.session.seats_in_play();
        let mut totals = Playouts {
            games,
            moves: 0,
            wins: vec![0; seats.len()],
            draws: 0,
        };
        match self.session.status() {
            Status::Over(Outcome::Win(winner), _) => {
                let place = seats.iter().position(|&s| s == winner);
                totals.wins[place.expect("the winner has a seat")] = games;
            }
            Status::Over(Outcome::Draw, _) => totals.draws = games,
            Status::Ongoing => {
                let session = &self.session;
                let stop = AtomicBool::new(false);
                let stats = interruptible(py, "random_playouts", &stop, || {
                    session.playouts(games, seed, &stop)
                })?;
                totals.moves = stats.moves;
                totals.draws = stats.draws;
                for (place, &seat) in seats.iter().enumerate() {
                    totals.wins[place] = stats.wins[seat as usize];
                }
            }
        }
        Ok(totals)
    }

    /// The board as `d` draws it.
    fn board(&self) -> String {
        self.session.draw()
    }

    /// An independent copy.
    fn copy(&self) -> State {
        State {
            session: self.session.boxed(),
        }
    }

    fn __copy__(&self) -> State {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        self.copy()
    }

    fn __str__(&self) -> String {
        self.session.notation()
    }

    fn __repr__(&self) -> String {
        format!(
            "State({:?}, {:?}, {:?})",
            self.session.game_id(),
            self.session.ruleset().to_string(),
            self.session.notation()
        )
    }

    fn __eq__(&self, other: &State) -> bool {
        self.session.game_id() == other.session.game_id()
            && self.session.ruleset() == other.session.ruleset()
            && self.session.notation() == other.session.notation()
            && self.session.moves_played() == other.session.moves_played()
    }

    /// Searches for the side to move and returns the move to play. Give
    /// at least one limit: `depth`, `nodes` or `movetime_ms`. `skill` 0
    /// (random) to 20 (full strength), `multiseat` how a search over
    /// more than two seats models the others (`brs`, `paranoid`,
    /// `brs-plus`, `maxn`, `mcts`, `puct`, `greedy`), `network` whether the
    /// game's built-in network evaluates (where it has one), `exact`
    /// whether solved values and endgame tables play, `tables` the folder
    /// of endgame tables (default: `$MENAGERIE_TABLES`, else the user's
    /// cache folder, as the engine's `TablePath`).
    #[pyo3(signature = (*, depth = None, nodes = None, movetime_ms = None, skill = 20,
        multiseat = "brs", seed = 0, threads = 1, hash_mib = 16, network = true, exact = true,
        tables = None))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::search_depth_or_none)] depth: Option<u32>,
        #[pyo3(from_py_with = args::search_nodes_or_none)] nodes: Option<u64>,
        #[pyo3(from_py_with = args::search_movetime_or_none)] movetime_ms: Option<u64>,
        #[pyo3(from_py_with = args::search_skill)] skill: u8,
        multiseat: &str,
        #[pyo3(from_py_with = args::search_seed)] seed: u64,
        #[pyo3(from_py_with = args::search_threads)] threads: usize,
        #[pyo3(from_py_with = args::search_hash)] hash_mib: usize,
        network: bool,
        exact: bool,
        tables: Option<std::path::PathBuf>,
    ) -> PyResult<SearchResult> {
        let limits = search::Limits {
            depth,
            nodes,
            soft_ms: movetime_ms,
            hard_ms: movetime_ms,
            infinite: false,
        };
        if limits.unbounded() {
            return Err(MenagerieError::new_err(
                "search: give a limit: depth, nodes or movetime_ms",
            ));
        }
        let multi_seat = search::MultiSeat::from_name(multiseat).ok_or_else(|| {
            MenagerieError::new_err(format!("search: unknown multiseat method '{multiseat}'"))
        })?;
        match self.session.status() {
            Status::Over(..) => return Err(MenagerieError::new_err("search: the game is over")),
            Status::Ongoing if self.session.awaiting_chance() => {
                return Err(MenagerieError::new_err(
                    "search: a roll is due; play one of chance_outcomes()",
                ))
            }
            Status::Ongoing => {}
        }
        let settings = search::Settings {
            threads,
            skill,
            seed,
            exact,
            multi_seat,
            network: network
                .then(|| choose_network(self.session.as_ref(), None))
                .flatten(),
            tables: tables_folder(tables),
        };
        let shared =
            table_for(hash_mib).map_err(|e| MenagerieError::new_err(format!("search: {e}")))?;
        let session = &self.session;
        let stop = std::sync::Arc::clone(&shared.stop);
        let (result, last) = interruptible(py, "search", &stop, || {
            let mut last = LastInfo::default();
            session.prepare_search(&settings, &mut search::Silent);
            let result = session.search(&limits, &shared, &settings, &mut last);
            (result, last)
        })?;
        keep_table(hash_mib, shared);
        let best = result
            .best
            .ok_or_else(|| MenagerieError::new_err("search: no move to choose"))?;
        Ok(SearchResult {
            best,
            score: result.score.to_string(),
            depth: last.depth,
            nodes: result.nodes,
            pv: last.pv,
        })
    }

    /// The exact value of the position, where the engine can know it: a
    /// solved game or the endgame tables, else a proof-number search of
    /// at most `nodes` expansions (0: none, only what is known). Two-seat
    /// games without dice only.
    /// `tables`: the folder of endgame tables, as for `search`.
    #[pyo3(signature = (*, nodes = 1_000_000, tables = None))]
    fn solve(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::solve_nodes)] nodes: u64,
        tables: Option<std::path::PathBuf>,
    ) -> PyResult<Solution> {
        let request = SolveRequest {
            nodes,
            memory_mib: None,
            keys: Default::default(),
            threads: 1,
            checkpoint: None,
            certificate: None,
            tables: tables_folder(tables),
        };
        let session = &self.session;
        let stop = AtomicBool::new(false);
        let answer = interruptible(py, "solve", &stop, || {
            session.solve(&stop, &request, &mut search::Silent)
        })?;
        match answer {
            Ok(Solved::Known(analysis)) => Ok(Solution {
                value: analysis.value.to_string(),
                moves: analysis
                    .moves
                    .into_iter()
                    .map(|(mv, v)| (mv, v.to_string()))
                    .collect(),
                source: match analysis.source {
                    Source::Solved { .. } => "solved",
                    Source::Table(_) => "tables",
                    Source::Rules => "rules",
                }
                .to_string(),
            }),
            Ok(Solved::Proved(report)) => Ok(Solution {
                value: report.value.to_string(),
                moves: Vec::new(),
                source: "proof".to_string(),
            }),
            Err(Unsolved::NotSolvable) => Err(MenagerieError::new_err(format!(
                "solve: {} has no exact values (dice or more than two seats)",
                self.session.game_id()
            ))),
            Err(Unsolved::Stopped) => Err(MenagerieError::new_err("solve: stopped")),
            Err(Unsolved::Checkpoint(e)) => Err(MenagerieError::new_err(format!("solve: {e}"))),
        }
    }
}

#[pymodule]
fn _menagerie(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<State>()?;
    m.add_class::<GameInfo>()?;
    m.add_class::<SearchResult>()?;
    m.add_class::<Solution>()?;
    m.add_class::<Playouts>()?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(rulesets, m)?)?;
    m.add("MenagerieError", m.py().get_type::<MenagerieError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The folder of endgame tables a call names, else the engine's default.
fn tables_folder(given: Option<std::path::PathBuf>) -> std::path::PathBuf {
    given.unwrap_or_else(menagerie_tables::probe::default_directory)
}
