//! Depth-first proof-number search (df-pn, Nagai 2002) for two-seat
//! deterministic games, with the endgame tables and the rules as leaves.
//!
//! A goal is "this side wins". Proof and disproof numbers say how many
//! leaves must still be shown to prove or disprove it; the search always
//! expands the most-proving position, under thresholds that let it stay
//! deep without walking back to the root. Two goals (the side to move
//! wins; the other side wins) give a value or a bound.
//!
//! The rules are kept whole, the threefold repetition included: what a
//! position is worth depends on the boards seen since the last capture
//! (none can come back after one, as the men are fewer), so a position is
//! stored by its board and the multiset of those boards (a sum of their
//! mixed hashes, which the order of play does not change). Every move
//! either captures or adds a board to that history, so the stored graph
//! has no cycles and a proof found for a position holds wherever it is
//! met again: no graph-history interaction.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use menagerie_rules::game::{Game, Outcome, Seat};

use crate::certificate::{self, CertificateError, CertificateRequest, Claim, Node, Visit};
use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::{Tables, Wdl};

const INFINITE: u32 = u32::MAX / 4;

/// What a proof search established about the side to move's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    Win,
    Loss,
    Draw,
    /// The other side cannot win; whether the side to move can is open.
    AtLeastDraw,
    /// The side to move cannot win; whether it can hold the draw is open.
    AtMostDraw,
    Unknown,
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Proven::Win => "win",
            Proven::Loss => "loss",
            Proven::Draw => "draw",
            Proven::AtLeastDraw => "at least draw",
            Proven::AtMostDraw => "at most draw",
            Proven::Unknown => "unknown",
        })
    }
}

/// The outcome of a proof search, with its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ProofReport {
    pub value: Proven,
    /// Positions expanded, over both goals.
    pub nodes: u64,
    /// Positions stored with their numbers.
    pub stored: usize,
    /// Leaves the tables decided.
    pub table_hits: u64,
    pub seconds: f64,
    /// Proof and disproof numbers left at the root for each goal (side to
    /// move wins, other side wins); 0 and 0 for a goal settled.
    pub open: [(u32, u32); 2],
    /// For a win proved: the size of the proof.
    pub proof: Option<ProofTree>,
    /// The search stopped because its stored positions reached what the
    /// process may hold: the most it could store.
    pub memory_bound: Option<usize>,
    /// Times the stored positions reached their bound and the open ones
    /// least worth keeping were dropped.
    pub collections: u32,
    /// Resumed from a checkpoint: the settled positions it held and the
    /// nodes spent before (included in `nodes`).
    pub resumed: Option<(usize, u64)>,
    /// The certificate asked for: what it holds, or why it was not written.
    pub certificate: Option<Result<certificate::Written, CertificateError>>,
    /// Times a goal the search settled (with [`Keys::Clock`]) had a
    /// proof that did not hold when walked under the full rules, and the
    /// search went on with the position where it failed kept by history.
    pub repairs: u32,
}

/// How a proof search is bounded, saved and watched.
pub struct ProofSettings<'a> {
    /// Expansions, over both goals, a resumed run's earlier ones included.
    pub max_nodes: u64,
    /// Most bytes the stored positions may take. At this bound the open
    /// positions least worth keeping are dropped (settled ones are kept),
    /// and only when settled positions fill it does the search stop. With
    /// none, the bound is what the process may hold, and the search stops
    /// there, with the value or bound it has.
    pub memory_bytes: Option<u64>,
    /// Where the settled positions are kept: loaded at the start when the
    /// file is this search's, written every `checkpoint_every` and at the
    /// end.
    pub checkpoint: Option<&'a Path>,
    pub checkpoint_every: Duration,
    /// Called about once a second while the search runs.
    pub progress: &'a mut dyn FnMut(&Progress),
    /// Where to write the proof of what the search settles, if anywhere.
    pub certificate: Option<CertificateRequest<'a>>,
    /// When positions share their numbers.
    pub keys: Keys,
}

impl<'a> ProofSettings<'a> {
    /// A search of `max_nodes` expansions, no checkpoint, no progress.
    pub fn nodes(max_nodes: u64, progress: &'a mut dyn FnMut(&Progress)) -> ProofSettings<'a> {
        ProofSettings {
            max_nodes,
            memory_bytes: None,
            checkpoint: None,
            checkpoint_every: Duration::from_secs(60),
            progress,
            certificate: None,
            keys: Keys::default(),
        }
    }
}

/// Where a running proof search stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub nodes: u64,
    pub stored: usize,
    /// The last known proof and disproof numbers at the root per goal
    /// (side to move wins, other side wins).
    pub roots: [(u32, u32); 2],
    pub nodes_per_second: u64,
    pub collections: u32,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let goal = |(pn, dn): (u32, u32)| match (pn, dn) {
            (0, _) => "proved".to_string(),
            (_, 0) => "disproved".to_string(),
            (pn, dn) => format!("pn {pn} dn {dn}"),
        };
        write!(
            f,
            "{} nodes, {} positions stored, side to move wins: {}, other side wins: {}, {} nodes/s, {} collections",
            self.nodes,
            self.stored,
            goal(self.roots[0]),
            goal(self.roots[1]),
            self.nodes_per_second,
            self.collections
        )
    }
}

