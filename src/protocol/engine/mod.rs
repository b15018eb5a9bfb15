//! The engine loop: input lines become typed commands, executed in order.
//!
//! Three threads: one reads input, one runs everything that may take long
//! ([`worker`]: searches, perft, bench, solving, setting up a new game),
//! and this one dispatches. While the worker is busy:
//! - `quit` ends the process at once (within [`QUIT_GRACE`]);
//! - `isready` and `stop` act at once, unless commands are waiting before
//!   them: then they wait too, so that replies keep the order of the input
//!   and a `stop` reaches the search its place in the input meant;
//! - a `newgame` or `ucinewgame` still setting up makes `isready` wait for
//!   it (UCI's meaning of `isready`: ready for the next command);
//! - every other command waits its turn, so a pipeline like
//!   `go depth 4` / `move ...` / `go depth 4` behaves as written.

mod options;
mod worker;

use std::collections::VecDeque;
use std::fmt;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

use super::command::{parse_line, Command, GoParams, ParseError};
use super::output::Output;
use crate::game::session::PositionError;
use crate::game::{Outcome, Status};
use crate::runtime::registry::{self, GAMES};
use crate::runtime::EngineSession;
use crate::search::time::{Clock, Request};
use crate::search::{Limits, Settings, Shared};
use options::{OptionError, Setting, HASH, MOVE_OVERHEAD, SPINS};
use worker::Job;

pub const NAME: &str = "menagerie";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Longest input line read; the rest of a longer line is skipped and the
/// line rejected, so a runaway writer cannot exhaust memory.
pub const MAX_LINE: usize = 1 << 20;
/// How long `quit` waits for running work to answer before the engine
/// exits anyway.
pub const QUIT_GRACE: Duration = Duration::from_millis(50);

/// Where protocol lines come from.
pub enum Input {
    Stdin,
    /// Lines given on the command line, run in order before exiting.
    Lines(Vec<String>),
}

pub(crate) enum Event {
    Line(String),
    /// A line longer than [`MAX_LINE`]: its length and its first word.
    TooLong {
        bytes: usize,
        first_word: String,
    },
    Eof,
    JobDone,
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// Problems with a well-formed command that the engine cannot carry out.
#[derive(Debug)]
enum EngineError {
    Option(OptionError),
    AwaitingRoll,
    NotSolvable(&'static str),
    /// `wtime`/`btime`/`winc`/`binc` in a game of this many seats.
    TwoSeatClocks(usize),
    /// Clocks given, but none for the side to move; the field to give.
    NoClockForSide {
        side: char,
        field: &'static str,
    },
    IncWithoutTime,
    LineTooLong {
        bytes: usize,
        first_word: String,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EngineError::Option(e) => e.fmt(f),
            EngineError::NotSolvable(game) => write!(
                f,
                "solve: {game} has too many positions to solve; only games with a solved table can be"
            ),
            EngineError::AwaitingRoll => write!(
                f,
                "go: the position awaits a die roll; play the roll as a move (r1..r6)"
            ),
            EngineError::TwoSeatClocks(seats) => write!(
                f,
                "go: wtime, btime, winc and binc are the clocks of a two-seat game and this one has {seats} seats; give time and inc (the clock of the side to move)"
            ),
            EngineError::NoClockForSide { side, field } => write!(
                f,
                "go: no clock for the side to move ({side}); give {field} (or time)"
            ),
            EngineError::IncWithoutTime => write!(f, "go: inc needs time"),
            EngineError::LineTooLong { bytes, first_word } => write!(
                f,
                "{}: line of {bytes} bytes is longer than the limit of {MAX_LINE}; skipped",
                crate::text::Clipped(first_word)
            ),
        }
    }
}

/// What the worker is doing, as far as the input loop cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Busy {
    /// A search; `unbounded` ones end only with `stop`.
    Search { unbounded: bool },
    /// perft, bench, solve: `isready` is answered meanwhile.
    Work,
    /// Setting up a new game: `isready` waits for it.
    Setup,
}

struct Running {
    busy: Busy,
    /// Hears whether the job hit a bug.
    done: Receiver<bool>,
}

/// A line waiting for the worker, parsed.
type Pending = Result<Command, LineError>;

/// A line that is an error before it runs (answered in its turn).
enum LineError {
    Parse(ParseError),
    Engine(EngineError),
}

