//! The search's vocabulary: scores, what a search reports and returns,
//! its settings, the state it shares between searches, the budget every
//! algorithm spends, and the helper threads. Every algorithm speaks it;
//! it names no algorithm.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Seat};

pub use crate::time::Limits;
use crate::tt;
pub use crate::value::Evaluation;
pub use menagerie_nnue::Network;

/// Scores inside the search: centipawn-like, with wins near `WIN`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this magnitude are forced wins or losses at a known distance.
pub const DECIDED: i32 = WIN - 10_000;
pub const MAX_PLY: usize = 128;

/// A score as the protocol reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// The side to move wins with its N-th move from here.
    Win(u32),
    /// The side to move loses after N moves of its own.
    Loss(u32),
}

impl Score {
    /// Converts an internal two-seat score (side to move's view).
    pub fn from_internal(score: i32) -> Score {
        if score >= DECIDED {
            Score::Win((WIN - score + 1) as u32 / 2)
        } else if score <= -DECIDED {
            Score::Loss((WIN + score) as u32 / 2)
        } else {
            Score::Cp(score)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Win(n) => write!(f, "win {n}"),
            Score::Loss(n) => write!(f, "loss {n}"),
        }
    }
}

/// One `info` line's worth of progress.
#[derive(Clone)]
pub struct Info<'a> {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    /// The principal variation, moves of the game printed only by the
    /// reporter.
    pub pv: Vec<&'a dyn fmt::Display>,
}

/// `moves` as a principal variation.
pub fn line<M: fmt::Display>(moves: &[M]) -> Vec<&dyn fmt::Display> {
    moves.iter().map(|m| m as &dyn fmt::Display).collect()
}

impl Info<'_> {
    pub fn nps(&self) -> u64 {
        self.nodes * 1000 / self.time_ms.max(1)
    }
}

/// Where a search sends its progress; implemented by the protocol layer.
pub trait Reporter {
    fn info(&mut self, info: &Info);
    /// A free-form remark (`info string ...`).
    fn text(&mut self, text: &str);
}

/// A reporter that drops everything (bench, tests, referee helpers).
pub struct Silent;

impl Reporter for Silent {
    fn info(&mut self, _: &Info) {}
    fn text(&mut self, _: &str) {}
}

/// What a finished search returns.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    pub best: Option<M>,
    pub score: Score,
    pub nodes: u64,
}

impl<M> SearchResult<M> {
    /// No move: nothing to choose at the root.
    pub fn none() -> SearchResult<M> {
        SearchResult {
            best: None,
            score: Score::Cp(0),
            nodes: 0,
        }
    }
}

/// Whether a search has nothing to choose: no legal move, or a roll to come.
fn nothing_to_choose<G: Game>(session: &Session<G>) -> bool {
    let mut moves = Vec::new();
    session.legal(&mut moves);
    moves.is_empty() || session.position().is_chance()
}

/// State that outlives one search: the table and the stop signal.
pub struct Shared {
    pub tt: tt::Table,
    /// Set to end the search; the engine shares it with its other long
    /// work (perft, bench), so one `stop` reaches whatever runs.
    pub stop: Arc<AtomicBool>,
}

