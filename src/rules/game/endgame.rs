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

use super::Game;

/// Men of the side to move, and men of the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slice {
    pub mover: u8,
    pub other: u8,
}

impl Slice {
    pub const fn new(mover: u8, other: u8) -> Slice {
        Slice { mover, other }
    }

    pub fn men(self) -> u32 {
        u32::from(self.mover) + u32::from(self.other)
    }

    /// The slice after a move that captures nothing: the same men, the
    /// other side to move.
    pub fn swapped(self) -> Slice {
        Slice::new(self.other, self.mover)
    }
}

impl fmt::Display for Slice {
    /// `4v3`: four men for the side to move against three.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}v{}", self.mover, self.other)
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
    /// Most men one side has.
    pub max_side: u8,
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
