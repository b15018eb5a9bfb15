//! Depth-first proof-number search (df-pn, Nagai 2002) for two-seat
//! deterministic games, with the endgame tables and the rules as leaves.
//!
//! A goal is "this side wins". Proof and disproof numbers say how many
//! leaves must still be shown to prove or disprove it; the search always
//! expands the most-proving position, under thresholds that let it stay
//! deep without walking back to the root. Two goals (the side to move
//! wins; the other side wins) give a value or a bound.
//!
//! The rules are kept whole, the threefold repetition included: what a
//! position is worth depends on the boards seen since the last capture
//! (none can come back after one, as the men are fewer), so a position is
//! stored by its board and the multiset of those boards (a sum of their
//! mixed hashes, which the order of play does not change). Every move
//! either captures or adds a board to that history, so the stored graph
//! has no cycles and a proof found for a position holds wherever it is
//! met again: no graph-history interaction.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::certificate::{self, CertificateError, CertificateRequest};

mod report;
pub use report::ReportLine;
mod run;
pub use run::prove;
mod search;
mod store;
#[cfg(test)]
mod tests;
mod walk;

/// What a proof search established about the side to move's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    Win,
    Loss,
    Draw,
    /// The other side cannot win; whether the side to move can is open.
    AtLeastDraw,
    /// The side to move cannot win; whether it can hold the draw is open.
    AtMostDraw,
    Unknown,
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Proven::Win => "win",
            Proven::Loss => "loss",
            Proven::Draw => "draw",
            Proven::AtLeastDraw => "at least draw",
            Proven::AtMostDraw => "at most draw",
            Proven::Unknown => "unknown",
        })
    }
}

/// The outcome of a proof search, with its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ProofReport {
    pub value: Proven,
    /// Positions expanded, over both goals.
    pub nodes: u64,
    /// Positions stored with their numbers.
    pub stored: usize,
    /// Leaves the tables decided.
    pub table_hits: u64,
    pub seconds: f64,
    /// Proof and disproof numbers left at the root for each goal (side to
    /// move wins, other side wins); 0 and 0 for a goal settled.
    pub open: [(u32, u32); 2],
    /// For a win proved: the size of the proof.
    pub proof: Option<ProofTree>,
    /// The search stopped because its stored positions reached what the
    /// process may hold: the most it could store.
    pub memory_bound: Option<usize>,
    /// Times the stored positions reached their bound and the open ones
    /// least worth keeping were dropped.
    pub collections: u32,
    /// Resumed from a checkpoint: the settled positions it held and the
    /// nodes spent before (included in `nodes`).
    pub resumed: Option<(usize, u64)>,
    /// The certificate asked for: what it holds, or why it was not written.
    pub certificate: Option<Result<certificate::Written, CertificateError>>,
    /// Times a goal the search settled (with [`Keys::Clock`]) had a
    /// proof that did not hold when walked under the full rules, and the
    /// search went on with the position where it failed kept by history.
    pub repairs: u32,
    /// The walks of settled goals' proofs under the full rules.
    pub walks: Walks,
}

/// What walking proofs under the full rules cost a search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Walks {
    pub count: u32,
    /// Positions reached, over all the walks.
    pub positions: u64,
    pub seconds: f64,
    /// A walk reached the positions the memory left allows (a quarter
    /// of it) and the search ended there: the value is a bound.
    pub too_large: Option<usize>,
}

/// How a proof search is bounded, saved and watched.
pub struct ProofSettings<'a> {
    /// Expansions, over both goals, a resumed run's earlier ones included.
    pub max_nodes: u64,
    /// Most bytes the stored positions may take. At this bound the open
    /// positions least worth keeping are dropped (settled ones are kept),
    /// and only when settled positions fill it does the search stop. With
    /// none, the bound is what the process may hold, and the search stops
    /// there, with the value or bound it has.
    pub memory_bytes: Option<u64>,
    /// Where the settled positions are kept: loaded at the start when the
    /// file is this search's, written every `checkpoint_every` and at the
    /// end.
    pub checkpoint: Option<&'a Path>,
    pub checkpoint_every: Duration,
    /// Called about once a second while the search runs.
    pub progress: &'a mut dyn FnMut(&Progress),
    /// Where to write the proof of what the search settles, if anywhere.
    pub certificate: Option<CertificateRequest<'a>>,
    /// When positions share their numbers.
    pub keys: Keys,
    /// Threads searching each goal, sharing its stored numbers (at most
    /// one a core).
    pub threads: usize,
}

