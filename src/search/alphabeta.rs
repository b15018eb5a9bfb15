//! Principal-variation alpha-beta for deterministic two-seat games:
//! iterative deepening with aspiration windows, a shared transposition
//! table, move ordering (hash move, captures, killers, history), late-move
//! reductions, quiescence over captures (every move when captures are
//! forced), and Lazy SMP: helper threads search the same tree and meet
//! through the table.

use crate::deepening::{self, Deepening, Iteration};
use crate::tt::{Bound, Entry};
use std::sync::atomic::AtomicBool;

use menagerie_tables::Exact;

use crate::vocabulary::{
    outcome_score, threads, Budget, Limits, Reporter, Score, SearchResult, Settings, Shared, Watch,
};
use crate::vocabulary::{Evaluation, DECIDED, MAX_PLY, WIN};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Seat};

const INFINITY: i32 = WIN + 1;
const MAX_QUIESCENCE_PLY: usize = 16;
const ASPIRATION: i32 = 40;

/// Searches the session's position; the main thread reports.
pub fn search<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult<G::Move> {
    let exact = crate::exact::open(session, settings, reporter, || true);
    let result = threads(
        session,
        limits,
        shared,
        settings,
        reporter,
        |budget, reporter| {
            let mut worker = Worker::new(session, budget);
            worker.exact = exact.clone();
            worker.eval = Evaluation::new::<G>(settings.network.as_ref());
            deepening::iterate(&mut worker, reporter)
        },
    );
    // A file that failed a check during the search was left out at once.
    if let Some(exact) = &exact {
        crate::exact::report_problems(exact, reporter);
    }
    result
}

/// Scores of each root move searched to `depth` (the side to move's
/// view, as the protocol reports it too), for weakened play; `None` when
/// the limits or `stop` end the search first.
pub fn root_scores<G: Game>(
    session: &Session<G>,
    depth: u32,
    watch: &Watch<'_>,
) -> Option<Vec<(G::Move, i32, Score)>> {
    let done = AtomicBool::new(false);
    let mut worker = Worker::new(session, watch.stoppable_budget(&done));
    {
        let mut moves = Vec::new();
        session.legal(&mut moves);
        let side = session.position().side();
        let mut scores = Vec::with_capacity(moves.len());
        for mv in moves {
            let undo = worker.position.play(mv);
            worker.path.push(worker.position.hash());
            let s = worker.negamax(depth as i32 - 1, 1, -INFINITY, INFINITY);
            let score = if worker.position.side() == side {
                s
            } else {
                -s
            };
            worker.path.pop();
            worker.position.undo(mv, undo);
            if worker.budget.aborted {
                break;
            }
            scores.push((mv, score, Score::from_internal(score)));
        }
        worker.budget.flush();
        (!worker.budget.aborted).then_some(scores)
    }
}

/// One search thread with its own position, move lists and heuristics.
struct Worker<'a, G: Game> {
    position: G,
    /// Hashes of the game since the set position, then of the search path.
    path: Vec<u64>,
    budget: Budget<'a>,
    lists: Vec<Vec<G::Move>>,
    order: Vec<Vec<i32>>,
    killers: Vec<[Option<G::Move>; 2]>,
    /// History of quiet moves that caused cut-offs, per seat.
    history: Vec<i32>,
    /// The current iteration's root bookkeeping.
    iteration: Iteration<G::Move>,
    /// Exact knowledge of the game and ruleset, if any and used.
    exact: Option<Exact<G>>,
    /// The value at the horizon.
    eval: Evaluation,
}

impl<'a, G: Game> Deepening<'a> for Worker<'a, G> {
    type Move = G::Move;
    const MAX_DEPTH: u32 = MAX_PLY as u32 - 4;

    fn budget(&mut self) -> &mut Budget<'a> {
        &mut self.budget
    }

    fn iteration(&self) -> &Iteration<G::Move> {
        &self.iteration
    }

    fn iteration_mut(&mut self) -> &mut Iteration<G::Move> {
        &mut self.iteration
    }

    fn search_root(&mut self, depth: u32, previous: i32) -> i32 {
        self.aspiration(depth, previous)
    }

    fn report_score(score: i32) -> Score {
        Score::from_internal(score)
    }

    fn settled(score: i32, depth: u32) -> bool {
        // A forced result found within the depth searched.
        score.abs() >= DECIDED && (WIN - score.abs()) < depth as i32
    }
}