/// What the goals' searches share: the clock, the progress line and the
/// time of the next checkpoint.
struct Watch<'a> {
    started: Instant,
    /// Nodes spent before this run (a resumed checkpoint's).
    earlier: u64,
    last_report: Cell<Instant>,
    next_checkpoint: Option<Cell<Instant>>,
    /// Nodes and stored positions of the goal not running, and the roots.
    other: Cell<(u64, usize)>,
    roots: Cell<[(u32, u32); 2]>,
    collections: Cell<u32>,
    progress: RefCell<&'a mut dyn FnMut(&Progress)>,
}

/// Bytes one stored position takes in the search's tables, measured
/// (a hash map entry of a key and two numbers, with the map's spare
/// room), rounded up.
pub const BYTES_PER_STORED: u64 = 48;

/// Bytes one position of a proof takes while it is walked (its id, its
/// keys and parent, its share of the positions waiting), rounded up.
const BYTES_PER_WALKED: u64 = 128;

/// The positions of a proof of a win: the winner's one chosen move at its
/// turns, every move at the loser's, down to positions the rules or the
/// tables decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofTree {
    /// Positions searched in the proof, leaves aside.
    pub positions: usize,
    /// Leaves: decided by the rules, or by the tables.
    pub leaves: usize,
}

/// A position's history since the last capture, as the search keeps it.
#[derive(Clone, Copy)]
struct Stretch {
    /// Sum of the mixed hashes of the earlier boards.
    sum: u64,
    /// Times the position's own board has occurred, itself included.
    repeats: u8,
}

fn mix(hash: u64) -> u64 {
    let h = (hash ^ (hash >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 29)
}

fn key<G: Game>(position: &G, stretch: Stretch) -> u64 {
    position.hash() ^ stretch.sum.rotate_left(17)
}

/// When two positions of a proof search share their numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keys {
    /// The same board with the same boards since the last capture: what
    /// a position is worth under the repetition rule, so every number
    /// stored holds wherever it is met again; but every order of the same
    /// quiet moves makes positions of their own.
    History,
    /// The same board at the same clock, whatever came before it since
    /// the last capture: every order of the same quiet moves meets in one
    /// position, with the repetition rule kept on the line searched. A
    /// number found on one line may not hold on another (where the boards
    /// before differ), so a goal counts as settled only once its proof,
    /// walked under the full rules with each position's own history,
    /// holds; where it fails, that position is kept by history from then
    /// on and the search goes on. Awithlaknannai Mosona from the start:
    /// settled in 2.5 million nodes, where history keys had not in 300
    /// million.
    #[default]
    Clock,
}

fn clock_key<G: Game>(position: &G) -> u64 {
    position.hash() ^ mix(u64::from(position.clock()) ^ 0x6a09_e667_f3bc_c909)
}

/// The stretch of `child`, reached from `parent` (of stretch `stretch`),
/// given how often the child's board occurs on the line before it.
fn next_stretch<G: Game>(parent: &G, stretch: Stretch, child: &G, earlier: u8) -> Stretch {
    if child.clock() == 0 {
        Stretch { sum: 0, repeats: 1 }
    } else {
        Stretch {
            sum: stretch.sum.wrapping_add(mix(parent.hash())),
            repeats: earlier + 1,
        }
    }
}

struct Search<'a, G: Game> {
    attacker: Seat,
    keys: Keys,
    /// With clock keys, the positions (by clock key) whose numbers were
    /// found to depend on the boards before them: kept by history.
    by_history: HashSet<u64>,
    tables: Option<&'a Tables>,
    table: HashMap<u64, (u32, u32)>,
    /// Boards on the current line, counted.
    line: HashMap<u64, u8>,
    nodes: u64,
    max_nodes: u64,
    /// Most positions this goal's table may hold.
    max_stored: usize,
    /// The table reached `max_stored` (with settled positions, when
    /// collecting).
    full: bool,
    /// Whether the bound drops open positions (a bound given) rather than
    /// ending the search (the default bound, what the process may hold).
    collecting: bool,
    collections: u32,
    table_hits: u64,
    stop: &'a AtomicBool,
    aborted: bool,
    /// The turn was cut to write a checkpoint.
    checkpoint_due: bool,
    watch: &'a Watch<'a>,
    lists: Vec<Vec<G::Move>>,
}

