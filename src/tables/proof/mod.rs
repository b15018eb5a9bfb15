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

use menagerie_rules::game::{Game, Seat};

use crate::certificate::{self, CertificateError, CertificateRequest, Claim, Node};
use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::Tables;

mod report;
pub use report::ReportLine;
mod search;
mod store;
#[cfg(test)]
mod tests;
mod walk;

use search::{key, mix, Goal, Search, Stretch, Turn, INFINITE};
use store::Store;
use walk::{proof_tree, walk_proof, walk_traced};

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
    /// Threads searching each goal, sharing its stored numbers (at most
    /// one a core).
    pub threads: usize,
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
            threads: 1,
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

/// What the calling thread watches while a goal is searched: the clock,
/// the progress line and the time of the next checkpoint.
struct Watch<'a> {
    started: Instant,
    /// Nodes spent before this run (a resumed checkpoint's).
    earlier: u64,
    last_report: Cell<Instant>,
    next_checkpoint: Option<Cell<Instant>>,
    /// Nodes this run spent before the current turn, and the positions
    /// stored for the goal not running.
    other: Cell<(u64, usize)>,
    roots: Cell<[(u32, u32); 2]>,
    /// Collections before the current turn.
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
    // What the process may hold, checked before anything is stored: the
    // two goals share it.
    let collecting = settings.memory_bytes.is_some();
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
    // A checkpoint holds positions the search stored, and no more than it
    // may store: one larger is refused by its size before it is read.
    let resumed = match settings.checkpoint {
        Some(path) => {
            let limit = Checkpoint::most_bytes(max_stored as u64);
            Checkpoint::load(path, root_id, limit)?
        }
        None => None,
    };
    let ProofSettings {
        max_nodes,
        checkpoint,
        checkpoint_every,
        progress,
        certificate,
        keys,
        threads,
        ..
    } = settings;
    // More threads than cores only wait on each other's locks (and each
    // turn starts them anew): at most one a core.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = threads.clamp(1, cores);
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
    let mut goals = [mover, other].map(|attacker| Goal {
        attacker,
        keys,
        tables,
        store: Store::new(max_stored),
        by_history: HashSet::new(),
        nodes: 0,
        table_hits: 0,
        collections: 0,
        full: false,
    });
    if let Some(checkpoint) = &resumed {
        for (goal, settled) in goals.iter_mut().zip(&checkpoint.settled) {
            for &(key, proved) in settled {
                let numbers = if proved { (0, INFINITE) } else { (INFINITE, 0) };
                goal.store.insert(key, numbers);
            }
        }
        for (goal, kept) in goals.iter_mut().zip(&checkpoint.by_history) {
            goal.by_history.extend(kept.iter().copied());
        }
    }
    let save = |goals: &[Goal; 2]| -> Result<(), CheckpointError> {
        let Some(path) = checkpoint else {
            return Ok(());
        };
        Checkpoint {
            root: root_id,
            nodes: earlier + goals.iter().map(|g| g.nodes).sum::<u64>(),
            settled: [goals[0].store.settled(), goals[1].store.settled()],
            by_history: [0, 1].map(|g| {
                let mut kept: Vec<u64> = goals[g].by_history.iter().copied().collect();
                kept.sort_unstable();
                kept
            }),
        }
        .save(path)
    };
    let mut numbers = [(1, 1); 2];
    let mut settled: [Option<bool>; 2] = [None; 2];
    let spent = |goals: &[Goal; 2]| earlier + goals.iter().map(|g| g.nodes).sum::<u64>();
    let mut turn = 1024;
    let mut repairs = 0;
    'rounds: loop {
        for goal in 0..2 {
            if settled[goal].is_some() {
                continue;
            }
            let turn_end = goals[goal].nodes + turn;
            loop {
                let left = max_nodes.saturating_sub(spent(&goals));
                if left == 0 || stop.load(Ordering::Relaxed) || goals.iter().any(|g| g.full) {
                    break 'rounds;
                }
                let budget = turn_end.saturating_sub(goals[goal].nodes).min(left).max(1);
                watch
                    .other
                    .set((spent(&goals) - earlier, goals[1 - goal].store.len()));
                watch
                    .collections
                    .set(goals.iter().map(|g| g.collections).sum());
                let shared = Turn::new(budget, collecting, stop, threads);
                let root_decided = goals[goal].decided(position, root_stretch);
                let mut hits = u64::from(root_decided.is_some_and(|(_, table)| table.is_some()));
                numbers[goal] = match root_decided {
                    Some((true, _)) => (0, INFINITE),
                    Some((false, _)) => (INFINITE, 0),
                    None => {
                        let (found, met) = search_turn(
                            &goals[goal],
                            &shared,
                            &watch,
                            position,
                            root_stretch,
                            &line,
                            threads,
                        );
                        hits += met;
                        found
                    }
                };
                let searched = &mut goals[goal];
                searched.table_hits += hits;
                searched.nodes += shared.nodes.into_inner();
                searched.collections += shared.collections.into_inner();
                searched.full |= shared.full.into_inner();
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
                    let mut trace = Vec::new();
                    let mut quiet = |_: u32, _: Node<'_>| Ok(());
                    let walked = walk_traced(
                        searched, position, since, holds, &mut quiet, walk_limit, &mut trace,
                    );
                    if walked.is_err() && trace.is_empty() {
                        // Too large to walk in the memory given: the
                        // search ends at its memory bound.
                        searched.full = true;
                        settled[goal] = None;
                        break 'rounds;
                    }
                    if walked.is_err() {
                        for &(stored, _) in &trace {
                            searched.store.remove(stored);
                        }
                        if let Some(&(_, clocked)) = trace.first() {
                            searched.by_history.insert(clocked);
                        }
                        settled[goal] = None;
                        repairs += 1;
                        continue;
                    }
                }
                // A turn cut for the checkpoint goes on after it.
                if !shared.checkpoint_due.into_inner() {
                    break;
                }
                save(&goals)?;
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
    save(&goals)?;
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
        .map(|goal| proof_tree(&goals[goal], position, since));
    let certificate = certificate.map(|request| {
        // A win settles the goal proved; otherwise each goal settled.
        let claimed: Vec<usize> = match settled.iter().position(|&s| s == Some(true)) {
            Some(goal) => vec![goal],
            None => (0..2).filter(|&g| settled[g].is_some()).collect(),
        };
        if claimed.is_empty() {
            return Err(CertificateError::NothingSettled);
        }
        let letter = |seat: Seat| G::SEAT_LETTERS[seat as usize];
        let claims: Vec<Claim> = claimed
            .iter()
            .map(|&g| {
                let seat = letter(goals[g].attacker);
                if settled[g] == Some(true) {
                    Claim::Wins(seat)
                } else {
                    Claim::CannotWin(seat)
                }
            })
            .collect();
        certificate::write(&request, &claims, &mut |index, visit| {
            let goal = claimed[index];
            let holds = settled[goal] == Some(true);
            walk_proof(&goals[goal], position, since, holds, visit)
        })
    });
    Ok(ProofReport {
        value,
        nodes: spent(&goals),
        stored: goals.iter().map(|g| g.store.len()).sum(),
        table_hits: goals.iter().map(|g| g.table_hits).sum(),
        seconds: started.elapsed().as_secs_f64(),
        open,
        proof,
        memory_bound: goals.iter().any(|g| g.full).then_some(2 * max_stored),
        collections: goals.iter().map(|g| g.collections).sum(),
        resumed: resumed.map(|c| (c.settled.iter().map(Vec::len).sum(), c.nodes)),
        certificate,
        repairs,
    })
}

