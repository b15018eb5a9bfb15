//! Retrograde analysis for games small enough to solve (those that give a
//! [`Game::solver_key`]).
//!
//! Every position reachable from a root is enumerated breadth-first, with
//! its moves as edges. Decided positions are seeds; a queue then walks the
//! edges backwards in order of distance: a position with a move into a
//! position lost for the opponent is won one ply later than the fastest
//! such loss, and a position whose every move leads to a position won for
//! the opponent is lost one ply after the slowest of them. What is never
//! reached is a draw (play can go on for ever). The result is exact
//! distance to the end in plies for every position, under the game's own
//! rules; the no-progress clock is not part of it. [`Clocked`] gives the
//! values under the full rules, the clock included, from it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use menagerie_rules::game::Game;

use crate::value::Value;

/// A value in two bytes: 0 a draw, d + 1 a win in d plies, -(d + 1) a
/// loss in d plies.
fn encode(value: Value) -> i16 {
    match value {
        Value::Win(d) => d as i16 + 1,
        Value::Loss(d) => -(d as i16 + 1),
        Value::Draw => 0,
    }
}

fn decode(v: i16) -> Value {
    match v {
        0 => Value::Draw,
        v if v > 0 => Value::Win(v as u32 - 1),
        v => Value::Loss((-v) as u32 - 1),
    }
}

/// Values of every position reachable from a root, looked up by key.
pub struct Solution {
    keys: Vec<u64>,
    values: Vec<i16>,
    /// The longest distance to the end of any decided position, in plies.
    pub longest: u32,
}

impl Solution {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn value(&self, key: u64) -> Option<Value> {
        self.keys
            .binary_search(&key)
            .ok()
            .map(|i| decode(self.values[i]))
    }

    /// Value of a position by its key; `None` if this table does not hold it.
    pub fn value_of<G: Game>(&self, position: &G) -> Option<Value> {
        self.value(position.solver_key()?)
    }
}

/// Positions numbered by solver key: an open-addressing table (linear
/// probing, at most half full) whose slots for a position's children are
/// prefetched before they are looked up. The breadth-first pass is one
/// look-up per edge into a table far larger than the caches; with the
/// standard map each was a cache miss in turn (two thirds of a solve).
struct KeyIndex {
    /// (key, number); `EMPTY` numbers are free slots.
    slots: Vec<(u64, u32)>,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

/// Positions expanded together in the breadth-first pass.
const BATCH: usize = 64;

impl KeyIndex {
    fn new() -> KeyIndex {
        KeyIndex {
            slots: vec![(0, EMPTY); 1 << 16],
            len: 0,
        }
    }