impl<'a, G: Game> Search<'a, G> {
    /// Whether the goal holds at a position decided without search: by
    /// the rules (a decisive end first, then the clock, then the third
    /// repetition), or by the tables.
    /// Where `position` keeps its numbers.
    fn stored_key(&self, position: &G, stretch: Stretch) -> u64 {
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

    fn leaf(&mut self, position: &G, stretch: Stretch) -> Option<bool> {
        self.decided(position, stretch).map(|(holds, _)| holds)
    }

    /// [`Search::leaf`] with what decided it: the rules (`None`) or a
    /// table's value for the side to move.
    fn decided(&mut self, position: &G, stretch: Stretch) -> Option<(bool, Option<Wdl>)> {
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
        self.table_hits += 1;
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
    fn settled(&mut self, position: &G, stretch: Stretch) -> Option<bool> {
        self.leaf(position, stretch).or_else(|| {
            let numbers = self.table.get(&self.stored_key(position, stretch))?;
            match numbers {
                (0, _) => Some(true),
                (_, 0) => Some(false),
                _ => None,
            }
        })
    }

    /// Drops the open positions least worth keeping (the smaller half by
    /// their lesser number: the cheapest to find again); settled ones
    /// stay. False when settled positions leave no room to make.
    fn collect(&mut self) -> bool {
        let mut open: Vec<u32> = self
            .table
            .values()
            .filter(|n| n.0 != 0 && n.1 != 0)
            .map(|n| n.0.min(n.1))
            .collect();
        if open.len() < self.table.len() / 4 {
            return false;
        }
        let half = open.len() / 2;
        let threshold = *open.select_nth_unstable(half).1;
        self.table
            .retain(|_, n| n.0 == 0 || n.1 == 0 || n.0.min(n.1) > threshold);
        self.collections += 1;
        self.watch.collections.set(self.watch.collections.get() + 1);
        true
    }

    /// The periodic look at the world: `stop`, the progress line, the
    /// checkpoint's time.
    fn look_around(&mut self) {
        if self.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        let watch = self.watch;
        if let Some(next) = &watch.next_checkpoint {
            if Instant::now() >= next.get() {
                self.checkpoint_due = true;
            }
        }
        if watch.last_report.get().elapsed() >= Duration::from_secs(1) {
            watch.last_report.set(Instant::now());
            let (other_nodes, other_stored) = watch.other.get();
            let nodes = watch.earlier + self.nodes + other_nodes;
            let run = self.nodes + other_nodes;
            let progress = Progress {
                nodes,
                stored: self.table.len() + other_stored,
                roots: watch.roots.get(),
                nodes_per_second: (run as f64 / watch.started.elapsed().as_secs_f64().max(1e-3))
                    as u64,
                collections: watch.collections.get(),
            };
            (watch.progress.borrow_mut())(&progress);
        }
    }

    /// The stretch of a child of `parent` on the current line.
    fn child_stretch(&self, parent: &G, stretch: Stretch, child: &G) -> Stretch {
        let earlier = self.line.get(&child.hash()).copied().unwrap_or(0);
        next_stretch(parent, stretch, child, earlier)
    }

    fn numbers(&mut self, position: &G, stretch: Stretch) -> (u32, u32) {
        match self.leaf(position, stretch) {
            Some(true) => (0, INFINITE),
            Some(false) => (INFINITE, 0),
            None => self
                .table
                .get(&self.stored_key(position, stretch))
                .copied()
                .unwrap_or((1, 1)),
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
    ) -> (u32, u32) {
        self.nodes += 1;
        // A map grows by doubling, holding old and new at once: it may not
        // grow past the bound, so that the bound holds at its peak too.
        let at_bound = self.table.len() >= self.max_stored
            || (self.table.len() == self.table.capacity()
                && self.table.capacity().saturating_mul(2) > self.max_stored);
        if at_bound && !(self.collecting && self.collect()) {
            self.full = true;
        }
        if self.nodes % 4096 == 0 {
            self.look_around();
        }
        if self.nodes >= self.max_nodes || self.full || self.checkpoint_due {
            self.aborted = true;
        }
        if self.lists.len() <= ply {
            self.lists.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        position.generate(&mut moves);
        let or_node = position.side() == self.attacker;
        let mut children: Vec<(u32, u32)> = Vec::with_capacity(moves.len());
        let mut stretches: Vec<Stretch> = Vec::with_capacity(moves.len());
        for &mv in &moves {
            let parent = position.clone();
            let undo = position.play(mv);
            let child_stretch = self.child_stretch(&parent, stretch, position);
            children.push(self.numbers(position, child_stretch));
            stretches.push(child_stretch);
            position.undo(mv, undo);
        }
        let result = loop {
            let (pn, dn) = combine(or_node, &children);
            if pn >= pn_limit || dn >= dn_limit || self.aborted {
                break (pn, dn);
            }
            // The most-proving child, and the second best's number.
            let number = |c: &(u32, u32)| if or_node { c.0 } else { c.1 };
            let (mut best, mut second) = (0, INFINITE);
            for i in 1..children.len() {
                if number(&children[i]) < number(&children[best]) {
                    second = number(&children[best]);
                    best = i;
                } else {
                    second = second.min(number(&children[i]));
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
            let numbers = self.mid(position, stretches[best], ply + 1, child_pn, child_dn);
            if let Some(count) = self.line.get_mut(&position.hash()) {
                *count -= 1;
            }
            let stored_key = self.stored_key(position, stretches[best]);
            self.table.insert(stored_key, numbers);
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

fn add(a: u32, b: u32) -> u32 {
    a.saturating_add(b).min(INFINITE)
}

/// Numbers of a position from its children's: at the attacker's turn one
/// proved child proves it and every child must be disproved; at the
/// defender's the other way round.
fn combine(or_node: bool, children: &[(u32, u32)]) -> (u32, u32) {
    if children.is_empty() {
        return (INFINITE, 0);
    }
    let min_pn = children.iter().map(|c| c.0).min().unwrap_or(INFINITE);
    let min_dn = children.iter().map(|c| c.1).min().unwrap_or(INFINITE);
    let sum_pn = children.iter().fold(0, |s, c| add(s, c.0));
    let sum_dn = children.iter().fold(0, |s, c| add(s, c.1));
    if or_node {
        (min_pn, sum_dn)
    } else {
        (sum_pn, min_dn)
    }
}

/// Tries to prove the value of `position` within the settings' budget or
/// until `stop`. `history` holds the hashes of the positions before it
/// in the game, oldest first (those since the last capture count for
/// repetitions). The two goals take turns with budgets that double, so
/// that the easier one is settled first and the other gets the rest; each
/// keeps its stored numbers between turns.
pub fn prove<G: Game>(
    position: &G,
    history: &[u64],
    tables: Option<&Tables>,
    settings: ProofSettings<'_>,
    stop: &AtomicBool,
) -> Result<ProofReport, CheckpointError> {
    let started = Instant::now();
    let mover = position.side();
    let other = position
        .seats()
        .iter()
        .copied()
        .find(|&s| s != mover)
        .unwrap_or(mover);
    // The boards since the last capture: as many as the clock counts.
    let since = &history[history.len().saturating_sub(position.clock() as usize)..];
    let mut line: HashMap<u64, u8> = HashMap::new();
    for &h in since.iter().chain([position.hash()].iter()) {
        *line.entry(h).or_insert(0) += 1;
    }
    let root_stretch = Stretch {
        sum: since.iter().fold(0u64, |s, &h| s.wrapping_add(mix(h))),
        repeats: line[&position.hash()],
    };
    let root_id = mix(key(position, root_stretch) ^ mix(u64::from(root_stretch.repeats)))
        ^ mix(crc32fast::hash(format!("{position:?}").as_bytes()).into())
        ^ match settings.keys {
            Keys::History => 0,
            Keys::Clock => mix(0x4b45_5953),
        };
    let resumed = match settings.checkpoint {
        Some(path) => Checkpoint::load(path, root_id)?,
        None => None,
    };
    // What the process may hold, checked before anything is stored: the
    // two goals share it.
    let settings_bound_given = settings.memory_bytes.is_some();
    let bytes = settings
        .memory_bytes
        .or_else(|| menagerie_os::memory::available_bytes().map(|b| b / 10 * 8));
    // With clock keys a quarter goes to walking a proof before it counts.
    let (table_bytes, walk_limit) = match (settings.keys, bytes) {
        (_, None) => (None, usize::MAX),
        (Keys::History, Some(bytes)) => (Some(bytes), usize::MAX),
        (Keys::Clock, Some(bytes)) => {
            (Some(bytes / 4 * 3), (bytes / 4 / BYTES_PER_WALKED) as usize)
        }
    };
    let max_stored =
        table_bytes.map_or(usize::MAX, |bytes| (bytes / BYTES_PER_STORED / 2) as usize);
    let ProofSettings {
        max_nodes,
        checkpoint,
        checkpoint_every,
        progress,
        certificate,
        keys,
        ..
    } = settings;
    let earlier = resumed.as_ref().map_or(0, |c| c.nodes);
    let watch = Watch {
        started,
        earlier,
        last_report: Cell::new(started),
        next_checkpoint: checkpoint.map(|_| Cell::new(started + checkpoint_every)),
        other: Cell::new((0, 0)),
        roots: Cell::new([(1, 1); 2]),
        collections: Cell::new(0),
        progress: RefCell::new(progress),
    };
    let mut searches = [mover, other].map(|attacker| Search::<G> {
        attacker,
        keys,
        by_history: HashSet::new(),
        tables,
        table: HashMap::new(),
        line: line.clone(),
        nodes: 0,
        max_nodes: 0,
        max_stored,
        full: false,
        collecting: settings_bound_given,
        collections: 0,
        table_hits: 0,
        stop,
        aborted: false,
        checkpoint_due: false,
        watch: &watch,
        lists: Vec::new(),
    });
    if let Some(checkpoint) = &resumed {
        for (search, settled) in searches.iter_mut().zip(&checkpoint.settled) {
            for &(key, proved) in settled {
                let numbers = if proved { (0, INFINITE) } else { (INFINITE, 0) };
                search.table.insert(key, numbers);
            }
        }
    }
    let save = |searches: &[Search<G>; 2]| -> Result<(), CheckpointError> {
        let Some(path) = checkpoint else {
            return Ok(());
        };
        let settled = |search: &Search<G>| {
            let mut keys: Vec<(u64, bool)> = search
                .table
                .iter()
                .filter(|(_, n)| n.0 == 0 || n.1 == 0)
                .map(|(&k, n)| (k, n.0 == 0))
                .collect();
            keys.sort_unstable();
            keys
        };
        Checkpoint {
            root: root_id,
            nodes: earlier + searches.iter().map(|s| s.nodes).sum::<u64>(),
            settled: [settled(&searches[0]), settled(&searches[1])],
        }
        .save(path)
    };
    let mut numbers = [(1, 1); 2];
    let mut settled: [Option<bool>; 2] = [None; 2];
    let spent = |searches: &[Search<G>; 2]| earlier + searches.iter().map(|s| s.nodes).sum::<u64>();
    let mut turn = 1024;
    let mut repairs = 0;
    'rounds: loop {
        for goal in 0..2 {
            if settled[goal].is_some() {
                continue;
            }
            let turn_end = searches[goal].nodes + turn;
            loop {
                let left = max_nodes.saturating_sub(spent(&searches));
                if left == 0 || stop.load(Ordering::Relaxed) || searches.iter().any(|s| s.full) {
                    break 'rounds;
                }
                let other = &searches[1 - goal];
                watch.other.set((other.nodes, other.table.len()));
                let search = &mut searches[goal];
                search.aborted = false;
                search.checkpoint_due = false;
                search.max_nodes = turn_end.min(search.nodes + left);
                let mut root = position.clone();
                numbers[goal] = match search.leaf(&root, root_stretch) {
                    Some(true) => (0, INFINITE),
                    Some(false) => (INFINITE, 0),
                    None => search.mid(&mut root, root_stretch, 0, INFINITE, INFINITE),
                };
                let mut roots = watch.roots.get();
                roots[goal] = numbers[goal];
                watch.roots.set(roots);
                settled[goal] = match numbers[goal] {
                    (0, _) => Some(true),
                    (_, 0) => Some(false),
                    _ => None,
                };
                // With clock keys a number may hold on one line and not
                // on another: a goal is settled only when its proof,
                // walked under the full rules, holds. Where it does not,
                // the position where it fails is kept by history from
                // now on, the numbers on the way to it are dropped, and
                // the search goes on.
                if let (Keys::Clock, Some(holds)) = (keys, settled[goal]) {
                    let search = &mut searches[goal];
                    let mut trace = Vec::new();
                    let mut quiet = |_: u32, _: Node<'_>| Ok(());
                    let walked = walk_traced(
                        search, position, since, holds, &mut quiet, walk_limit, &mut trace,
                    );
                    if walked.is_err() && trace.is_empty() {
                        // Too large to walk in the memory given: the
                        // search ends at its memory bound.
                        search.full = true;
                        settled[goal] = None;
                        break 'rounds;
                    }
                    if walked.is_err() {
                        for &(stored, _) in &trace {
                            search.table.remove(&stored);
                        }
                        if let Some(&(_, clocked)) = trace.first() {
                            search.by_history.insert(clocked);
                        }
                        settled[goal] = None;
                        repairs += 1;
                        continue;
                    }
                }
                // A turn cut for the checkpoint goes on after it.
                if !searches[goal].checkpoint_due {
                    break;
                }
                save(&searches)?;
                if let Some(next) = &watch.next_checkpoint {
                    next.set(Instant::now() + checkpoint_every);
                }
                if settled[goal].is_some() {
                    break;
                }
            }
        }
        // A win for either side settles both goals.
        if settled.contains(&Some(true)) || settled.iter().all(Option::is_some) {
            break;
        }
        turn = turn.saturating_mul(2);
    }
    save(&searches)?;
    let value = match settled {
        [Some(true), _] => Proven::Win,
        [_, Some(true)] => Proven::Loss,
        [Some(false), Some(false)] => Proven::Draw,
        [None, Some(false)] => Proven::AtLeastDraw,
        [Some(false), None] => Proven::AtMostDraw,
        _ => Proven::Unknown,
    };
    let open = [0, 1].map(|g| {
        if settled[g].is_some() {
            (0, 0)
        } else {
            numbers[g]
        }
    });
    let proof = settled
        .iter()
        .position(|&s| s == Some(true))
        .map(|goal| proof_tree(&mut searches[goal], position, since));
    let certificate = certificate.map(|request| {
        // A win settles the goal proved; otherwise each goal settled.
        let goals: Vec<usize> = match settled.iter().position(|&s| s == Some(true)) {
            Some(goal) => vec![goal],
            None => (0..2).filter(|&g| settled[g].is_some()).collect(),
        };
        if goals.is_empty() {
            return Err(CertificateError::NothingSettled);
        }
        let letter = |seat: Seat| G::SEAT_LETTERS[seat as usize];
        let claims: Vec<Claim> = goals
            .iter()
            .map(|&g| {
                let seat = letter(searches[g].attacker);
                if settled[g] == Some(true) {
                    Claim::Wins(seat)
                } else {
                    Claim::CannotWin(seat)
                }
            })
            .collect();
        certificate::write(&request, &claims, &mut |index, visit| {
            let goal = goals[index];
            let holds = settled[goal] == Some(true);
            walk_proof(&mut searches[goal], position, since, holds, visit)
        })
    });
    Ok(ProofReport {
        value,
        nodes: spent(&searches),
        stored: searches.iter().map(|s| s.table.len()).sum(),
        table_hits: searches.iter().map(|s| s.table_hits).sum(),
        seconds: started.elapsed().as_secs_f64(),
        open,
        proof,
        memory_bound: searches.iter().any(|s| s.full).then_some(2 * max_stored),
        collections: searches.iter().map(|s| s.collections).sum(),
        resumed: resumed.map(|c| (c.settled.iter().map(Vec::len).sum(), c.nodes)),
        certificate,
        repairs,
    })
}

/// Counts the proof the search stored of a win.
fn proof_tree<G: Game>(search: &mut Search<G>, root: &G, since: &[u64]) -> ProofTree {
    let (mut positions, mut leaves) = (0, 0);
    walk_proof(search, root, since, true, &mut |_, node| {
        match node {
            Node::Leaf(_) => leaves += 1,
            _ => positions += 1,
        }
        Ok(())
    })
    .expect("a goal the search proved has its proof stored");
    ProofTree { positions, leaves }
}

/// Walks the proof of a settled goal (`holds`: the attacker wins, or
/// cannot win) that the search stored, calling `visit` once per position
/// with its id (the root's is 0): where the side the goal favours moves,
/// the first move settled the goal's way; where the other side moves,
/// every move; down to leaves. Each position carries the boards since
/// the last capture, to know its stretch.
fn walk_proof<G: Game>(
    search: &mut Search<G>,
    root: &G,
    since: &[u64],
    holds: bool,
    visit: &mut Visit<'_>,
) -> Result<(), CertificateError> {
    walk_traced(
        search,
        root,
        since,
        holds,
        visit,
        usize::MAX,
        &mut Vec::new(),
    )
}

/// [`walk_proof`] of at most `limit` positions, and where it fails, the
/// positions from the one where the proof does not hold back to the
/// root, as `(stored key, clock key)`; a failure with `trace` empty is a
/// proof of more than `limit` positions.
fn walk_traced<G: Game>(
    search: &mut Search<G>,
    root: &G,
    since: &[u64],
    holds: bool,
    visit: &mut Visit<'_>,
    limit: usize,
    trace: &mut Vec<(u64, u64)>,
) -> Result<(), CertificateError> {
    let count = |boards: &[u64], h: u64| boards.iter().filter(|&&b| b == h).count() as u8;
    let root_stretch = Stretch {
        sum: since.iter().fold(0u64, |s, &h| s.wrapping_add(mix(h))),
        repeats: count(since, root.hash()) + 1,
    };
    let mut ids: HashMap<u64, u32> = HashMap::new();
    ids.insert(key(root, root_stretch), 0);
    // Per id: its stored key, its clock key, and the id that reached it
    // first.
    let mut reached = vec![(search.stored_key(root, root_stretch), clock_key(root), 0u32)];
    let mut fail = |reached: &[(u64, u64, u32)], mut id: u32| {
        trace.clear();
        loop {
            let (stored, clocked, parent) = reached[id as usize];
            trace.push((stored, clocked));
            if id == 0 {
                break;
            }
            id = parent;
        }
        CertificateError::Incomplete
    };
    let mut stack = vec![(root.clone(), root_stretch, since.to_vec(), 0u32)];
    let mut moves = Vec::new();
    let mut children: Vec<(String, u32)> = Vec::new();
    while let Some((position, stretch, before, id)) = stack.pop() {
        if let Some((_, table)) = search.decided(&position, stretch) {
            visit(id, Node::Leaf(table))?;
            continue;
        }
        moves.clear();
        position.generate(&mut moves);
        let chooser = (position.side() == search.attacker) == holds;
        let mut line = before.clone();
        line.push(position.hash());
        children.clear();
        for &mv in &moves {
            let mut child = position.clone();
            child.play(mv);
            let child_stretch =
                next_stretch(&position, stretch, &child, count(&line, child.hash()));
            let settled = search.settled(&child, child_stretch);
            if settled != Some(holds) {
                if chooser {
                    continue;
                }
                return Err(fail(&reached, id));
            }
            if ids.len() >= limit {
                trace.clear();
                return Err(CertificateError::Incomplete);
            }
            let next = ids.len() as u32;
            let child_id = *ids.entry(key(&child, child_stretch)).or_insert(next);
            if child_id == next {
                let stored = search.stored_key(&child, child_stretch);
                reached.push((stored, clock_key(&child), id));
                let child_line = if child.clock() == 0 {
                    Vec::new()
                } else {
                    line.clone()
                };
                stack.push((child, child_stretch, child_line, child_id));
            }
            children.push((mv.to_string(), child_id));
            if chooser {
                break;
            }
        }
        match (chooser, children.first()) {
            (true, Some((mv, child))) => visit(id, Node::One(mv.clone(), *child))?,
            (true, None) => return Err(fail(&reached, id)),
            (false, _) => visit(id, Node::All(&children))?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrograde::{build, Request};
    use menagerie_rules::game::endgame::Slice;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    use menagerie_rules::rng::Rng;

    /// Proofs agree with the tables: with no tables at all (the rules
    /// decide every leaf) and with the tables of fewer men as leaves.
    #[test]
    fn proofs_agree_with_the_tables() {
        let dir = std::env::temp_dir().join(format!("menagerie-proof-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for count in [false, true] {
            let rules = AwRules {
                lined: true,
                straight: false,
                count,
            };
            let request = |men| Request {
                dir: &dir,
                men,
                only: None,
                threads: 2,
            };
            let stop = AtomicBool::new(false);
            build::<Awithlaknannai>(&rules, &request(3), &stop, &mut |_| {}).unwrap();
            let expected = crate::file::Expected::of::<Awithlaknannai>(&rules).unwrap();
            let (smaller, _) = Tables::open(&dir, &expected);
            build::<Awithlaknannai>(&rules, &request(4), &stop, &mut |_| {}).unwrap();
            let (all, _) = Tables::open(&dir, &expected);
            let endgame = Awithlaknannai::endgame().unwrap();
            let mut rng = Rng::new(11);
            let (mut settled, mut seen) = ([0; 2], std::collections::HashSet::new());
            let mut repairs = 0;
            for slice in [Slice::new(2, 2), Slice::new(3, 1), Slice::new(1, 3)] {
                let size = (endgame.slice_size)(slice);
                let mut tried = 0;
                while tried < 20 {
                    let Some(mut p) = (endgame.position)(&rules, slice, rng.below(size)) else {
                        continue;
                    };
                    tried += 1;
                    p.set_clock(36 + rng.below(15) as u32);
                    let truth = all.probe(&p).unwrap().wdl();
                    for (leaves, keys) in [
                        (None, Keys::History),
                        (Some(&smaller), Keys::History),
                        (Some(&smaller), Keys::Clock),
                    ] {
                        let mut quiet = |_: &Progress| {};
                        let settings = ProofSettings {
                            keys,
                            ..ProofSettings::nodes(200_000, &mut quiet)
                        };
                        let report = prove(&p, &[], leaves, settings, &stop).unwrap();
                        let expected = match truth {
                            Wdl::Win => Proven::Win,
                            Wdl::Loss => Proven::Loss,
                            Wdl::Draw => Proven::Draw,
                        };
                        let bound_holds = match report.value {
                            Proven::AtLeastDraw => truth != Wdl::Loss,
                            Proven::AtMostDraw => truth != Wdl::Win,
                            Proven::Unknown => true,
                            v => v == expected,
                        };
                        assert!(
                            bound_holds,
                            "{p}: proved {} but the table says {truth:?}",
                            report.value
                        );
                        repairs += report.repairs;
                        if report.value == expected {
                            settled[keys as usize] += 1;
                            seen.insert(truth);
                        }
                    }
                }
            }
            assert!(
                settled[0] >= 72,
                "only {} of 120 proofs settled",
                settled[0]
            );
            assert!(settled[1] >= 54, "clock keys: {} of 60 settled", settled[1]);
            // Numbers found on one line failed on another, and the walk
            // under the full rules caught it.
            assert!(repairs > 0, "no proof with clock keys needed repair");
            assert_eq!(seen.len(), 3, "wins, draws and losses all proved");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod resumable {
    use super::*;
    use crate::retrograde::{build, Request};
    use menagerie_rules::game::endgame::Slice;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    use menagerie_rules::rng::Rng;

    /// Positions of 4 men that a proof with the 3-men tables settles
    /// within 200,000 nodes but not at once, with their values and the
    /// nodes it took.
    fn settled_positions(dir: &Path) -> (Tables, Vec<(Awithlaknannai, Proven, u64)>) {
        let rules = AwRules {
            lined: true,
            straight: false,
            count: false,
        };
        let request = Request {
            dir,
            men: 3,
            only: None,
            threads: 2,
        };
        let stop = AtomicBool::new(false);
        build::<Awithlaknannai>(&rules, &request, &stop, &mut |_| {}).unwrap();
        let expected = crate::file::Expected::of::<Awithlaknannai>(&rules).unwrap();
        let (tables, _) = Tables::open(dir, &expected);
        let endgame = Awithlaknannai::endgame().unwrap();
        let mut rng = Rng::new(5);
        let mut found = Vec::new();
        while found.len() < 3 {
            let slice = [Slice::new(2, 2), Slice::new(3, 1)][found.len() % 2];
            let index = rng.below((endgame.slice_size)(slice));
            let Some(mut p) = (endgame.position)(&rules, slice, index) else {
                continue;
            };
            p.set_clock(40);
            let report = prove(
                &p,
                &[],
                Some(&tables),
                ProofSettings::nodes(200_000, &mut |_| {}),
                &stop,
            )
            .unwrap();
            if matches!(report.value, Proven::Win | Proven::Loss | Proven::Draw)
                && report.nodes > 2_000
            {
                found.push((p, report.value, report.nodes));
            }
        }
        (tables, found)
    }

    #[test]
    fn bounded_memory_and_resumed_checkpoints_prove_the_same_values() {
        let dir = std::env::temp_dir().join(format!("menagerie-resumable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (tables, positions) = settled_positions(&dir);
        let stop = AtomicBool::new(false);
        let mut collected = 0;
        let mut quiet = |_: &Progress| {};
        for (n, (p, value, nodes)) in positions.iter().enumerate() {
            // Room for a few hundred positions: open ones are dropped.
            let settings = ProofSettings {
                memory_bytes: Some(800 * BYTES_PER_STORED),
                ..ProofSettings::nodes(500_000, &mut quiet)
            };
            let bounded = prove(p, &[], Some(&tables), settings, &stop).unwrap();
            let bound_holds = match bounded.value {
                Proven::AtLeastDraw => *value != Proven::Loss,
                Proven::AtMostDraw => *value != Proven::Win,
                Proven::Unknown => true,
                v => v == *value,
            };
            assert!(
                bound_holds,
                "{p}: {} with bounded memory, {value} without",
                bounded.value
            );
            assert!(
                bounded.stored <= 2 * 400 + 64,
                "{p}: {} stored",
                bounded.stored
            );
            collected += bounded.collections;

            // Cut at half its nodes, with a checkpoint after every look
            // around; then resumed to the end.
            let path = dir.join(format!("proof-{n}.ckpt"));
            let cut = ProofSettings {
                checkpoint: Some(&path),
                checkpoint_every: Duration::ZERO,
                ..ProofSettings::nodes(nodes / 2, &mut quiet)
            };
            let first = prove(p, &[], Some(&tables), cut, &stop).unwrap();
            assert!(first.resumed.is_none());
            let again = ProofSettings {
                checkpoint: Some(&path),
                ..ProofSettings::nodes(10 * nodes, &mut quiet)
            };
            let resumed = prove(p, &[], Some(&tables), again, &stop).unwrap();
            assert_eq!(resumed.value, *value, "{p}: resumed");
            let (kept, before) = resumed.resumed.expect("resumed from the checkpoint");
            assert_eq!(before, first.nodes);
            assert!(kept > 0 || first.nodes < 4096, "{p}: nothing kept");
            // Another position's search refuses the file.
            let other = &positions[(n + 1) % positions.len()].0;
            let refused = prove(
                other,
                &[],
                Some(&tables),
                ProofSettings {
                    checkpoint: Some(&path),
                    ..ProofSettings::nodes(1000, &mut quiet)
                },
                &stop,
            );
            assert!(matches!(refused, Err(CheckpointError::OtherRoot(_))));
        }
        assert!(collected > 0, "the memory bound never made a collection");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
