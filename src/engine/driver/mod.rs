//! The engine loop: input lines become typed commands, executed in order,
//! answered with typed replies.
//!
//! Three threads: one reads input ([`input`]), one runs everything that may
//! take long ([`worker`]: searches, perft, bench, solving, setting up a new
//! game), and this one dispatches. It never waits for the worker, so every
//! line is looked at the moment it is read, and what a line does while the
//! worker is busy depends on its [`Class`]:
//! - control lines act at once, whatever runs or waits: `stop` stops the
//!   running work and every piece of long work that arrived before it and
//!   still waits (which then starts already stopped, and answers as after
//!   `stop`); `quit` does the same, and every command before it is still
//!   answered, so a pipeline `newgame ...` / `go depth 4` / `quit` prints
//!   its `bestmove`, as Stockfish does;
//! - `isready` is UCI's barrier: while a search or other long work runs
//!   and has not been told to stop, it is answered at once without
//!   stopping it (UCI: "immediately ... without stopping the search");
//!   otherwise `readyok` comes once every line before it has been
//!   answered: a new game's set-up, `position` with its game-over line,
//!   queries, and the `bestmove` of a search that `stop` ended;
//! - read-only lines (`d`, `legal`, `query`, ...) are answered at once
//!   about the current position (the one a running search started from),
//!   unless a state command waits before them: then they keep their place
//!   after it;
//! - state commands wait their turn, so a pipeline like `go depth 4` /
//!   `move ...` / `go depth 4` behaves as written.
//!
//! Lines waiting for their turn are bounded ([`input::MAX_WAITING_LINES`]
//! and [`input::MAX_WAITING_BYTES`]); a line past the bound is refused
//! with an error naming it, and reading goes on, so a flood never keeps a
//! control line from being read.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::time::Duration;

use crate::channel::Event;
pub(crate) use crate::error::EngineError;
use crate::input::{self, EVENTS_IN_FLIGHT, MAX_WAITING_BYTES, MAX_WAITING_LINES};
use crate::options::{self, HASH, MOVE_OVERHEAD};
use crate::output::Output;
use crate::session::{EngineSession, Entry, Searching};
use crate::task::Catalogue;
use crate::worker::{self, Job};
use menagerie_nnue::Network;
use menagerie_rules::catalogue::Standard;
use menagerie_rules::game::Ruleset;
use menagerie_rules::rng::Rng;
use menagerie_search::{Settings, Shared};
use menagerie_wire::command::{parse_line, Class, Command, ParseError};
use menagerie_wire::reply::Reply;

mod commands;
mod settings;

pub const NAME: &str = "menagerie";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const AUTHOR: &str = "the menagerie developers";

/// How long the engine, told to quit, waits for stopped work to answer
/// before it exits anyway. Stopped work answers in milliseconds; only a
/// bug could make it take this long.
pub const QUIT_GRACE: Duration = Duration::from_secs(5);

/// Stack of the worker thread.
const WORKER_STACK: usize = 64 << 20;

/// Exit status when a command failed in a run that stops at the first
/// failure (arguments, or `--strict`).
pub const EXIT_FAILED: i32 = 1;
/// Exit status when such a run stopped at a request refused as more than
/// the machine can hold (memory, disk): asking again will not help.
pub const EXIT_REFUSED: i32 = 2;
/// Exit status after a bug the engine survived (a panic in a search).
pub const EXIT_BUG: i32 = 101;

/// Where protocol lines come from.
pub enum Input {
    Stdin,
    /// Lines given on the command line, run in order before exiting.
    Lines(Vec<String>),
}

/// How a run treats failures.
#[derive(Clone, Copy, Default)]
pub struct RunOptions {
    /// Stop at the first command answered with an error, with exit status
    /// [`EXIT_FAILED`].
    pub fail_fast: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// What the worker is doing, as far as the input loop cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Busy {
    /// A search; `unbounded` ones end only with `stop`.
    Search { unbounded: bool },
    /// perft, bench, solve, tables, selfplay, dataset: `isready` is
    /// answered meanwhile.
    Work,
    /// Setting up a new game: `isready` waits for it, as for any state
    /// command.
    Setup,
}

