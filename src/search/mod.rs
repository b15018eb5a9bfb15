//! Searching for a move, generic over [`Game`]: which algorithm runs is
//! chosen from what the game declares (chance or not, two seats or more),
//! never from its name.
//!
//! The search never prints. It reports through [`Reporter`], which the
//! protocol layer implements (Stockfish's split between search and UCI).

pub mod alphabeta;
pub mod chance;
pub mod skill;
pub mod solved;
pub mod solver;
pub mod time;
pub mod tt;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::game::session::Session;
use crate::game::{Game, Outcome, Seat};

pub use time::Limits;

/// Scores inside the search: centipawn-like, with wins near `WIN`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this magnitude are forced wins or losses at a known distance.
pub const DECIDED: i32 = WIN - 10_000;
pub const MAX_PLY: usize = 128;

/// A score as the protocol reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// The side to move wins with its N-th move from here.
    Win(u32),
    /// The side to move loses after N moves of its own.
    Loss(u32),
}

impl Score {
    /// Converts an internal two-seat score (side to move's view).
    pub fn from_internal(score: i32) -> Score {
        if score >= DECIDED {
            Score::Win((WIN - score + 1) as u32 / 2)
        } else if score <= -DECIDED {
            Score::Loss((WIN + score) as u32 / 2)
        } else {
            Score::Cp(score)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Win(n) => write!(f, "win {n}"),
            Score::Loss(n) => write!(f, "loss {n}"),
        }
    }
}

/// One `info` line's worth of progress.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<String>,
}

impl Info {
    pub fn nps(&self) -> u64 {
        self.nodes * 1000 / self.time_ms.max(1)
    }
}

/// Where a search sends its progress; implemented by the protocol layer.
pub trait Reporter {
    fn info(&mut self, info: &Info);
    /// A free-form remark (`info string ...`).
    fn text(&mut self, text: &str);
}

/// A reporter that drops everything (bench, tests, referee helpers).
pub struct Silent;

impl Reporter for Silent {
    fn info(&mut self, _: &Info) {}
    fn text(&mut self, _: &str) {}
}

/// What a finished search returns.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    pub best: Option<String>,
    pub score: Score,
    pub nodes: u64,
}

/// State that outlives one search: the table and the stop signal.
pub struct Shared {
    pub tt: tt::Table,
    pub stop: AtomicBool,
}

impl Shared {
    pub fn new(hash_mib: usize) -> Shared {
        Shared {
            tt: tt::Table::new(hash_mib),
            stop: AtomicBool::new(false),
        }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Engine settings that shape the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub threads: usize,
    /// 0 (random) to 20 (full strength), see [`skill`].
    pub skill: u8,
    /// Seeds the randomness of the weaker skill levels.
    pub seed: u64,
    /// Whether solvable games play from their solved table.
    pub solver: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            threads: 1,
            skill: skill::FULL_STRENGTH,
            seed: 0,
            solver: true,
        }
    }
}

/// Counts nodes and watches the clock and the stop signal for one search.
pub struct Watch<'a> {
    pub shared: &'a Shared,
    pub limits: &'a Limits,
    pub start: Instant,
    /// Nodes of all threads.
    pub nodes: &'a AtomicU64,
}

impl Watch<'_> {
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// True when the search must stop now.
    pub fn must_stop(&self) -> bool {
        if self.shared.stopped() {
            return true;
        }
        if let Some(max) = self.limits.nodes {
            if self.nodes.load(Ordering::Relaxed) >= max {
                return true;
            }
        }
        match self.limits.hard_ms {
            Some(hard) => self.elapsed_ms() >= hard,
            None => false,
        }
    }
}

/// Runs the search that fits game `G` on the session's position.
pub fn run<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult {
    shared.tt.new_search();
    let position = session.position();
    let two_seats = position.seats().len() == 2;
    // The algorithm follows what the game declares, never its name.
    let result = if settings.skill < skill::FULL_STRENGTH {
        skill::play(session, settings.skill, settings.seed, shared)
    } else if settings.solver && two_seats && !G::HAS_CHANCE && position.solver_key().is_some() {
        solved::search(session, reporter)
    } else if two_seats && !G::HAS_CHANCE {
        alphabeta::search(session, limits, shared, settings, reporter)
    } else {
        chance::search(session, limits, shared, settings, reporter)
    };
    if limits.infinite {
        // UCI: an infinite search reports its move only once told to stop.
        while !shared.stopped() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    result
}

/// Score of an outcome for `seat`, `ply` moves from the root (two seats).
pub fn outcome_score(outcome: Outcome, seat: Seat, ply: usize) -> i32 {
    match outcome {
        Outcome::Draw => 0,
        Outcome::Win(w) if w == seat => WIN - ply as i32,
        Outcome::Win(_) => -(WIN - ply as i32),
    }
}
