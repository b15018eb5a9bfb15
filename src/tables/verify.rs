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
use crate::value::{Entry, Value, Wdl};

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
                    let (mut moves, mut successors) = (Vec::new(), Vec::new());
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
                            check(&position, tables, &mut moves, &mut successors, &mut report);
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

/// What one move leads to, for every clock of the position it leaves.
enum Successor {
    /// The same for the mover at every clock: an end by the rules, or a
    /// capture's position, read at clock 0.
    Fixed(Wdl),
    /// A position one ply further on the clock: its entry, and its
    /// slice's result at the clock's end.
    Later(Entry, Wdl),
    /// A position no table here holds.
    Missing,
}

/// Checks `position` at every clock against [`derive`]'s definition,
/// generating its moves and probing each successor once: a successor's
/// entry gives its value at every clock.
fn check<G: Game>(
    position: &G,
    tables: &Tables,
    moves: &mut Vec<G::Move>,
    successors: &mut Vec<Successor>,
    report: &mut Report,
) {
    let mut at_zero = position.clone();
    at_zero.set_clock(0);
    let stored = tables.probe_entry(&at_zero);
    let decided = at_zero.outcome().map(|o| Wdl::of_outcome(o, &at_zero));
    successors.clear();
    if decided.is_none() {
        moves.clear();
        at_zero.generate(moves);
        for &mv in moves.iter() {
            let mut child = at_zero.clone();
            child.play(mv);
            let successor = if let Some(outcome) = child.outcome() {
                Successor::Fixed(Wdl::of_outcome(outcome, &child).flipped())
            } else if child.clock() == 0 {
                match tables.probe(&child) {
                    Some(value) => Successor::Fixed(value.wdl().flipped()),
                    None => Successor::Missing,
                }
            } else {
                match tables.probe_entry(&child) {
                    Some((entry, timeout)) => Successor::Later(entry, timeout),
                    None => Successor::Missing,
                }
            };
            successors.push(successor);
        }
    }
    let mut at_limit = at_zero.clone();
    at_limit.set_clock(G::NO_PROGRESS_LIMIT);
    let timed_out = Wdl::of_outcome(at_limit.no_progress_outcome(), &at_limit);
    for clock in 0..=G::NO_PROGRESS_LIMIT {
        report.values += 1;
        let left = G::NO_PROGRESS_LIMIT - clock;
        let stored = stored.map(|(entry, timeout)| entry.value(timeout, left));
        let derived = if decided.is_some() {
            decided
        } else if left == 0 {
            Some(timed_out)
        } else {
            successors.iter().try_fold(Wdl::Loss, |best, successor| {
                let value = match *successor {
                    Successor::Fixed(wdl) => wdl,
                    Successor::Later(entry, timeout) => {
                        entry.value(timeout, left - 1).wdl().flipped()
                    }
                    Successor::Missing => return None,
                };
                Some(best.max(value))
            })
        };
        if stored.map(Value::wdl) != derived {
            report.mismatches += 1;
            if report.examples.len() < 10 {
                let mut shown = at_zero.clone();
                shown.set_clock(clock);
                report.examples.push(format!(
                    "{shown}: the table says {}, its moves give {}",
                    stored.map_or("nothing".to_string(), |p| p.to_string()),
                    worded(derived)
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    use menagerie_rules::rng::Rng;

    /// The check by the definition, one clock at a time: every move
    /// generated and every successor probed again at each clock.
    fn check_by_definition(position: &Awithlaknannai, tables: &Tables, report: &mut Report) {
        let mut moves = Vec::new();
        let mut at_clock = position.clone();
        for clock in 0..=Awithlaknannai::NO_PROGRESS_LIMIT {
            at_clock.set_clock(clock);
            report.values += 1;
            let stored = tables.probe(&at_clock).map(Value::wdl);
            if stored != derive(&at_clock, tables, &mut moves) {
                report.mismatches += 1;
            }
        }
    }

    /// The one-generation check counts what the clock-by-clock definition
    /// counts, on good tables and on tables missing the slices captures
    /// lead into.
    #[test]
    fn checking_all_clocks_at_once_is_the_definition() {
        let dir = crate::tests::temp_dir("verify-all-clocks");
        for count in [false, true] {
            let rules = AwRules {
                lined: true,
                straight: false,
                count,
            };
            let good = crate::tests::build_to(&rules, &dir, 4);
            let expected = crate::file::Expected::of::<Awithlaknannai>(&rules).unwrap();
            // The 4-men slices alone: captures lead nowhere.
            let mut partial = Tables::empty(&dir, &expected);
            let folder = crate::file::folder(&dir, expected.game, expected.variant);
            for slice in [Slice::new(2, 2), Slice::new(3, 1), Slice::new(1, 3)] {
                let path = crate::file::slice_path(&folder, slice);
                let check = crate::file::Check::Checksum;
                partial
                    .insert(crate::file::SliceFile::open(&path, &expected, slice, check).unwrap());
            }
            let endgame = Awithlaknannai::endgame().unwrap();
            let mut rng = Rng::new(3);
            let mut mismatches = 0;
            for tables in [&good, &partial] {
                for slice in [Slice::new(2, 2), Slice::new(3, 1), Slice::new(1, 3)] {
                    let size = (endgame.slice_size)(slice);
                    for _ in 0..300 {
                        let index = rng.below(size);
                        let Some(mut p) = (endgame.position)(&rules, slice, index) else {
                            continue;
                        };
                        // A wrong clock in the position must not matter.
                        p.set_clock(rng.below(30) as u32);
                        let (mut fast, mut slow) = (Report::default(), Report::default());
                        check(&p, tables, &mut Vec::new(), &mut Vec::new(), &mut fast);
                        p.set_clock(0);
                        check_by_definition(&p, tables, &mut slow);
                        assert_eq!(
                            (fast.values, fast.mismatches),
                            (slow.values, slow.mismatches),
                            "{p}"
                        );
                        mismatches += fast.mismatches;
                    }
                }
            }
            assert!(mismatches > 0, "tables without the 3-men slices pass");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
