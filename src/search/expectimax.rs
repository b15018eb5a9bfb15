//! Expectiminimax: search for games with chance nodes or more than two
//! seats, the other seats taken as one opponent.
//!
//! Values are in the root seat's view: the root seat maximises, every other
//! seat minimises (with two seats this is expectiminimax; with more it is
//! the *paranoid* reduction, which keeps alpha-beta sound), and a chance
//! node averages its equally likely outcomes. With more than two seats the
//! other seats can instead be modelled by Best-Reply Search or BRS+
//! ([`MultiSeat`]): after a root move one opponent replies (the one whose
//! best reply is worst for the root) and the root moves again. Chance nodes are cut with
//! Star1 (bounds from the children searched so far and the value range)
//! after a Star2 probe (one move of each outcome searched first, which
//! bounds each outcome from one side). Depth counts player moves; chance
//! outcomes do not spend it.

use crate::tt::{Bound, Entry};
use std::sync::atomic::AtomicBool;

use crate::greedy::greedy_move;
use crate::vocabulary::{
    threads, Budget, Evaluation, Limits, MultiSeat, Reporter, Score, SearchResult, Settings,
    Shared, Watch, MAX_PLY,
};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Seat, MAX_SEATS};
use menagerie_rules::rng::{zobrist_table, Rng};

use crate::deepening::{self, Deepening, Iteration};

/// A certain win; evaluations stay well inside (-BOUND, BOUND).
const BOUND: i32 = 30_000;
/// Scores beyond this are certain results at a known distance.
const CERTAIN: i32 = BOUND - 1_000;
/// Moves a player node keeps past the move filter.
const FILTER_KEEP: usize = 8;
/// The ordering key of a capture: above every quiet move's.
const FORCED_KEY: i32 = 1 << 29;
/// Keys that make table entries of different root seats distinct.
const ROOT_KEYS: [u64; 4] = zobrist_table(0x524f_4f54);
/// Keys that make table entries of different multi-seat methods distinct.
const METHOD_KEYS: [u64; MultiSeat::ALL.len()] = zobrist_table(0x4d45_5448);
/// Mixed with a position's key to draw the roll of a seat that plays its
/// greedy move in BRS+ (the same position always rolls the same).
pub const GREEDY_ROLL_SALT: u64 = 0x005e_ed0f_d1ce;
pub fn search<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult<G::Move> {
    let method = if session.position().seats().len() > 2 {
        settings.multi_seat
    } else {
        MultiSeat::Paranoid
    };
    threads(
        session,
        limits,
        shared,
        settings,
        reporter,
        |budget, reporter| {
            let mut worker = Worker::new(session, budget, method, settings.seed);
            worker.eval = Evaluation::new::<G>(settings.network.as_ref());
            deepening::iterate(&mut worker, reporter)
        },
    )
}

/// Scores of each root move searched to `depth` (the root seat's view),
/// for weakened play; `None` when the limits or `stop` end the search
/// first.
pub fn root_scores<G: Game>(
    session: &Session<G>,
    depth: u32,
    watch: &Watch<'_>,
) -> Option<Vec<(G::Move, i32, Score)>> {
    root_scores_with(session, depth, watch, MultiSeat::Paranoid, 0)
}

/// [`root_scores`] with the other seats modelled by `method` (paranoid,
/// BRS, BRS+ or greedy players of `seed`; max^n has its own,
/// [`super::maxn::root_scores`]).
pub fn root_scores_with<G: Game>(
    session: &Session<G>,
    depth: u32,
    watch: &Watch<'_>,
    method: MultiSeat,
    seed: u64,
) -> Option<Vec<(G::Move, i32, Score)>> {
    let done = AtomicBool::new(false);
    let mut worker = Worker::new(session, watch.stoppable_budget(&done), method, seed);
    {
        let mut moves = Vec::new();
        session.legal(&mut moves);
        let mut scores = Vec::with_capacity(moves.len());
        for mv in moves {
            let undo = worker.position.play(mv);
            let s = worker.after_move(true, depth as i32 - 1, 1, -BOUND, BOUND);
            worker.position.undo(mv, undo);
            if worker.budget.aborted {
                break;
            }
            scores.push((mv, s, score_of(s)));
        }
        worker.budget.flush();
        (!worker.budget.aborted).then_some(scores)
    }
}