struct Running {
    busy: Busy,
    /// Hears whether the job hit a bug.
    done: Receiver<bool>,
}

/// A line, parsed: a command, or the error it gets in its turn.
type Pending = Result<Command, Reply>;

/// When a parsed line takes effect: a line that is no command keeps its
/// place, so that its error comes in the order of the input.
fn class_of(parsed: &Pending) -> Class {
    match parsed {
        Ok(command) => command.class(),
        Err(_) => Class::State,
    }
}

/// A line waiting for its turn: its place in the input and its size.
struct Waiting {
    parsed: Pending,
    seq: u64,
    bytes: usize,
    /// How many `isready` lines in a row this entry stands for: past the
    /// bound they are counted, not refused (each gets its `readyok`).
    repeat: u64,
}

/// The engine loop's state, over the games of catalogue `C`.
struct Engine<C: Catalogue> {
    /// The games the engine knows, the default first, with the search
    /// attached.
    games: &'static [Entry],
    catalogue: PhantomData<C>,
    out: Output,
    session: Box<dyn EngineSession>,
    shared: Arc<Shared>,
    /// The one stop signal of every job.
    stop: Arc<AtomicBool>,
    settings: Settings,
    /// Network files chosen by `EvalFile`, by game; the others use their
    /// built-in network.
    networks: HashMap<&'static str, Arc<Network>>,
    /// Whether searches use the learned evaluation (`UseNetwork`).
    use_network: bool,
    move_overhead_ms: u64,
    /// The ruleset words of each game, as `UCI_Variant` and the
    /// `<game>.<key>` options (or the last `newgame`) chose them.
    rules: HashMap<&'static str, Ruleset>,
    /// A UGI session (`ugi`): options and games as UGI sees them.
    ugi: bool,
    jobs: Sender<(Job, Sender<bool>)>,
    running: Option<Running>,
    /// The notation (`None`: the start) the current position was set from
    /// by `position` or `newgame`, so a `position` that only adds moves to
    /// the last one plays just the new moves.
    base: Option<Option<String>>,
    /// Lines waiting for their turn, bounded in lines and bytes.
    pending: VecDeque<Waiting>,
    /// Bytes of the lines in `pending`.
    pending_bytes: usize,
    /// The place in the input of the line read last.
    seq: u64,
    /// The place of the line being carried out.
    current: u64,
    /// The place of the last `stop`: long work from before it starts
    /// already stopped.
    stopped_before: u64,
    input_closed: bool,
    /// `quit` has arrived: the commands before it are still answered,
    /// their long work stopped at once; nothing after it is read.
    quitting: bool,
    options: RunOptions,
    /// A job hit a bug, reported through the exit status.
    bug: bool,
    /// Draws the chance outcomes of `roll`; seeded by `Seed`.
    chance: Rng,
}

/// Runs the protocol until `quit` or the end of input, over the games of
/// this build; returns the exit status: 0, or [`EXIT_BUG`] after a bug (a
/// panic the engine survived).
pub fn run(input: Input, out: Output) -> i32 {
    run_with::<Standard>(input, out, RunOptions::default())
}

