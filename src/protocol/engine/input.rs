//! The input thread: lines from stdin (or the command line) as events.

use std::io::BufRead;
use std::sync::mpsc::Sender;

use super::{Event, MAX_LINE};

/// Sends each input line as an event, then [`Event::Eof`]. Lines are cut
/// at [`MAX_LINE`] bytes (a longer one becomes [`Event::TooLong`] with its
/// first word, so that the error can name the command), and bytes that
/// are not UTF-8 still make a line, which the parser then rejects.
pub fn read_lines(mut reader: impl BufRead, events: &Sender<Event>) {
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

/// The protocol lines of a command line. One argument with a blank in it
/// makes every argument a line of its own (`"newgame hdk" "go depth 3"`);
/// otherwise words that start with a command taking arguments make one
/// line (`go perft 3`, `bench playouts 1000`, Stockfish's habit), and
/// commands without arguments stay apart (`uci isready`).
pub fn command_lines(args: Vec<String>) -> Vec<String> {
    const TAKES_ARGUMENTS: [&str; 8] = [
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
            lines(&["newgame hdk", "go depth 3"]),
            ["newgame hdk", "go depth 3"]
        );
        assert_eq!(lines(&["uci", "isready"]), ["uci", "isready"]);
        assert_eq!(lines(&["d"]), ["d"]);
    }
}
