//! Principal-variation alpha-beta for deterministic two-seat games:
//! iterative deepening, a shared transposition table, move ordering (hash
//! move, captures, killers, history), quiescence over captures, and Lazy SMP
//! (helper threads search the same tree and meet through the table).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::tt::{Bound, Entry};
use super::{outcome_score, Info, Limits, Reporter, Score, SearchResult, Settings, Shared, Watch};
use super::{DECIDED, MAX_PLY, WIN};
use crate::game::session::Session;
use crate::game::Game;

const INFINITY: i32 = WIN + 1;
/// Nodes between looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 1024;
const MAX_QUIESCENCE_PLY: usize = 24;

/// Searches the session's position; the main thread reports.
pub fn search<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult {
    let nodes = AtomicU64::new(0);
    let watch = Watch {
        shared,
        limits,
        start: Instant::now(),
        nodes: &nodes,
    };
    let done = AtomicBool::new(false);
    let mut root_moves = Vec::new();
    session.legal(&mut root_moves);
    if root_moves.is_empty() {
        return SearchResult {
            best: None,
            score: Score::Cp(0),
            nodes: 0,
        };
    }
    let result = std::thread::scope(|scope| {
        for id in 1..settings.threads.max(1) {
            let (watch, done) = (&watch, &done);
            scope.spawn(move || {
                let mut helper = Worker::new(id, session, watch, done);
                helper.iterate(None);
            });
        }
        let mut main = Worker::new(0, session, &watch, &done);
        let result = main.iterate(Some(reporter));
        done.store(true, Ordering::Relaxed);
        result
    });
    SearchResult {
        nodes: nodes.load(Ordering::Relaxed),
        ..result
    }
}

/// One search thread with its own position, move lists and heuristics.
struct Worker<'a, G: Game> {
    id: usize,
    position: G,
    /// Hashes of the game since the set position, then of the search path.
    path: Vec<u64>,
    watch: &'a Watch<'a>,
    done: &'a AtomicBool,
    lists: Vec<Vec<G::Move>>,
    order: Vec<Vec<i32>>,
    killers: Vec<[Option<G::Move>; 2]>,
    pv: Vec<Vec<G::Move>>,
    unflushed: u64,
    seldepth: usize,
    aborted: bool,
    /// The main thread may only abort once an iteration has given a move.
    may_abort: bool,
}

impl<'a, G: Game> Worker<'a, G> {
    fn new(id: usize, session: &Session<G>, watch: &'a Watch<'a>, done: &'a AtomicBool) -> Self {
        Worker {
            id,
            position: session.position().clone(),
            path: session.history().to_vec(),
            watch,
            done,
            lists: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            order: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            killers: vec![[None, None]; MAX_PLY + 1],
            pv: (0..MAX_PLY + 1).map(|_| Vec::new()).collect(),
            unflushed: 0,
            seldepth: 0,
            aborted: false,
            may_abort: id > 0,
        }
    }

