//! max^n search for more than two seats: a node's value is a vector with
//! every seat's evaluation, each seat picks the move best for itself, and
//! a chance node averages the vectors of its equally likely outcomes.
//!
//! Nothing prunes but the move filter (the moves the mover's own static
//! evaluation likes best, captures always): shallow max^n pruning needs a
//! bounded sum of the seats' values, which the evaluation does not keep,
//! and deep pruning is unsound. Depth counts player moves, as in
//! [`super::expectimax`].

use std::sync::atomic::AtomicBool;

use crate::deepening::{self, Deepening, Iteration};
use crate::vocabulary::{
    threads, Budget, Evaluation, Limits, Reporter, Score, SearchResult, Settings, Shared, Watch,
    MAX_PLY,
};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Seat, MAX_SEATS};

/// A certain win; evaluations stay well inside (-BOUND, BOUND).
const BOUND: i32 = 30_000;
/// Scores beyond this are certain results at a known distance.
const CERTAIN: i32 = BOUND - 1_000;
/// Moves a player node keeps past the move filter.
const FILTER_KEEP: usize = 8;

/// Every seat's value, indexed by seat.
type Values = [i32; MAX_SEATS];

pub fn search<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult<G::Move> {
    threads(
        session,
        limits,
        shared,
        settings,
        reporter,
        |budget, reporter| {
            let mut worker = Worker::new(session, budget);
            worker.eval = Evaluation::new::<G>(settings.network.as_ref());
            deepening::iterate(&mut worker, reporter)
        },
    )
}

/// The root seat's value of each root move searched to `depth` (for
/// tests); `None` when the limits or `stop` end the search first.
pub fn root_scores<G: Game>(
    session: &Session<G>,
    depth: u32,
    watch: &Watch<'_>,
) -> Option<Vec<(G::Move, i32)>> {
    let done = AtomicBool::new(false);
    let mut worker = Worker::new(session, watch.stoppable_budget(&done));
    let mut moves = Vec::new();
    session.legal(&mut moves);
    let mut scores = Vec::with_capacity(moves.len());
    for mv in moves {
        let undo = worker.position.play(mv);
        let v = worker.value(depth as i32 - 1, 1);
        worker.position.undo(mv, undo);
        if worker.budget.aborted {
            return None;
        }
        scores.push((mv, v[worker.root as usize]));
    }
    Some(scores)
}

struct Worker<'a, G: Game> {
    position: G,
    root: Seat,
    budget: Budget<'a>,
    lists: Vec<Vec<G::Move>>,
    /// Per ply: the filter's (mover's evaluation, move index) pairs.
    orders: Vec<Vec<(i32, usize)>>,
    /// The current iteration's root bookkeeping.
    iteration: Iteration<G::Move>,
    /// The values at the horizon and in the move filter.
    eval: Evaluation,
}

impl<'a, G: Game> Deepening<'a> for Worker<'a, G> {
    type Move = G::Move;
    const MAX_DEPTH: u32 = MAX_PLY as u32 / 2 - 2;

    fn budget(&mut self) -> &mut Budget<'a> {
        &mut self.budget
    }

    fn iteration(&self) -> &Iteration<G::Move> {
        &self.iteration
    }

    fn iteration_mut(&mut self) -> &mut Iteration<G::Move> {
        &mut self.iteration
    }

    fn search_root(&mut self, depth: u32, _previous: i32) -> i32 {
        self.value(depth as i32, 0)[self.root as usize]
    }

    fn report_score(score: i32) -> Score {
        if score >= CERTAIN {
            Score::Win(((BOUND - score) as u32).div_ceil(2).max(1))
        } else if score <= -CERTAIN {
            Score::Loss((BOUND + score) as u32 / 2)
        } else {
            Score::Cp(score)
        }
    }

    fn settled(score: i32, _depth: u32) -> bool {
        score.abs() >= CERTAIN
    }
}

impl<'a, G: Game> Worker<'a, G> {
    fn new(session: &Session<G>, budget: Budget<'a>) -> Self {
        let mut moves = Vec::new();
        session.legal(&mut moves);
        Worker {
            position: session.position().clone(),
            root: session.position().side(),
            budget,
            lists: (0..2 * MAX_PLY + 2)
                .map(|_| Vec::with_capacity(64))
                .collect(),
            orders: (0..2 * MAX_PLY + 2)
                .map(|_| Vec::with_capacity(64))
                .collect(),
            iteration: Iteration::new(2 * MAX_PLY + 2, moves.len()),
            eval: Evaluation::Hand,
        }
    }

