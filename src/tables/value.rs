//! What a table keeps of a position, and what it means.
//!
//! A position's value depends on its no-progress clock: with fewer plies
//! left before the game ends without a capture, a side may no longer have
//! time to force one. For a side that the end by the clock does not
//! satisfy, "this side reaches at least this result" is true from some
//! number of remaining plies on (more time never hurts the side that
//! needs it). So two thresholds per position give its value at every
//! clock; the slice's result at the end by the clock says how to read
//! them. A threshold is also the distance, in plies, to the capture (or
//! end) that settles it: the Syzygy tables' distance to zeroing.

use std::fmt;

use menagerie_rules::game::{Game, Outcome};

/// A result for the side to move, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl Wdl {
    /// The same result seen by the other side.
    pub fn flipped(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The result for the side to move of `position` of an outcome.
    pub fn of_outcome<G: Game>(outcome: Outcome, position: &G) -> Wdl {
        match outcome {
            Outcome::Draw => Wdl::Draw,
            Outcome::Win(seat) if seat == position.side() => Wdl::Win,
            Outcome::Win(_) => Wdl::Loss,
        }
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<Wdl> {
        [Wdl::Loss, Wdl::Draw, Wdl::Win].get(code as usize).copied()
    }
}

/// A threshold that is never reached within the clock.
pub const NEVER: u8 = u8::MAX;

/// A position's two thresholds, in plies left on the no-progress clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub first: u8,
    pub second: u8,
}

impl Entry {
    pub const UNUSED: Entry = Entry {
        first: NEVER,
        second: NEVER,
    };

    /// The value for the side to move with `left` plies before the clock
    /// ends the game, in a slice where that end gives the side to move
    /// `timeout`:
    /// - timeout a draw: a win from `first` plies on, a loss from
    ///   `second` on;
    /// - timeout a win: a loss from `second` on, else a draw from `first`
    ///   on, else a win (the clock ends it);
    /// - timeout a loss: a win from `first` on, else a draw from `second`
    ///   on, else a loss.
    pub fn value(self, timeout: Wdl, left: u32) -> Value {
        let reached = |t: u8| t != NEVER && left >= u32::from(t);
        let (wdl, plies) = match timeout {
            Wdl::Draw if reached(self.first) => (Wdl::Win, u32::from(self.first)),
            Wdl::Draw if reached(self.second) => (Wdl::Loss, u32::from(self.second)),
            Wdl::Draw => (Wdl::Draw, 0),
            Wdl::Win if reached(self.second) => (Wdl::Loss, u32::from(self.second)),
            Wdl::Win if reached(self.first) => (Wdl::Draw, 0),
            Wdl::Win => (Wdl::Win, left),
            Wdl::Loss if reached(self.first) => (Wdl::Win, u32::from(self.first)),
            Wdl::Loss if reached(self.second) => (Wdl::Draw, 0),
            Wdl::Loss => (Wdl::Loss, left),
        };
        Value::with(wdl, plies)
    }
}

/// An exact value for the side to move, whichever layer knew it (the
/// rules, a solved game, an endgame table, a proof): a win or a loss with
/// its distance in plies, or a draw.
///
/// The distance is to the end of the game for a solved game and to the
/// capture (or end) that settles it for an endgame table (the Syzygy
/// tables' distance to zeroing); either way the winner hastens it and
/// the loser delays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win(u32),
    Loss(u32),
    Draw,
}

impl Value {
    /// The value of a position the rules have decided.
    pub fn of_outcome<G: Game>(outcome: Outcome, position: &G) -> Value {
        Value::with(Wdl::of_outcome(outcome, position), 0)
    }

    /// `wdl` at `plies` (the plies of a draw are dropped).
    pub fn with(wdl: Wdl, plies: u32) -> Value {
        match wdl {
            Wdl::Win => Value::Win(plies),
            Wdl::Loss => Value::Loss(plies),
            Wdl::Draw => Value::Draw,
        }
    }

    pub fn wdl(self) -> Wdl {
        match self {
            Value::Win(_) => Wdl::Win,
            Value::Loss(_) => Wdl::Loss,
            Value::Draw => Wdl::Draw,
        }
    }

    /// Plies to the end or settling capture; 0 for a draw.
    pub fn plies(self) -> u32 {
        match self {
            Value::Win(d) | Value::Loss(d) => d,
            Value::Draw => 0,
        }
    }

    /// The value for the side that moved into a position of this value,
    /// one ply earlier.
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Whether `self` is better than `other` for the side to move: wins
    /// beat draws beat losses; sooner wins and later losses are better.
    pub fn better_than(self, other: Value) -> bool {
        fn rank(v: Value) -> (i32, i64) {
            match v {
                Value::Win(d) => (2, -i64::from(d)),
                Value::Draw => (1, 0),
                Value::Loss(d) => (0, i64::from(d)),
            }
        }
        rank(self) > rank(other)
    }

    /// In the protocol's terms: moves of the side to move.
    pub fn moves(self) -> Option<u32> {
        match self {
            Value::Win(d) => Some(d.div_ceil(2)),
            Value::Loss(d) => Some(d / 2),
            Value::Draw => None,
        }
    }
}

impl fmt::Display for Value {
    /// `win N` or `loss N`, N in moves of the side to move, or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Win(_) => write!(f, "win {}", self.moves().unwrap_or(0)),
            Value::Loss(_) => write!(f, "loss {}", self.moves().unwrap_or(0)),
            Value::Draw => f.write_str("draw"),
        }
    }
}

/// Plies left on the clock of `position` before the game ends by it.
pub fn plies_left<G: Game>(position: &G) -> u32 {
    G::NO_PROGRESS_LIMIT.saturating_sub(position.clock())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_read_by_the_timeout() {
        let e = Entry {
            first: 7,
            second: NEVER,
        };
        assert_eq!(e.value(Wdl::Draw, 6).wdl(), Wdl::Draw);
        assert_eq!(e.value(Wdl::Draw, 7), Value::Win(7));
        let e = Entry {
            first: 3,
            second: 9,
        };
        assert_eq!(e.value(Wdl::Win, 2), Value::Win(2));
        assert_eq!(e.value(Wdl::Win, 3).wdl(), Wdl::Draw);
        assert_eq!(e.value(Wdl::Win, 9), Value::Loss(9));
        assert_eq!(e.value(Wdl::Loss, 2).wdl(), Wdl::Loss);
        assert_eq!(e.value(Wdl::Loss, 3).wdl(), Wdl::Win);
    }
}
