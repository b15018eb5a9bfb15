//! What a game whose captures only remove men gives endgame tables.
//!
//! Such a game's positions fall into material slices: the men of the side
//! to move and the men of the other side. A capture leads into a smaller
//! slice, any other move into the same men with the sides swapped, so the
//! tables of a slice and of its mirror are built together, reading only
//! the tables of fewer men (checkers and Fanorona databases are built the
//! same way). The game numbers the positions of a slice itself (it knows
//! its board's symmetries); the builder and the prober only see numbers.

use std::fmt;
use std::str::FromStr;

use super::Game;

/// Kinds of piece a slice counts; a game with one kind uses the first.
pub const KINDS: usize = 2;

/// The pieces of one side in a slice, by kind (pieces every position has,
/// as Safari-Dual's lions, are not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Army(pub [u8; KINDS]);

impl Army {
    pub fn total(self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }

    /// Every kind at most as many as in `other`.
    pub fn within(self, other: Army) -> bool {
        self.0.iter().zip(other.0).all(|(&a, b)| a <= b)
    }

    /// The armies a capture may leave of this one: each kind at most as
    /// many, at least one piece fewer in all.
    pub fn after_losses(self) -> Vec<Army> {
        let mut out = Vec::new();
        for first in 0..=self.0[0] {
            for second in 0..=self.0[1] {
                let left = Army([first, second]);
                if left != self {
                    out.push(left);
                }
            }
        }
        out
    }
}

impl fmt::Display for Army {
    /// The counts by kind, joined by `+`, trailing zeros left out: `4`,
    /// `2+1`, `0+3`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let shown = self
            .0
            .iter()
            .rposition(|&n| n != 0)
            .map_or(1, |last| last + 1);
        for (k, n) in self.0[..shown].iter().enumerate() {
            if k > 0 {
                f.write_str("+")?;
            }
            write!(f, "{n}")?;
        }
        Ok(())
    }
}

/// The pieces of the side to move, and of the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slice {
    pub mover: Army,
    pub other: Army,
}

impl Slice {
    /// A slice of a game with one kind of piece.
    pub const fn new(mover: u8, other: u8) -> Slice {
        Slice {
            mover: Army([mover, 0]),
            other: Army([other, 0]),
        }
    }

    pub const fn of(mover: Army, other: Army) -> Slice {
        Slice { mover, other }
    }

    /// Pieces counted in the slice, both sides.
    pub fn men(self) -> u32 {
        self.mover.total() + self.other.total()
    }

    /// The slice after a move that captures nothing: the same men, the
    /// other side to move.
    pub fn swapped(self) -> Slice {
        Slice::of(self.other, self.mover)
    }

    /// The slice's pair: the slice or its mirror, whichever is first in
    /// order (the side to move having more pieces, for one kind).
    pub fn pair(self) -> Slice {
        self.max(self.swapped())
    }

    /// The pair's slices: the slice and, unless it is its own mirror,
    /// the mirror.
    pub fn members(self) -> Vec<Slice> {
        if self.mover == self.other {
            vec![self]
        } else {
            vec![self, self.swapped()]
        }
    }
}

impl fmt::Display for Slice {
    /// `4v3`: four men for the side to move against three; `2+1v1+2`:
    /// two of the first kind and one of the second against one and two.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}v{}", self.mover, self.other)
    }
}

/// Why a slice's name cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSyntaxError;

impl fmt::Display for SliceSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a slice is written MvO, as 4v3, or with counts by kind, as 2+1v1+2")
    }
}

impl FromStr for Slice {
    type Err = SliceSyntaxError;

    /// The inverse of `Display`: `4v3`, `2+1v1+2`.
    fn from_str(text: &str) -> Result<Slice, SliceSyntaxError> {
        let army = |side: &str| {
            let mut counts = [0u8; KINDS];
            let mut parts = side.split('+');
            for count in &mut counts {
                if let Some(part) = parts.next() {
                    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    *count = part.parse().ok()?;
                }
            }
            parts.next().is_none().then_some(Army(counts))
        };
        let (mover, other) = text.split_once(['v', 'V']).ok_or(SliceSyntaxError)?;
        let slice = Slice::of(
            army(mover).ok_or(SliceSyntaxError)?,
            army(other).ok_or(SliceSyntaxError)?,
        );
        // One way of writing each slice: the name of a file is the slice.
        (slice.to_string().eq_ignore_ascii_case(text))
            .then_some(slice)
            .ok_or(SliceSyntaxError)
    }
}