    fn outcome_values(&self, outcome: Outcome, ply: usize) -> Values {
        let mut values = [0; MAX_SEATS];
        if let Outcome::Win(winner) = outcome {
            for &seat in self.position.seats() {
                values[seat as usize] = if seat == winner {
                    BOUND - ply as i32
                } else {
                    -(BOUND - ply as i32)
                };
            }
        }
        values
    }

    fn evaluate(&mut self) -> Values {
        self.iteration.horizon = true;
        self.eval
            .values(&self.position)
            .map(|v| v.clamp(-CERTAIN + 1, CERTAIN - 1))
    }

    fn value(&mut self, depth: i32, ply: usize) -> Values {
        self.iteration.pv[ply].clear();
        if ply > 0 && self.budget.tick() {
            return [0; MAX_SEATS];
        }
        self.iteration.seldepth = self.iteration.seldepth.max(ply);
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        self.position.generate(&mut moves);
        let result = if moves.is_empty() {
            let outcome = self
                .position
                .outcome()
                .expect("no moves means the game is decided");
            self.outcome_values(outcome, ply)
        } else if self.position.clock() >= G::NO_PROGRESS_LIMIT {
            self.outcome_values(self.position.no_progress_outcome(), ply)
        } else if ply >= 2 * MAX_PLY - 2 || depth <= 0 {
            self.evaluate()
        } else if self.position.is_chance() {
            self.chance(&moves, depth, ply)
        } else {
            self.player(&moves, depth, ply)
        };
        self.lists[ply] = moves;
        result
    }

    /// The average of the outcomes' vectors.
    fn chance(&mut self, outcomes: &[G::Move], depth: i32, ply: usize) -> Values {
        let mut sum = [0i64; MAX_SEATS];
        for &roll in outcomes {
            let undo = self.position.play(roll);
            let v = self.value(depth, ply + 1);
            self.position.undo(roll, undo);
            if self.budget.aborted {
                return [0; MAX_SEATS];
            }
            for (total, v) in sum.iter_mut().zip(v) {
                *total += v as i64;
            }
        }
        sum.map(|total| (total / outcomes.len() as i64) as i32)
    }

    /// The vector of the move best for the seat to move.
    fn player(&mut self, moves: &[G::Move], depth: i32, ply: usize) -> Values {
        let mover = self.position.side();
        let mut order = std::mem::take(&mut self.orders[ply]);
        order.clear();
        for (i, &mv) in moves.iter().enumerate() {
            let undo = self.position.play(mv);
            let own = self.eval.value_for(&self.position, mover);
            self.position.undo(mv, undo);
            let key = if self.position.is_capture(mv) {
                i32::MAX
            } else {
                own
            };
            order.push((key, i));
        }
        order.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
        if depth >= 2 && order.len() > FILTER_KEEP {
            let keep = order
                .iter()
                .position(|&(key, _)| key != i32::MAX)
                .unwrap_or(order.len())
                .max(FILTER_KEEP);
            self.iteration.horizon |= keep < order.len();
            order.truncate(keep);
        }
        let mut best: Option<Values> = None;
        for &(_, i) in &order {
            let mv = moves[i];
            let undo = self.position.play(mv);
            let v = self.value(depth - 1, ply + 1);
            self.position.undo(mv, undo);
            if self.budget.aborted {
                break;
            }
            // Ties go to the move worst for the root, as a cautious root
            // would assume.
            let better = best.map_or(true, |b| {
                v[mover as usize] > b[mover as usize]
                    || (v[mover as usize] == b[mover as usize]
                        && mover != self.root
                        && v[self.root as usize] < b[self.root as usize])
            });
            if better {
                best = Some(v);
                if ply == 0 {
                    self.iteration.best = Some((mv, v[self.root as usize]));
                    self.budget.may_abort = true;
                }
                let (head, tail) = self.iteration.pv.split_at_mut(ply + 1);
                head[ply].clear();
                head[ply].push(mv);
                head[ply].extend_from_slice(&tail[0]);
            }
        }
        self.orders[ply] = order;
        if self.budget.aborted {
            return [0; MAX_SEATS];
        }
        best.expect("a player node has a move")
    }
}