/// [`run`] over the games of catalogue `C`, stopping at the first failed
/// command if `options` say so.
pub fn run_with<C: Catalogue>(input: Input, out: Output, options: RunOptions) -> i32 {
    let (events, inbox) = sync_channel(EVENTS_IN_FLIGHT);
    {
        let events = events.clone();
        std::thread::spawn(move || match input {
            Input::Stdin => input::read_lines(std::io::stdin().lock(), &events),
            Input::Lines(lines) => input::send_lines(lines, &events),
        });
    }
    let mut engine = Engine::<C>::new(out, events, options);
    loop {
        let event = if engine.quitting && engine.running.is_some() {
            match inbox.recv_timeout(QUIT_GRACE) {
                Ok(event) => event,
                Err(_) => {
                    log::error!("quit: the stopped work did not answer in time");
                    break;
                }
            }
        } else {
            match inbox.recv() {
                Ok(event) => event,
                Err(_) => break,
            }
        };
        let bytes = event.held_bytes();
        let flow = match event {
            Event::Line(line) => engine.on_line(&line, bytes),
            Event::TooLong {
                bytes: length,
                first_word,
            } => {
                // Not kept, so not logged whole: what it was.
                log::debug!(
                    "in: a line of {length} bytes starting '{first_word}' (over the limit)"
                );
                engine.on_parsed(
                    Err(Reply::error(
                        menagerie_wire::text::clip(&first_word),
                        EngineError::LineTooLong(length),
                    )),
                    bytes,
                )
            }
            Event::NotUtf8 {
                bytes: length,
                first_word,
            } => engine.on_parsed(
                Err(Reply::error(
                    menagerie_wire::text::clip(&first_word),
                    EngineError::NotUtf8(length),
                )),
                bytes,
            ),
            Event::Eof => engine.on_eof(),
            Event::JobDone => engine.on_job_done(),
        };
        if flow == Flow::Quit || engine.must_stop() {
            break;
        }
    }
    engine.quit()
}

impl<C: Catalogue> Engine<C> {
    fn new(out: Output, events: SyncSender<Event>, options: RunOptions) -> Engine<C> {
        // Made once for the process's run, kept as long as it.
        let games: &'static [Entry] = Vec::leak(C::games::<Searching>());
        let (jobs, inbox) = channel();
        let worker_out = out.clone();
        std::thread::Builder::new()
            .name("worker".into())
            // Perft recurses once per ply (up to perft::MAX_DEPTH plies,
            // twice that with dice); only the stack it touches is used.
            .stack_size(WORKER_STACK)
            .spawn(move || worker::run(inbox, worker_out, events))
            .expect("a thread for the worker");
        let stop = Arc::new(AtomicBool::new(false));
        Engine {
            games,
            catalogue: PhantomData,
            jobs,
            base: Some(None),
            out,
            session: games[0]
                .session::<&str>(&[])
                .expect("the default ruleset is valid"),
            shared: Arc::new(
                Shared::try_with_stop(HASH.default as usize, Arc::clone(&stop))
                    .expect("the default table fits"),
            ),
            stop,
            settings: options::default_settings(),
            networks: HashMap::new(),
            use_network: true,
            move_overhead_ms: MOVE_OVERHEAD.default,
            rules: HashMap::new(),
            ugi: false,
            running: None,
            pending: VecDeque::new(),
            pending_bytes: 0,
            seq: 0,
            current: 0,
            stopped_before: 0,
            input_closed: false,
            quitting: false,
            options,
            bug: false,
            chance: Rng::new(options::SEED.default),
        }
    }

    fn reply(&mut self, reply: Reply) {
        self.out.reply(&reply);
    }

    fn error(&mut self, command: &str, message: impl fmt::Display) {
        self.reply(Reply::error(command, message));
    }

    /// Whether a fail-fast run has met its failure.
    fn must_stop(&self) -> bool {
        self.options.fail_fast && self.out.errors() > 0
    }

    fn on_line(&mut self, line: &str, bytes: usize) -> Flow {
        let line = line.trim_end_matches(['\n', '\r']);
        log::debug!("in: {line}");
        match parse_line(line) {
            Ok(None) => Flow::Continue,
            Ok(Some(command)) => self.on_parsed(Ok(command), bytes),
            Err(e) => self.on_parsed(Err(parse_error(&e)), bytes),
        }
    }

