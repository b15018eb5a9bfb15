//! One engine process: started in a process group of its own, spoken to in
//! typed commands, read as typed replies through a bounded buffer, and
//! killed as a whole group.
//!
//! - The group: an engine that starts helpers (a shell script, a JVM
//!   launcher) is killed with all of them, and its crash is seen when its
//!   own process exits, even if a helper still holds its output open.
//! - The buffer: every line is read as soon as it is written (an engine
//!   never blocks on its output), kept until the game loop wants it. An
//!   engine floods, and the game loop forfeits it, when it writes faster
//!   than [`FLOOD_RATE`] lines a second beyond a burst of [`FLOOD_BURST`]
//!   lines, or leaves more than [`MAX_UNREAD_BYTES`] unread: a burst of
//!   thousands of `info` lines on a move is fine, output without end is
//!   not, and the referee's memory stays bounded either way.
//! - On Linux the engine also dies when the thread that started it does
//!   (`PR_SET_PDEATHSIG`), so a killed referee leaves no engine behind.
//!
//! The process group itself is `menagerie_os::group`'s.

use std::fmt;
use std::io::{BufReader, Read, Write};
use std::process::{ChildStdin, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use menagerie_os::group::Group;
use menagerie_os::lines::BoundedLines;
use menagerie_wire::command::Command as ProtocolCommand;
use menagerie_wire::reply::{OptionLine, Reply};

/// Lines an engine may write at once, beyond [`FLOOD_RATE`].
pub const FLOOD_BURST: f64 = 100_000.0;
/// Lines a second an engine may write for ever (engines print a few to a
/// few hundred; an engine writing without end, thousands of times more).
pub const FLOOD_RATE: f64 = 20_000.0;
/// Bytes of unread lines kept per engine; more is flooding.
pub const MAX_UNREAD_BYTES: usize = 16 << 20;
/// Longest line kept; a longer one is garbage.
pub const MAX_LINE: usize = 16 * 1024;
/// How often a wait looks whether the process is still alive.
const LIVENESS_POLL: Duration = Duration::from_millis(20);

/// What one wait for the engine gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    Reply(Reply),
    /// Bytes that are not UTF-8, or a line over [`MAX_LINE`].
    Garbled(String),
    /// The engine wrote faster than [`FLOOD_RATE`] beyond [`FLOOD_BURST`],
    /// or more than [`MAX_UNREAD_BYTES`] nobody read.
    Flood,
    /// The engine's own process has ended (its output may still be open).
    Exited(String),
    /// Nothing before the deadline.
    Timeout,
}

/// The engine closed its input: it has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gone;

impl fmt::Display for Gone {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the engine closed its input")
    }
}

impl std::error::Error for Gone {}

/// Why a wait for the engine's answer failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitError {
    Gone,
    /// Nothing of what was awaited came in time: the awaited word, and
    /// the time given where it was a whole allowance.
    Timeout(&'static str, Option<Duration>),
    /// Something else came first: the awaited word and what came.
    Heard(&'static str, Box<Heard>),
}

impl From<Gone> for WaitError {
    fn from(_: Gone) -> WaitError {
        WaitError::Gone
    }
}

impl fmt::Display for WaitError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            WaitError::Gone => Gone.fmt(f),
            WaitError::Timeout(word, Some(within)) => {
                write!(f, "no '{word}' within {} ms", within.as_millis())
            }
            WaitError::Timeout(word, None) => write!(f, "no '{word}' in time"),
            WaitError::Heard(word, heard) => write!(f, "before '{word}': {}", describe(heard)),
        }
    }
}

impl std::error::Error for WaitError {}

/// Why an engine could not be started and set up.
#[derive(Debug)]
pub enum StartError {
    Spawn(std::io::Error),
    /// No `uciok` or `readyok` in time, or the engine exited or garbled.
    Handshake(WaitError),
    /// An option the engine does not list.
    UnknownOption {
        option: String,
        known: Vec<String>,
    },
    /// An option the engine answered with an error.
    OptionRefused {
        option: String,
        said: String,
    },
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            StartError::Spawn(e) => write!(f, "cannot start: {e}"),
            StartError::Handshake(why) => write!(f, "no protocol handshake: {why}"),
            StartError::UnknownOption { option, known } => write!(
                f,
                "has no option '{option}' (its options: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
            StartError::OptionRefused { option, said } => {
                write!(f, "refused option '{option}': {said}")
            }
        }
    }
}