    fn home(&self, key: u64) -> usize {
        // Both halves of a 128-bit product folded: every bit of the slot
        // depends on every bit of the key.
        let product = u128::from(key) * 0x9E37_79B9_7F4A_7C15;
        (product as u64 ^ (product >> 64) as u64) as usize & (self.slots.len() - 1)
    }

    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint that never faults, and the address
        // is inside the slots.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch(
                self.slots.as_ptr().add(self.home(key)) as *const i8,
                _MM_HINT_T0,
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The number of `key`, after giving it `fresh` if it had none
    /// (then true).
    fn number(&mut self, key: u64, fresh: u32) -> (u32, bool) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, number) = self.slots[i];
            if number == EMPTY {
                self.slots[i] = (key, fresh);
                self.len += 1;
                return (fresh, true);
            }
            if k == key {
                return (number, false);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let doubled = vec![(0, EMPTY); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.slots.len() - 1;
        for (key, number) in old.into_iter().filter(|&(_, n)| n != EMPTY) {
            let mut i = self.home(key);
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = (key, number);
        }
    }
}

/// Solves every position reachable from `root`.
///
/// # Panics
/// If the game gives no solver key, or a move does not pass the turn to the
/// other seat (the algorithm assumes two alternating seats).
pub fn solve<G: Game>(root: &G) -> Solution {
    let graph = explore(root);
    let parents = Parents::of(&graph);
    let Graph {
        keys,
        decided,
        first_child,
        children,
    } = graph;
    // The child table goes before the values take their room.
    drop((first_child, children));
    let (values, longest) = back_up(&decided, parents);
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_unstable_by_key(|&i| keys[i as usize]);
    Solution {
        keys: order.iter().map(|&i| keys[i as usize]).collect(),
        values: order.iter().map(|&i| values[i as usize]).collect(),
        longest,
    }
}

/// Every position reachable from the root, numbered in the order found,
/// with its children as a compressed sparse row table.
struct Graph {
    keys: Vec<u64>,
    /// Decided positions and their value for the side to move.
    decided: Vec<(u32, Value)>,
    first_child: Vec<u32>,
    children: Vec<u32>,
}

fn explore<G: Game>(root: &G) -> Graph {
    let key_of = |p: &G| p.solver_key().expect("solvable games give a solver key");
    let mut index = KeyIndex::new();
    let mut keys: Vec<u64> = Vec::new();
    let mut decided: Vec<(u32, Value)> = Vec::new();
    let mut first_child: Vec<u32> = vec![0];
    let mut children: Vec<u32> = Vec::new();
    let mut frontier: VecDeque<G> = VecDeque::new();
    let mut moves = Vec::with_capacity(32);
    // Child keys and moves of a batch of positions, and where each
    // position's children end in them.
    let mut batch: Vec<G> = Vec::with_capacity(BATCH);
    let mut child_keys: Vec<(u64, G::Move)> = Vec::with_capacity(BATCH * 32);
    let mut ends: Vec<usize> = Vec::with_capacity(BATCH);

    index.number(key_of(root), 0);
    keys.push(key_of(root));
    frontier.push_back(root.clone());
    let mut next = 0u32;
    // Breadth-first: positions are expanded in index order, so the child
    // lists form a compressed sparse row table as they are found. A batch
    // of positions has its children's keys computed (and their slots
    // prefetched) before any is looked up, so the look-ups, one per edge
    // into a table larger than the caches, mostly hit.
    while !frontier.is_empty() {
        batch.clear();
        child_keys.clear();
        ends.clear();
        while batch.len() < BATCH {
            let Some(mut position) = frontier.pop_front() else {
                break;
            };
            moves.clear();
            position.generate(&mut moves);
            if moves.is_empty() {
                let outcome = position
                    .outcome()
                    .expect("no moves means the game is decided");
                let value = Value::of_outcome(outcome, &position);
                decided.push((next + batch.len() as u32, value));
            }
            let side = position.side();
            for &mv in &moves {
                let undo = position.play(mv);
                assert_ne!(position.side(), side, "the solver needs alternating turns");
                let key = key_of(&position);
                index.prefetch(key);
                child_keys.push((key, mv));
                position.undo(mv, undo);
            }
            ends.push(child_keys.len());
            batch.push(position);
        }
        let mut from = 0;
        for (position, &end) in batch.iter().zip(&ends) {
            for &(key, mv) in &child_keys[from..end] {
                let (child, fresh) = index.number(key, keys.len() as u32);
                if fresh {
                    keys.push(key);
                    let mut position = position.clone();
                    position.play(mv);
                    frontier.push_back(position);
                }
                children.push(child);
            }
            first_child.push(children.len() as u32);
            from = end;
        }
        next += batch.len() as u32;
    }
    Graph {
        keys,
        decided,
        first_child,
        children,
    }
}

/// The child table reversed: the parents of each position, and how many
/// of its children are not yet known to win for their side to move.
struct Parents {
    first_parent: Vec<u32>,
    parents: Vec<u32>,
    unresolved: Vec<u32>,
}

impl Parents {
    fn of(graph: &Graph) -> Parents {
        let (children, first_child) = (&graph.children, &graph.first_child);
        let n = graph.keys.len();
        let mut first_parent = vec![0u32; n + 1];
        for &c in children {
            first_parent[c as usize + 1] += 1;
        }
        for i in 0..n {
            first_parent[i + 1] += first_parent[i];
        }
        let mut fill = first_parent.clone();
        let mut parents = vec![0u32; children.len()];
        for p in 0..n {
            for &c in &children[first_child[p] as usize..first_child[p + 1] as usize] {
                parents[fill[c as usize] as usize] = p as u32;
                fill[c as usize] += 1;
            }
        }
        let unresolved: Vec<u32> = (0..n)
            .map(|p| first_child[p + 1] - first_child[p])
            .collect();
        Parents {
            first_parent,
            parents,
            unresolved,
        }
    }