    fn iterate(&mut self, mut reporter: Option<&mut dyn Reporter>) -> SearchResult {
        let limits = self.watch.limits;
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 4)
            .clamp(1, MAX_PLY as u32 - 4);
        let mut best: Option<(G::Move, i32)> = None;
        let mut depth = 1 + (self.id as u32 & 1);
        while depth <= max_depth {
            self.seldepth = 0;
            let score = self.negamax(depth as i32, 0, -INFINITY, INFINITY);
            if self.aborted && best.is_some() {
                break;
            }
            if let Some(&mv) = self.pv[0].first() {
                best = Some((mv, score));
                self.may_abort = true;
            }
            if let Some(reporter) = reporter.as_deref_mut() {
                self.flush();
                let info = Info {
                    depth,
                    seldepth: self.seldepth as u32,
                    score: Score::from_internal(score),
                    nodes: self.watch.nodes.load(Ordering::Relaxed),
                    time_ms: self.watch.elapsed_ms(),
                    hashfull: self.watch.shared.tt.hashfull(),
                    pv: self.pv[0].iter().map(|m| m.to_string()).collect(),
                };
                reporter.info(&info);
            }
            if self.aborted || self.done.load(Ordering::Relaxed) {
                break;
            }
            let decided_within = score.abs() >= DECIDED && (WIN - score.abs()) < depth as i32;
            if decided_within && !limits.infinite {
                break;
            }
            if let Some(soft) = limits.soft_ms {
                if self.watch.elapsed_ms() >= soft {
                    break;
                }
            }
            depth += 1;
        }
        self.flush();
        let (mv, score) = best.expect("a root with legal moves yields a move at depth 1");
        SearchResult {
            best: Some(mv.to_string()),
            score: Score::from_internal(score),
            nodes: 0,
        }
    }

    fn flush(&mut self) {
        self.watch
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// Counts a node; true when the search must unwind.
    fn tick(&mut self) -> bool {
        self.unflushed += 1;
        if self.unflushed >= CHECK_EVERY {
            self.flush();
            let stop = self.watch.must_stop() || (self.id > 0 && self.done.load(Ordering::Relaxed));
            if stop && self.may_abort {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// Score of the position if a draw rule ends the game here.
    fn draw_by_rule(&self, ply: usize) -> Option<i32> {
        if self.position.clock() >= G::NO_PROGRESS_LIMIT {
            let outcome = self.position.no_progress_outcome();
            return Some(outcome_score(outcome, self.position.side(), ply));
        }
        if ply > 0 {
            // Within the search one repetition is scored as the draw it can
            // be forced into; the game history counts in full.
            let key = *self.path.last().expect("path holds the current position");
            let earlier = &self.path[..self.path.len() - 1];
            if earlier.iter().rev().any(|&h| h == key) {
                return Some(0);
            }
        }
        None
    }

    fn negamax(&mut self, depth: i32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv[ply].clear();
        if ply > 0 && self.tick() {
            return 0;
        }
        if depth <= 0 || ply >= MAX_PLY - 2 {
            return self.quiescence(ply, 0, alpha, beta);
        }
        self.seldepth = self.seldepth.max(ply);

        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        self.position.generate(&mut moves);
        if moves.is_empty() {
            self.lists[ply] = moves;
            let outcome = self
                .position
                .outcome()
                .expect("no moves means the game is decided");
            return outcome_score(outcome, self.position.side(), ply);
        }
        if let Some(score) = self.draw_by_rule(ply) {
            self.lists[ply] = moves;
            return score;
        }

        let key = self.position.hash();
        let entry = self.watch.shared.tt.probe(key);
        let mut hash_move = None;
        if let Some(e) = entry {
            hash_move = e.move_index.filter(|&i| (i as usize) < moves.len());
            if ply > 0 && e.depth as i32 >= depth {
                let score = from_table(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    self.lists[ply] = moves;
                    return score;
                }
            }
        }

        self.score_moves(&moves, ply, hash_move);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_index = 0usize;
        let side = self.position.side();
        for n in 0..moves.len() {
            let i = self.pick(ply);
            let mv = moves[i];
            let undo = self.position.play(mv);
            self.path.push(self.position.hash());
            let same_side = self.position.side() == side;
            let child = |w: &mut Self, a: i32, b: i32| {
                let s = w.negamax(depth - 1, ply + 1, a, b);
                if same_side {
                    s
                } else {
                    -s
                }
            };
            let window = |a: i32, b: i32| if same_side { (a, b) } else { (-b, -a) };
            let score = if n == 0 {
                let (a, b) = window(alpha, beta);
                child(self, a, b)
            } else {
                let (a, b) = window(alpha, alpha + 1);
                let s = child(self, a, b);
                if s > alpha && s < beta {
                    let (a, b) = window(alpha, beta);
                    child(self, a, b)
                } else {
                    s
                }
            };
            self.path.pop();
            self.position.undo(mv, undo);
            if self.aborted {
                self.lists[ply] = moves;
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_index = i;
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(mv);
                    head[ply].extend_from_slice(&tail[0]);
                }
            }
            if alpha >= beta {
                if !self.position.is_capture(mv) {
                    let k = &mut self.killers[ply];
                    if k[0] != Some(mv) {
                        k[1] = k[0];
                        k[0] = Some(mv);
                    }
                }
                break;
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.watch.shared.tt.store(
            key,
            Entry {
                score: to_table(best_score, ply),
                depth: depth.clamp(0, 255) as u8,
                bound,
                move_index: Some(best_index as u16),
            },
        );
        self.lists[ply] = moves;
        best_score
    }

    /// Captures only, unless captures are forced, in which case every move
    /// is one and standing pat is not allowed (until `MAX_QUIESCENCE_PLY`).
    fn quiescence(&mut self, ply: usize, qply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv[ply].clear();
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        self.position.generate(&mut moves);
        if moves.is_empty() {
            self.lists[ply] = moves;
            let outcome = self
                .position
                .outcome()
                .expect("no moves means the game is decided");
            return outcome_score(outcome, self.position.side(), ply);
        }
        if let Some(score) = self.draw_by_rule(ply) {
            self.lists[ply] = moves;
            return score;
        }
        let forced = moves.iter().all(|&m| self.position.is_capture(m));
        let mut best = -INFINITY;
        let at_cap = ply >= MAX_PLY - 2 || qply >= MAX_QUIESCENCE_PLY;
        if !forced || at_cap {
            best = self.position.evaluate();
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
            let same_side = self.position.side() == side;
            let score = if same_side {
                self.quiescence(ply + 1, qply + 1, alpha, beta)
            } else {
                -self.quiescence(ply + 1, qply + 1, -beta, -alpha)
            };
            self.path.pop();
            self.position.undo(mv, undo);
            if self.aborted {
                self.lists[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                }
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
        for (i, &mv) in moves.iter().enumerate() {
            let key = if hash_move == Some(i as u16) {
                1 << 30
            } else if self.position.is_capture(mv) {
                1 << 29
            } else if killers[0] == Some(mv) {
                1 << 28
            } else if killers[1] == Some(mv) {
                (1 << 28) - 1
            } else {
                0
            };
            order.push(key);
        }
    }

    /// Index of the best-keyed move among those not yet tried.
    fn pick(&mut self, ply: usize) -> usize {
        let order = &mut self.order[ply];
        let mut best = usize::MAX;
        let mut best_key = i32::MIN;
        for (i, &k) in order.iter().enumerate() {
            if k > best_key {
                best_key = k;
                best = i;
            }
        }
        order[best] = i32::MIN;
        best
    }
}

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