    /// A line has been read: acts on it now, or queues it for its turn.
    fn on_parsed(&mut self, parsed: Pending, bytes: usize) -> Flow {
        if self.quitting {
            // Past `quit`: not read, as if never sent.
            return Flow::Continue;
        }
        self.seq += 1;
        let seq = self.seq;
        let idle = self.running.is_none() && self.pending.is_empty();
        match class_of(&parsed) {
            Class::Control => self.control(&parsed, seq),
            Class::Sync if idle || self.computing() => self.handle(parsed, seq),
            Class::ReadOnly if self.pending.is_empty() => self.handle(parsed, seq),
            Class::State if idle => self.handle(parsed, seq),
            Class::Sync | Class::ReadOnly | Class::State => {
                self.queue(Waiting {
                    parsed,
                    seq,
                    bytes,
                    repeat: 1,
                });
                Flow::Continue
            }
        }
    }

    /// Whether long work runs that `isready` answers beside: a search,
    /// `perft`, `bench`, `solve`, ... that nothing has told to stop. Work
    /// told to stop answers in milliseconds, and `isready` waits for its
    /// last line, so that `stop` then `isready` is a barrier a GUI or a
    /// referee can rely on.
    fn computing(&self) -> bool {
        let long_work = matches!(
            self.running.as_ref().map(|r| r.busy),
            Some(Busy::Search { .. } | Busy::Work)
        );
        long_work && !self.stop.load(Ordering::Relaxed)
    }

    /// `stop` and `quit`, which act the moment they are read.
    fn control(&mut self, parsed: &Pending, seq: u64) -> Flow {
        match parsed {
            Ok(Command::Stop) => {
                self.stopped_before = seq;
                self.stop.store(true, Ordering::Relaxed);
            }
            Ok(Command::Quit) if self.running.is_none() && self.pending.is_empty() => {
                return Flow::Quit
            }
            Ok(Command::Quit) => self.begin_quit(),
            _ => unreachable!("only control commands are of class Control"),
        }
        Flow::Continue
    }

    /// Keeps a line for its turn, or refuses it by name when the lines
    /// already waiting are at their bound (a refused `go` still gets its
    /// `bestmove (none)`).
    fn queue(&mut self, waiting: Waiting) {
        let full = self.pending.len() >= MAX_WAITING_LINES
            || (!self.pending.is_empty() && self.pending_bytes + waiting.bytes > MAX_WAITING_BYTES);
        if full && matches!(waiting.parsed, Ok(Command::IsReady)) {
            // Never refused: counted on an `isready` already at the back,
            // so that a flood of them still takes one entry.
            match self.pending.back_mut() {
                Some(back) if matches!(back.parsed, Ok(Command::IsReady)) => back.repeat += 1,
                _ => {
                    self.pending_bytes += waiting.bytes;
                    self.pending.push_back(waiting);
                }
            }
            return;
        }
        if !full {
            self.pending_bytes += waiting.bytes;
            self.pending.push_back(waiting);
            return;
        }
        let refused = match waiting.parsed {
            Ok(command) => Reply::error(command.name(), EngineError::QueueFull),
            Err(error) => error,
        };
        // One block: a search running beside may not print between them.
        let go = matches!(&refused, Reply::Error { command, .. } if command == "go");
        if go {
            self.out.replies(&[refused, Reply::BestMove(None)]);
        } else {
            self.reply(refused);
        }
    }