    fn of_position(&self, c: u32) -> &[u32] {
        let c = c as usize;
        &self.parents[self.first_parent[c] as usize..self.first_parent[c + 1] as usize]
    }
}

/// Values backed up from the decided positions, breadth first, and the
/// longest distance found.
fn back_up(decided: &[(u32, Value)], mut parents: Parents) -> (Vec<i16>, u32) {
    let mut unresolved = std::mem::take(&mut parents.unresolved);
    let n = unresolved.len();
    // Seeds: decided positions, won or lost for the side to move. Drawn
    // ones are never queued, so their parents keep a way out.
    let mut values = vec![0i16; n];
    let mut resolved = vec![false; n];
    let mut queue: VecDeque<u32> = VecDeque::new();
    for &(i, value) in decided {
        resolved[i as usize] = true;
        values[i as usize] = encode(value);
        if value != Value::Draw {
            queue.push_back(i);
        }
    }
    let mut longest = 0;
    while let Some(c) = queue.pop_front() {
        let value = decode(values[c as usize]);
        for &p in parents.of_position(c) {
            let p = p as usize;
            if resolved[p] {
                continue;
            }
            match value {
                Value::Loss(d) => {
                    values[p] = encode(Value::Win(d + 1));
                }
                Value::Win(d) => {
                    unresolved[p] -= 1;
                    if unresolved[p] > 0 {
                        continue;
                    }
                    values[p] = encode(Value::Loss(d + 1));
                }
                Value::Draw => unreachable!("draws are never queued"),
            }
            resolved[p] = true;
            longest = longest.max(match decode(values[p]) {
                Value::Win(d) | Value::Loss(d) => d,
                Value::Draw => 0,
            });
            queue.push_back(p as u32);
        }
    }
    (values, longest)
}

/// Values under the full rules, the no-progress clock included, read from
/// a [`Solution`] made without it.
///
/// The clock only adds draws, so a drawn position stays drawn, and a win or
/// loss in `d` plies stands whenever `d` plies are left on the clock: the
/// winner's fastest line ends the game in time, and no line the loser
/// chooses is faster. Only where the clock runs out first is the value
/// searched, exactly: over the position and the plies left, each child at
/// its own clock (a capture or drop starts it again), remembered by
/// position and plies left, so a whole phase costs at most its positions
/// times the limit. Repetition needs no search either: along a line that
/// wins in the fewest plies (or loses in the most) no position comes
/// twice; the game's history before the position is the caller's to
/// check, as [`crate::exact`] does.
pub struct Clocked<G: Game> {
    table: Arc<Solution>,
    searched: HashMap<(u64, u32), Value>,
    moves: Vec<Vec<G::Move>>,
}

impl<G: Game> Clone for Clocked<G> {
    /// The same table, with nothing searched yet (each search thread
    /// keeps its own).
    fn clone(&self) -> Clocked<G> {
        Clocked::new(Arc::clone(&self.table))
    }
}

impl<G: Game> Clocked<G> {
    pub fn new(table: Arc<Solution>) -> Clocked<G> {
        Clocked {
            table,
            searched: HashMap::new(),
            moves: Vec::new(),
        }
    }

    /// The value of `position` at its clock, or `None` if the table does not
    /// hold it.
    pub fn value(&mut self, position: &G) -> Option<Value> {
        let free = self.table.value_of(position)?;
        let left = G::NO_PROGRESS_LIMIT.saturating_sub(position.clock());
        match free {
            Value::Win(d) | Value::Loss(d) if d > left => self.search(position, left),
            _ => Some(free),
        }
    }

    /// The clock-free table the values come from.
    pub fn table(&self) -> &Solution {
        &self.table
    }

    /// Positions searched because the clock ran out before the table's
    /// value could be reached.
    pub fn searched(&self) -> usize {
        self.searched.len()
    }

    /// The exact value of an undecided position with `left` plies left.
    fn search(&mut self, position: &G, left: u32) -> Option<Value> {
        if left == 0 {
            // Undecided when the limit is reached: the game's draw.
            return Some(Value::of_outcome(position.no_progress_outcome(), position));
        }
        let key = (position.hash(), left);
        if let Some(&value) = self.searched.get(&key) {
            return Some(value);
        }
        let mut moves = self.moves.pop().unwrap_or_default();
        moves.clear();
        position.generate(&mut moves);
        let mut best: Option<Value> = None;
        for &mv in &moves {
            let mut child = position.clone();
            child.play(mv);
            let value = self.value(&child)?.for_mover();
            if best.map_or(true, |b| value.better_than(b)) {
                best = Some(value);
            }
        }
        self.moves.push(moves);
        let value = best.expect("a position the clock-free table has not decided has moves");
        self.searched.insert(key, value);
        Some(value)
    }
}
