//! What reaches the engine loop: input lines from the input thread and
//! the worker's word that a job is done. A leaf: the loop, the input
//! thread and the worker all speak it, and it imports none of them.

/// Longest input line read; the rest of a longer line is skipped and the
/// line rejected, so a runaway writer cannot exhaust memory.
pub const MAX_LINE: usize = 1 << 20;

pub(crate) enum Event {
    Line(String),
    /// A line longer than [`MAX_LINE`]: its length and its first word.
    TooLong {
        bytes: usize,
        first_word: String,
    },
    /// A line with bytes that are not UTF-8: its length in bytes as read,
    /// and its first word (each such byte shown as '?').
    NotUtf8 {
        bytes: usize,
        first_word: String,
    },
    Eof,
    JobDone,
}

impl Event {
    /// What the line holds in memory while it waits for its turn.
    pub(crate) fn held_bytes(&self) -> usize {
        match self {
            Event::Line(line) => line.len(),
            Event::TooLong { first_word, .. } | Event::NotUtf8 { first_word, .. } => {
                first_word.len()
            }
            Event::Eof | Event::JobDone => 0,
        }
    }
}
