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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::time::Duration;

use crate::answers;
use crate::channel::Event;
pub(crate) use crate::error::EngineError;
use crate::input::{self, EVENTS_IN_FLIGHT, MAX_WAITING_BYTES, MAX_WAITING_LINES};
use crate::options::{self, OptionError, Setting, HASH, MOVE_OVERHEAD};
use crate::output::Output;
use crate::session::{EngineSession, Entry, GAMES};
use crate::worker::{self, Job};
use menagerie_nnue::{Network, NetworkError};
use menagerie_rules::catalogue;
use menagerie_rules::game::session::PositionError;
use menagerie_rules::game::Status;
use menagerie_rules::rng::Rng;
use menagerie_search::time::{Clock, Request};
use menagerie_search::{Limits, Settings, Shared};
use menagerie_wire::command::{parse_line, Class, Command, GoParams, ParseError};
use menagerie_wire::reply::{IdField, Reply};

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

/// How a run treats failures, and which games it plays.
#[derive(Clone, Copy)]
pub struct RunOptions {
    /// Stop at the first command answered with an error, with exit status
    /// [`EXIT_FAILED`].
    pub fail_fast: bool,
    /// The games the engine knows, the default first.
    pub games: &'static [Entry],
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            fail_fast: false,
            games: &GAMES,
        }
    }
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