    /// `quit` while work runs or waits: the running work stops now (and
    /// answers as after `stop`); what waits before `quit` is still
    /// answered, its long work started already stopped.
    fn begin_quit(&mut self) {
        self.quitting = true;
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Carries out the line at place `seq` in the input.
    fn handle(&mut self, parsed: Pending, seq: u64) -> Flow {
        self.current = seq;
        match parsed {
            Ok(command) => self.execute(command),
            Err(error) => {
                // Every `go` gets its `bestmove`, a malformed one too.
                let go = matches!(&error, Reply::Error { command, .. } if command == "go");
                if go {
                    self.out.replies(&[error, Reply::BestMove(None)]);
                } else {
                    self.reply(error);
                }
                Flow::Continue
            }
        }
    }

    fn on_eof(&mut self) -> Flow {
        self.input_closed = true;
        match self.running.as_ref().map(|r| r.busy) {
            // Nothing could ever send `stop` now.
            Some(Busy::Search { unbounded: true }) => {
                self.stop.store(true, Ordering::Relaxed);
                Flow::Continue
            }
            Some(_) => Flow::Continue,
            None => Flow::Quit,
        }
    }

    /// The worker has finished: run what waited, in order, until a command
    /// starts new work; read-only lines at the head of the queue are then
    /// answered at once, as if they had just arrived.
    fn on_job_done(&mut self) -> Flow {
        self.collect_job(None);
        while let Some(front) = self.pending.front() {
            if self.must_stop() {
                return Flow::Quit;
            }
            let goes_now = match class_of(&front.parsed) {
                Class::ReadOnly => true,
                Class::Sync => self.computing(),
                Class::Control | Class::State => false,
            };
            if self.running.is_some() && !goes_now {
                return Flow::Continue;
            }
            let waiting = self.pending.pop_front().expect("the front exists");
            self.pending_bytes -= waiting.bytes;
            for _ in 1..waiting.repeat {
                self.reply(Reply::ReadyOk);
            }
            if self.handle(waiting.parsed, waiting.seq) == Flow::Quit {
                return Flow::Quit;
            }
        }
        if self.running.is_none() && (self.input_closed || self.quitting) {
            return Flow::Quit;
        }
        Flow::Continue
    }

    /// Takes the worker's word that the job is over, waiting at most
    /// `wait` (forever if `None`); false if it did not come in time.
    fn collect_job(&mut self, wait: Option<Duration>) -> bool {
        let Some(running) = self.running.take() else {
            return true;
        };
        let bug = match wait {
            None => running
                .done
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
            Some(wait) => running.done.recv_timeout(wait),
        };
        match bug {
            Ok(bug) => {
                self.bug |= bug;
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => {
                self.bug = true;
                true
            }
        }
    }

    /// Ends the engine: stops running work (only a failed run of
    /// `--strict` or arguments, or a stuck job, leaves any) and gives it
    /// a moment to answer; returns the exit status.
    fn quit(&mut self) -> i32 {
        self.stop.store(true, Ordering::Relaxed);
        // Stopped work answers in milliseconds (a search its `bestmove`).
        if !self.collect_job(Some(QUIT_GRACE)) {
            log::error!("quit: the stopped work did not answer in time");
        }
        if self.bug {
            log::error!("the engine hit a bug (a panic it survived)");
            EXIT_BUG
        } else if self.must_stop() && self.out.refusals() > 0 {
            EXIT_REFUSED
        } else if self.must_stop() {
            EXIT_FAILED
        } else {
            0
        }
    }

    /// Hands a job to the worker.
    fn start(&mut self, job: Job, busy: Busy) {
        let (done, finished) = channel();
        if self.jobs.send((job, done)).is_err() {
            // The worker is gone, which only a bug can cause.
            self.bug = true;
            if matches!(busy, Busy::Search { .. }) {
                self.reply(Reply::BestMove(None));
            }
            return;
        }
        self.running = Some(Running {
            busy,
            done: finished,
        });
    }

    /// A fresh stop signal for new work: work that arrived before the
    /// last `stop`, or before `quit`, starts stopped; `stop` sent before a
    /// command does not touch it.
    fn arm_stop(&self, stopped: bool) {
        let stopped = stopped || self.quitting || self.current < self.stopped_before;
        self.stop.store(stopped, Ordering::Relaxed);
    }
}

/// A line that is not a command, as the engine answers it.
fn parse_error(e: &ParseError) -> Reply {
    e.reply()
}
