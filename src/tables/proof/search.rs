//! The df-pn search of one goal ("this seat wins"), by one or more
//! threads sharing the goal's stored numbers.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use menagerie_rules::game::{Game, Outcome, Seat};

use super::store::{Numbers, Store};
use super::{Keys, Progress, Watch};
use crate::{Tables, Wdl};

pub(super) const INFINITE: u32 = u32::MAX / 4;

/// The largest number of a position that is not settled. Sums over a tree
/// whose lines meet again count the same positions many times and can pass
/// a billion; held at `INFINITE`, such a sum would read as settled and, at
/// the root (whose limits are `INFINITE`), end every turn as soon as it
/// began. Held one below, the search goes on, led by the other number.
const CEILING: u32 = INFINITE - 1;

/// A position's history since the last capture, as the search keeps it.
#[derive(Clone, Copy)]
pub(super) struct Stretch {
    /// Sum of the mixed hashes of the earlier boards.
    pub sum: u64,
    /// Times the position's own board has occurred, itself included.
    pub repeats: u8,
}

pub(super) fn mix(hash: u64) -> u64 {
    let h = (hash ^ (hash >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 29)
}

/// The key of a position with its history: what it is worth under the
/// repetition rule.
pub(super) fn key<G: Game>(position: &G, stretch: Stretch) -> u64 {
    position.hash() ^ stretch.sum.rotate_left(17)
}

pub(super) fn clock_key<G: Game>(position: &G) -> u64 {
    position.hash() ^ mix(u64::from(position.clock()) ^ 0x6a09_e667_f3bc_c909)
}

/// The stretch of `child`, reached from `parent` (of stretch `stretch`),
/// given how often the child's board occurs on the line before it.
pub(super) fn next_stretch<G: Game>(
    parent: &G,
    stretch: Stretch,
    child: &G,
    earlier: u8,
) -> Stretch {
    if child.clock() == 0 {
        Stretch { sum: 0, repeats: 1 }
    } else {
        Stretch {
            sum: stretch.sum.wrapping_add(mix(parent.hash())),
            repeats: earlier + 1,
        }
    }
}

/// One goal: its seat, its stored numbers and what its searches spent.
pub(super) struct Goal<'a> {
    pub attacker: Seat,
    pub keys: Keys,
    pub tables: Option<&'a Tables>,
    pub store: Store,
    /// With clock keys, the positions (by clock key) whose numbers were
    /// found to depend on the boards before them: kept by history.
    pub by_history: HashSet<u64>,
    pub nodes: u64,
    pub table_hits: u64,
    pub collections: u32,
    /// The store reached its bound (with settled positions, when
    /// collecting): the search ends.
    pub full: bool,
}

impl<'a> Goal<'a> {
    /// Where `position` keeps its numbers.
    pub fn stored_key<G: Game>(&self, position: &G, stretch: Stretch) -> u64 {
        match self.keys {
            Keys::History => key(position, stretch),
            Keys::Clock => {
                let clocked = clock_key(position);
                if self.by_history.contains(&clocked) {
                    key(position, stretch)
                } else {
                    clocked
                }
            }
        }
    }

    /// Whether the goal holds at a position decided without search, and
    /// what decided it: the rules (a decisive end first, then the clock,
    /// then the third repetition: `None`), or a table's value for the
    /// side to move.
    pub fn decided<G: Game>(&self, position: &G, stretch: Stretch) -> Option<(bool, Option<Wdl>)> {
        if let Some(outcome) = position.outcome() {
            return Some((outcome == Outcome::Win(self.attacker), None));
        }
        if position.clock() >= G::NO_PROGRESS_LIMIT {
            let outcome = position.no_progress_outcome();
            return Some((outcome == Outcome::Win(self.attacker), None));
        }
        if stretch.repeats >= 3 {
            return Some((false, None));
        }
        let value = self.tables?.probe(position)?;
        let mover_is_attacker = position.side() == self.attacker;
        let holds = match value.wdl() {
            Wdl::Win => mover_is_attacker,
            Wdl::Loss => !mover_is_attacker,
            Wdl::Draw => false,
        };
        Some((holds, Some(value.wdl())))
    }

