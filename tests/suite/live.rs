//! An engine process driven line by line, as a GUI drives it: its output
//! arrives on a channel as it is printed, read by a thread of its own so
//! that the engine never blocks writing. Waits end on the awaited line;
//! [`HANG`] is only a deadline against a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// Only a hang takes this long; no verdict depends on it.
pub const HANG: Duration = Duration::from_secs(120);

/// An engine whose output lines arrive on a channel as they are printed,
/// read by a thread of its own so that the engine never blocks writing.
pub struct Engine {
    child: Child,
    pub stdin: Option<std::process::ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    pub fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Lines until one for which `wanted` holds (included).
    pub fn until(&mut self, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + HANG;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = wanted(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!(
                    "no awaited line within {HANG:?}; last lines: {:?}",
                    tail(&seen)
                ),
            }
        }
    }

    /// Everything printed until the engine exits.
    pub fn rest(&mut self) -> Vec<String> {
        let deadline = Instant::now() + HANG;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return seen,
                Err(_) => panic!("the engine did not end; last lines: {:?}", tail(&seen)),
            }
        }
    }

    /// Minor page faults of the engine so far: pages it touched for the
    /// first time (a count of work that no machine's speed changes).
    pub fn minor_faults(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the command's closing parenthesis; minflt is the
        // 10th field of the line, the 8th after it.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split_whitespace().nth(7).unwrap().parse().unwrap()
    }

    /// The engine's peak resident memory, in KiB.
    pub fn peak_kib(&self) -> u64 {
        crate::common::peak_kib(self.child.id())
    }

    /// Waits for the exit; its status.
    pub fn wait(&mut self) -> std::process::ExitStatus {
        self.stdin = None;
        let deadline = Instant::now() + HANG;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the engine did not exit");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn tail(lines: &[String]) -> &[String] {
    &lines[lines.len().saturating_sub(5)..]
}

impl Engine {
    /// Sends `quit` and returns every line until the exit.
    pub fn rest_after_quit(&mut self) -> Vec<String> {
        self.send("quit\n");
        let rest = self.rest();
        assert!(self.wait().success());
        rest
    }
}