/// Where a position sits in its game's tables, clock aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableKey {
    /// The name of the ruleset's tables: rulesets whose values can differ
    /// have different names.
    pub variant: &'static str,
    pub slice: Slice,
    /// The position's number in its slice, the same for every position
    /// equal to it up to the board's symmetries and the colours.
    pub index: u64,
}

/// The numbering of a game's positions, for building its tables.
pub struct Endgame<G: Game> {
    /// The pairs of slices whose positions have up to this many pieces
    /// (those every position has included), one slice of each pair as
    /// [`Slice::pair`] gives it, each after the pairs its captures lead
    /// into.
    pub pairs: fn(u32) -> Vec<Slice>,
    /// The smaller slices the captures of a slice and its mirror lead
    /// into.
    pub dependencies: fn(Slice) -> Vec<Slice>,
    /// Pieces on the board in every position besides those its slice
    /// counts (Safari-Dual's two lions).
    pub fixed_men: u32,
    /// The tables' name of a ruleset, as in [`TableKey::variant`].
    pub variant: fn(&G::Rules) -> &'static str,
    /// How many numbers the slice's positions use.
    pub slice_size: fn(Slice) -> u64,
    /// The position numbered `index` in `slice`, its first side to move and
    /// its clock 0; `None` for a number that is not the one
    /// [`Game::table_key`] gives its position (a symmetric duplicate).
    pub position: fn(&G::Rules, Slice, u64) -> Option<G>,
    /// Appends every position from which one move that captures nothing
    /// leads here (each at least once; repeats are allowed).
    pub unmoves: fn(&G, &mut Vec<G>),
}

/// The pairs of a game with one kind of piece and up to `max_side` men
/// a side: by total men, the side to move having at least as many.
pub fn one_kind_pairs(max_side: u8, men: u32) -> Vec<Slice> {
    let mut pairs = Vec::new();
    for total in 2..=men {
        for mover in (1..total).rev() {
            let other = total - mover;
            if mover >= other && mover <= u32::from(max_side) {
                pairs.push(Slice::new(mover as u8, other as u8));
            }
        }
    }
    pairs
}

/// The slices the captures of a pair lead into, where a capture takes
/// pieces of the side that did not move and the other side then moves.
/// A side left with fewer than `least` counted pieces has lost: the game
/// is decided there, in no slice.
pub fn capture_dependencies(pair: Slice, least: u32) -> Vec<Slice> {
    let mut needed = Vec::new();
    for s in pair.members() {
        for left in s.other.after_losses() {
            if left.total() >= least {
                needed.push(Slice::of(left, s.mover));
            }
        }
    }
    needed.sort();
    needed.dedup();
    needed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_names_round_trip_one_way_each() {
        for mover in 0..4u8 {
            for second in 0..4u8 {
                for other in 0..4u8 {
                    let slice = Slice::of(Army([mover, second]), Army([other, 3 - second]));
                    let name = slice.to_string();
                    assert_eq!(name.parse::<Slice>(), Ok(slice), "{name}");
                }
            }
        }
        assert_eq!(Slice::new(4, 3).to_string(), "4v3");
        assert_eq!(Slice::of(Army([2, 1]), Army([0, 2])).to_string(), "2+1v0+2");
        // Another spelling of a slice is no name of it: one file per slice.
        for bad in [
            "4+0v3", "2+v1", "v3", "4v3v2", "1+2+3v1", "x v1", "-1v2", "4",
        ] {
            assert_eq!(bad.parse::<Slice>(), Err(SliceSyntaxError), "{bad}");
        }
    }

    #[test]
    fn one_kind_slices_keep_their_order_and_dependencies() {
        // The order Awithlaknannai Mosona's tables have always been built in.
        let pairs: Vec<String> = one_kind_pairs(12, 5).iter().map(Slice::to_string).collect();
        assert_eq!(pairs, ["1v1", "2v1", "3v1", "2v2", "4v1", "3v2"]);
        let needed: Vec<String> = capture_dependencies(Slice::new(3, 2), 1)
            .iter()
            .map(Slice::to_string)
            .collect();
        assert_eq!(needed, ["1v2", "1v3", "2v2"]);
        // With pieces every position has, a side may lose all it counts.
        let needed: Vec<String> = capture_dependencies(Slice::of(Army([1, 1]), Army([1, 0])), 0)
            .iter()
            .map(Slice::to_string)
            .collect();
        assert_eq!(needed, ["0v1", "0v1+1", "0+1v1", "1v1"]);
    }
}