impl std::error::Error for StartError {}

/// What the reader thread passes on.
enum Raw {
    Line(String),
    Garbled(String),
}

impl Raw {
    /// Its share of [`MAX_UNREAD_BYTES`].
    fn size(&self) -> usize {
        match self {
            Raw::Line(text) | Raw::Garbled(text) => text.len() + 1,
        }
    }
}

/// What the reader thread and the game loop share about unread lines.
#[derive(Default)]
struct Backlog {
    bytes: AtomicUsize,
    /// Set by the reader when the engine floods; it then stops reading.
    overflow: AtomicBool,
}

pub struct EngineProcess {
    group: Group,
    stdin: ChildStdin,
    lines: Receiver<Raw>,
    backlog: Arc<Backlog>,
    exited: Option<String>,
    pub name: String,
    /// The options the engine listed in its handshake.
    pub options: Vec<OptionLine>,
    /// `info string error` lines heard since the last [`Self::take_errors`].
    errors: Vec<String>,
    /// `isready` lines sent, and `readyok` lines heard.
    pings_sent: u64,
    pongs_heard: u64,
    /// A `go` sent whose `bestmove` has not been heard: the number of
    /// `isready` lines sent before it, whose `readyok` must all come
    /// first. A `bestmove` is taken only as the answer to this `go`.
    awaited: Option<u64>,
    /// `bestmove` lines that answered no `go` of ours (a late answer to
    /// a search given up on, or a second answer), ignored.
    strays: u64,
}

impl EngineProcess {
    /// Starts `command` and completes the handshake within `timeout`:
    /// `uci` until `uciok` (keeping the option list), then `isready`.
    pub fn start(
        command: &[String],
        name: &str,
        timeout: Duration,
    ) -> Result<EngineProcess, StartError> {
        let mut group = Group::spawn(command).map_err(StartError::Spawn)?;
        let stdin = group.take_stdin().expect("stdin is piped");
        let stdout = group.take_stdout().expect("stdout is piped");
        let (sender, lines) = channel();
        let backlog = Arc::new(Backlog::default());
        let shared = Arc::clone(&backlog);
        std::thread::spawn(move || read_lines(stdout, &sender, &shared));
        let mut engine = EngineProcess {
            group,
            stdin,
            lines,
            backlog,
            exited: None,
            name: name.to_string(),
            options: Vec::new(),
            errors: Vec::new(),
            pings_sent: 0,
            pongs_heard: 0,
            awaited: None,
            strays: 0,
        };
        let deadline = Instant::now() + timeout;
        let handshake = |engine: &mut EngineProcess| -> Result<(), WaitError> {
            engine.send(&ProtocolCommand::Uci)?;
            loop {
                match engine.hear(deadline) {
                    Heard::Reply(Reply::UciOk) => break,
                    Heard::Reply(Reply::Option(option)) => engine.options.push(option),
                    Heard::Reply(_) => {}
                    Heard::Timeout => return Err(WaitError::Timeout("uciok", Some(timeout))),
                    other => return Err(WaitError::Heard("uciok", Box::new(other))),
                }
            }
            engine.sync(deadline)
        };
        match handshake(&mut engine) {
            Ok(()) => Ok(engine),
            Err(why) => Err(StartError::Handshake(why)),
        }
    }

    /// Sets `options` (name, value), checking each against the engine's
    /// list first and its replies after: an unknown option, or one the
    /// engine answers with an error, is refused.
    pub fn configure(
        &mut self,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<(), StartError> {
        for (name, value) in options {
            if !self
                .options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(name))
            {
                return Err(StartError::UnknownOption {
                    option: name.clone(),
                    known: self.options.iter().map(|o| o.name.clone()).collect(),
                });
            }
            self.take_errors();
            self.send(&ProtocolCommand::SetOption {
                name: name.clone(),
                value: Some(value.clone()),
            })
            .map_err(|gone| StartError::Handshake(gone.into()))?;
            self.sync(Instant::now() + timeout)
                .map_err(StartError::Handshake)?;
            if let Some(said) = self.take_errors().pop() {
                return Err(StartError::OptionRefused {
                    option: format!("{name}={value}"),
                    said,
                });
            }
        }
        Ok(())
    }

    /// Writes one command; an error means the engine is gone.
    pub fn send(&mut self, command: &ProtocolCommand) -> Result<(), Gone> {
        self.send_all(std::slice::from_ref(command))
    }

