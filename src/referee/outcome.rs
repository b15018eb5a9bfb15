//! The result vocabulary of the referee: how a game ended, why an engine
//! forfeited, a game's score for the match's first engine, and what an
//! engine said of each move. The game loop produces it, the record file
//! writes and reads it, the scoreboard counts it; it imports none of them.

use std::fmt;

use super::clock::Overrun;
use menagerie_rules::game::{EndReason, Outcome};
use menagerie_wire::reply::ScoreText;

/// Why an engine lost by forfeit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    /// A move the rules refuse (or `bestmove (none)` with moves to play).
    IllegalMove(String),
    TimeLoss(Overrun),
    /// The engine's process ended; how.
    Crash(String),
    /// No answer to `isready` while thinking, or no `readyok` at the start
    /// of a game.
    Stall,
    /// A line that is not part of the protocol.
    Garbage(String),
    /// Output without end: faster than the referee's rate, or more unread
    /// bytes than it keeps.
    Flood,
    /// The engine could not be started for the game.
    NoStart(String),
}

/// The kinds of forfeit, as records name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ForfeitKind {
    IllegalMove,
    TimeLoss,
    Crash,
    Stall,
    Garbage,
    Flood,
    NoStart,
}

impl ForfeitKind {
    pub const ALL: [ForfeitKind; 7] = [
        ForfeitKind::IllegalMove,
        ForfeitKind::TimeLoss,
        ForfeitKind::Crash,
        ForfeitKind::Stall,
        ForfeitKind::Garbage,
        ForfeitKind::Flood,
        ForfeitKind::NoStart,
    ];

    /// The word of records and summaries.
    pub fn word(self) -> &'static str {
        match self {
            ForfeitKind::IllegalMove => "illegal-move",
            ForfeitKind::TimeLoss => "time-loss",
            ForfeitKind::Crash => "crash",
            ForfeitKind::Stall => "stall",
            ForfeitKind::Garbage => "garbage",
            ForfeitKind::Flood => "flood",
            ForfeitKind::NoStart => "no-start",
        }
    }

    pub fn from_word(word: &str) -> Option<ForfeitKind> {
        ForfeitKind::ALL.into_iter().find(|k| k.word() == word)
    }
}

impl fmt::Display for ForfeitKind {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl Forfeit {
    pub fn kind(&self) -> ForfeitKind {
        match self {
            Forfeit::IllegalMove(_) => ForfeitKind::IllegalMove,
            Forfeit::TimeLoss(_) => ForfeitKind::TimeLoss,
            Forfeit::Crash(_) => ForfeitKind::Crash,
            Forfeit::Stall => ForfeitKind::Stall,
            Forfeit::Garbage(_) => ForfeitKind::Garbage,
            Forfeit::Flood => ForfeitKind::Flood,
            Forfeit::NoStart(_) => ForfeitKind::NoStart,
        }
    }

    /// Whether the signal that stops the referee could have caused it,
    /// when it reached an engine first: the process died, or its output
    /// was cut.
    pub fn may_be_a_signal(&self) -> bool {
        matches!(
            self,
            Forfeit::Crash(_) | Forfeit::NoStart(_) | Forfeit::Garbage(_) | Forfeit::Stall
        )
    }

    /// Whether the process must be killed and started again.
    pub fn needs_restart(&self) -> bool {
        !matches!(self, Forfeit::IllegalMove(_) | Forfeit::TimeLoss(_))
    }
}

impl fmt::Display for Forfeit {
    /// What happened, in a few words.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Forfeit::IllegalMove(mv) => write!(f, "illegal move {mv}"),
            Forfeit::TimeLoss(overrun) => write!(f, "time loss ({overrun})"),
            Forfeit::Crash(how) => write!(f, "crash (the engine {how})"),
            Forfeit::Stall => f.write_str("stall (no answer to isready)"),
            Forfeit::Garbage(line) => write!(f, "garbage output {line}"),
            Forfeit::Flood => f.write_str("flood (output faster or larger than the referee keeps)"),
            Forfeit::NoStart(why) => write!(f, "no start ({why})"),
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Rules {
        outcome: Outcome,
        reason: EndReason,
    },
    /// Adjudicated a draw at the ply limit.
    MaxPlies,
    Forfeit {
        engine: usize,
        forfeit: Forfeit,
        /// The engine's last `info string error`, which may say why.
        said: Option<String>,
    },
}

impl Ending {
    /// The reason of records: the game's own, `max-plies`, or the
    /// forfeit's.
    pub fn reason(&self) -> Reason {
        match self {
            Ending::Rules { reason, .. } => Reason::Rules(reason.to_string()),
            Ending::MaxPlies => Reason::MaxPlies,
            Ending::Forfeit { forfeit, .. } => Reason::Forfeit(forfeit.kind()),
        }
    }
}

/// Why a game ended, as records and reports name it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// By the game's rules or its draw rules: one of the game's end words
    /// (`tiger-trapped`, `no-progress`, ...).
    Rules(String),
    /// Adjudicated a draw at the ply limit.
    MaxPlies,
    Forfeit(ForfeitKind),
}

