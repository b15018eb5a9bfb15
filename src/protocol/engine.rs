//! The engine loop: input lines become typed commands, executed in order.
//!
//! Input is read on its own thread and arrives as events; the search runs on
//! another. While a search runs, `isready`, `stop` and `quit` act at once and
//! every other command waits its turn, so a pipeline like
//! `go depth 4` / `move ...` / `go depth 4` behaves as written.

use std::collections::VecDeque;
use std::fmt;
use std::io::BufRead;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use super::command::{parse_line, BenchKind, Command, GoParams, ParseError};
use super::output::{InfoWriter, Output};
use crate::game::registry::{self, GAMES};
use crate::game::session::{DynSession, PositionError};
use crate::game::{Outcome, Status};
use crate::search::time::{Clock, Request};
use crate::search::{Limits, Settings, Shared};

pub const NAME: &str = "menagerie";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where protocol lines come from.
pub enum Input {
    Stdin,
    /// Lines given on the command line, run in order before exiting.
    Lines(Vec<String>),
}

enum Event {
    Line(String),
    Eof,
    SearchDone,
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// An engine option as `uci` lists it.
struct Spin {
    name: &'static str,
    default: u64,
    min: u64,
    max: u64,
}

const HASH: Spin = Spin {
    name: "Hash",
    default: 16,
    min: 1,
    max: 65536,
};
const THREADS: Spin = Spin {
    name: "Threads",
    default: 1,
    min: 1,
    max: 256,
};
const SKILL: Spin = Spin {
    name: "Skill",
    default: 20,
    min: 0,
    max: 20,
};
const SEED: Spin = Spin {
    name: "Seed",
    default: 0,
    min: 0,
    max: i64::MAX as u64,
};
/// Milliseconds kept back from every time budget for getting the move to
/// the other side (pipes, the GUI or referee, a busy machine).
const MOVE_OVERHEAD: Spin = Spin {
    name: "Move Overhead",
    default: 10,
    min: 0,
    max: 5000,
};
const SPINS: [&Spin; 5] = [&HASH, &THREADS, &SKILL, &SEED, &MOVE_OVERHEAD];

/// Problems with a well-formed command that the engine cannot carry out.
#[derive(Debug)]
enum EngineError {
    UnknownOption(String),
    OptionValue {
        name: &'static str,
        value: String,
        min: u64,
        max: u64,
    },
    OptionNeedsValue(&'static str),
    AwaitingRoll,
    NotSolvable(&'static str),
    /// The table of this many MiB cannot be allocated.
    NoMemory(u64),
    /// `wtime`/`btime`/`winc`/`binc` in a game of this many seats.
    TwoSeatClocks(usize),
    /// Clocks given, but none for the side to move; the field to give.
    NoClockForSide {
        side: char,
        field: &'static str,
    },
    IncWithoutTime,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EngineError::UnknownOption(name) => write!(
                f,
                "unknown option '{name}' (known: {})",
                SPINS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
            EngineError::OptionValue {
                name,
                value,
                min,
                max,
            } => write!(
                f,
                "option {name} needs a whole number from {min} to {max}, not '{value}'"
            ),
            EngineError::OptionNeedsValue(name) => {
                write!(f, "option {name} needs 'value <number>'")
            }
            EngineError::NoMemory(mib) => write!(
                f,
                "option Hash: cannot allocate {mib} MiB; the table keeps its size"
            ),
            EngineError::NotSolvable(game) => write!(
                f,
                "solve: {game} has too many positions to solve; only games with a solved table can be"
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
            EngineError::AwaitingRoll => write!(
                f,
                "go: the position awaits a die roll; play the roll as a move (r1..r6)"
            ),
        }
    }
}

/// A search handed to the search thread.
struct Job {
    session: Box<dyn DynSession>,
    limits: Limits,
    shared: Arc<Shared>,
    settings: Settings,
    /// Told when the search is over: `true` if it panicked.
    done: Sender<bool>,
}

struct Running {
    done: Receiver<bool>,
    unbounded: bool,
}

/// The one search thread: runs jobs one after the other and prints their
/// `bestmove`, also when a search panics (a bug, reported in the exit code).
fn search_thread(jobs: Receiver<Job>, out: Output, events: Sender<Event>) {
    for job in jobs {
        let mut reporter = InfoWriter { out: out.clone() };
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            job.session
                .search(&job.limits, &job.shared, &job.settings, &mut reporter)
        }));
        match result.as_ref().map(|r| r.best.as_deref()) {
            Ok(Some(mv)) => out.line(&format!("bestmove {mv}")),
            _ => out.line("bestmove (none)"),
        }
        let _ = job.done.send(result.is_err());
        let _ = events.send(Event::SearchDone);
    }
}

