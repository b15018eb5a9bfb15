//! A proof search in named steps: the root and its repetition line, the
//! memory and thread budget, start or resume, the turns of the two goals
//! (with repairs under clock keys), and the certificate.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use menagerie_rules::game::{Game, Seat};

use super::search::{key, mix, Goal, Search, Stretch, Turn, INFINITE};
use super::store::Store;
use super::walk::{proof_tree, walk_proof, walk_traced, Failures};
use super::{
    Keys, ProofReport, ProofSettings, Proven, Walks, Watch, BYTES_PER_STORED, BYTES_PER_WALKED,
};
use crate::certificate::{self, CertificateError, CertificateRequest, Claim, Node};
use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::Tables;

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
    let root = Root::new(position, history, settings.keys);
    let budget = Budget::of(settings.memory_bytes, settings.keys, settings.threads);
    let resumed = match settings.checkpoint {
        // A checkpoint holds positions the search stored, and no more
        // than it may store: one larger is refused before it is read.
        Some(path) => Checkpoint::load(
            path,
            root.id,
            Checkpoint::most_bytes(budget.max_stored as u64),
        )?,
        None => None,
    };
    let ProofSettings {
        max_nodes,
        checkpoint,
        checkpoint_every,
        progress,
        certificate,
        keys,
        ..
    } = settings;
    let mut prover = Prover {
        goals: root.seats.map(|attacker| Goal {
            attacker,
            keys,
            tables,
            store: Store::new(budget.max_stored),
            by_history: Default::default(),
            nodes: 0,
            table_hits: 0,
            collections: 0,
            full: false,
        }),
        root,
        budget,
        keys,
        max_nodes,
        checkpoint,
        checkpoint_every,
        earlier: resumed.as_ref().map_or(0, |c| c.nodes),
        numbers: [(1, 1); 2],
        settled: [None; 2],
        repairs: 0,
        walks: Walks::default(),
    };
    if let Some(resumed) = &resumed {
        prover.resume(resumed);
    }
    let watch = Watch {
        started,
        earlier: prover.earlier,
        last_report: Cell::new(started),
        next_checkpoint: checkpoint.map(|_| Cell::new(started + checkpoint_every)),
        other: Cell::new((0, 0)),
        roots: Cell::new([(1, 1); 2]),
        collections: Cell::new(0),
        progress: RefCell::new(progress),
    };
    prover.take_turns(&watch, stop)?;
    prover.save()?;
    let certificate = certificate.map(|request| prover.certify(&request));
    Ok(prover.report(started, resumed, certificate))
}

/// The position proved, with what the repetition rule needs of its line.
struct Root<'a, G> {
    position: &'a G,
    /// The boards since the last capture: as many as the clock counts.
    since: &'a [u64],
    /// How often each board of `since` and the root itself was seen.
    line: HashMap<u64, u8>,
    stretch: Stretch,
    /// What a checkpoint must belong to.
    id: u64,
    /// The side to move, then the other.
    seats: [Seat; 2],
}

impl<'a, G: Game> Root<'a, G> {
    fn new(position: &'a G, history: &'a [u64], keys: Keys) -> Self {
        let mover = position.side();
        let other = position
            .seats()
            .iter()
            .copied()
            .find(|&s| s != mover)
            .unwrap_or(mover);
        let since = &history[history.len().saturating_sub(position.clock() as usize)..];
        let mut line: HashMap<u64, u8> = HashMap::new();
        for &h in since.iter().chain([position.hash()].iter()) {
            *line.entry(h).or_insert(0) += 1;
        }
        let stretch = Stretch {
            sum: since.iter().fold(0u64, |s, &h| s.wrapping_add(mix(h))),
            repeats: line[&position.hash()],
        };
        let id = mix(key(position, stretch) ^ mix(u64::from(stretch.repeats)))
            ^ mix(crc32fast::hash(format!("{position:?}").as_bytes()).into())
            ^ match keys {
                Keys::History => 0,
                Keys::Clock => mix(0x4b45_5953),
            };
        Root {
            position,
            since,
            line,
            stretch,
            id,
            seats: [mover, other],
        }
    }
}