struct Worker<'a, G: Game> {
    position: G,
    root: Seat,
    method: MultiSeat,
    budget: Budget<'a>,
    lists: Vec<Vec<G::Move>>,
    /// Per ply: the moves of an opponent handed the turn (Best-Reply Search).
    reply_lists: Vec<Vec<G::Move>>,
    /// The greedy moves (and rolls) BRS+ has played, to be taken back.
    greedy_played: Vec<(G::Move, G::Undo)>,
    /// Scratch of the greedy moves, which do not recurse.
    greedy_moves: Vec<G::Move>,
    /// Per ply: the move order of a player node, and the (low, high)
    /// bounds of each outcome of a chance node.
    orders: Vec<Vec<(i32, usize)>>,
    bounds: Vec<Vec<(i64, i64)>>,
    /// Scratch of the move filter, which does not recurse.
    filter_scores: Vec<(i32, usize, bool)>,
    filter_kept: Vec<bool>,
    /// The policy's logits of the moves of the node being ordered.
    policy_sums: Vec<i64>,
    history: Vec<i32>,
    /// The current iteration's root bookkeeping.
    iteration: Iteration<G::Move>,
    /// The root's history length and the seed of the greedy players that
    /// [`MultiSeat::Greedy`] models.
    root_history_len: usize,
    seed: u64,
    /// The value at the horizon and in the move filter.
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
        self.value(depth as i32, 0, -BOUND, BOUND)
    }

    fn report_score(score: i32) -> Score {
        score_of(score)
    }

    fn settled(score: i32, _depth: u32) -> bool {
        score.abs() >= CERTAIN
    }
}

impl<'a, G: Game> Worker<'a, G> {
    fn new(session: &Session<G>, budget: Budget<'a>, method: MultiSeat, seed: u64) -> Self {
        Worker {
            root_history_len: session.history().len(),
            seed,
            position: session.position().clone(),
            root: session.position().side(),
            method,
            budget,
            reply_lists: (0..2 * MAX_PLY + 2).map(|_| Vec::new()).collect(),
            greedy_played: Vec::with_capacity(64),
            greedy_moves: Vec::with_capacity(64),
            lists: (0..2 * MAX_PLY + 2)
                .map(|_| Vec::with_capacity(64))
                .collect(),
            orders: (0..2 * MAX_PLY + 2)
                .map(|_| Vec::with_capacity(64))
                .collect(),
            bounds: (0..2 * MAX_PLY + 2)
                .map(|_| Vec::with_capacity(8))
                .collect(),
            filter_scores: Vec::with_capacity(64),
            filter_kept: Vec::with_capacity(64),
            policy_sums: Vec::with_capacity(64),
            history: vec![0; G::MOVE_KEYS],
            iteration: Iteration::new(2 * MAX_PLY + 2, {
                let mut moves = Vec::new();
                session.legal(&mut moves);
                moves.len()
            }),
            eval: Evaluation::Hand,
        }
    }

    /// The value of a finished game for the root seat, nearer wins better.
    fn outcome_value(&self, outcome: Outcome, ply: usize) -> i32 {
        match outcome {
            Outcome::Draw => 0,
            Outcome::Win(w) if w == self.root => BOUND - ply as i32,
            Outcome::Win(_) => -(BOUND - ply as i32),
        }
    }

    fn value(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32) -> i32 {
        self.iteration.pv[ply].clear();
        if ply > 0 && self.budget.tick() {
            return 0;
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
            self.outcome_value(outcome, ply)
        } else if self.position.clock() >= G::NO_PROGRESS_LIMIT {
            self.outcome_value(self.position.no_progress_outcome(), ply)
        } else if ply >= 2 * MAX_PLY - 2 {
            self.evaluate()
        } else if depth <= 0 {
            // A chance node at the horizon is judged before its roll.
            self.evaluate()
        } else if self.replies()
            && self.position.side() != self.root
            && (self.position.is_chance() || !G::HAS_CHANCE)
        {
            // The start of the turn after a root move (a roll to come, or a
            // move in a game without dice): one opponent replies.
            self.best_reply(depth, ply, alpha, beta)
        } else if self.position.is_chance() {
            let mut bounds = std::mem::take(&mut self.bounds[ply]);
            let value = self.chance(&mut bounds, &moves, depth, ply, alpha, beta);
            self.bounds[ply] = bounds;
            value
        } else if self.method == MultiSeat::Greedy && self.position.side() != self.root {
            self.modelled(depth, ply, alpha, beta)
        } else {
            self.player(&moves, depth, ply, alpha, beta)
        };
        self.lists[ply] = moves;
        result
    }