    /// Which way a position is settled: by a leaf, or by its stored
    /// numbers; `None` while open.
    pub fn settled<G: Game>(&self, position: &G, stretch: Stretch) -> Option<bool> {
        if let Some((holds, _)) = self.decided(position, stretch) {
            return Some(holds);
        }
        match self.store.get(self.stored_key(position, stretch))? {
            (0, _) => Some(true),
            (_, 0) => Some(false),
            _ => None,
        }
    }
}

/// What the threads of one turn of a goal share.
pub(super) struct Turn<'a> {
    /// Nodes this turn may spend, over its threads.
    pub budget: u64,
    pub nodes: AtomicU64,
    /// A thread settled the root, or the turn is over for every thread.
    pub done: AtomicBool,
    pub full: AtomicBool,
    /// The turn was cut to write a checkpoint.
    pub checkpoint_due: AtomicBool,
    /// Whether the bound drops open positions (a bound given) rather than
    /// ending the search (the default bound, what the process may hold).
    pub collecting: bool,
    pub collections: AtomicU32,
    pub stop: &'a AtomicBool,
    /// With several threads, how many are inside each position: the
    /// others look elsewhere first. Sharded like the store.
    pub busy: Option<Vec<Mutex<HashMap<u64, u8>>>>,
}

const BUSY_SHARDS: usize = 64;

impl<'a> Turn<'a> {
    pub fn new(budget: u64, collecting: bool, stop: &'a AtomicBool, threads: usize) -> Turn<'a> {
        Turn {
            budget,
            nodes: AtomicU64::new(0),
            done: AtomicBool::new(false),
            full: AtomicBool::new(false),
            checkpoint_due: AtomicBool::new(false),
            collecting,
            collections: AtomicU32::new(0),
            stop,
            busy: (threads > 1).then(|| {
                (0..BUSY_SHARDS)
                    .map(|_| Mutex::new(HashMap::new()))
                    .collect()
            }),
        }
    }

    fn busy_shard(&self, key: u64) -> Option<MutexGuard<'_, HashMap<u64, u8>>> {
        let shards = self.busy.as_ref()?;
        let shard = &shards[(key >> 58) as usize % BUSY_SHARDS];
        Some(shard.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn is_busy(&self, key: u64) -> bool {
        self.busy_shard(key)
            .is_some_and(|shard| shard.contains_key(&key))
    }

    fn enter(&self, key: u64) {
        if let Some(mut shard) = self.busy_shard(key) {
            *shard.entry(key).or_insert(0) += 1;
        }
    }

    fn leave(&self, key: u64) {
        if let Some(mut shard) = self.busy_shard(key) {
            if let Some(count) = shard.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    shard.remove(&key);
                }
            }
        }
    }
}

/// One thread's search of a goal.
pub(super) struct Search<'a, 'w, G: Game> {
    goal: &'a Goal<'a>,
    turn: &'a Turn<'a>,
    /// The progress line and the checkpoint's clock: the calling
    /// thread's search only.
    watch: Option<&'a Watch<'w>>,
    /// Boards on the current line, counted.
    line: HashMap<u64, u8>,
    pub nodes: u64,
    pub table_hits: u64,
    aborted: bool,
    lists: Vec<Vec<G::Move>>,
}

impl<'a, 'w, G: Game> Search<'a, 'w, G> {
    pub fn new(
        goal: &'a Goal<'a>,
        turn: &'a Turn<'a>,
        watch: Option<&'a Watch<'w>>,
        line: HashMap<u64, u8>,
    ) -> Search<'a, 'w, G> {
        Search {
            goal,
            turn,
            watch,
            line,
            nodes: 0,
            table_hits: 0,
            aborted: false,
            lists: Vec::new(),
        }
    }

    /// Searches from the root until it is settled or the turn ends; its
    /// numbers as this thread last saw them. A settled root ends the
    /// turn for every thread.
    pub fn run(&mut self, root: &G, stretch: Stretch) -> Numbers {
        let mut position = root.clone();
        let numbers = self.mid(&mut position, stretch, 0, INFINITE, INFINITE);
        if numbers.0 == 0 || numbers.1 == 0 {
            self.turn.done.store(true, Ordering::Relaxed);
        }
        numbers
    }

    fn leaf(&mut self, position: &G, stretch: Stretch) -> Option<bool> {
        let decided = self.goal.decided(position, stretch)?;
        if decided.1.is_some() {
            self.table_hits += 1;
        }
        Some(decided.0)
    }