    /// Writes commands in one write (a move's `position` and `go`).
    pub fn send_all(&mut self, commands: &[ProtocolCommand]) -> Result<(), Gone> {
        let mut buffer = String::new();
        for command in commands {
            match command {
                ProtocolCommand::IsReady => self.pings_sent += 1,
                ProtocolCommand::Go(_) => {
                    debug_assert!(self.awaited.is_none(), "a go while one is unanswered");
                    self.awaited = Some(self.pings_sent);
                }
                _ => {}
            }
            let line = command.to_string();
            // Whole: the log is for finding out what was said.
            log::debug!("{} < {}", self.name, line);
            buffer.push_str(&line);
            buffer.push('\n');
        }
        self.stdin
            .write_all(buffer.as_bytes())
            .and_then(|_| self.stdin.flush())
            .map_err(|_| Gone)
    }

    /// The next thing heard from the engine, waiting until `deadline`.
    /// Lines already written come first; then an ended process; then the
    /// wait, looking at the process every [`LIVENESS_POLL`]. A `bestmove`
    /// is passed on only as the answer to the `go` awaited, once the
    /// `readyok` of every `isready` sent before that `go` has come; any
    /// other is a stray, counted and skipped.
    pub fn hear(&mut self, deadline: Instant) -> Heard {
        loop {
            match self.hear_any(deadline) {
                Heard::Reply(Reply::BestMove(mv)) if !self.answering() => {
                    self.strays += 1;
                    log::warn!(
                        "engine {}: 'bestmove {}' answers no go of ours; ignored",
                        self.name,
                        mv.as_deref().unwrap_or("(none)")
                    );
                }
                Heard::Reply(Reply::BestMove(mv)) => {
                    self.awaited = None;
                    return Heard::Reply(Reply::BestMove(mv));
                }
                heard => return heard,
            }
        }
    }

    /// Whether what the engine says now answers the `go` awaited: one
    /// was sent, and every `isready` sent before it has been answered.
    pub fn answering(&self) -> bool {
        self.awaited.is_some_and(|pings| self.pongs_heard >= pings)
    }

    /// Whether a `go` was sent whose `bestmove` has not come.
    pub fn thinking(&self) -> bool {
        self.awaited.is_some()
    }

    /// `bestmove` lines so far that answered no `go` of ours.
    pub fn strays(&self) -> u64 {
        self.strays
    }

    /// Ends a search the referee no longer wants an answer to (a time
    /// loss, an abandoned game): `stop`, then everything up to that
    /// search's own `bestmove`, by `deadline`, so that nothing of it is
    /// taken for a later request. Nothing to do if no `go` is awaited.
    pub fn settle(&mut self, deadline: Instant) -> Result<(), WaitError> {
        if !self.thinking() {
            return Ok(());
        }
        self.send(&ProtocolCommand::Stop)?;
        loop {
            match self.hear(deadline) {
                Heard::Reply(Reply::BestMove(_)) => return Ok(()),
                Heard::Reply(_) => {}
                Heard::Timeout => return Err(WaitError::Timeout("bestmove", None)),
                other => return Err(WaitError::Heard("bestmove", Box::new(other))),
            }
        }
    }

