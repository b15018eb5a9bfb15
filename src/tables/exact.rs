//! Exact knowledge as one layer: whatever the engine knows for certain of
//! a position, from a whole game solved by retrograde analysis
//! ([`crate::solved`]) or from the endgame tables ([`crate::probe`]), with
//! one value type ([`Value`]), always under the full rules (the
//! no-progress clock included), and one interface:
//!
//! - [`Exact::prepare`] starts what a game needs before a clock runs;
//! - [`Exact::open`] gathers what is known of a session's ruleset;
//! - [`Exact::probe`] / [`Exact::value`] give a position's value (search
//!   leaves), [`Exact::analyse`] every move's, [`Exact::best_move`] the
//!   move to play and [`Exact::line`] the line that follows;
//! - [`solve`] answers `solve`: known values, else a proof search
//!   ([`crate::proof`]) with the tables as leaves.
//!
//! Both sources live in the process's one store ([`crate::cache`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::session::{status_of, Session};
use menagerie_rules::game::{Game, Outcome, Status};

use crate::cache::{self, Key};
use crate::checkpoint::CheckpointError;
use crate::file::{Expected, FileError};
use crate::probe::Tables;
use crate::proof::{self, ProofReport, ProofSettings};
use crate::solved::Clocked;
use crate::value::Value;
use std::path::Path;

/// Where a position's exact value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The whole game, solved: distances count plies to the end.
    Solved { positions: usize },
    /// An endgame table of this slice: distances count plies to the
    /// capture (or the end of the game) that settles it.
    Table(Slice),
    /// The game is over: the rules give the value, and there are no moves.
    Rules,
}

/// The value of a position and of each legal move, for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis<M> {
    pub value: Value,
    pub moves: Vec<(M, Value)>,
    pub source: Source,
}

/// What `solve` found.
#[derive(Clone, Debug, PartialEq)]
pub enum Solved<M> {
    /// Exact values, known beforehand.
    Known(Analysis<M>),
    /// A proof search's value or bound, with its figures.
    Proved(ProofReport),
}

impl<M> Solved<M> {
    /// The same answer with its moves changed by `f` (to text, say).
    pub fn map_moves<N>(self, f: impl Fn(M) -> N) -> Solved<N> {
        match self {
            Solved::Known(a) => Solved::Known(Analysis {
                value: a.value,
                moves: a.moves.into_iter().map(|(m, v)| (f(m), v)).collect(),
                source: a.source,
            }),
            Solved::Proved(report) => Solved::Proved(report),
        }
    }
}

/// Why `solve` has no answer.
#[derive(Debug)]
pub enum Unsolved {
    /// Nothing exact for games with dice or more than two seats.
    NotSolvable,
    /// Stopped while the solved table was still being built.
    Stopped,
    /// The proof search's checkpoint cannot be read or written.
    Checkpoint(CheckpointError),
}

/// Whether whole games of `position`'s game and ruleset are solved by
/// retrograde analysis: two seats, no dice, and a solver key.
pub fn solvable<G: Game>(position: &G) -> bool {
    position.seats().len() == 2 && !G::HAS_CHANCE && position.solver_key().is_some()
}

/// The exact knowledge of one game and ruleset, as one search thread or
/// one `solve` uses it.
pub struct Exact<G: Game> {
    key: Key,
    solution: Option<Clocked<G>>,
    tables: Option<Arc<Tables>>,
}

impl<G: Game> Clone for Exact<G> {
    fn clone(&self) -> Exact<G> {
        Exact {
            key: self.key.clone(),
            solution: self.solution.clone(),
            tables: self.tables.clone(),
        }
    }
}

/// The practical order between moves of equal value, greatest best: the
/// game goes on, the share of gifts, minus times seen, minus the
/// opponent's evaluation.
type Taste = (bool, u32, i32, i32);