impl Shared {
    /// A table of `hash_mib` MiB with a stop signal of its own.
    ///
    /// # Panics
    /// When the table cannot be had; [`Shared::try_with_stop`] says why instead.
    pub fn new(hash_mib: usize) -> Shared {
        Shared::try_with_stop(hash_mib, Arc::new(AtomicBool::new(false)))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of `hash_mib` MiB answering to `stop`, or why the machine
    /// cannot give it.
    pub fn try_with_stop(hash_mib: usize, stop: Arc<AtomicBool>) -> Result<Shared, tt::TableError> {
        Ok(Shared {
            tt: tt::Table::try_new(hash_mib)?,
            stop,
        })
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Engine settings that shape the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub threads: usize,
    /// 0 (random) to 20 (full strength), see [`skill`].
    pub skill: u8,
    /// Seeds the randomness of the weaker skill levels.
    pub seed: u64,
    /// Whether the search plays from exact knowledge (a solved game's
    /// table, endgame tables) where it has it.
    pub exact: bool,
    /// How a search over more than two seats models the other seats.
    pub multi_seat: MultiSeat,
    /// The learned evaluation of the game searched, if it has one and it
    /// is chosen; `None`: the hand-written one ([`Game::evaluate`]).
    /// The engine sets it for the game and ruleset in play.
    pub network: Option<Arc<Network>>,
    /// The folder of endgame tables (the engine's `TablePath`).
    pub tables: std::path::PathBuf,
}

/// How a search over more than two seats models the seats other than the
/// root's; with two seats every method is expectiminimax, and the search
/// is the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MultiSeat {
    /// Every other seat plays against the root, in turn order.
    Paranoid,
    /// Best-Reply Search: after each root move the one opponent whose best
    /// reply hurts the root most replies, the others pass, and the root
    /// moves again; the root sees its next turn at depth 3 however many
    /// seats play.
    BestReply,
    /// BRS+: as Best-Reply Search, but the opponents that do not reply
    /// play their greedy move on a roll drawn from the position, in turn
    /// order, so that the board stays one the rules can reach.
    BestReplyPlus,
    /// max^n: every seat maximises its own value, a vector of every
    /// seat's evaluation; no pruning but the move filter.
    MaxN,
    /// Monte Carlo tree search with max^n backups and greedy playouts.
    Mcts,
    /// PUCT tree search with every seat's chance from the evaluation (the
    /// network where there is one), max^n backups and the dice's
    /// expectation; no playouts.
    Puct,
    /// PUCT with Gumbel's root (Danihelka et al. 2022), played without its
    /// draws: the root searches the 16 moves the priors rank first, shares
    /// a node limit out by sequential halving, and plays the best of the
    /// most visited by prior and value.
    Gumbel,
    /// An opponent model: every other seat plays the greedy player's move
    /// (Skill 1 under the same `Seed`), and the search is an expectimax
    /// over the dice and the root's moves alone. Exact against greedy
    /// players; a measure of what knowing the opponents is worth.
    Greedy,
}

impl MultiSeat {
    pub const ALL: [MultiSeat; 8] = [
        MultiSeat::Paranoid,
        MultiSeat::BestReply,
        MultiSeat::BestReplyPlus,
        MultiSeat::MaxN,
        MultiSeat::Mcts,
        MultiSeat::Puct,
        MultiSeat::Gumbel,
        MultiSeat::Greedy,
    ];

    /// The option value that names the method.
    pub fn name(self) -> &'static str {
        match self {
            MultiSeat::Paranoid => "paranoid",
            MultiSeat::BestReply => "brs",
            MultiSeat::BestReplyPlus => "brs-plus",
            MultiSeat::MaxN => "maxn",
            MultiSeat::Mcts => "mcts",
            MultiSeat::Puct => "puct",
            MultiSeat::Gumbel => "gumbel",
            MultiSeat::Greedy => "greedy",
        }
    }

    pub fn from_name(name: &str) -> Option<MultiSeat> {
        MultiSeat::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            threads: 1,
            skill: FULL_STRENGTH,
            seed: 0,
            exact: true,
            // Measured best at 3 and 4 seats (tools/multiseat-study.md).
            multi_seat: MultiSeat::BestReply,
            network: None,
            tables: menagerie_tables::probe::default_directory(),
        }
    }
}

/// Counts nodes and watches the clock and the stop signal for one search.
pub struct Watch<'a> {
    pub shared: &'a Shared,
    pub limits: &'a Limits,
    pub start: Instant,
    /// Nodes of all threads.
    pub nodes: &'a AtomicU64,
}

impl<'a> Watch<'a> {
    /// A budget for one thread of weakened play, which may be stopped at
    /// any time: it always has a shallower answer to fall back on.
    pub fn stoppable_budget(&'a self, done: &'a AtomicBool) -> Budget<'a> {
        let mut budget = Budget::new(0, self, done);
        budget.may_abort = true;
        budget
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// True when the search must stop now.
    pub fn must_stop(&self) -> bool {
        if self.shared.stopped() {
            return true;
        }
        if let Some(max) = self.limits.nodes {
            if self.nodes.load(Ordering::Relaxed) >= max {
                return true;
            }
        }
        match self.limits.hard_ms {
            Some(hard) => self.elapsed_ms() >= hard,
            None => false,
        }
    }
}

/// Nodes between looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 1024;