/// One turn of a goal on `threads` threads sharing its stored numbers:
/// the calling thread's search (which watches the clock and reports
/// progress) and helpers, until one of them settles the root or the turn
/// ends. The root's numbers (settled ones if a thread found them, else
/// the calling thread's) and the table leaves met.
fn search_turn<G: Game>(
    goal: &Goal,
    turn: &Turn,
    watch: &Watch,
    root: &G,
    stretch: Stretch,
    line: &HashMap<u64, u8>,
    threads: usize,
) -> ((u32, u32), u64) {
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| {
                let line = line.clone();
                scope.spawn(move || {
                    let mut helper = Search::<G>::new(goal, turn, None, line);
                    (helper.run(root, stretch), helper.table_hits)
                })
            })
            .collect();
        let mut main = Search::<G>::new(goal, turn, Some(watch), line.clone());
        let mut numbers = main.run(root, stretch);
        let mut hits = main.table_hits;
        // The calling thread is done: so is the turn.
        turn.done.store(true, Ordering::Relaxed);
        for helper in helpers {
            let (found, helper_hits) = helper.join().expect("a proof search thread");
            hits += helper_hits;
            if (found.0 == 0 || found.1 == 0) && numbers.0 != 0 && numbers.1 != 0 {
                numbers = found;
            }
        }
        (numbers, hits)
    })
}