struct Engine {
    out: Output,
    session: Box<dyn DynSession>,
    shared: Arc<Shared>,
    settings: Settings,
    running: Option<Running>,
    jobs: Sender<Job>,
    /// The notation (`None`: the start) the current position was set from
    /// by `position` or `newgame`, so a `position` that only adds moves to
    /// the last one plays just the new moves.
    base: Option<Option<String>>,
    pending: VecDeque<Result<Command, ParseError>>,
    input_closed: bool,
    /// A search thread died: a bug, reported through the exit code.
    search_panicked: bool,
    move_overhead_ms: u64,
}

/// Runs the protocol until `quit` or the end of input; returns the exit code.
pub fn run(input: Input, out: Output) -> i32 {
    let (events, inbox) = channel();
    match input {
        Input::Stdin => {
            let events = events.clone();
            std::thread::spawn(move || {
                let stdin = std::io::stdin();
                let mut reader = stdin.lock();
                let mut buffer = Vec::new();
                loop {
                    buffer.clear();
                    match reader.read_until(b'\n', &mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            // Bytes that are not UTF-8 still make a line, which
                            // the parser then rejects with a clear error.
                            let line = String::from_utf8_lossy(&buffer).into_owned();
                            if events.send(Event::Line(line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = events.send(Event::Eof);
            });
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
            Event::Eof => engine.on_eof(),
            Event::SearchDone => engine.on_search_done(),
        };
        if flow == Flow::Quit {
            break;
        }
    }
    engine.finish_search(true);
    if engine.search_panicked {
        log::error!("a search thread panicked");
        101
    } else {
        0
    }
}

impl Engine {
    fn new(out: Output, events: Sender<Event>) -> Engine {
        let (jobs, inbox) = channel();
        let (thread_out, thread_events) = (out.clone(), events.clone());
        std::thread::spawn(move || search_thread(inbox, thread_out, thread_events));
        Engine {
            jobs,
            base: Some(None),
            out,
            session: registry::default_session(),
            shared: Arc::new(Shared::new(HASH.default as usize)),
            settings: Settings::default(),
            running: None,
            pending: VecDeque::new(),
            input_closed: false,
            search_panicked: false,
            move_overhead_ms: MOVE_OVERHEAD.default,
        }
    }

    fn on_line(&mut self, line: &str) -> Flow {
        let line = line.trim_end_matches(['\n', '\r']);
        log::debug!("in: {line}");
        let parsed = match parse_line(line) {
            Ok(None) => return Flow::Continue,
            Ok(Some(command)) => Ok(command),
            Err(e) => Err(e),
        };
        if self.running.is_some() {
            match parsed {
                Ok(Command::IsReady) => self.out.line("readyok"),
                Ok(Command::Stop) => self.shared.stop.store(true, Ordering::Relaxed),
                Ok(Command::Quit) => return Flow::Quit,
                // Errors wait too, so replies keep the order of the input.
                other => self.pending.push_back(other),
            }
            return Flow::Continue;
        }
        self.handle(parsed)
    }

    fn handle(&mut self, parsed: Result<Command, ParseError>) -> Flow {
        match parsed {
            Ok(command) => self.execute(command),
            Err(e) => {
                self.out.error(&e);
                Flow::Continue
            }
        }
    }

    fn on_eof(&mut self) -> Flow {
        self.input_closed = true;
        match &self.running {
            // Nothing could ever send `stop` now.
            Some(running) if running.unbounded => {
                self.shared.stop.store(true, Ordering::Relaxed);
                Flow::Continue
            }
            Some(_) => Flow::Continue,
            None => Flow::Quit,
        }
    }

    fn on_search_done(&mut self) -> Flow {
        self.finish_search(false);
        while self.running.is_none() {
            match self.pending.pop_front() {
                Some(parsed) => {
                    if self.handle(parsed) == Flow::Quit {
                        return Flow::Quit;
                    }
                }
                None if self.input_closed => return Flow::Quit,
                None => break,
            }
        }
        Flow::Continue
    }

    /// Waits for the search thread; with `stop`, tells it to finish first.
    fn finish_search(&mut self, stop: bool) {
        if let Some(running) = self.running.take() {
            if stop {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
            if running.done.recv().unwrap_or(true) {
                self.search_panicked = true;
            }
        }
    }

    fn execute(&mut self, command: Command) -> Flow {
        match command {
            Command::Uci => self.uci(),
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => {
                if let Err(e) = self.set_option(&name, value.as_deref()) {
                    self.out.error(&e);
                }
            }
            Command::NewGame { game, options } => {
                match registry::new_session_named(&game, &options) {
                    Ok(session) => {
                        // Before any clock runs (isready waits for it).
                        session.prepare_search(&self.settings);
                        self.session = session;
                        self.base = Some(None);
                        self.shared.tt.clear();
                    }
                    Err(e) => self.out.error(&e),
                }
            }
            Command::UciNewGame => self.shared.tt.clear(),
            Command::Position { notation, moves } => {
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
            Command::Move { moves } => {
                if let Err(e) = self.session.play_moves(&moves) {
                    self.out.error(&e);
                }
            }
            Command::Go(params) => self.go(&params),
            Command::Perft { depth } => self.perft(depth),
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
            Command::Solve => self.solve(),
            Command::Bench(kind) => self.bench(kind),
            Command::Help => self.help(),
        }
        Flow::Continue
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

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), EngineError> {
        if let Some(param) = name
            .get(..5)
            .filter(|prefix| prefix.eq_ignore_ascii_case("tune."))
            .and_then(|_| crate::tune::find(&name[5..]))
        {
            let text = value.ok_or(EngineError::OptionNeedsValue(param.name))?;
            let (min, max) = crate::tune::bounds(param);
            let bad = || EngineError::OptionValue {
                name: param.name,
                value: text.to_string(),
                min: min as u64,
                max: max as u64,
            };
            let number: i32 = text.parse().map_err(|_| bad())?;
            return crate::tune::set(param, number).map_err(|_| bad());
        }
        let spin = SPINS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| EngineError::UnknownOption(name.to_string()))?;
        let text = value.ok_or(EngineError::OptionNeedsValue(spin.name))?;
        let number = text
            .parse::<u64>()
            .ok()
            .filter(|n| (spin.min..=spin.max).contains(n))
            .ok_or_else(|| EngineError::OptionValue {
                name: spin.name,
                value: text.to_string(),
                min: spin.min,
                max: spin.max,
            })?;
        match spin.name {
            "Hash" => match Shared::try_new(number as usize) {
                Ok(shared) => self.shared = Arc::new(shared),
                Err(_) => return Err(EngineError::NoMemory(number)),
            },
            "Threads" => self.settings.threads = number as usize,
            "Skill" => self.settings.skill = number as u8,
            "Seed" => self.settings.seed = number,
            "Move Overhead" => self.move_overhead_ms = number,
            other => unreachable!("option {other} is listed but not handled"),
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
        self.shared
            .stop
            .store(self.input_closed && unbounded, Ordering::Relaxed);
        let (done, finished) = channel();
        let job = Job {
            session: self.session.boxed_clone(),
            limits,
            shared: Arc::clone(&self.shared),
            settings: self.settings,
            done,
        };
        if self.jobs.send(job).is_err() {
            // The search thread is gone, which only a bug can cause.
            self.search_panicked = true;
            self.out.line("bestmove (none)");
            return;
        }
        self.running = Some(Running {
            done: finished,
            unbounded,
        });
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

    fn solve(&self) {
        match self.session.solve() {
            None => self
                .out
                .error(&EngineError::NotSolvable(self.session.game_id())),
            Some((value, moves)) => {
                for (mv, value) in moves {
                    self.out.line(&format!("{mv}: {value}"));
                }
                self.out.line("");
                self.out.line(&format!("Value: {value}"));
            }
        }
    }

    fn perft(&self, depth: u32) {
        let (split, total) = self.session.perft_divide(depth);
        for (mv, count) in split {
            self.out.line(&format!("{mv}: {count}"));
        }
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
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

    fn bench(&self, kind: BenchKind) {
        crate::bench::run(kind, &self.out);
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
  bench [search|perft|playouts [n]]  speed measurements
  help";