impl Reason {
    /// The reason of a record's word: `max-plies`, a forfeit's word, or
    /// else a word of the rules (which a replay checks against the game).
    pub fn from_word(word: &str) -> Option<Reason> {
        if word == "max-plies" {
            return Some(Reason::MaxPlies);
        }
        if let Some(kind) = ForfeitKind::from_word(word) {
            return Some(Reason::Forfeit(kind));
        }
        let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '-');
        plain.then(|| Reason::Rules(word.to_string()))
    }

    pub fn is_forfeit(&self) -> bool {
        matches!(self, Reason::Forfeit(_))
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Reason::Rules(word) => f.write_str(word),
            Reason::MaxPlies => f.write_str("max-plies"),
            Reason::Forfeit(kind) => kind.fmt(f),
        }
    }
}

/// A game's result for the match's first engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    FirstWins,
    SecondWins,
    Draw,
}

impl Score {
    /// From the points of each engine.
    pub fn of_points(points: [f64; 2]) -> Score {
        if points[0] > points[1] {
            Score::FirstWins
        } else if points[0] < points[1] {
            Score::SecondWins
        } else {
            Score::Draw
        }
    }

    /// Points of the first engine.
    pub fn points(self) -> f64 {
        match self {
            Score::FirstWins => 1.0,
            Score::SecondWins => 0.0,
            Score::Draw => 0.5,
        }
    }

    pub fn from_text(text: &str) -> Option<Score> {
        match text {
            "1-0" => Some(Score::FirstWins),
            "0-1" => Some(Score::SecondWins),
            "1/2-1/2" => Some(Score::Draw),
            _ => None,
        }
    }
}

impl fmt::Display for Score {
    /// `1-0`, `0-1` or `1/2-1/2`, as chess writes results.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Score::FirstWins => "1-0",
            Score::SecondWins => "0-1",
            Score::Draw => "1/2-1/2",
        })
    }
}

/// What an engine reported about one of its moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Thought {
    pub ms: u64,
    pub depth: Option<u32>,
    pub score: Option<ScoreText>,
}

/// What keeping the engine processes in step took in one game, beside
/// its result: the referee's own bookkeeping, not part of the record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Upkeep {
    /// Per engine: why its process is killed after this game (the next
    /// game starts it afresh), if it is.
    pub restart: [Option<Restart>; 2],
    /// Per engine: `bestmove` lines that answered no `go` of the game (a
    /// late answer, or a second one), ignored.
    pub strays: [u64; 2],
}

/// Why an engine process was started again.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Restart {
    /// A forfeit that leaves the process unusable (a crash, a stall,
    /// garbage, a flood, no start).
    Forfeit(ForfeitKind),
    /// Told to stop a search the referee gave up on, it did not answer
    /// with that search's `bestmove` by the deadline: what happened.
    NoAnswerToStop(String),
}

impl fmt::Display for Restart {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Restart::Forfeit(kind) => write!(f, "after a {kind} forfeit"),
            Restart::NoAnswerToStop(why) => write!(f, "no answer to stop ({why})"),
        }
    }
}

/// The engine processes' upkeep over a match run: restarts by reason,
/// and `bestmove` lines that answered no request (ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpkeepCounts {
    pub restarts: [std::collections::BTreeMap<String, u32>; 2],
    pub strays: [u64; 2],
}

impl UpkeepCounts {
    /// Adds one game's upkeep.
    pub fn add(&mut self, upkeep: &Upkeep) {
        for e in 0..2 {
            if let Some(why) = &upkeep.restart[e] {
                *self.restarts[e].entry(why.to_string()).or_default() += 1;
            }
            self.strays[e] += upkeep.strays[e];
        }
    }

    /// Restarts of engine `e`.
    pub fn restarts_of(&self, e: usize) -> u32 {
        self.restarts[e].values().sum()
    }
}