/// What the search may hold and use.
struct Budget {
    /// A memory bound was given: at it, open positions are dropped.
    collecting: bool,
    /// Positions each goal may store.
    max_stored: usize,
    /// Positions a proof walk may visit before it counts.
    walk_limit: usize,
    threads: usize,
}

impl Budget {
    /// With no bound given, what the process may hold, checked before
    /// anything is stored; the two goals share it. With clock keys a
    /// quarter goes to walking a proof before it counts.
    fn of(memory_bytes: Option<u64>, keys: Keys, threads: usize) -> Budget {
        let bytes =
            memory_bytes.or_else(|| menagerie_os::memory::available_bytes().map(|b| b / 10 * 8));
        let (table_bytes, walk_limit) = match (keys, bytes) {
            (_, None) => (None, usize::MAX),
            (Keys::History, Some(bytes)) => (Some(bytes), usize::MAX),
            (Keys::Clock, Some(bytes)) => {
                (Some(bytes / 4 * 3), (bytes / 4 / BYTES_PER_WALKED) as usize)
            }
        };
        // More threads than cores only wait on each other's locks (and
        // each turn starts them anew): at most one a core.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Budget {
            collecting: memory_bytes.is_some(),
            max_stored: table_bytes
                .map_or(usize::MAX, |bytes| (bytes / BYTES_PER_STORED / 2) as usize),
            walk_limit,
            threads: threads.clamp(1, cores),
        }
    }
}

/// How one search of a goal ended.
enum Step {
    /// The turn is over for this goal.
    TurnOver,
    /// The turn goes on (after a checkpoint, or a repair).
    Again,
    /// The whole search ends: budget, stop, or memory.
    End,
}

struct Prover<'a, G> {
    root: Root<'a, G>,
    goals: [Goal<'a>; 2],
    budget: Budget,
    keys: Keys,
    max_nodes: u64,
    checkpoint: Option<&'a Path>,
    checkpoint_every: Duration,
    /// Nodes spent before this run (a resumed checkpoint's).
    earlier: u64,
    /// The last numbers at the root, per goal.
    numbers: [(u32, u32); 2],
    /// Each goal proved (`true`), disproved (`false`) or open.
    settled: [Option<bool>; 2],
    repairs: u32,
    walks: Walks,
}

/// Failures one walk of a proof under the full rules notes before the
/// search goes on: each walk costs the whole proof, so a walk that
/// stopped at its first failure made a proof with many of them cost
/// their number times its size (a draw of `leap=straight` spent 550 s
/// walking after its search had settled both goals in 18 s).
const REPAIRS_PER_WALK: usize = 1 << 12;

