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
    pub fn value(self, timeout: Wdl, left: u32) -> Probe {
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
        Probe { wdl, plies }
    }
}

/// A position's value from the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub wdl: Wdl,
    /// For a win or a loss: plies, under best play, to the capture or the
    /// end that settles it (the winner hastens it, the loser delays it);
    /// 0 for a draw.
    pub plies: u32,
}

impl Probe {
    /// The value for the side that moved into a position of this value,
    /// one ply earlier.
    pub fn for_mover(self) -> Probe {
        Probe {
            wdl: self.wdl.flipped(),
            plies: if self.wdl == Wdl::Draw {
                0
            } else {
                self.plies + 1
            },
        }
    }

    /// Whether `self` is better than `other` for the side to move: wins
    /// beat draws beat losses; sooner wins and later losses are better.
    pub fn better_than(self, other: Probe) -> bool {
        let rank = |p: Probe| match p.wdl {
            Wdl::Win => (2, -i64::from(p.plies)),
            Wdl::Draw => (1, 0),
            Wdl::Loss => (0, i64::from(p.plies)),
        };
        rank(self) > rank(other)
    }
}

impl fmt::Display for Probe {
    /// `win N` or `loss N`, N in moves of the side to move up to the
    /// settling capture (as the solved tables of other games count moves
    /// to the end), or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.wdl {
            Wdl::Win => write!(f, "win {}", self.plies.div_ceil(2)),
            Wdl::Loss => write!(f, "loss {}", self.plies / 2),
            Wdl::Draw => f.write_str("draw"),
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
        assert_eq!(e.value(Wdl::Draw, 6).wdl, Wdl::Draw);
        assert_eq!(
            e.value(Wdl::Draw, 7),
            Probe {
                wdl: Wdl::Win,
                plies: 7
            }
        );
        let e = Entry {
            first: 3,
            second: 9,
        };
        assert_eq!(
            e.value(Wdl::Win, 2),
            Probe {
                wdl: Wdl::Win,
                plies: 2
            }
        );
        assert_eq!(e.value(Wdl::Win, 3).wdl, Wdl::Draw);
        assert_eq!(
            e.value(Wdl::Win, 9),
            Probe {
                wdl: Wdl::Loss,
                plies: 9
            }
        );
        assert_eq!(e.value(Wdl::Loss, 2).wdl, Wdl::Loss);
        assert_eq!(e.value(Wdl::Loss, 3).wdl, Wdl::Win);
    }
}
