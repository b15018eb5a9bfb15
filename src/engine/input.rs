//! The input thread: lines from stdin (or the command line) as events.

use std::io::BufRead;
use std::sync::mpsc::SyncSender;

use crate::channel::{Event, MAX_LINE};
use menagerie_os::lines::BoundedLines;

/// Events the input thread may have sent ahead of the engine loop. The
/// loop takes each at once (it never waits for long work), so this fills
/// only while its output blocks (nobody reads it); then the input thread
/// waits, and the writer's pipe holds the rest. At most this many lines
/// of [`MAX_LINE`] bytes are held.
pub const EVENTS_IN_FLIGHT: usize = 16;

/// Most lines waiting for their turn behind long work (state commands,
/// and read-only ones behind them); past it, a line is refused by name.
pub const MAX_WAITING_LINES: usize = 1024;
/// Most bytes of such lines (a longer single line still gets in alone).
pub const MAX_WAITING_BYTES: usize = 4 << 20;

/// Sends each input line as an event, then [`Event::Eof`]. Lines are cut
/// at [`MAX_LINE`] bytes (a longer one becomes [`Event::TooLong`] with its
/// first word, so that the error can name the command), and a line with
/// bytes that are not UTF-8 becomes [`Event::NotUtf8`]: refused whole,
/// never read as some other text (a path or a notation it did not say).
pub fn read_lines(reader: impl BufRead, events: &SyncSender<Event>) {
    // Bytes that are not UTF-8 show as '?', one each, so that an error's
    // byte count is the input's.
    let first_word = |bytes: &[u8]| {
        let mut kept = String::new();
        for chunk in bytes.utf8_chunks() {
            kept.push_str(chunk.valid());
            kept.extend(std::iter::repeat('?').take(chunk.invalid().len()));
        }
        kept.split_whitespace().next().unwrap_or("").to_string()
    };
    for line in BoundedLines::new(reader, MAX_LINE) {
        let event = if line.is_cut() {
            Event::TooLong {
                bytes: line.length,
                first_word: first_word(&line.bytes),
            }
        } else {
            match String::from_utf8(line.bytes) {
                Ok(text) => Event::Line(text),
                Err(e) => Event::NotUtf8 {
                    bytes: e.as_bytes().len(),
                    first_word: first_word(e.as_bytes()),
                },
            }
        };
        if events.send(event).is_err() {
            return;
        }
    }
    let _ = events.send(Event::Eof);
}

/// Sends `lines` (given on the command line) as events, then
/// [`Event::Eof`].
pub fn send_lines(lines: Vec<String>, events: &SyncSender<Event>) {
    for line in lines {
        if events.send(Event::Line(line)).is_err() {
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
    const TAKES_ARGUMENTS: [&str; 12] = [
        "tables",
        "selfplay",
        "dataset",
        "solve",
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

    fn lines(args: &[&str]) -> Vec<String> {
        command_lines(args.iter().map(|a| a.to_string()).collect())
    }

    #[test]
    fn arguments_make_lines_both_ways() {
        assert_eq!(lines(&["go", "perft", "3"]), ["go perft 3"]);
        assert_eq!(lines(&["bench", "playouts", "100"]), ["bench playouts 100"]);
        assert_eq!(
            lines(&["selfplay", "am", "games=2", "out=x"]),
            ["selfplay am games=2 out=x"]
        );
        assert_eq!(
            lines(&["newgame hdk", "go depth 3"]),
            ["newgame hdk", "go depth 3"]
        );
        assert_eq!(lines(&["uci", "isready"]), ["uci", "isready"]);
        assert_eq!(lines(&["d"]), ["d"]);
    }
}