/// Node counting and stop checks of one search thread.
pub struct Budget<'a> {
    pub id: usize,
    pub watch: &'a Watch<'a>,
    /// Set by the main thread when it has finished: helpers stop too.
    done: &'a AtomicBool,
    /// Nodes not yet added to the shared count (`flush` adds them).
    unflushed: u64,
    /// Nodes since the last look at the limits, kept apart from
    /// `unflushed`: a report flushes the count, and if that also reset the
    /// looks, short iterations would never look at all.
    since_check: u64,
    /// Set when the thread must unwind.
    pub aborted: bool,
    /// The main thread may only abort once an iteration has given a move.
    pub may_abort: bool,
}

impl<'a> Budget<'a> {
    pub fn new(id: usize, watch: &'a Watch<'a>, done: &'a AtomicBool) -> Budget<'a> {
        Budget {
            id,
            watch,
            done,
            unflushed: 0,
            since_check: 0,
            aborted: false,
            may_abort: id > 0,
        }
    }

    pub fn flush(&mut self) {
        self.watch
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// Counts a node; true when the search must unwind.
    pub fn tick(&mut self) -> bool {
        self.unflushed += 1;
        self.since_check += 1;
        if self.since_check >= CHECK_EVERY {
            self.since_check = 0;
            self.flush();
            let stop = self.watch.must_stop() || (self.id > 0 && self.done.load(Ordering::Relaxed));
            if stop && self.may_abort {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// Whether this thread should start no new iteration.
    pub fn finished(&self) -> bool {
        self.aborted || self.done.load(Ordering::Relaxed)
    }

    /// Whether a limit (nodes, the hard clock, `stop`) is reached now,
    /// with this thread's nodes counted: looked at between iterations,
    /// so that `nodes=1` ends after the first one.
    pub fn limit_reached(&mut self) -> bool {
        self.flush();
        self.watch.must_stop()
    }
}

/// The entry every searching algorithm shares: a position with no move
/// to choose (none legal, or a roll awaited) gets no search; otherwise
/// `search` runs on Lazy SMP threads, the main one reporting.
pub(crate) fn threads<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
    search: impl Fn(Budget<'_>, Option<&mut dyn Reporter>) -> SearchResult<G::Move> + Sync,
) -> SearchResult<G::Move> {
    if nothing_to_choose(session) {
        return SearchResult::none();
    }
    lazy_smp(limits, shared, settings, reporter, search)
}

/// Lazy SMP: `settings.threads` threads run `search` on the same tree,
/// meeting through the shared table; the main thread reports, and its
/// result is the search's. `search` builds and runs one thread's worker.
fn lazy_smp<M: Send>(
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
    search: impl Fn(Budget<'_>, Option<&mut dyn Reporter>) -> SearchResult<M> + Sync,
) -> SearchResult<M> {
    let nodes = AtomicU64::new(0);
    let watch = Watch {
        shared,
        limits,
        start: Instant::now(),
        nodes: &nodes,
    };
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        for id in 1..settings.threads.max(1) {
            let (watch, done, search) = (&watch, &done, &search);
            scope.spawn(move || {
                yield_to_the_main_threads();
                search(Budget::new(id, watch, done), None)
            });
        }
        let result = search(Budget::new(0, &watch, &done), Some(reporter));
        done.store(true, Ordering::Relaxed);
        result
    });
    SearchResult {
        nodes: nodes.load(Ordering::Relaxed),
        ..result
    }
}

/// Lowers the calling helper thread's priority a little, so that with more
/// search threads than cores the threads that answer `isready`, `stop`
/// and the clock (input, main search) still get a core at once.
fn yield_to_the_main_threads() {
    menagerie_os::priority::lower_this_thread(5);
}

/// The `Skill` at which the engine plays its best (lower levels play
/// weaker on purpose).
pub const FULL_STRENGTH: u8 = 20;

/// A root move with its score for the noise (engine units) and as reported.
pub type Scored<M> = (M, i32, Score);

/// Score of an outcome for `seat`, `ply` moves from the root (two seats).
pub fn outcome_score(outcome: Outcome, seat: Seat, ply: usize) -> i32 {
    match outcome {
        Outcome::Draw => 0,
        Outcome::Win(w) if w == seat => WIN - ply as i32,
        Outcome::Win(_) => -(WIN - ply as i32),
    }
}
