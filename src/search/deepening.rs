//! Iterative deepening, shared by the alpha-beta and the chance search:
//! deeper and deeper root searches until the clock, the node budget or a
//! settled result says stop, an `info` line after each, and the move of
//! the last finished iteration (or of an unfinished one's fully searched
//! moves) as the answer.

use std::fmt;
use std::sync::atomic::Ordering;

use crate::vocabulary::{Budget, Info, Reporter, Score, SearchResult};

/// What every deepening search keeps of its current iteration at the
/// root, kept once here for alpha-beta, the multi-seat search and max^n.
pub struct Iteration<M> {
    /// The principal variation from each ply (`pv[0]` is the root's).
    pub pv: Vec<Vec<M>>,
    /// The deepest ply reached.
    pub seldepth: usize,
    /// The best root move fully searched, with its score.
    pub best: Option<(M, i32)>,
    /// How many legal moves the root has.
    pub moves: usize,
    /// Whether the search has judged a position by anything but the
    /// rules (an evaluation, a table, a filter, a cap): without one, its
    /// score is exact and a deeper search would find the same.
    pub horizon: bool,
}

impl<M> Iteration<M> {
    /// Bookkeeping for `plies` plies below a root of `moves` legal moves.
    pub fn new(plies: usize, moves: usize) -> Iteration<M> {
        Iteration {
            pv: (0..plies).map(|_| Vec::new()).collect(),
            seldepth: 0,
            best: None,
            moves,
            horizon: false,
        }
    }

    /// Before each root search.
    fn reset(&mut self) {
        self.seldepth = 0;
        self.best = None;
        self.horizon = false;
    }
}

/// What iterative deepening needs from one search thread.
pub trait Deepening<'a> {
    type Move: Copy + PartialEq + fmt::Display;
    /// The deepest iteration the search supports.
    const MAX_DEPTH: u32;

    fn budget(&mut self) -> &mut Budget<'a>;
    fn iteration(&self) -> &Iteration<Self::Move>;
    fn iteration_mut(&mut self) -> &mut Iteration<Self::Move>;
    /// Searches the root to `depth`; `previous` is the last iteration's
    /// score (0 before the first).
    fn search_root(&mut self, depth: u32, previous: i32) -> i32;
    /// An internal score as the protocol reports it.
    fn report_score(score: i32) -> Score;
    /// Whether a score found at `depth` is a result no deeper search can
    /// change.
    fn settled(score: i32, depth: u32) -> bool;
}

/// One `info` line for an iteration of `depth` that found `score`.
fn report<'a, W: Deepening<'a>>(
    worker: &mut W,
    reporter: &mut dyn Reporter,
    depth: u32,
    score: i32,
    pv: &[W::Move],
) {
    let seldepth = worker.iteration().seldepth as u32;
    let budget = worker.budget();
    budget.flush();
    let watch = budget.watch;
    reporter.info(&Info {
        depth,
        seldepth,
        score: W::report_score(score),
        nodes: watch.nodes.load(Ordering::Relaxed),
        time_ms: watch.elapsed_ms(),
        hashfull: watch.shared.tt.hashfull(),
        pv: crate::vocabulary::line(pv),
    });
}

/// Deepens until told to stop; only the main thread (with a reporter)
/// prints `info` lines. The main thread always returns a move (it cannot
/// be stopped before one root move is fully searched); a helper stopped
/// before that returns none, which Lazy SMP ignores.
pub fn iterate<'a, W: Deepening<'a>>(
    worker: &mut W,
    mut reporter: Option<&mut dyn Reporter>,
) -> SearchResult<W::Move> {
    let limits = worker.budget().watch.limits;
    let max_depth = limits.depth.unwrap_or(W::MAX_DEPTH).clamp(1, W::MAX_DEPTH);
    let mut best: Option<(W::Move, i32)> = None;
    // Helpers start one ply deeper on odd ids so threads spread out, but
    // never past the deepest iteration asked for.
    let mut depth = (1 + (worker.budget().id as u32 & 1)).min(max_depth);
    let mut previous = 0;
    let mut reported = false;
    while depth <= max_depth {
        worker.iteration_mut().reset();
        let score = worker.search_root(depth, previous);
        if worker.budget().aborted {
            // An unfinished iteration still counts for the root moves it
            // searched fully: its best of those beats the last iteration's
            // choice, which it has just been compared with (and is the
            // only answer when the first iteration is cut short, which
            // then gets the one info line).
            // A changed choice gets its own info line too, so that the
            // last line's pv always starts with the move played (as a
            // GUI shows it), the line the search found for it if it has
            // one.
            if let Some((mv, partial)) = worker.iteration().best {
                let changed = best.is_some_and(|(last, _)| last != mv);
                best = Some((mv, partial));
                if !reported || changed {
                    if let Some(reporter) = reporter.as_deref_mut() {
                        let line = &worker.iteration().pv[0];
                        let pv = if line.first() == Some(&mv) {
                            line.clone()
                        } else {
                            vec![mv]
                        };
                        report(worker, reporter, depth, partial, &pv);
                    }
                }
            }
            break;
        }
        if let Some(&mv) = worker.iteration().pv[0].first() {
            best = Some((mv, score));
            worker.budget().may_abort = true;
        }
        previous = score;
        if let Some(reporter) = reporter.as_deref_mut() {
            let pv = worker.iteration().pv[0].clone();
            report(worker, reporter, depth, score, &pv);
            reported = true;
        }
        if worker.budget().finished() || worker.budget().limit_reached() {
            break;
        }
        // A proven result: deeper iterations would only repeat it (an
        // infinite search then waits for `stop` with it).
        if W::settled(score, depth) || !worker.iteration().horizon {
            break;
        }
        // With one legal move there is nothing to think about on a clock.
        if worker.iteration().moves == 1 && limits.soft_ms.is_some() && !limits.infinite {
            break;
        }
        if let Some(soft) = limits.soft_ms {
            if worker.budget().watch.elapsed_ms() >= soft {
                break;
            }
        }
        depth += 1;
    }
    worker.budget().flush();
    match best {
        Some((mv, score)) => SearchResult {
            best: Some(mv),
            score: W::report_score(score),
            nodes: 0,
        },
        None => {
            assert!(
                worker.budget().id > 0,
                "the main thread searches one root move fully"
            );
            SearchResult {
                best: None,
                score: Score::Cp(0),
                nodes: 0,
            }
        }
    }
}