    /// The turn of a seat modelled as the greedy player: its one move,
    /// which spends no depth (it is no choice of the search's).
    fn modelled(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32) -> i32 {
        let mut scratch = std::mem::take(&mut self.greedy_moves);
        let history_len = self.root_history_len + ply;
        let chosen =
            crate::greedy::greedy_choice(&mut self.position, history_len, self.seed, &mut scratch);
        self.greedy_moves = scratch;
        let mv = chosen.expect("a player to move has a move (a pass at least)");
        let undo = self.position.play(mv);
        let v = self.value(depth, ply + 1, alpha, beta);
        self.position.undo(mv, undo);
        let (head, tail) = self.iteration.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
        v
    }

    fn evaluate(&mut self) -> i32 {
        self.iteration.horizon = true;
        self.eval
            .value_for(&self.position, self.root)
            .clamp(-CERTAIN + 1, CERTAIN - 1)
    }

    fn player(
        &mut self,
        moves: &[G::Move],
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let key = self.table_key();
        let mut hash_move = None;
        if let Some(e) = self.budget.watch.shared.tt.probe(key) {
            hash_move = e.move_index.filter(|&i| (i as usize) < moves.len());
            if ply > 0 && e.depth as i32 >= depth {
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if usable {
                    self.iteration.horizon = true;
                    return e.score;
                }
            }
        }
        let maximizing = self.position.side() == self.root;
        let (original_alpha, original_beta) = (alpha, beta);
        let order = self.order_moves(moves, hash_move, depth, ply, maximizing);
        let mut best = if maximizing { -BOUND - 1 } else { BOUND + 1 };
        let mut best_index = order[0].1;
        for &(_, i) in &order {
            let mv = moves[i];
            let undo = self.position.play(mv);
            let v = self.after_move(maximizing, depth - 1, ply + 1, alpha, beta);
            self.position.undo(mv, undo);
            if self.budget.aborted {
                break;
            }
            let improves = if maximizing { v > best } else { v < best };
            if improves {
                best = v;
                best_index = i;
                if ply == 0 {
                    self.iteration.best = Some((mv, v));
                    // A fully searched root move is an answer: from now
                    // on the clock may cut even the first iteration.
                    self.budget.may_abort = true;
                }
                // The line ends at the next roll, which nobody chooses.
                let (head, tail) = self.iteration.pv.split_at_mut(ply + 1);
                head[ply].clear();
                head[ply].push(mv);
                head[ply].extend_from_slice(&tail[0]);
            }
            if maximizing {
                alpha = alpha.max(best);
            } else {
                beta = beta.min(best);
            }
            if alpha >= beta {
                if !self.position.is_capture(mv) {
                    let h = &mut self.history[G::move_key(mv)];
                    *h = (*h + depth * depth).min(1 << 26);
                }
                break;
            }
        }
        self.orders[ply] = order;
        if self.budget.aborted {
            return 0;
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= original_beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.budget.watch.shared.tt.store(
            key,
            Entry {
                score: best,
                depth: depth.clamp(0, 255) as u8,
                bound,
                move_index: Some(best_index as u16),
            },
        );
        best
    }

    fn table_key(&self) -> u64 {
        self.position.hash() ^ ROOT_KEYS[self.root as usize] ^ METHOD_KEYS[self.method as usize]
    }

    /// Whether one opponent replies to each root move (BRS, BRS+).
    fn replies(&self) -> bool {
        matches!(self.method, MultiSeat::BestReply | MultiSeat::BestReplyPlus)
    }

    /// The value after a move just played (`ply` is the child's): the
    /// next seat's turn, or with Best-Reply Search, after an opponent's
    /// reply, the root's next turn.
    fn after_move(
        &mut self,
        root_moved: bool,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if root_moved || !self.replies() {
            return self.value(depth, ply, alpha, beta);
        }
        if self.method == MultiSeat::BestReply {
            return match self.position.hand_turn(self.root) {
                Some(turn) => {
                    let v = self.value(depth, ply, alpha, beta);
                    self.position.take_back_turn(turn);
                    v
                }
                None => self.leaf(ply),
            };
        }
        // BRS+: the seats between the reply and the root play greedily.
        let mark = self.greedy_played.len();
        let mut v = None;
        for _ in 0..MAX_SEATS {
            if self.position.side() == self.root || !self.play_greedy_turn() {
                break;
            }
        }
        if self.position.side() == self.root && !self.budget.aborted {
            v = Some(self.value(depth, ply, alpha, beta));
        }
        let v = v.unwrap_or_else(|| self.leaf(ply));
        self.take_back_greedy(mark);
        v
    }

    /// The root's value at the start of an opponent's turn after a root
    /// move: the least, over the opponents, of the turn of that opponent
    /// alone (BRS: the others pass; BRS+: those before it in turn order
    /// play their greedy move first).
    fn best_reply(&mut self, depth: i32, ply: usize, alpha: i32, mut beta: i32) -> i32 {
        let mut best = BOUND + 1;
        let mut seats = [0; MAX_SEATS];
        let count = self.position.seats().len().min(MAX_SEATS);
        seats[..count].copy_from_slice(&self.position.seats()[..count]);
        let mark = self.greedy_played.len();
        for (turn, &seat) in seats[..count].iter().enumerate() {
            let v = if self.method == MultiSeat::BestReply {
                if seat == self.root {
                    continue;
                }
                let Some(handed) = self.position.hand_turn(seat) else {
                    continue;
                };
                let v = self.reply(depth, ply, alpha, beta);
                self.position.take_back_turn(handed);
                v
            } else {
                // In turn order: this seat replies, then plays its greedy
                // move so that the next one can reply in its place.
                if turn > 0 && !self.play_greedy_turn() {
                    if self.budget.aborted {
                        break;
                    }
                    let v = self.leaf(ply);
                    best = best.min(v);
                    break;
                }
                if self.position.side() == self.root {
                    break;
                }
                self.reply(depth, ply, alpha, beta)
            };
            if self.budget.aborted {
                break;
            }
            best = best.min(v);
            beta = beta.min(best);
            if alpha >= beta {
                break;
            }
        }
        self.take_back_greedy(mark);
        if self.budget.aborted {
            return 0;
        }
        if best > BOUND {
            // No opponent could be handed the turn.
            return self.leaf(ply);
        }
        best
    }

    /// The turn of the seat to move, which has just been handed it.
    fn reply(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32) -> i32 {
        let mut moves = std::mem::take(&mut self.reply_lists[ply]);
        moves.clear();
        self.position.generate(&mut moves);
        let v = if moves.is_empty() {
            self.leaf(ply)
        } else if self.position.is_chance() {
            let mut bounds = std::mem::take(&mut self.bounds[ply]);
            let v = self.chance(&mut bounds, &moves, depth, ply, alpha, beta);
            self.bounds[ply] = bounds;
            v
        } else {
            self.player(&moves, depth, ply, alpha, beta)
        };
        self.reply_lists[ply] = moves;
        v
    }

    /// The value of a position the search does not expand: its result,
    /// or the evaluation.
    fn leaf(&mut self, ply: usize) -> i32 {
        self.iteration.pv[ply].clear();
        if let Some(outcome) = self.position.outcome() {
            self.outcome_value(outcome, ply)
        } else if self.position.clock() >= G::NO_PROGRESS_LIMIT {
            self.outcome_value(self.position.no_progress_outcome(), ply)
        } else {
            self.evaluate()
        }
    }

    /// Plays the turn of the seat to move as the greedy player would (a
    /// roll drawn from the position first); false when the game is over
    /// or the search must stop. Each position played through counts as a
    /// node; the moves weighed do not, as the move filter's do not.
    fn play_greedy_turn(&mut self) -> bool {
        let seat = self.position.side();
        while self.position.side() == seat {
            if self.position.outcome().is_some()
                || self.position.clock() >= G::NO_PROGRESS_LIMIT
                || self.budget.tick()
            {
                return false;
            }
            let mut moves = std::mem::take(&mut self.greedy_moves);
            let chosen = if self.position.is_chance() {
                let mut rng = Rng::new(self.position.hash() ^ GREEDY_ROLL_SALT);
                self.position.sample_chance(&mut rng, &mut moves)
            } else {
                greedy_move(&mut self.position, &mut moves)
            };
            self.greedy_moves = moves;
            let Some(mv) = chosen else { return false };
            let undo = self.position.play(mv);
            self.greedy_played.push((mv, undo));
        }
        !self.budget.aborted
    }

    /// Takes back the greedy moves played since `mark`.
    fn take_back_greedy(&mut self, mark: usize) {
        while self.greedy_played.len() > mark {
            let (mv, undo) = self.greedy_played.pop().expect("above the mark");
            self.position.undo(mv, undo);
        }
    }

    /// The moves of a player node in the order to search them, those a
    /// filter drops left out: the hash move, captures, then quiet moves by
    /// the policy head where the network has one (which also chooses the
    /// moves kept past the first ply), by the history otherwise.
    fn order_moves(
        &mut self,
        moves: &[G::Move],
        hash_move: Option<u16>,
        depth: i32,
        ply: usize,
        maximizing: bool,
    ) -> Vec<(i32, usize)> {
        let mut order = std::mem::take(&mut self.orders[ply]);
        order.clear();
        let mut policy = std::mem::take(&mut self.policy_sums);
        if depth >= 1 {
            self.eval.move_logits(&self.position, moves, &mut policy);
        } else {
            policy.clear();
        }
        order.extend(moves.iter().enumerate().map(|(i, &m)| {
            let key = if hash_move == Some(i as u16) {
                i32::MAX
            } else if self.position.is_capture(m) {
                FORCED_KEY
            } else if let Some(&logit) = policy.get(i) {
                (logit / 16).clamp(-(FORCED_KEY as i64) + 1, FORCED_KEY as i64 - 1) as i32
            } else {
                self.history[G::move_key(m)]
            };
            (key, i)
        }));
        let by_policy = !policy.is_empty();
        self.policy_sums = policy;
        if depth >= 2 && moves.len() > FILTER_KEEP && !by_policy {
            self.filter(moves, &mut order, maximizing);
        }
        order.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
        if depth >= 2 && by_policy {
            // The policy's first FILTER_KEEP moves, the hash move and
            // captures always among those kept.
            let forced = order
                .iter()
                .take_while(|&&(key, _)| key >= FORCED_KEY)
                .count();
            let keep = FILTER_KEEP.max(forced);
            self.iteration.horizon |= keep < order.len();
            order.truncate(keep);
        }
        order
    }

    /// A move filter, as backgammon programs use: away from the horizon only
    /// the moves the static evaluation likes best are searched (captures and
    /// the hash move always), since chance nodes prune too little to search
    /// every move of every roll.
    fn filter(&mut self, moves: &[G::Move], order: &mut Vec<(i32, usize)>, maximizing: bool) {
        let mut scored = std::mem::take(&mut self.filter_scores);
        scored.clear();
        for &(key, i) in order.iter() {
            let mv = moves[i];
            let keep = key == i32::MAX || self.position.is_capture(mv);
            let undo = self.position.play(mv);
            let score = self.eval.value_for(&self.position, self.root);
            self.position.undo(mv, undo);
            scored.push((if maximizing { score } else { -score }, i, keep));
        }
        scored.sort_by_key(|&(score, _, _)| std::cmp::Reverse(score));
        let kept = &mut self.filter_kept;
        kept.clear();
        kept.resize(moves.len(), false);
        for (rank, &(_, i, keep)) in scored.iter().enumerate() {
            kept[i] = rank < FILTER_KEEP || keep;
        }
        order.retain(|&(_, i)| kept[i]);
        self.iteration.horizon |= order.len() < moves.len();
        self.filter_scores = scored;
    }

    /// Star2: probe each outcome with one move to bound it, then Star1 over
    /// the outcomes with those bounds, kept in `bounds` as (low, high).
    // Inlined into `value`, the recursion measured about 10% slower.
    #[inline(never)]
    fn chance(
        &mut self,
        bounds: &mut Vec<(i64, i64)>,
        outcomes: &[G::Move],
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        bounds.clear();
        bounds.resize(outcomes.len(), (-BOUND as i64, BOUND as i64));
        let low = |bounds: &[(i64, i64)]| bounds.iter().map(|b| b.0).sum::<i64>();
        let high = |bounds: &[(i64, i64)]| bounds.iter().map(|b| b.1).sum::<i64>();
        let n = outcomes.len() as i64;
        let (alpha, beta) = (alpha as i64, beta as i64);
        // After a roll the same seat moves, so every outcome is a node of
        // one kind: a probe bounds it from below when that seat is the root
        // (a max node), from above otherwise.
        let maximizing = self.position.side() == self.root;
        if depth >= 2 {
            for (i, &roll) in outcomes.iter().enumerate() {
                let undo = self.position.play(roll);
                let probe = self.probe(depth, ply + 1);
                self.position.undo(roll, undo);
                if self.budget.aborted {
                    return 0;
                }
                if let Some(p) = probe {
                    if maximizing {
                        bounds[i].0 = p as i64;
                    } else {
                        bounds[i].1 = p as i64;
                    }
                }
            }
            let (all_low, all_high) = (low(bounds), high(bounds));
            if all_low >= n * beta {
                return (all_low / n) as i32;
            }
            if all_high <= n * alpha {
                return (all_high / n) as i32;
            }
        }
        let mut sum = 0i64;
        for (i, &roll) in outcomes.iter().enumerate() {
            let rest_low = low(&bounds[i + 1..]);
            let rest_high = high(&bounds[i + 1..]);
            // The window this outcome must fall in to matter.
            let a = (n * alpha - sum - rest_high).max(bounds[i].0);
            let b = (n * beta - sum - rest_low).min(bounds[i].1);
            let undo = self.position.play(roll);
            let v = self.value(
                depth,
                ply + 1,
                a.max(-BOUND as i64) as i32,
                b.min(BOUND as i64) as i32,
            ) as i64;
            self.position.undo(roll, undo);
            if self.budget.aborted {
                return 0;
            }
            sum += v;
            if sum + rest_low >= n * beta {
                return ((sum + rest_low) / n) as i32;
            }
            if sum + rest_high <= n * alpha {
                return ((sum + rest_high) / n) as i32;
            }
        }
        (sum / n) as i32
    }

    /// The value of one move (the table's, or the first) at a player node:
    /// a bound on the node's value, or `None` at a decided position.
    fn probe(&mut self, depth: i32, ply: usize) -> Option<i32> {
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        self.position.generate(&mut moves);
        let result = if moves.is_empty() || self.position.is_chance() {
            None
        } else {
            let key = self.table_key();
            let index = self
                .budget
                .watch
                .shared
                .tt
                .probe(key)
                .and_then(|e| e.move_index)
                .filter(|&i| (i as usize) < moves.len())
                .map(|i| i as usize)
                // Without a table move, a capture (or landing) is the
                // likeliest best move and so gives the tightest bound.
                .or_else(|| moves.iter().position(|&m| self.position.is_capture(m)))
                .unwrap_or(0);
            let mv = moves[index];
            let root_moved = self.position.side() == self.root;
            let undo = self.position.play(mv);
            // The same depth the full search gives this move, so the value
            // is a true bound on the node.
            let v = self.after_move(root_moved, depth - 1, ply + 1, -BOUND, BOUND);
            self.position.undo(mv, undo);
            Some(v)
        };
        self.lists[ply] = moves;
        result
    }
}

/// A root-view score as the protocol reports it.
fn score_of(score: i32) -> Score {
    if score >= CERTAIN {
        Score::Win(((BOUND - score) as u32).div_ceil(2).max(1))
    } else if score <= -CERTAIN {
        Score::Loss((BOUND + score) as u32 / 2)
    } else {
        Score::Cp(score)
    }
}