struct Engine {
    out: Output,
    session: Box<dyn EngineSession>,
    shared: Arc<Shared>,
    /// The one stop signal of every job.
    stop: Arc<AtomicBool>,
    settings: Settings,
    move_overhead_ms: u64,
    jobs: Sender<(Job, Sender<bool>)>,
    running: Option<Running>,
    /// The notation (`None`: the start) the current position was set from
    /// by `position` or `newgame`, so a `position` that only adds moves to
    /// the last one plays just the new moves.
    base: Option<Option<String>>,
    pending: VecDeque<Pending>,
    input_closed: bool,
    /// A job hit a bug, reported through the exit status.
    bug: bool,
}

/// Runs the protocol until `quit` or the end of input; returns the exit
/// status: 0, or 101 after a bug (a panic the engine survived).
pub fn run(input: Input, out: Output) -> i32 {
    let (events, inbox) = channel();
    match input {
        Input::Stdin => {
            let events = events.clone();
            std::thread::spawn(move || read_lines(std::io::stdin().lock(), &events));
        }
        Input::Lines(lines) => {
            for line in lines {
                let _ = events.send(Event::Line(line));
            }
            let _ = events.send(Event::Eof);
        }
    }
    let mut engine = Engine::new(out, events);
    for event in inbox {
        let flow = match event {
            Event::Line(line) => engine.on_line(&line),
            Event::TooLong { bytes, first_word } => {
                engine.on_parsed(Err(LineError::Engine(EngineError::LineTooLong {
                    bytes,
                    first_word,
                })))
            }
            Event::Eof => engine.on_eof(),
            Event::JobDone => engine.on_job_done(),
        };
        if flow == Flow::Quit {
            break;
        }
    }
    engine.quit()
}

/// Sends each input line as an event; lines are cut at [`MAX_LINE`] bytes
/// and bytes that are not UTF-8 still make a line, which the parser then
/// rejects with a clear error.
fn read_lines(mut reader: impl BufRead, events: &Sender<Event>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let mut length = 0usize;
        let ended = loop {
            let chunk = match reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break true,
            };
            if chunk.is_empty() {
                break true;
            }
            let (piece, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            if line.len() < MAX_LINE {
                let room = MAX_LINE - line.len();
                line.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            length += piece.len();
            let used = piece.len() + usize::from(newline);
            reader.consume(used);
            if newline {
                break false;
            }
        };
        if length == 0 && ended {
            break;
        }
        let event = if length > MAX_LINE {
            let kept = String::from_utf8_lossy(&line);
            Event::TooLong {
                bytes: length,
                first_word: kept.split_whitespace().next().unwrap_or("").to_string(),
            }
        } else {
            Event::Line(String::from_utf8_lossy(&line).into_owned())
        };
        if events.send(event).is_err() || ended {
            break;
        }
    }
    let _ = events.send(Event::Eof);
}

impl Engine {
    fn new(out: Output, events: Sender<Event>) -> Engine {
        let (jobs, inbox) = channel();
        let worker_out = out.clone();
        std::thread::Builder::new()
            .name("worker".into())
            .spawn(move || worker::run(inbox, worker_out, events))
            .expect("a thread for the worker");
        let stop = Arc::new(AtomicBool::new(false));
        Engine {
            jobs,
            base: Some(None),
            out,
            session: registry::default_session(),
            shared: Arc::new(
                Shared::try_with_stop(HASH.default as usize, Arc::clone(&stop))
                    .expect("the default table fits"),
            ),
            stop,
            settings: options::default_settings(),
            move_overhead_ms: MOVE_OVERHEAD.default,
            running: None,
            pending: VecDeque::new(),
            input_closed: false,
            bug: false,
        }
    }

    fn on_line(&mut self, line: &str) -> Flow {
        let line = line.trim_end_matches(['\n', '\r']);
        log::debug!("in: {}", crate::text::clip(line));
        match parse_line(line) {
            Ok(None) => Flow::Continue,
            Ok(Some(command)) => self.on_parsed(Ok(command)),
            Err(e) => self.on_parsed(Err(LineError::Parse(e))),
        }
    }

    fn on_parsed(&mut self, parsed: Pending) -> Flow {
        if self.running.is_none() {
            return self.handle(parsed);
        }
        if self.pending.is_empty() {
            if let Some(flow) = self.urgent(&parsed) {
                return flow;
            }
        }
        if matches!(parsed, Ok(Command::Quit)) {
            return Flow::Quit;
        }
        self.pending.push_back(parsed);
        Flow::Continue
    }

    /// Acts on `parsed` at once if it may overtake the running job:
    /// `quit`, and `isready` and `stop` unless a new game is being set up.
    fn urgent(&mut self, parsed: &Pending) -> Option<Flow> {
        let busy = self.running.as_ref()?.busy;
        match parsed {
            Ok(Command::Quit) => Some(Flow::Quit),
            Ok(Command::IsReady) if busy != Busy::Setup => {
                self.out.line("readyok");
                Some(Flow::Continue)
            }
            Ok(Command::Stop) if busy != Busy::Setup => {
                self.stop.store(true, Ordering::Relaxed);
                Some(Flow::Continue)
            }
            _ => None,
        }
    }