impl<G: Game> Exact<G> {
    /// What is known of the session's ruleset: for a solvable game its
    /// solved table (started in the background if need be, and waited for
    /// until `give_up` says so), and the endgame tables in the folder the
    /// `folder` (the engine's `TablePath`).
    pub fn open(session: &Session<G>, folder: &Path, give_up: impl Fn() -> bool) -> Exact<G> {
        let key = cache::key::<G>(session.rules());
        let position = session.position();
        let solution = if solvable(position) {
            let start = G::start(session.rules());
            let built = || cache::solution_holding(&key, &start, position, false);
            if built().is_none() {
                cache::build_in_background(key.clone(), start.clone(), position.clone());
                while built().is_none() && !give_up() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            built().map(Clocked::new)
        } else {
            None
        };
        let tables = Expected::of::<G>(session.rules())
            .map(|expected| cache::tables(&key, folder, &expected));
        Exact {
            key,
            solution,
            tables,
        }
    }

    /// Starts what the session's game needs before any clock runs (the
    /// solved table's build; the tables opened and their slices' numbering
    /// readied), without waiting; the table files left out.
    pub fn prepare(session: &Session<G>, folder: &Path) -> Vec<FileError> {
        let exact = Exact::open(session, folder, || true);
        if let (Some(tables), Some(endgame)) = (&exact.tables, G::endgame()) {
            for slice in tables.slices() {
                (endgame.slice_size)(slice);
            }
        }
        exact.problems()
    }

    /// Whether nothing is known: no solved table, no endgame table.
    pub fn is_empty(&self) -> bool {
        self.solution.is_none() && self.tables.as_ref().map_or(true, |t| t.is_empty())
    }

    /// The table files left out (when opened, or after failing a check)
    /// that have not been named yet; each is returned once.
    pub fn problems(&self) -> Vec<FileError> {
        self.tables
            .as_ref()
            .map(|tables| cache::news(&self.key, tables))
            .unwrap_or_default()
    }

    /// The tables this layer probes, if any.
    pub fn tables(&self) -> Option<&Tables> {
        self.tables.as_deref().filter(|t| !t.is_empty())
    }

    /// The value at its clock of a position the rules have not decided,
    /// if this layer holds it.
    #[inline]
    pub fn probe(&mut self, position: &G) -> Option<Value> {
        if let Some(value) = self.solution.as_mut().and_then(|s| s.value(position)) {
            return Some(value);
        }
        self.tables.as_ref()?.probe(position)
    }

    /// The value of any position: decided by the rules, else probed.
    pub fn value(&mut self, position: &G) -> Option<Value> {
        match position.outcome() {
            Some(outcome) => Some(Value::of_outcome(outcome, position)),
            None => self.probe(position),
        }
    }

    /// The value of playing `mv` from `position`, for the side to move,
    /// in the metric `position`'s own value is in: for a solved game,
    /// moves to the end (one more than the position after it); for the
    /// endgame tables, moves to the capture or end that settles the game
    /// (Syzygy's distance to zeroing), so a capture, or a move that ends
    /// the game, settles it with this very move whatever comes after.
    /// `child` is the position after `mv`.
    pub fn value_of_move(&mut self, position: &G, mv: G::Move, child: &G) -> Option<Value> {
        let after = self.value(child)?;
        let solved = self
            .solution
            .as_mut()
            .is_some_and(|s| s.value(position).is_some());
        let settles = position.is_capture(mv) || child.outcome().is_some();
        Some(if settles && !solved {
            Value::with(after.wdl().flipped(), 1)
        } else {
            after.for_mover()
        })
    }

    /// Where the values of `position` come from.
    pub fn source(&self, position: &G) -> Option<Source> {
        if position.outcome().is_some() {
            return Some(Source::Rules);
        }
        match &self.solution {
            Some(solution) if solution.table().value_of(position).is_some() => {
                Some(Source::Solved {
                    positions: solution.table().len(),
                })
            }
            _ => position.table_slice().map(Source::Table),
        }
    }

    /// The value of the session's position and of each legal move, if this
    /// layer holds them all.
    pub fn analyse(&mut self, session: &Session<G>) -> Option<Analysis<G::Move>> {
        let position = session.position();
        let value = self.value(position)?;
        let mut moves = Vec::new();
        session.legal(&mut moves);
        let moves = moves
            .into_iter()
            .map(|mv| {
                let mut child = position.clone();
                child.play(mv);
                Some((mv, self.value_of_move(position, mv, &child)?))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Analysis {
            value,
            moves,
            source: self.source(position)?,
        })
    }

    /// The best move of a position this layer holds, and its value: the
    /// fastest win, a move that keeps the draw, or the slowest loss.
    /// Between moves of equal value the choice is made for fallible
    /// opponents: the move after which the largest share of the
    /// opponent's replies gives something away (a drawn position turning
    /// into a win for us, a lost one into at least a draw), then the
    /// position seen least often, then the evaluation.
    ///
    /// The values know nothing of the game's history; given the `history`
    /// of the game (hashes, current position last), a move that ends the
    /// game in a draw by repetition or no progress is valued as the draw
    /// it is: a lost side takes it, a winning side avoids it, and a side
    /// that holds a draw plays on with another drawing move if it has one.
    pub fn best_move(&mut self, position: &G, history: Option<&[u64]>) -> Option<(G::Move, Value)> {
        let mut moves = Vec::new();
        position.generate(&mut moves);
        let mut best: Option<(G::Move, Value, Taste)> = None;
        let mut replies = Vec::new();
        let mut line = history.map(<[u64]>::to_vec).unwrap_or_default();
        for mv in moves {
            let mut child = position.clone();
            child.play(mv);
            let key = child.hash();
            let seen = line.iter().filter(|&&h| h == key).count() as i32;
            line.push(key);
            let ends_drawn = history.is_some()
                && matches!(status_of(&child, &line), Status::Over(Outcome::Draw, _));
            line.pop();
            let value = if ends_drawn {
                Value::Draw
            } else {
                self.value_of_move(position, mv, &child)?
            };
            let taste = match value {
                _ if ends_drawn => (false, 0, 0, 0),
                Value::Win(_) => (false, 0, 0, 0),
                _ => (
                    true,
                    self.gift_share(&child, value, &mut replies),
                    -seen,
                    -child.evaluate(),
                ),
            };
            // Perfect play first (fastest win, draw, slowest loss); only
            // between moves of equal value, the practical choice.
            let better = match best {
                None => true,
                Some((_, v, t)) => value.better_than(v) || (value == v && taste > t),
            };
            if better {
                best = Some((mv, value, taste));
            }
        }
        best.map(|(mv, v, _)| (mv, v))
    }

    /// Per mille of the opponent's replies in `child` that leave us better
    /// off than `value` (our value after the move that led to `child`).
    fn gift_share(&mut self, child: &G, value: Value, replies: &mut Vec<G::Move>) -> u32 {
        replies.clear();
        child.generate(replies);
        if replies.is_empty() {
            return 0;
        }
        let mut gifts = 0;
        for &reply in replies.iter() {
            let mut grandchild = child.clone();
            grandchild.play(reply);
            // The value for us, who move in the grandchild.
            let gift = self.value(&grandchild).is_some_and(|v| {
                v.better_than(value) && !matches!((v, value), (Value::Loss(_), Value::Loss(_)))
            });
            gifts += usize::from(gift);
        }
        (gifts * 1000 / replies.len()) as u32
    }

    /// The line that follows `first` from `position` when both sides keep
    /// playing their best move, `first` included: at most `most` moves,
    /// ending where the game is drawn or no longer held.
    pub fn line(&mut self, position: &G, first: G::Move, most: usize) -> Vec<G::Move> {
        let mut line = vec![first];
        let mut at = position.clone();
        at.play(first);
        while line.len() < most {
            match self.best_move(&at, None) {
                Some((next, value)) if value != Value::Draw => {
                    line.push(next);
                    at.play(next);
                }
                _ => break,
            }
        }
        line
    }
}

/// `solve`: the exact value of the session's position and of each legal
/// move where they are known (the table of a solved game, waited for
/// until `stop`; the endgame tables), else a proof search bounded by
/// `proof` with the tables as leaves, for two-seat games without dice.
/// Table files left out are given to `left_out`.
pub fn solve<G: Game>(
    session: &Session<G>,
    folder: &Path,
    proof: ProofSettings<'_>,
    stop: &AtomicBool,
    left_out: &mut dyn FnMut(FileError),
) -> Result<Solved<G::Move>, Unsolved> {
    let mut exact = Exact::open(session, folder, || stop.load(Ordering::Relaxed));
    exact.problems().into_iter().for_each(&mut *left_out);
    if let Some(analysis) = exact.analyse(session) {
        return Ok(Solved::Known(analysis));
    }
    let position = session.position();
    if solvable(position) {
        // Solvable, yet not held: its table was not built in time.
        return Err(Unsolved::Stopped);
    }
    if position.seats().len() != 2 || G::HAS_CHANCE {
        return Err(Unsolved::NotSolvable);
    }
    let history = session.history();
    let before = &history[..history.len().saturating_sub(1)];
    let report = proof::prove(position, before, exact.tables(), proof, stop)
        .map_err(Unsolved::Checkpoint)?;
    exact.problems().into_iter().for_each(left_out);
    Ok(Solved::Proved(report))
}
