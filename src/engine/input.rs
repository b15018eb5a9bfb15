//! The input thread: lines from stdin (or the command line) as events.

use std::io::BufRead;
use std::sync::mpsc::Sender;
use std::sync::{Condvar, Mutex};

use crate::driver::{Event, MAX_LINE};
use menagerie_os::lines::BoundedLines;

/// Most lines read ahead of the one being answered.
pub const MAX_WAITING_LINES: usize = 1024;
/// Most bytes of such lines (a longer single line still gets in alone).
pub const MAX_WAITING_BYTES: usize = 4 << 20;

/// Lines read but not yet answered, bounded: while it is full the input
/// thread stops reading, so a writer that sends faster than the engine
/// answers (or an engine whose output nobody reads) is held back by the
/// pipe instead of growing the engine's memory. Nothing is dropped.
#[derive(Default)]
pub struct Backlog {
    /// Lines and bytes held.
    held: Mutex<(usize, usize)>,
    room: Condvar,
}

impl Backlog {
    /// Waits until a line of `bytes` fits, then counts it in.
    pub fn admit(&self, bytes: usize) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        while held.0 > 0 && (held.0 >= MAX_WAITING_LINES || held.1 + bytes > MAX_WAITING_BYTES) {
            held = self.room.wait(held).unwrap_or_else(|p| p.into_inner());
        }
        held.0 += 1;
        held.1 += bytes;
    }

    /// Counts out a line of `bytes` that has been answered.
    pub fn release(&self, bytes: usize) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.0 = held.0.saturating_sub(1);
        held.1 = held.1.saturating_sub(bytes);
        self.room.notify_one();
    }
}

/// Sends each input line as an event, then [`Event::Eof`]. Lines are cut
/// at [`MAX_LINE`] bytes (a longer one becomes [`Event::TooLong`] with its
/// first word, so that the error can name the command), and bytes that
/// are not UTF-8 still make a line, which the parser then rejects. Each
/// line waits for room in `backlog` before the next is read.
pub fn read_lines(reader: impl BufRead, events: &Sender<Event>, backlog: &Backlog) {
    for line in BoundedLines::new(reader, MAX_LINE) {
        let event = if line.is_cut() {
            let kept = String::from_utf8_lossy(&line.bytes);
            Event::TooLong {
                bytes: line.length,
                first_word: kept.split_whitespace().next().unwrap_or("").to_string(),
            }
        } else {
            Event::Line(String::from_utf8_lossy(&line.bytes).into_owned())
        };
        backlog.admit(event.held_bytes());
        if events.send(event).is_err() {
            return;
        }
    }
    let _ = events.send(Event::Eof);
}

/// The protocol lines of a command line. One argument with a blank in it
/// makes every argument a line of its own (`"newgame hdk" "go depth 3"`);
/// otherwise words that start with a command taking arguments make one
/// line (`go perft 3`, `bench playouts 1000`, Stockfish's habit), and
/// commands without arguments stay apart (`uci isready`).
pub fn command_lines(args: Vec<String>) -> Vec<String> {
    const TAKES_ARGUMENTS: [&str; 9] = [
        "tables",
        "go",
        "perft",
        "bench",
        "position",
        "move",
        "newgame",
        "setoption",
        "query",
    ];
    let quoted = args.iter().any(|a| a.contains(char::is_whitespace));
    match args.first() {
        Some(first) if !quoted && TAKES_ARGUMENTS.contains(&first.as_str()) => {
            vec![args.join(" ")]
        }
        _ => args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_full_backlog_holds_the_reader_until_lines_are_answered() {
        let backlog = Arc::new(Backlog::default());
        for _ in 0..MAX_WAITING_LINES {
            backlog.admit(1);
        }
        let (admitted, heard) = std::sync::mpsc::channel();
        let reader = {
            let backlog = Arc::clone(&backlog);
            std::thread::spawn(move || {
                backlog.admit(1);
                admitted.send(()).unwrap();
            })
        };
        let waited = heard.recv_timeout(std::time::Duration::from_millis(100));
        assert!(waited.is_err(), "a line got past a full backlog");
        backlog.release(1);
        heard
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("room made, the reader goes on");
        reader.join().unwrap();
    }

    #[test]
    fn one_line_longer_than_the_byte_limit_still_gets_in_alone() {
        let backlog = Backlog::default();
        backlog.admit(MAX_WAITING_BYTES * 2);
        backlog.release(MAX_WAITING_BYTES * 2);
        backlog.admit(MAX_WAITING_BYTES - 1);
        assert_eq!(*backlog.held.lock().unwrap(), (1, MAX_WAITING_BYTES - 1));
    }

    fn lines(args: &[&str]) -> Vec<String> {
        command_lines(args.iter().map(|a| a.to_string()).collect())
    }

    #[test]
    fn arguments_make_lines_both_ways() {
        assert_eq!(lines(&["go", "perft", "3"]), ["go perft 3"]);
        assert_eq!(lines(&["bench", "playouts", "100"]), ["bench playouts 100"]);
        assert_eq!(
            lines(&["newgame hdk", "go depth 3"]),
            ["newgame hdk", "go depth 3"]
        );
        assert_eq!(lines(&["uci", "isready"]), ["uci", "isready"]);
        assert_eq!(lines(&["d"]), ["d"]);
    }
}
