//! Re-derives every stored value from its successors.
//!
//! For each position of a slice and every number of plies left on the
//! clock, the value the file gives must be the best, for the side to move,
//! of its moves' values: a capture's position read at clock 0 (from the
//! smaller tables, or decided by the rules), any other move's position one
//! ply further on; with no ply left, the clock's end; a position the rules
//! decide, that. This is the definition of the value, checked against what
//! the walk produced, so a mismatch means a wrong table.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;

use crate::file::FileError;
use crate::probe::Tables;
use crate::value::{Value, Wdl};

/// Why a verification has no report.
#[derive(Debug)]
pub enum Unverified {
    Stopped,
    /// A file the slice reads failed a check while it was read.
    File(FileError),
}

impl std::fmt::Display for Unverified {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Unverified::Stopped => f.write_str("stopped"),
            Unverified::File(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Unverified {}

/// A value as a verification report words it.
fn worded(value: Option<Wdl>) -> &'static str {
    match value {
        Some(Wdl::Win) => "a win",
        Some(Wdl::Draw) => "a draw",
        Some(Wdl::Loss) => "a loss",
        None => "nothing",
    }
}

/// What a verification found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub positions: u64,
    /// (position, clock) pairs checked.
    pub values: u64,
    pub mismatches: u64,
    /// The first mismatches, described.
    pub examples: Vec<String>,
}

/// Checks every position of `slice` (which `tables` must hold, with the
/// slices its captures lead into), on `threads` threads.
pub fn verify_slice<G: Game>(
    rules: &G::Rules,
    tables: &Tables,
    slice: Slice,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Report, Unverified> {
    let endgame = G::endgame().ok_or(Unverified::Stopped)?;
    let opened = tables.slice(slice).ok_or(Unverified::Stopped)?;
    let size = opened.entries();
    let threads = threads.max(1) as u64;
    let next = AtomicU64::new(0);
    const BLOCK: u64 = 1024;
    let reports: Vec<Report> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let next = &next;
                let endgame = &endgame;
                scope.spawn(move || {
                    let mut report = Report::default();
                    let mut moves = Vec::new();
                    loop {
                        let start = next.fetch_add(BLOCK, Ordering::Relaxed);
                        if start >= size || stop.load(Ordering::Relaxed) {
                            return report;
                        }
                        for index in start..(start + BLOCK).min(size) {
                            let Some(position) = (endgame.position)(rules, slice, index) else {
                                continue;
                            };
                            report.positions += 1;
                            check(&position, tables, &mut moves, &mut report);
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a verifier thread"))
            .collect()
    });
    if let Some(problem) = tables.take_problems().into_iter().next() {
        return Err(Unverified::File(problem));
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Unverified::Stopped);
    }
    let mut total = Report::default();
    for r in reports {
        total.positions += r.positions;
        total.values += r.values;
        total.mismatches += r.mismatches;
        total.examples.extend(r.examples);
    }
    total.examples.truncate(10);
    Ok(total)
}

/// The value of `position` (clock as given) from its successors and the
/// tables: what the table must say.
pub fn derive<G: Game>(position: &G, tables: &Tables, moves: &mut Vec<G::Move>) -> Option<Wdl> {
    if let Some(outcome) = position.outcome() {
        return Some(Wdl::of_outcome(outcome, position));
    }
    if position.clock() >= G::NO_PROGRESS_LIMIT {
        return Some(Wdl::of_outcome(position.no_progress_outcome(), position));
    }
    moves.clear();
    position.generate(moves);
    let mut best = Wdl::Loss;
    for &mv in moves.iter() {
        let mut child = position.clone();
        child.play(mv);
        let value = match child.outcome() {
            Some(outcome) => Wdl::of_outcome(outcome, &child),
            None => tables.probe(&child)?.wdl(),
        };
        best = best.max(value.flipped());
    }
    Some(best)
}

fn check<G: Game>(position: &G, tables: &Tables, moves: &mut Vec<G::Move>, report: &mut Report) {
    let mut at_clock = position.clone();
    for clock in 0..=G::NO_PROGRESS_LIMIT {
        at_clock.set_clock(clock);
        report.values += 1;
        let stored: Option<Value> = tables.probe(&at_clock);
        let derived = derive(&at_clock, tables, moves);
        if stored.map(Value::wdl) != derived {
            report.mismatches += 1;
            if report.examples.len() < 10 {
                report.examples.push(format!(
                    "{at_clock}: the table says {}, its moves give {}",
                    stored.map_or("nothing".to_string(), |p| p.to_string()),
                    worded(derived)
                ));
            }
        }
    }
}
