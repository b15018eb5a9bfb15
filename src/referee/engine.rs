//! One engine process: start it, talk to it line by line with a deadline on
//! every read, and kill it by its own process id when it misbehaves.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::spec::EngineSpec;

/// What one read from the engine gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Line(String),
    /// A line that is not UTF-8.
    Garbled,
    /// The engine closed its output: it has exited or crashed.
    Closed,
    /// Nothing arrived before the deadline.
    Timeout,
}

pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Reply>,
    pub name: String,
}

#[derive(Debug)]
pub enum StartError {
    Spawn(std::io::Error),
    /// No `uciok` / `readyok` in time, or the engine exited.
    Handshake(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            StartError::Spawn(e) => write!(f, "cannot start: {e}"),
            StartError::Handshake(why) => write!(f, "no protocol handshake: {why}"),
        }
    }
}

impl EngineProcess {
    /// Starts the engine and completes the handshake: `uci` until `uciok`,
    /// the options, then `isready` until `readyok`.
    pub fn start(spec: &EngineSpec, timeout: Duration) -> Result<EngineProcess, StartError> {
        let mut child = Command::new(&spec.command[0])
            .args(&spec.command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(StartError::Spawn)?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => {
                        let _ = sender.send(Reply::Closed);
                        return;
                    }
                    Ok(_) => {
                        let reply = match std::str::from_utf8(&buffer) {
                            Ok(text) => {
                                Reply::Line(text.trim_end_matches(['\n', '\r']).to_string())
                            }
                            Err(_) => Reply::Garbled,
                        };
                        if sender.send(reply).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut engine = EngineProcess {
            child,
            stdin,
            lines,
            name: spec.name.clone(),
        };
        let handshake = |engine: &mut EngineProcess| -> Result<(), String> {
            engine
                .send("uci")
                .map_err(|_| "the engine closed its input".to_string())?;
            engine.expect("uciok", timeout)?;
            for (name, value) in &spec.options {
                engine
                    .send(&format!("setoption name {name} value {value}"))
                    .map_err(|_| "the engine closed its input".to_string())?;
            }
            engine.sync(timeout)
        };
        match handshake(&mut engine) {
            Ok(()) => Ok(engine),
            Err(why) => {
                engine.kill();
                Err(StartError::Handshake(why))
            }
        }
    }

    /// Writes one line; an error means the engine is gone.
    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.send_lines(&[line])
    }

    /// Writes lines in one go (one system call for a move's `position`
    /// and `go`).
    pub fn send_lines(&mut self, lines: &[&str]) -> std::io::Result<()> {
        let mut buffer = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            log::debug!("{} < {line}", self.name);
            buffer.push_str(line);
            buffer.push('\n');
        }
        self.stdin.write_all(buffer.as_bytes())?;
        self.stdin.flush()
    }

    /// The next line, waiting until `deadline`.
    pub fn read(&mut self, deadline: Instant) -> Reply {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(reply) => {
                if let Reply::Line(text) = &reply {
                    log::debug!("{} > {text}", self.name);
                }
                reply
            }
            Err(RecvTimeoutError::Timeout) => Reply::Timeout,
            Err(RecvTimeoutError::Disconnected) => Reply::Closed,
        }
    }

    /// Reads until `line` arrives (other lines are skipped).
    fn expect(&mut self, line: &str, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.read(deadline) {
                Reply::Line(text) if text.trim() == line => return Ok(()),
                Reply::Line(_) | Reply::Garbled => continue,
                Reply::Closed => return Err(format!("the engine exited before '{line}'")),
                Reply::Timeout => {
                    return Err(format!("no '{line}' within {} ms", timeout.as_millis()))
                }
            }
        }
    }

    /// `isready` / `readyok`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), String> {
        self.send("isready")
            .map_err(|_| "the engine closed its input".to_string())?;
        self.expect("readyok", timeout)
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the process (by its id) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    /// Asks politely, then makes sure.
    fn drop(&mut self) {
        if self.alive() {
            let _ = self.send("quit");
            let deadline = Instant::now() + Duration::from_millis(200);
            while Instant::now() < deadline && self.alive() {
                std::thread::sleep(Duration::from_millis(2));
            }
            self.kill();
        }
    }
}