    fn handle(&mut self, parsed: Pending) -> Flow {
        match parsed {
            Ok(command) => self.execute(command),
            Err(LineError::Parse(e)) => {
                self.out.error(&e);
                // Every `go` gets its `bestmove`, a malformed one too.
                if e.command() == Some("go") {
                    self.out.line("bestmove (none)");
                }
                Flow::Continue
            }
            Err(LineError::Engine(e)) => {
                self.out.error(&e);
                if matches!(&e, EngineError::LineTooLong { first_word, .. } if first_word == "go") {
                    self.out.line("bestmove (none)");
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
    /// starts new work (then what may overtake it acts at once).
    fn on_job_done(&mut self) -> Flow {
        self.collect_job(None);
        while let Some(parsed) = self.pending.pop_front() {
            if self.running.is_some() {
                match self.urgent(&parsed) {
                    Some(flow) if flow == Flow::Quit => return flow,
                    Some(_) => continue,
                    None => {
                        self.pending.push_front(parsed);
                        return Flow::Continue;
                    }
                }
            }
            if self.handle(parsed) == Flow::Quit {
                return Flow::Quit;
            }
        }
        if self.running.is_none() && self.input_closed {
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

    /// Ends the engine: stops running work and gives it [`QUIT_GRACE`] to
    /// answer; returns the exit status.
    fn quit(&mut self) -> i32 {
        self.stop.store(true, Ordering::Relaxed);
        if !self.collect_job(Some(QUIT_GRACE)) {
            log::debug!("quit: the worker did not finish in time");
        }
        if self.bug {
            log::error!("the engine hit a bug (a panic it survived)");
            101
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
                self.out.line("bestmove (none)");
            }
            return;
        }
        self.running = Some(Running {
            busy,
            done: finished,
        });
    }

    /// A fresh stop signal for new work: `stop` before it does not count.
    fn arm_stop(&self, stopped: bool) {
        self.stop.store(stopped, Ordering::Relaxed);
    }

    fn execute(&mut self, command: Command) -> Flow {
        match command {
            Command::Uci => self.uci(),
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => {
                if let Err(e) = self.set_option(&name, value.as_deref()) {
                    self.out.error(&EngineError::Option(e));
                }
            }
            Command::NewGame { game, options } => {
                match registry::new_session_named(&game, &options) {
                    Ok(session) => {
                        self.session = session;
                        self.base = Some(None);
                        self.setup(true);
                    }
                    Err(e) => self.out.error(&e),
                }
            }
            Command::UciNewGame => self.setup(false),
            Command::Position { notation, moves } => self.position(notation, moves),
            Command::Move { moves } => {
                if let Err(e) = self.session.play_moves(&moves) {
                    self.out.error(&e);
                }
            }
            Command::Go(params) => self.go(&params),
            Command::Perft { depth } => {
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
            Command::Display => self.display(),
            Command::Legal => {
                let moves = self.session.legal_moves();
                if moves.is_empty() {
                    self.out.line("legal");
                } else {
                    self.out.line(&format!("legal {}", moves.join(" ")));
                }
            }
            Command::Solve => {
                let job = Job::Solve {
                    session: self.session.boxed(),
                };
                self.start(job, Busy::Work);
            }
            Command::Bench(kind) => {
                self.arm_stop(false);
                let job = Job::Bench {
                    kind,
                    stop: Arc::clone(&self.stop),
                };
                self.start(job, Busy::Work);
            }
            Command::Help => self.help(),
        }
        Flow::Continue
    }

    /// Empties the table and, for a new game, builds what its search wants,
    /// on the worker: `isready` answers once it is done.
    fn setup(&mut self, new_game: bool) {
        let job = Job::Setup {
            session: new_game.then(|| self.session.boxed()),
            settings: self.settings,
            shared: Arc::clone(&self.shared),
        };
        self.start(job, Busy::Setup);
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
            Ok(()) => self.base = Some(notation),
            Err(e) => self.out.error(&e),
        }
    }

    fn uci(&self) {
        self.out.line(&format!("id name {NAME} {VERSION}"));
        self.out.line("id author the menagerie developers");
        for spin in SPINS {
            self.out.line(&format!(
                "option name {} type spin default {} min {} max {}",
                spin.name, spin.default, spin.min, spin.max
            ));
        }
        self.out.line("uciok");
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        match options::parse(name, value)? {
            Setting::Hash(mib) => {
                let shared = Shared::try_with_stop(mib, Arc::clone(&self.stop))
                    .map_err(OptionError::NoMemory)?;
                self.shared = Arc::new(shared);
            }
            Setting::Threads(n) => self.settings.threads = n,
            Setting::Skill(n) => self.settings.skill = n,
            Setting::Seed(n) => self.settings.seed = n,
            Setting::MoveOverhead(ms) => self.move_overhead_ms = ms,
            Setting::Tuned => {}
        }
        Ok(())
    }

    fn go(&mut self, params: &GoParams) {
        match self.session.status() {
            Status::Over(outcome, reason) => {
                let result = match outcome {
                    Outcome::Draw => "draw".to_string(),
                    Outcome::Win(seat) => format!("win {}", self.session.seat_letter_of(seat)),
                };
                self.out
                    .line(&format!("info string game over: {result} ({reason})"));
                self.out.line("bestmove (none)");
                return;
            }
            Status::Ongoing if self.session.awaiting_chance() => {
                self.out.error(&EngineError::AwaitingRoll);
                self.out.line("bestmove (none)");
                return;
            }
            Status::Ongoing => {}
        }
        let request = match self.request(params) {
            Ok(request) => request,
            Err(e) => {
                self.out.error(&e);
                self.out.line("bestmove (none)");
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
            settings: self.settings,
        };
        self.start(job, Busy::Search { unbounded });
    }

    /// What `go` asks of the search, with the clock of the side to move:
    /// `time`/`inc` in any game, or in a two-seat game `wtime`/`winc` for
    /// the first seat of the seat order and `btime`/`binc` for the second.
    fn request(&self, go: &GoParams) -> Result<Request, EngineError> {
        let (seat_order, seats) = self.session.seat_order();
        let two_seat_fields = [go.wtime, go.btime, go.winc, go.binc];
        let clock = match go.time {
            Some(time_ms) => Some((time_ms, go.inc.unwrap_or(0))),
            None if go.inc.is_some() => return Err(EngineError::IncWithoutTime),
            None if seats != 2 && two_seat_fields.iter().any(Option::is_some) => {
                return Err(EngineError::TwoSeatClocks(seats))
            }
            None => {
                let (time, inc, field) = if seat_order == 0 {
                    (go.wtime, go.winc, "wtime")
                } else {
                    (go.btime, go.binc, "btime")
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

    fn display(&self) {
        self.out.lines(&self.session.draw());
        let status = self.session.status();
        let ruleset = self.session.ruleset().to_string();
        if ruleset.is_empty() {
            self.out.line(&format!("Game: {}", self.session.game_id()));
        } else {
            self.out
                .line(&format!("Game: {} {ruleset}", self.session.game_id()));
        }
        self.out
            .line(&format!("Notation: {}", self.session.notation()));
        self.out
            .line(&format!("Side: {}", self.session.side_letter()));
        let status = match status {
            Status::Ongoing => "ongoing".to_string(),
            Status::Over(Outcome::Draw, _) => "draw".to_string(),
            Status::Over(Outcome::Win(seat), _) => {
                format!("win {}", self.session.seat_letter_of(seat))
            }
        };
        self.out.line(&format!("Status: {status}"));
    }

    fn help(&self) {
        self.out.lines(HELP);
        self.out.line("Games:");
        for game in GAMES {
            let mut line = format!("  {}", game.id);
            if !game.aliases.is_empty() {
                line.push_str(&format!(" (also {})", game.aliases.join(", ")));
            }
            if !game.options.is_empty() {
                line.push_str(&format!(": {}", game.options_summary()));
            }
            self.out.line(&line);
        }
    }
}

const HELP: &str = "\
Commands (see protocol.md):
  uci | isready | ucinewgame | quit | stop
  setoption name <Hash|Threads|Skill|Seed|Move Overhead> value <n>
  newgame <game> [key=value ...]     select a game and ruleset, start position
  position startpos|fen <notation> [moves <m> ...]
  move <m> [<m> ...]                 play moves on the current position
  go [depth n] [nodes n] [movetime ms] [wtime ms] [btime ms] [winc ms] [binc ms]
     [time ms] [inc ms] [movestogo n] [infinite]
  go perft <n> | perft <n>           count leaf nodes, split by root move
  legal                              list the legal moves
  solve                              exact value of the position and each move (solvable games)
  d                                  draw the board, notation, side and status
  bench [search|perft|playouts [n]|threads [n]]
                                     speed measurements
  help";