    /// The periodic look at the world (the calling thread's search):
    /// `stop`, the progress line, the checkpoint's time.
    fn look_around(&mut self) {
        let Some(watch) = self.watch else { return };
        if let Some(next) = &watch.next_checkpoint {
            if Instant::now() >= next.get() {
                self.turn.checkpoint_due.store(true, Ordering::Relaxed);
            }
        }
        if watch.last_report.get().elapsed() >= Duration::from_secs(1) {
            watch.last_report.set(Instant::now());
            let (before, other_stored) = watch.other.get();
            let run = before + self.turn.nodes.load(Ordering::Relaxed);
            let progress = Progress {
                nodes: watch.earlier + run,
                stored: self.goal.store.len() + other_stored,
                roots: watch.roots.get(),
                nodes_per_second: (run as f64 / watch.started.elapsed().as_secs_f64().max(1e-3))
                    as u64,
                collections: watch.collections.get()
                    + self.turn.collections.load(Ordering::Relaxed),
            };
            (watch.progress.borrow_mut())(&progress);
        }
    }

    /// The stretch of a child of `parent` on the current line.
    fn child_stretch(&self, parent: &G, stretch: Stretch, child: &G) -> Stretch {
        let earlier = self.line.get(&child.hash()).copied().unwrap_or(0);
        next_stretch(parent, stretch, child, earlier)
    }

    fn numbers(&mut self, position: &G, stretch: Stretch, key: u64) -> Numbers {
        match self.leaf(position, stretch) {
            Some(true) => (0, INFINITE),
            Some(false) => (INFINITE, 0),
            None => self.goal.store.get(key).unwrap_or((1, 1)),
        }
    }