impl<G: Game> Prover<'_, G> {
    fn resume(&mut self, checkpoint: &Checkpoint) {
        for (goal, settled) in self.goals.iter_mut().zip(&checkpoint.settled) {
            for &(key, proved) in settled {
                let numbers = if proved { (0, INFINITE) } else { (INFINITE, 0) };
                goal.store.insert(key, numbers);
            }
        }
        for (goal, kept) in self.goals.iter_mut().zip(&checkpoint.by_history) {
            goal.by_history.extend(kept.iter().copied());
        }
    }

    fn spent(&self) -> u64 {
        self.earlier + self.goals.iter().map(|g| g.nodes).sum::<u64>()
    }

    fn save(&self) -> Result<(), CheckpointError> {
        let Some(path) = self.checkpoint else {
            return Ok(());
        };
        Checkpoint {
            root: self.root.id,
            nodes: self.spent(),
            settled: self.goals.each_ref().map(|g| g.store.settled()),
            by_history: self.goals.each_ref().map(|g| {
                let mut kept: Vec<u64> = g.by_history.iter().copied().collect();
                kept.sort_unstable();
                kept
            }),
        }
        .save(path)
    }

    /// The goals take turns of doubling budgets until a win settles both,
    /// both are settled, or the search must end.
    fn take_turns(&mut self, watch: &Watch, stop: &AtomicBool) -> Result<(), CheckpointError> {
        let mut turn = 1024;
        loop {
            for goal in 0..2 {
                if self.settled[goal].is_some() {
                    continue;
                }
                let turn_end = self.goals[goal].nodes + turn;
                loop {
                    match self.search(goal, turn_end, watch, stop)? {
                        Step::Again => continue,
                        Step::TurnOver => break,
                        Step::End => return Ok(()),
                    }
                }
            }
            if self.settled.contains(&Some(true)) || self.settled.iter().all(Option::is_some) {
                return Ok(());
            }
            turn = turn.saturating_mul(2);
        }
    }

    /// Searches `goal` until its turn ends at `turn_end` nodes, a
    /// checkpoint is due, or the root is settled.
    fn search(
        &mut self,
        goal: usize,
        turn_end: u64,
        watch: &Watch,
        stop: &AtomicBool,
    ) -> Result<Step, CheckpointError> {
        let left = self.max_nodes.saturating_sub(self.spent());
        if left == 0 || stop.load(Ordering::Relaxed) || self.goals.iter().any(|g| g.full) {
            return Ok(Step::End);
        }
        let budget = turn_end
            .saturating_sub(self.goals[goal].nodes)
            .min(left)
            .max(1);
        watch.other.set((
            self.spent() - self.earlier,
            self.goals[1 - goal].store.len(),
        ));
        watch
            .collections
            .set(self.goals.iter().map(|g| g.collections).sum());
        let shared = Turn::new(budget, self.budget.collecting, stop, self.budget.threads);
        let root = &self.root;
        let root_decided = self.goals[goal].decided(root.position, root.stretch);
        let mut hits = u64::from(root_decided.is_some_and(|(_, table)| table.is_some()));
        self.numbers[goal] = match root_decided {
            Some((true, _)) => (0, INFINITE),
            Some((false, _)) => (INFINITE, 0),
            None => {
                let (found, met) =
                    search_turn(&self.goals[goal], &shared, watch, root, self.budget.threads);
                hits += met;
                found
            }
        };
        let searched = &mut self.goals[goal];
        searched.table_hits += hits;
        searched.nodes += shared.nodes.into_inner();
        searched.collections += shared.collections.into_inner();
        searched.full |= shared.full.into_inner();
        let mut roots = watch.roots.get();
        roots[goal] = self.numbers[goal];
        watch.roots.set(roots);
        self.settled[goal] = match self.numbers[goal] {
            (0, _) => Some(true),
            (_, 0) => Some(false),
            _ => None,
        };
        if let (Keys::Clock, Some(holds)) = (self.keys, self.settled[goal]) {
            match self.walk_settled(goal, holds) {
                Walked::Holds => {}
                Walked::Repaired => return Ok(Step::Again),
                Walked::TooLarge => return Ok(Step::End),
            }
        }
        // A turn cut for the checkpoint goes on after it.
        if !shared.checkpoint_due.into_inner() {
            return Ok(Step::TurnOver);
        }
        self.save()?;
        if let Some(next) = &watch.next_checkpoint {
            next.set(Instant::now() + self.checkpoint_every);
        }
        Ok(if self.settled[goal].is_some() {
            Step::TurnOver
        } else {
            Step::Again
        })
    }

    /// With clock keys a number may hold on one line and not on another:
    /// a goal is settled only when its proof, walked under the full rules,
    /// holds. Where it does not, the position where it fails is kept by
    /// history from now on, the numbers on the way to it are dropped, and
    /// the search goes on.
    fn walk_settled(&mut self, goal: usize, holds: bool) -> Walked {
        let root = &self.root;
        let searched = &mut self.goals[goal];
        let started = Instant::now();
        let mut failures = Failures::up_to(REPAIRS_PER_WALK);
        let mut quiet = |_: u32, _: Node<'_>| Ok(());
        let walked = walk_traced(
            searched,
            root.position,
            root.since,
            holds,
            &mut quiet,
            self.budget.walk_limit,
            &mut failures,
        );
        self.walks.count += 1;
        self.walks.positions += failures.walked as u64;
        self.walks.seconds += started.elapsed().as_secs_f64();
        if walked.is_ok() {
            return Walked::Holds;
        }
        self.settled[goal] = None;
        if failures.too_large {
            // Too large to walk in the memory given: the search ends at
            // its memory bound.
            searched.full = true;
            self.walks.too_large = Some(failures.walked);
            return Walked::TooLarge;
        }
        for trace in &failures.traces {
            for &(stored, _) in trace {
                searched.store.remove(stored);
            }
            if let Some(&(_, clocked)) = trace.first() {
                searched.by_history.insert(clocked);
            }
        }
        self.repairs += failures.traces.len() as u32;
        Walked::Repaired
    }

    fn value(&self) -> Proven {
        match self.settled {
            [Some(true), _] => Proven::Win,
            [_, Some(true)] => Proven::Loss,
            [Some(false), Some(false)] => Proven::Draw,
            [None, Some(false)] => Proven::AtLeastDraw,
            [Some(false), None] => Proven::AtMostDraw,
            _ => Proven::Unknown,
        }
    }

    /// Writes the proof of what was settled: a win settles the goal
    /// proved; otherwise each goal settled is claimed.
    fn certify(
        &self,
        request: &CertificateRequest<'_>,
    ) -> Result<certificate::Written, CertificateError> {
        let claimed: Vec<usize> = match self.settled.iter().position(|&s| s == Some(true)) {
            Some(goal) => vec![goal],
            None => (0..2).filter(|&g| self.settled[g].is_some()).collect(),
        };
        if claimed.is_empty() {
            return Err(CertificateError::NothingSettled);
        }
        let claims: Vec<Claim> = claimed
            .iter()
            .map(|&g| {
                let seat = G::SEAT_LETTERS[self.goals[g].attacker as usize];
                if self.settled[g] == Some(true) {
                    Claim::Wins(seat)
                } else {
                    Claim::CannotWin(seat)
                }
            })
            .collect();
        certificate::write(request, &claims, &mut |index, visit| {
            let goal = claimed[index];
            let holds = self.settled[goal] == Some(true);
            walk_proof(
                &self.goals[goal],
                self.root.position,
                self.root.since,
                holds,
                visit,
            )
        })
    }

    fn report(
        &self,
        started: Instant,
        resumed: Option<Checkpoint>,
        certificate: Option<Result<certificate::Written, CertificateError>>,
    ) -> ProofReport {
        let open = [0, 1].map(|g| {
            if self.settled[g].is_some() {
                (0, 0)
            } else {
                self.numbers[g]
            }
        });
        let proof = self
            .settled
            .iter()
            .position(|&s| s == Some(true))
            .map(|goal| proof_tree(&self.goals[goal], self.root.position, self.root.since));
        ProofReport {
            value: self.value(),
            nodes: self.spent(),
            stored: self.goals.iter().map(|g| g.store.len()).sum(),
            table_hits: self.goals.iter().map(|g| g.table_hits).sum(),
            seconds: started.elapsed().as_secs_f64(),
            open,
            proof,
            memory_bound: self
                .goals
                .iter()
                .any(|g| g.full)
                .then_some(2 * self.budget.max_stored),
            collections: self.goals.iter().map(|g| g.collections).sum(),
            resumed: resumed.map(|c| (c.settled.iter().map(Vec::len).sum(), c.nodes)),
            certificate,
            repairs: self.repairs,
            walks: self.walks,
        }
    }
}

/// What walking a settled goal's proof under the full rules found.
enum Walked {
    Holds,
    /// It failed at a position now kept by history: search again.
    Repaired,
    /// Too large to walk in the memory given.
    TooLarge,
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
    root: &Root<'_, G>,
    threads: usize,
) -> ((u32, u32), u64) {
    let (position, stretch, line) = (root.position, root.stretch, &root.line);
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| {
                let line = line.clone();
                scope.spawn(move || {
                    let mut helper = Search::<G>::new(goal, turn, None, line);
                    (helper.run(position, stretch), helper.table_hits)
                })
            })
            .collect();
        let mut main = Search::<G>::new(goal, turn, Some(watch), line.clone());
        let mut numbers = main.run(position, stretch);
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