impl<'a, G: Game> Worker<'a, G> {
    fn new(session: &Session<G>, budget: Budget<'a>) -> Self {
        Worker {
            position: session.position().clone(),
            path: session.history().to_vec(),
            budget,
            lists: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            order: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            killers: vec![[None, None]; MAX_PLY + 1],
            history: vec![0; 2 * G::MOVE_KEYS],
            iteration: Iteration::new(MAX_PLY + 1, {
                let mut moves = Vec::new();
                session.legal(&mut moves);
                moves.len()
            }),
            exact: None,
            eval: Evaluation::Hand,
        }
    }

    /// A root search in a window around the previous score, widened on
    /// failure.
    fn aspiration(&mut self, depth: u32, previous: i32) -> i32 {
        if depth < 5 || previous.abs() >= DECIDED {
            return self.negamax(depth as i32, 0, -INFINITY, INFINITY);
        }
        let mut delta = ASPIRATION;
        let (mut alpha, mut beta) = (previous - delta, previous + delta);
        loop {
            let score = self.negamax(depth as i32, 0, alpha, beta);
            if self.budget.aborted {
                return score;
            }
            if score <= alpha {
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta *= 3;
            if delta > 2000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Score of the position if a draw rule ends the game here.
    fn draw_by_rule(&mut self, ply: usize) -> Option<i32> {
        let clock = self.position.clock();
        if clock >= G::NO_PROGRESS_LIMIT {
            let outcome = self.position.no_progress_outcome();
            return Some(outcome_score(outcome, self.position.side(), ply));
        }
        if ply > 0 && clock >= 4 {
            // One repetition inside the search counts as the draw it can be
            // forced into. Nothing before the last progress can recur, so
            // the scan stops there.
            let key = *self.path.last().expect("path holds the current position");
            let n = self.path.len();
            let window = (clock as usize).min(n - 1);
            if self.path[n - 1 - window..n - 1]
                .iter()
                .rev()
                .skip(1)
                .step_by(2)
                .any(|&h| h == key)
            {
                self.iteration.horizon = true;
                return Some(0);
            }
        }
        None
    }

    /// The moves of the node at `ply`, in that ply's list (to be given
    /// back), or its score when the game is over here, by the rules or a
    /// draw rule.
    fn expand(&mut self, ply: usize) -> Result<Vec<G::Move>, i32> {
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        self.position.generate(&mut moves);
        let score = if moves.is_empty() {
            let outcome = self
                .position
                .outcome()
                .expect("no moves means the game is decided");
            Some(outcome_score(outcome, self.position.side(), ply))
        } else {
            self.draw_by_rule(ply)
        };
        match score {
            Some(score) => {
                self.lists[ply] = moves;
                Err(score)
            }
            None => Ok(moves),
        }
    }

    /// The exact score of a position below the root that exact knowledge
    /// holds.
    fn probe(&mut self, ply: usize) -> Option<i32> {
        if ply == 0 {
            return None;
        }
        let value = self.exact.as_mut()?.probe(&self.position)?;
        self.iteration.horizon = true;
        Some(crate::exact::score(value))
    }

    fn negamax(&mut self, depth: i32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.iteration.pv[ply].clear();
        if ply > 0 && self.budget.tick() {
            return 0;
        }
        if depth <= 0 || ply >= MAX_PLY - 2 {
            return self.quiescence(ply, 0, alpha, beta);
        }
        self.iteration.seldepth = self.iteration.seldepth.max(ply);

        let moves = match self.expand(ply) {
            Ok(moves) => moves,
            Err(score) => return score,
        };
        if let Some(score) = self.probe(ply) {
            self.lists[ply] = moves;
            return score;
        }
        // Mate-distance pruning: nothing here beats a win found nearer.
        let (alpha_floor, beta_cap) = (-(WIN - ply as i32), WIN - ply as i32 - 1);
        if alpha_floor >= beta || beta_cap <= alpha {
            self.lists[ply] = moves;
            return if alpha_floor >= beta {
                alpha_floor
            } else {
                beta_cap
            };
        }

        let key = self.position.hash();
        let hash_move = match self.table_cut(key, depth, ply, alpha, beta, moves.len()) {
            Ok(hash_move) => hash_move,
            Err(score) => {
                self.lists[ply] = moves;
                return score;
            }
        };

        self.score_moves(&moves, ply, hash_move);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_index = 0usize;
        let side = self.position.side();
        for n in 0..moves.len() {
            let (i, key_value) = self.pick(ply);
            let mv = moves[i];
            let quiet = match key_value {
                CAPTURE_KEY => false,
                HASH_KEY => !self.position.is_capture(mv),
                _ => true,
            };
            let undo = self.position.play(mv);
            self.path.push(self.position.hash());
            let same_side = self.position.side() == side;
            // Late quiet moves, ordered after hash move, captures and
            // killers, are searched one ply shallower first.
            let reduction = if n >= 3 && depth >= 3 && quiet && key_value < KILLER_KEY - 1 {
                1 + i32::from(n >= 8 && depth >= 6)
            } else {
                0
            };
            let window = Window { alpha, beta };
            let score = self.search_move(n == 0, depth, reduction, ply, window, same_side);
            self.path.pop();
            self.position.undo(mv, undo);
            if self.budget.aborted {
                self.lists[ply] = moves;
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_index = i;
                if score > alpha {
                    alpha = score;
                    self.raise(ply, mv, score);
                }
            }
            if alpha >= beta {
                if quiet {
                    self.remember_cutoff(ply, side, mv, depth);
                }
                break;
            }
        }
        let window = Window {
            alpha: original_alpha,
            beta,
        };
        self.store(key, best_score, window, depth, ply, best_index);
        self.lists[ply] = moves;
        best_score
    }

    /// The hash move of the position's table entry (if it fits the list),
    /// or its score when the entry settles the node (never at the root).
    #[inline]
    fn table_cut(
        &mut self,
        key: u64,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        moves: usize,
    ) -> Result<Option<u16>, i32> {
        let Some(e) = self.budget.watch.shared.tt.probe(key) else {
            return Ok(None);
        };
        if ply > 0 && e.depth as i32 >= depth {
            let score = from_table(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                self.iteration.horizon = true;
                return Err(score);
            }
        }
        Ok(e.move_index.filter(|&i| (i as usize) < moves))
    }

    /// A move already played, searched: the first in the full window,
    /// the others in a null window (reduced first, if `reduction`), again
    /// in full where they might enter it.
    #[inline]
    fn search_move(
        &mut self,
        first: bool,
        depth: i32,
        reduction: i32,
        ply: usize,
        window: Window,
        same_side: bool,
    ) -> i32 {
        let Window { alpha, beta } = window;
        if first {
            return self.child(depth - 1, ply, alpha, beta, same_side);
        }
        let mut s = self.child(depth - 1 - reduction, ply, alpha, alpha + 1, same_side);
        if reduction > 0 && s > alpha {
            s = self.child(depth - 1, ply, alpha, alpha + 1, same_side);
        }
        if beta - alpha > 1 && s > alpha && s < beta {
            s = self.child(depth - 1, ply, alpha, beta, same_side);
        }
        s
    }

    /// A move that raised alpha heads the line of its ply; at the root it
    /// is the answer so far.
    #[inline]
    fn raise(&mut self, ply: usize, mv: G::Move, score: i32) {
        if ply == 0 {
            self.iteration.best = Some((mv, score));
            // A fully searched root move is an answer: from now on the
            // clock may cut even the first iteration.
            self.budget.may_abort = true;
        }
        let (head, tail) = self.iteration.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// A quiet move that cut off: a killer of its ply, and history.
    #[inline]
    fn remember_cutoff(&mut self, ply: usize, side: Seat, mv: G::Move, depth: i32) {
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        let h = &mut self.history[side as usize * G::MOVE_KEYS + G::move_key(mv)];
        *h = (*h + depth * depth).min(HISTORY_MAX);
    }

    /// The node's result in the table, bounded as the window it was
    /// searched in says.
    #[inline]
    fn store(&mut self, key: u64, best: i32, window: Window, depth: i32, ply: usize, index: usize) {
        let bound = if best >= window.beta {
            Bound::Lower
        } else if best > window.alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.budget.watch.shared.tt.store(
            key,
            Entry {
                score: to_table(best, ply),
                depth: depth.clamp(0, 255) as u8,
                bound,
                move_index: Some(index as u16),
            },
        );
    }

    /// Searches a child in the window (alpha, beta) of the parent, from the
    /// parent's point of view.
    fn child(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32, same_side: bool) -> i32 {
        if same_side {
            self.negamax(depth, ply + 1, alpha, beta)
        } else {
            -self.negamax(depth, ply + 1, -beta, -alpha)
        }
    }

    /// Captures only, unless captures are forced, in which case every move
    /// is one and standing pat is not allowed (until `MAX_QUIESCENCE_PLY`).
    fn quiescence(&mut self, ply: usize, qply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.iteration.pv[ply].clear();
        if self.budget.tick() {
            return 0;
        }
        self.iteration.seldepth = self.iteration.seldepth.max(ply);
        let moves = match self.expand(ply) {
            Ok(moves) => moves,
            Err(score) => return score,
        };
        if let Some(score) = self.probe(ply) {
            self.lists[ply] = moves;
            return score;
        }
        // Usually the first quiet move settles this at once.
        let forced = moves.iter().all(|&m| self.position.is_capture(m));
        let mut best = -INFINITY;
        let at_cap = ply >= MAX_PLY - 2 || qply >= MAX_QUIESCENCE_PLY;
        if !forced || at_cap {
            self.iteration.horizon = true;
            best = self.eval.value(&self.position);
            if best >= beta || at_cap {
                self.lists[ply] = moves;
                return best;
            }
            alpha = alpha.max(best);
        }
        let side = self.position.side();
        for i in 0..moves.len() {
            let mv = moves[i];
            if !forced && !self.position.is_capture(mv) {
                continue;
            }
            let undo = self.position.play(mv);
            self.path.push(self.position.hash());
            let score = if self.position.side() == side {
                self.quiescence(ply + 1, qply + 1, alpha, beta)
            } else {
                -self.quiescence(ply + 1, qply + 1, -beta, -alpha)
            };
            self.path.pop();
            self.position.undo(mv, undo);
            if self.budget.aborted {
                self.lists[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                alpha = alpha.max(score);
            }
            if alpha >= beta {
                break;
            }
        }
        self.lists[ply] = moves;
        best
    }

    /// Fills `order[ply]` with a sort key per move.
    fn score_moves(&mut self, moves: &[G::Move], ply: usize, hash_move: Option<u16>) {
        let order = &mut self.order[ply];
        order.clear();
        let killers = self.killers[ply];
        let side = self.position.side() as usize;
        for (i, &mv) in moves.iter().enumerate() {
            let key = if hash_move == Some(i as u16) {
                HASH_KEY
            } else if self.position.is_capture(mv) {
                CAPTURE_KEY
            } else if killers[0] == Some(mv) {
                KILLER_KEY
            } else if killers[1] == Some(mv) {
                KILLER_KEY - 1
            } else {
                self.history[side * G::MOVE_KEYS + G::move_key(mv)]
            };
            order.push(key);
        }
    }

    /// Index and key of the best-keyed move among those not yet tried.
    fn pick(&mut self, ply: usize) -> (usize, i32) {
        let order = &mut self.order[ply];
        let mut best = 0;
        let mut best_key = i32::MIN;
        for (i, &k) in order.iter().enumerate() {
            if k > best_key {
                best_key = k;
                best = i;
            }
        }
        order[best] = i32::MIN;
        (best, best_key)
    }
}

const HASH_KEY: i32 = 1 << 30;
const CAPTURE_KEY: i32 = 1 << 29;
const KILLER_KEY: i32 = 1 << 28;
const HISTORY_MAX: i32 = 1 << 26;

/// Win/loss scores are stored relative to the node, not the root.
fn to_table(score: i32, ply: usize) -> i32 {
    if score >= DECIDED {
        score + ply as i32
    } else if score <= -DECIDED {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score >= DECIDED {
        score - ply as i32
    } else if score <= -DECIDED {
        score + ply as i32
    } else {
        score
    }
}

/// A search window: scores at most `alpha` fail low, at least `beta` high.
#[derive(Clone, Copy)]
struct Window {
    alpha: i32,
    beta: i32,
}