    /// [`Self::hear`] without the check of `bestmove` lines.
    fn hear_any(&mut self, deadline: Instant) -> Heard {
        loop {
            match self.lines.try_recv() {
                Ok(raw) => return self.heard(raw),
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    return self.ended();
                }
            }
            if self.backlog.overflow.load(Ordering::Relaxed) {
                return Heard::Flood;
            }
            if let Some(status) = self.exit_status() {
                // The pipe may stay open in a helper process: the engine
                // itself is what counts.
                return Heard::Exited(status);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Heard::Timeout;
            }
            match self.lines.recv_timeout(left.min(LIVENESS_POLL)) {
                Ok(raw) => return self.heard(raw),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return self.ended(),
            }
        }
    }

    /// Nothing more will be read: the reader stopped on a flood, or the
    /// output closed.
    fn ended(&mut self) -> Heard {
        if self.backlog.overflow.load(Ordering::Relaxed) {
            Heard::Flood
        } else {
            Heard::Exited(self.wait_exit())
        }
    }

    fn heard(&mut self, raw: Raw) -> Heard {
        self.backlog.bytes.fetch_sub(raw.size(), Ordering::Relaxed);
        match raw {
            Raw::Line(line) => {
                log::debug!("{} > {}", self.name, line);
                let reply = Reply::read(&line);
                if reply == Reply::ReadyOk {
                    // A `readyok` nobody asked for answers nothing later.
                    self.pongs_heard = (self.pongs_heard + 1).min(self.pings_sent);
                }
                if let Reply::Error { command, message } = &reply {
                    let said = format!("{command}: {message}");
                    log::warn!("engine {} said: {said}", self.name);
                    self.errors.push(said);
                }
                Heard::Reply(reply)
            }
            Raw::Garbled(what) => Heard::Garbled(what),
        }
    }

    /// `isready` until its `readyok` (not that of an earlier ping), by
    /// `deadline`.
    pub fn sync(&mut self, deadline: Instant) -> Result<(), WaitError> {
        self.send(&ProtocolCommand::IsReady)?;
        loop {
            match self.hear(deadline) {
                Heard::Reply(Reply::ReadyOk) if self.pings() == 0 => return Ok(()),
                Heard::Reply(_) => {}
                Heard::Timeout => return Err(WaitError::Timeout("readyok", None)),
                other => return Err(WaitError::Heard("readyok", Box::new(other))),
            }
        }
    }

    /// `isready` sent and not yet answered.
    pub fn pings(&self) -> u64 {
        self.pings_sent.saturating_sub(self.pongs_heard)
    }

    /// The engine's error lines since the last call, oldest first.
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    /// The process id, which is also the id of its process group.
    pub fn id(&self) -> u32 {
        self.group.id()
    }

    /// How the process ended, if it has.
    fn exit_status(&mut self) -> Option<String> {
        if self.exited.is_none() {
            self.exited = self.group.exit_status().map(describe_status);
        }
        self.exited.clone()
    }

    /// The output closed: the process has ended or is about to.
    fn wait_exit(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            if let Some(status) = self.exit_status() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        "closed its output".to_string()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.exit_status().is_none()
    }

    /// Kills the engine's whole process group and reaps the engine.
    pub fn kill(&mut self) {
        self.group.kill();
    }
}

impl Drop for EngineProcess {
    /// Asks politely, then kills the group in any case, so that no helper
    /// outlives the match.
    fn drop(&mut self) {
        if self.alive() {
            let _ = self.send(&ProtocolCommand::Quit);
            let deadline = Instant::now() + Duration::from_millis(200);
            while Instant::now() < deadline && self.alive() {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.kill();
    }
}

/// A word for a failed wait, for messages.
pub fn describe(heard: &Heard) -> String {
    match heard {
        Heard::Reply(reply) => format!("'{}'", menagerie_wire::text::clip(&reply.to_string())),
        Heard::Garbled(what) => what.clone(),
        Heard::Flood => "output without end (a flood)".to_string(),
        Heard::Exited(status) => format!("the engine {status}"),
        Heard::Timeout => "nothing in time".to_string(),
    }
}

fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "exited".to_string(),
    }
}

/// The reader thread: every line into the channel as soon as it is
/// written; a flood (by rate or by unread bytes) is marked and ends the
/// reading (the engine then blocks on its own output).
fn read_lines(stdout: impl Read, sender: &Sender<Raw>, backlog: &Backlog) {
    // A token bucket: FLOOD_BURST lines, refilled at FLOOD_RATE a second.
    let mut allowance = FLOOD_BURST;
    let mut last = Instant::now();
    for line in BoundedLines::new(BufReader::new(stdout), MAX_LINE) {
        let now = Instant::now();
        allowance =
            (allowance + now.duration_since(last).as_secs_f64() * FLOOD_RATE).min(FLOOD_BURST);
        last = now;
        allowance -= 1.0;
        let raw = if line.is_cut() {
            Raw::Garbled(format!("a line of {} bytes", line.length))
        } else {
            match std::str::from_utf8(&line.bytes) {
                Ok(text) => Raw::Line(text.trim_end_matches('\r').to_string()),
                Err(_) => Raw::Garbled("bytes that are not UTF-8".to_string()),
            }
        };
        let unread = backlog.bytes.fetch_add(raw.size(), Ordering::Relaxed) + raw.size();
        if allowance < 0.0 || unread > MAX_UNREAD_BYTES {
            backlog.overflow.store(true, Ordering::Relaxed);
            return;
        }
        if sender.send(raw).is_err() {
            return;
        }
    }
}
