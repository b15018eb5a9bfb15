//! The engine's own errors: well-formed commands it cannot carry out.
//! Replies name the command; the messages say the rest.

use std::fmt;

use crate::channel::MAX_LINE;
use crate::input::{MAX_WAITING_BYTES, MAX_WAITING_LINES};

/// Problems with a well-formed command that the engine cannot carry out.
#[derive(Debug)]
pub(crate) enum EngineError {
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
    /// Both names of one clock, `wtime` and `p1time` say.
    SameClockTwice(&'static str, &'static str),
    LineTooLong(usize),
    /// A line of this many bytes, some of them not UTF-8.
    NotUtf8(usize),
    PerftTooDeep(u32),
    /// `roll` where a player, not chance, moves.
    NoChance,
    /// A line that would pass the bound of lines waiting for their turn.
    QueueFull,
    /// A path argument that cannot serve: the argument's name and why.
    Path(&'static str, menagerie_os::files::PathError),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EngineError::NotSolvable(game) => write!(
                f,
                "{game} cannot be solved: solve needs a game of two seats without dice"
            ),
            EngineError::AwaitingRoll => write!(
                f,
                "the position awaits a die roll; play the roll as a move (r1..r6)"
            ),
            EngineError::TwoSeatClocks(seats) => write!(
                f,
                "wtime, btime, winc and binc are the clocks of a two-seat game and this one has {seats} seats; give time and inc (the clock of the side to move)"
            ),
            EngineError::NoClockForSide { side, field } => write!(
                f,
                "no clock for the side to move ({side}); give {field} (or time)"
            ),
            EngineError::IncWithoutTime => write!(f, "inc needs time"),
            EngineError::SameClockTwice(a, b) => {
                write!(f, "{a} and {b} name the same clock; give one")
            }
            EngineError::LineTooLong(bytes) => write!(
                f,
                "line of {bytes} bytes is longer than the limit of {MAX_LINE}; skipped"
            ),
            EngineError::NotUtf8(bytes) => write!(
                f,
                "line of {bytes} bytes has bytes that are not UTF-8; skipped"
            ),
            EngineError::NoChance => write!(
                f,
                "the position awaits no chance outcome (a player moves: play a move, or go)"
            ),
            EngineError::QueueFull => write!(
                f,
                "refused: {MAX_WAITING_LINES} lines (or {} MiB) already wait for the running work; send it again once that has answered",
                MAX_WAITING_BYTES >> 20
            ),
            EngineError::Path(argument, e) => write!(f, "{argument} {e}"),
            EngineError::PerftTooDeep(depth) => write!(
                f,
                "depth {depth} is over the limit of {}",
                menagerie_rules::game::perft::MAX_DEPTH
            ),

        }
    }
}

impl std::error::Error for EngineError {}