impl<'a> ProofSettings<'a> {
    /// A search of `max_nodes` expansions, no checkpoint, no progress.
    pub fn nodes(max_nodes: u64, progress: &'a mut dyn FnMut(&Progress)) -> ProofSettings<'a> {
        ProofSettings {
            max_nodes,
            memory_bytes: None,
            checkpoint: None,
            checkpoint_every: Duration::from_secs(60),
            progress,
            certificate: None,
            keys: Keys::default(),
            threads: 1,
        }
    }
}

/// Where a running proof search stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub nodes: u64,
    pub stored: usize,
    /// The last known proof and disproof numbers at the root per goal
    /// (side to move wins, other side wins).
    pub roots: [(u32, u32); 2],
    pub nodes_per_second: u64,
    pub collections: u32,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let goal = |(pn, dn): (u32, u32)| match (pn, dn) {
            (0, _) => "proved".to_string(),
            (_, 0) => "disproved".to_string(),
            (pn, dn) => format!("pn {pn} dn {dn}"),
        };
        write!(
            f,
            "{} nodes, {} positions stored, side to move wins: {}, other side wins: {}, {} nodes/s, {} collections",
            self.nodes,
            self.stored,
            goal(self.roots[0]),
            goal(self.roots[1]),
            self.nodes_per_second,
            self.collections
        )
    }
}

/// What the calling thread watches while a goal is searched: the clock,
/// the progress line and the time of the next checkpoint.
struct Watch<'a> {
    started: Instant,
    /// Nodes spent before this run (a resumed checkpoint's).
    earlier: u64,
    last_report: Cell<Instant>,
    next_checkpoint: Option<Cell<Instant>>,
    /// Nodes this run spent before the current turn, and the positions
    /// stored for the goal not running.
    other: Cell<(u64, usize)>,
    roots: Cell<[(u32, u32); 2]>,
    /// Collections before the current turn.
    collections: Cell<u32>,
    progress: RefCell<&'a mut dyn FnMut(&Progress)>,
}

/// Bytes one stored position takes in the search's tables, measured
/// (a hash map entry of a key and two numbers, with the map's spare
/// room), rounded up.
pub const BYTES_PER_STORED: u64 = 48;

/// Bytes one position of a proof takes while it is walked (its id, its
/// keys and parent, its share of the positions waiting), rounded up.
pub const BYTES_PER_WALKED: u64 = 128;

/// The positions of a proof of a win: the winner's one chosen move at its
/// turns, every move at the loser's, down to positions the rules or the
/// tables decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofTree {
    /// Positions searched in the proof, leaves aside.
    pub positions: usize,
    /// Leaves: decided by the rules, or by the tables.
    pub leaves: usize,
}

/// When two positions of a proof search share their numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keys {
    /// The same board with the same boards since the last capture: what
    /// a position is worth under the repetition rule, so every number
    /// stored holds wherever it is met again; but every order of the same
    /// quiet moves makes positions of their own.
    History,
    /// The same board at the same clock, whatever came before it since
    /// the last capture: every order of the same quiet moves meets in one
    /// position, with the repetition rule kept on the line searched. A
    /// number found on one line may not hold on another (where the boards
    /// before differ), so a goal counts as settled only once its proof,
    /// walked under the full rules with each position's own history,
    /// holds; where it fails, that position is kept by history from then
    /// on and the search goes on. Awithlaknannai Mosona from the start:
    /// settled in 2.5 million nodes, where history keys had not in 300
    /// million.
    #[default]
    Clock,
}