    /// Stores a position's numbers; at the bound, makes room or ends the
    /// turn.
    fn store(&mut self, key: u64, numbers: Numbers) {
        if self.goal.store.insert(key, numbers) {
            if self.turn.collecting && self.goal.store.collect() {
                self.turn.collections.fetch_add(1, Ordering::Relaxed);
            } else {
                self.turn.full.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Expands `position` until its numbers reach the thresholds.
    fn mid(
        &mut self,
        position: &mut G,
        stretch: Stretch,
        ply: usize,
        pn_limit: u32,
        dn_limit: u32,
    ) -> Numbers {
        self.nodes += 1;
        let spent = self.turn.nodes.fetch_add(1, Ordering::Relaxed) + 1;
        if self.nodes % 4096 == 0 {
            self.look_around();
        }
        let turn = self.turn;
        if spent >= turn.budget
            || turn.done.load(Ordering::Relaxed)
            || turn.full.load(Ordering::Relaxed)
            || turn.checkpoint_due.load(Ordering::Relaxed)
            || turn.stop.load(Ordering::Relaxed)
        {
            self.aborted = true;
        }
        if self.lists.len() <= ply {
            self.lists.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        position.generate(&mut moves);
        let or_node = position.side() == self.goal.attacker;
        let mut children: Vec<Numbers> = Vec::with_capacity(moves.len());
        let mut stretches: Vec<Stretch> = Vec::with_capacity(moves.len());
        let mut keys: Vec<u64> = Vec::with_capacity(moves.len());
        for &mv in &moves {
            let parent = position.clone();
            let undo = position.play(mv);
            let child_stretch = self.child_stretch(&parent, stretch, position);
            let key = self.goal.stored_key(position, child_stretch);
            children.push(self.numbers(position, child_stretch, key));
            stretches.push(child_stretch);
            keys.push(key);
            position.undo(mv, undo);
        }
        let result = loop {
            let (pn, dn) = combine(or_node, &children);
            if pn >= pn_limit || dn >= dn_limit || self.aborted {
                break (pn, dn);
            }
            // The most-proving child, and the second best's number; a
            // child another thread is in counts half as much again, so
            // that threads spread over the tree.
            let number = |i: usize| {
                let n = if or_node {
                    children[i].0
                } else {
                    children[i].1
                };
                if turn.is_busy(keys[i]) {
                    add(n, n / 2 + 1)
                } else {
                    n
                }
            };
            let (mut best, mut second) = (0, INFINITE);
            let mut best_number = number(0);
            for i in 1..children.len() {
                let n = number(i);
                if n < best_number {
                    second = best_number;
                    best = i;
                    best_number = n;
                } else {
                    second = second.min(n);
                }
            }
            let (cpn, cdn) = children[best];
            let (child_pn, child_dn) = if or_node {
                (
                    pn_limit.min(beyond(second)),
                    add(dn_limit - dn.min(dn_limit), cdn),
                )
            } else {
                (
                    add(pn_limit - pn.min(pn_limit), cpn),
                    dn_limit.min(beyond(second)),
                )
            };
            let mv = moves[best];
            let undo = position.play(mv);
            *self.line.entry(position.hash()).or_insert(0) += 1;
            turn.enter(keys[best]);
            let numbers = self.mid(position, stretches[best], ply + 1, child_pn, child_dn);
            turn.leave(keys[best]);
            if let Some(count) = self.line.get_mut(&position.hash()) {
                *count -= 1;
            }
            self.store(keys[best], numbers);
            position.undo(mv, undo);
            children[best] = numbers;
        };
        self.lists[ply] = moves;
        result
    }
}

/// How far the most-proving child may go before its sibling takes over:
/// a quarter past the second best (the 1+epsilon trick of Pawlewicz and
/// Lew), not just one past, so that two close children do not take
/// turns at every step, each time rebuilding what the other dropped.
fn beyond(second: u32) -> u32 {
    add(second, (second / 4).max(1))
}

/// A threshold's sum: it may reach `INFINITE` (search until settled).
fn add(a: u32, b: u32) -> u32 {
    a.saturating_add(b).min(INFINITE)
}

/// A sum of children's numbers: `INFINITE` only if one of them is (that
/// child settles the position), else at most `CEILING`.
fn sum(numbers: impl Iterator<Item = u32>) -> u32 {
    numbers.fold(0, |total, n| {
        if total == INFINITE || n >= INFINITE {
            INFINITE
        } else {
            total.saturating_add(n).min(CEILING)
        }
    })
}

/// Numbers of a position from its children's: at the attacker's turn one
/// proved child proves it and every child must be disproved; at the
/// defender's the other way round.
fn combine(or_node: bool, children: &[Numbers]) -> Numbers {
    if children.is_empty() {
        return (INFINITE, 0);
    }
    let min_pn = children.iter().map(|c| c.0).min().unwrap_or(INFINITE);
    let min_dn = children.iter().map(|c| c.1).min().unwrap_or(INFINITE);
    let sum_pn = sum(children.iter().map(|c| c.0));
    let sum_dn = sum(children.iter().map(|c| c.1));
    if or_node {
        (min_pn, sum_dn)
    } else {
        (sum_pn, min_dn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_past_a_billion_do_not_read_as_settled() {
        let big = INFINITE / 2 + 1;
        // Disproof numbers of an attacker's turn add up past the infinity.
        let (pn, dn) = combine(true, &[(2, big), (3, big), (5, big)]);
        assert_eq!(pn, 2);
        assert!(dn < INFINITE, "an open position's sum became infinite");
        // The same at the defender's turn, for proof numbers.
        let (pn, dn) = combine(false, &[(big, 4), (big, 7)]);
        assert!(pn < INFINITE);
        assert_eq!(dn, 4);
    }

    #[test]
    fn a_settled_child_still_settles_the_sum() {
        // One disproved child disproves a defender's position...
        assert_eq!(combine(false, &[(5, 9), (INFINITE, 0)]), (INFINITE, 0));
        // ...and every child disproved disproves an attacker's.
        assert_eq!(
            combine(true, &[(INFINITE, 0), (INFINITE, 0)]),
            (INFINITE, 0)
        );
        // One proved child proves an attacker's position.
        assert_eq!(combine(true, &[(0, INFINITE), (7, 3)]), (0, INFINITE));
        assert_eq!(combine(true, &[]), (INFINITE, 0));
    }

    #[test]
    fn a_threshold_may_still_reach_the_infinity() {
        // A child whose number sits at the ceiling, under a root searching
        // until settled, gets a limit it has not reached yet.
        let child_limit = add(INFINITE - CEILING, CEILING);
        assert_eq!(child_limit, INFINITE);
        assert!(CEILING < child_limit);
    }
}