struct Engine {
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
    rules: HashMap<&'static str, Vec<String>>,
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

/// Runs the protocol until `quit` or the end of input; returns the exit
/// status: 0, or [`EXIT_BUG`] after a bug (a panic the engine survived).
pub fn run(input: Input, out: Output) -> i32 {
    run_with(input, out, RunOptions::default())
}

/// [`run`], stopping at the first failed command if `options` say so.
pub fn run_with(input: Input, out: Output, options: RunOptions) -> i32 {
    let (events, inbox) = sync_channel(EVENTS_IN_FLIGHT);
    {
        let events = events.clone();
        std::thread::spawn(move || match input {
            Input::Stdin => input::read_lines(std::io::stdin().lock(), &events),
            Input::Lines(lines) => input::send_lines(lines, &events),
        });
    }
    let mut engine = Engine::new(out, events, options);
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

impl Engine {
    fn new(out: Output, events: SyncSender<Event>, options: RunOptions) -> Engine {
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
            jobs,
            base: Some(None),
            out,
            session: options.games[0]
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

    /// Starts the long work `job` makes on a new session of `game` and
    /// `ruleset` (not the engine's own position), or says why there is none.
    fn start_on_new_session(
        &mut self,
        command: &str,
        game: &str,
        ruleset: &[String],
        job: impl FnOnce(Box<dyn crate::session::EngineSession>, Arc<AtomicBool>) -> Job,
    ) {
        match catalogue::new_session_named(self.options.games, game, ruleset) {
            Err(e) => self.error(command, e),
            Ok(session) => {
                self.arm_stop(false);
                let job = job(session, Arc::clone(&self.stop));
                self.start(job, Busy::Work);
            }
        }
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

    fn execute(&mut self, command: Command) -> Flow {
        let name = command.name();
        match command {
            Command::Uci => self.identify(false),
            Command::Ugi => self.identify(true),
            Command::IsReady => self.reply(Reply::ReadyOk),
            Command::SetOption {
                name: option,
                value,
            } => match self.set_option(&option, value.as_deref()) {
                Err(e @ OptionError::NoMemory(_)) => self.out.refuse(name, &e),
                Err(e) => self.error(name, e),
                Ok(()) => {}
            },
            Command::NewGame { game, options } => {
                match catalogue::new_session_named(self.options.games, &game, &options) {
                    Ok(session) => self.new_game(session, true),
                    Err(e) => self.error(name, e),
                }
            }
            Command::UciNewGame | Command::UgiNewGame => self.setup(true),
            Command::Position { notation, moves } => self.position(notation, moves),
            Command::Move { moves } => match self.session.play_moves(&moves) {
                Ok(()) => self.announce_end(),
                Err(e) => self.error(name, e),
            },
            Command::Go(params) => self.go(&params),
            Command::Perft { depth, via_go } if depth > menagerie_rules::game::perft::MAX_DEPTH => {
                self.error(name, EngineError::PerftTooDeep(depth));
                if via_go {
                    self.reply(Reply::BestMove(None));
                }
            }
            Command::Perft { depth, .. } => {
                self.arm_stop(false);
                let job = Job::Perft {
                    session: self.session.boxed(),
                    depth,
                    stop: Arc::clone(&self.stop),
                };
                self.start(job, Busy::Work);
            }
            Command::Stop => {}
            Command::Quit => return Flow::Quit,
            Command::Display => {
                self.out.replies(&answers::display(self.session.as_ref()));
            }
            Command::Legal => {
                let reply = answers::legal(self.session.as_ref());
                self.reply(reply);
            }
            Command::Query(question) => match answers::query(self.session.as_ref(), question) {
                Ok(reply) => self.reply(reply),
                Err(e) => self.error(name, e),
            },
            Command::Games => {
                self.out.replies(&answers::catalogue(self.options.games));
            }
            Command::Tables {
                action,
                game,
                words,
            } => {
                match crate::tables_command::parse_words(action, &words) {
                    Err(e) => self.error(name, e),
                    Ok((job, ruleset)) => {
                        self.start_on_new_session(name, &game, &ruleset, |session, stop| {
                            Job::Tables { session, job, stop }
                        })
                    }
                }
            }
            Command::Dataset { words } => match crate::dataset::parse_words(&words) {
                Err(e) => self.error(name, e),
                Ok(job) => {
                    self.arm_stop(false);
                    let job = Job::Dataset {
                        job,
                        stop: Arc::clone(&self.stop),
                    };
                    self.start(job, Busy::Work);
                }
            },
            Command::Eval => {
                let net = self.network();
                let replies = answers::eval(self.session.as_ref(), net.as_ref(), self.use_network);
                self.out.replies(&replies);
            }
            Command::SelfPlay { game, words } => match crate::selfplay::parse_words(&words) {
                Err(e) => self.error(name, e),
                Ok((job, ruleset)) => {
                    self.start_on_new_session(name, &game, &ruleset, |session, stop| {
                        Job::SelfPlay { session, job, stop }
                    })
                }
            },
            Command::Solve {
                nodes,
                memory,
                keys,
                checkpoint,
                certificate,
            } => {
                // Paths that cannot serve are refused now, not after the
                // search: a certificate or checkpoint is written over a
                // regular file or nothing only, and a checkpoint is read.
                let paths = [("certificate", &certificate), ("checkpoint", &checkpoint)];
                for (argument, path) in paths {
                    let Some(path) = path else { continue };
                    let path = std::path::Path::new(path);
                    let checked = menagerie_os::files::write_target(path)
                        .and_then(|_| menagerie_os::files::regular_exists(path).map(|_| ()));
                    if let Err(e) = checked {
                        self.error(name, EngineError::Path(argument, e));
                        return Flow::Continue;
                    }
                }
                self.arm_stop(false);
                let job = Job::Solve {
                    session: self.session.boxed(),
                    stop: Arc::clone(&self.stop),
                    request: crate::session::SolveRequest {
                        nodes: nodes.unwrap_or(crate::session::DEFAULT_PROOF_NODES),
                        memory_mib: memory,
                        keys: match keys {
                            Some(menagerie_wire::SolveKeys::History) => {
                                menagerie_tables::proof::Keys::History
                            }
                            Some(menagerie_wire::SolveKeys::Clock) => {
                                menagerie_tables::proof::Keys::Clock
                            }
                            None => menagerie_tables::proof::Keys::default(),
                        },
                        threads: self.settings.threads,
                        checkpoint: checkpoint.map(std::path::PathBuf::from),
                        certificate: certificate.map(std::path::PathBuf::from),
                    },
                };
                self.start(job, Busy::Work);
            }
            Command::Bench(kind) => {
                self.arm_stop(false);
                let job = Job::Bench {
                    kind,
                    games: self.options.games,
                    stop: Arc::clone(&self.stop),
                };
                self.start(job, Busy::Work);
            }
            Command::Roll => match self.session.play_chance(&mut self.chance) {
                Some(outcome) => {
                    self.reply(Reply::Rolled(outcome));
                    self.announce_end();
                }
                None => self.error(name, EngineError::NoChance),
            },
            Command::Help => {
                self.out.replies(&answers::help(self.options.games));
            }
        }
        Flow::Continue
    }

    /// `uci` or `ugi`: identity, options, then `uciok` or `ugiok`.
    fn identify(&mut self, ugi: bool) {
        self.ugi = ugi;
        let mut replies = vec![
            Reply::Id {
                field: IdField::Name,
                value: format!("{NAME} {VERSION}"),
            },
            Reply::Id {
                field: IdField::Author,
                value: AUTHOR.to_string(),
            },
        ];
        replies.extend(
            options::listed(ugi, self.options.games)
                .into_iter()
                .map(Reply::Option),
        );
        replies.push(if ugi { Reply::UgiOk } else { Reply::UciOk });
        self.out.replies(&replies);
    }

    /// Makes `session` the game, remembers its ruleset for the options,
    /// and sets it up on the worker; `prepare`: also starts building what
    /// its search wants (not for a game chosen by options alone, which a
    /// GUI may set in any order before the game it means).
    fn new_game(&mut self, session: Box<dyn EngineSession>, prepare: bool) {
        let words = session
            .ruleset()
            .to_string()
            .split_whitespace()
            .map(String::from)
            .collect();
        self.rules.insert(session.game_id(), words);
        self.session = session;
        self.base = Some(None);
        self.setup(prepare);
    }

    /// Empties the table on the worker (`isready` answers once it is
    /// done) and, with `prepare`, starts building in the background what
    /// the current game's search wants (a solved table), so that set-up
    /// never waits for it.
    fn setup(&mut self, prepare: bool) {
        let job = Job::Setup {
            session: prepare.then(|| self.session.boxed()),
            settings: self.search_settings(),
            shared: Arc::clone(&self.shared),
        };
        self.start(job, Busy::Setup);
    }

    /// After a `position` or `move` that ends the game: one line with the
    /// result and the reason.
    fn announce_end(&mut self) {
        if let Some(over) = answers::game_over(self.session.as_ref()) {
            self.reply(over);
        }
    }

    fn position(&mut self, notation: Option<String>, moves: Vec<String>) {
        let played = self.session.moves_played();
        let extends = self.base.as_ref() == Some(&notation)
            && played.len() <= moves.len()
            && played
                .iter()
                .zip(&moves)
                .all(|(a, b)| a.eq_ignore_ascii_case(b));
        let result = if extends {
            // Errors count moves from the start of the command.
            self.session
                .play_moves(&moves[played.len()..])
                .map_err(|e| match e {
                    PositionError::Move { index, error } => PositionError::Move {
                        index: index + played.len(),
                        error,
                    },
                    other => other,
                })
        } else {
            self.session.set_position(notation.as_deref(), &moves)
        };
        match result {
            Ok(()) => {
                self.base = Some(notation);
                self.announce_end();
            }
            Err(e) => self.error("position", e),
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        match options::parse(name, value, self.ugi, self.options.games)? {
            Setting::Hash(mib) => {
                let shared = Shared::try_with_stop(mib, Arc::clone(&self.stop))
                    .map_err(OptionError::NoMemory)?;
                self.shared = Arc::new(shared);
            }
            Setting::Threads(n) => self.settings.threads = n,
            Setting::Skill(n) => self.settings.skill = n,
            Setting::MultiSeat(m) => self.settings.multi_seat = m,
            Setting::TablePath(dir) => {
                if let Some(dir) = &dir {
                    // A folder, or none yet (`tables build` makes it).
                    menagerie_os::files::folder(dir, false).map_err(OptionError::TablePath)?;
                }
                menagerie_tables::probe::set_directory(dir)
            }
            Setting::UseTables(on) => self.settings.exact = on,
            Setting::UseNetwork(on) => {
                self.use_network = on;
                self.say_network();
            }
            Setting::EvalFile { game, path } => self.set_eval_file(game, path)?,
            Setting::Seed(n) => {
                self.settings.seed = n;
                self.chance = Rng::new(n);
            }
            Setting::MoveOverhead(ms) => self.move_overhead_ms = ms,
            Setting::Tuned => {}
            Setting::Variant(game) => self.switch_to(game, None),
            Setting::Rule { game, word } => self.switch_to(game, Some(word)),
        }
        Ok(())
    }

    /// `EvalFile` or `<game>.EvalFile`: the network of `path` for its game
    /// (the one the option names, which the file must be of, or the one
    /// the file names), after it loads and fits that game and its ruleset
    /// as last chosen; `None`: the game's built-in network again.
    /// Anything wrong leaves every network as it was.
    fn set_eval_file(
        &mut self,
        game: Option<&'static Entry>,
        path: Option<std::path::PathBuf>,
    ) -> Result<(), OptionError> {
        let Some(path) = path else {
            let id = game.map_or(self.session.game_id(), |g| g.id);
            self.networks.remove(id);
            if id == self.session.game_id() {
                self.say_network();
            }
            return Ok(());
        };
        let shown = path.display().to_string();
        let refuse = |e| OptionError::Network(shown.clone(), e);
        let net = Network::load(&path).map_err(refuse)?;
        let entry = match game {
            Some(entry) if entry.id != net.game => {
                return Err(refuse(NetworkError::Game(net.game.clone())))
            }
            Some(entry) => entry,
            None => catalogue::find(self.options.games, &net.game)
                .ok_or_else(|| refuse(NetworkError::Game(net.game.clone())))?,
        };
        if entry.id == self.session.game_id() {
            self.session.network_fits(&net).map_err(refuse)?;
        } else {
            let words = self.rules.get(entry.id).cloned().unwrap_or_default();
            let session = entry
                .session(&words)
                .expect("remembered ruleset words are the game's own");
            session.network_fits(&net).map_err(refuse)?;
        }
        let describe = net.describe();
        self.networks.insert(entry.id, Arc::new(net));
        if entry.id == self.session.game_id() {
            self.say_network();
        } else {
            self.reply(Reply::Remark(format!(
                "evaluation network {describe} for {}",
                entry.id
            )));
        }
        Ok(())
    }

    /// The network searches of the current game and ruleset use, if any.
    fn network(&self) -> Option<Arc<Network>> {
        if !self.use_network {
            return None;
        }
        let game = self.session.game_id();
        let net = match self.networks.get(game) {
            Some(net) => net.clone(),
            None => menagerie_nnue::builtin::network(game, self.session.seats_in_play().len())?,
        };
        self.session.network_fits(&net).is_ok().then_some(net)
    }

    /// The settings of a search of the current game: the network chosen.
    fn search_settings(&self) -> Settings {
        Settings {
            network: self.network(),
            ..self.settings.clone()
        }
    }

    /// One line naming the evaluation searches of the current game use.
    fn say_network(&mut self) {
        let text = answers::evaluation_in_use(self.network().as_deref(), self.use_network);
        self.reply(Reply::Remark(text));
    }

    /// Chooses `game` (after changing one ruleset option of it): a new
    /// game at its start, unless the option belongs to another game, which
    /// then only remembers it.
    fn switch_to(&mut self, game: &'static Entry, word: Option<String>) {
        let words = self.rules.entry(game.id).or_default();
        if let Some(word) = word {
            let key = word.split('=').next().unwrap_or("").to_string();
            words.retain(|w| w.split('=').next() != Some(key.as_str()));
            words.push(word);
            if self.session.game_id() != game.id {
                return;
            }
        }
        let session = game
            .session(words)
            .expect("option values come from the game's own list");
        self.new_game(session, false);
    }

    fn go(&mut self, params: &GoParams) {
        match self.session.status() {
            Status::Over(..) => {
                self.announce_end();
                self.reply(Reply::BestMove(None));
                return;
            }
            Status::Ongoing if self.session.awaiting_chance() => {
                self.error("go", EngineError::AwaitingRoll);
                self.reply(Reply::BestMove(None));
                return;
            }
            Status::Ongoing => {}
        }
        let request = match self.request(params) {
            Ok(request) => request,
            Err(e) => {
                self.error("go", e);
                self.reply(Reply::BestMove(None));
                return;
            }
        };
        let limits = Limits::plan(&request, self.move_overhead_ms);
        let unbounded = limits.infinite;
        // After the end of input nothing could stop an unbounded search.
        self.arm_stop(self.input_closed && unbounded);
        let job = Job::Search {
            session: self.session.boxed(),
            limits,
            shared: Arc::clone(&self.shared),
            settings: self.search_settings(),
        };
        self.start(job, Busy::Search { unbounded });
    }

    /// What `go` asks of the search, with the clock of the side to move:
    /// `time`/`inc` in any game, or in a two-seat game `wtime`/`winc` (UGI:
    /// `p1time`/`p1inc`) for the first seat of the seat order and
    /// `btime`/`binc` (`p2time`/`p2inc`) for the second.
    fn request(&self, go: &GoParams) -> Result<Request, EngineError> {
        let either =
            |a: Option<u64>, b: Option<u64>, names: (&'static str, &'static str)| match (a, b) {
                (Some(_), Some(_)) => Err(EngineError::SameClockTwice(names.0, names.1)),
                (a, b) => Ok(a.or(b)),
            };
        let wtime = either(go.wtime, go.p1time, ("wtime", "p1time"))?;
        let btime = either(go.btime, go.p2time, ("btime", "p2time"))?;
        let winc = either(go.winc, go.p1inc, ("winc", "p1inc"))?;
        let binc = either(go.binc, go.p2inc, ("binc", "p2inc"))?;
        let (seat_order, seats) = self.session.seat_order();
        let two_seat_fields = [wtime, btime, winc, binc];
        let clock = match go.time {
            Some(time_ms) => Some((time_ms, go.inc.unwrap_or(0))),
            None if go.inc.is_some() => return Err(EngineError::IncWithoutTime),
            None if seats != 2 && two_seat_fields.iter().any(Option::is_some) => {
                return Err(EngineError::TwoSeatClocks(seats))
            }
            None => {
                // Advice in the words of the session's protocol.
                let field = match (seat_order == 0, self.ugi) {
                    (true, false) => "wtime",
                    (false, false) => "btime",
                    (true, true) => "p1time",
                    (false, true) => "p2time",
                };
                let (time, inc) = if seat_order == 0 {
                    (wtime, winc)
                } else {
                    (btime, binc)
                };
                match time {
                    Some(time_ms) => Some((time_ms, inc.unwrap_or(0))),
                    None if two_seat_fields.iter().any(Option::is_some) => {
                        return Err(EngineError::NoClockForSide {
                            side: self.session.side_letter(),
                            field,
                        })
                    }
                    None => None,
                }
            }
        };
        Ok(Request {
            depth: go.depth,
            nodes: go.nodes,
            movetime_ms: go.movetime,
            clock: clock.map(|(time_ms, inc_ms)| Clock {
                time_ms,
                inc_ms,
                moves_to_go: go.movestogo,
            }),
            infinite: go.infinite,
        })
    }
}

/// A line that is not a command, as the engine answers it.
fn parse_error(e: &ParseError) -> Reply {
    e.reply()
}
