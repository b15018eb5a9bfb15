//! What a game gives a learned evaluation: its positions as sparse binary
//! inputs, seen from the side to move, and which seat each of the
//! network's value heads speaks for.
//!
//! The game chooses its own inputs (as it chooses its numbering for the
//! tables): it knows its board's symmetries, so it can turn every
//! position to the mover's view and let one set of weights learn for every
//! seat. The network file names the input set it was trained on
//! ([`InputSet`]), so that a network of an older set is refused, not
//! misread.

use super::Seat;

/// Most inputs a position can have on at once (Kilkenny Cats: 32 cats,
/// a roll, the seats in play and five measures of each).
pub const MAX_ACTIVE: usize = 64;

/// A game's input set: its name (with a version: a new set is a new name),
/// the number of inputs, and how many value heads a network has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputSet {
    pub name: &'static str,
    pub inputs: usize,
    /// 1: one value, the side to move's expected score (two seats, no
    /// draws between more). More: one value per seat, the heads in turn
    /// order from the side to move, each the probability that its seat
    /// wins (they sum to one over the seats in play).
    pub heads: usize,
    /// Ruleset options the inputs tell apart, so that one network serves
    /// all their values (Kilkenny Cats' `players`); a network serves a
    /// ruleset only when every other option is the one it was trained on.
    pub covers: &'static [&'static str],
    /// How many move keys a policy head has ([`super::Game::policy_keys`]):
    /// 0 where the game gives its moves none.
    pub moves: usize,
}

/// A move as a policy head sees it: up to two keys below
/// [`InputSet::moves`] (as a move's origin and its destination), the
/// move's logit the sum of theirs; [`NO_KEY`] in an unused slot.
pub type MoveKeys = [u16; 2];
/// An unused slot of [`MoveKeys`].
pub const NO_KEY: u16 = u16::MAX;

/// The inputs that are on in one position, in ascending order: a fixed
/// array, so that the search fills one without allocating.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Inputs {
    len: u8,
    list: [u16; MAX_ACTIVE],
}

impl Default for Inputs {
    fn default() -> Inputs {
        Inputs::new()
    }
}

impl std::fmt::Debug for Inputs {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Inputs {
    pub const fn new() -> Inputs {
        Inputs {
            len: 0,
            list: [0; MAX_ACTIVE],
        }
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Turns input `index` on. A game pushes in any order and calls
    /// [`Inputs::finish`] once.
    ///
    /// # Panics
    /// Past [`MAX_ACTIVE`] inputs: a game's input set must bound them.
    #[inline]
    pub fn push(&mut self, index: usize) {
        self.list[self.len as usize] = index as u16;
        self.len += 1;
    }

    /// Sorts the inputs, so that two positions' lists can be compared in
    /// one pass (the search updates a network's first layer by the
    /// difference).
    pub fn finish(&mut self) {
        self.list[..self.len as usize].sort_unstable();
    }

    pub fn as_slice(&self) -> &[u16] {
        &self.list[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The seat a head speaks for when heads go in turn order from the side
/// to move over every seat of the game's geometry (`seats_in_geometry`),
/// or `None` when that seat is not in play.
pub fn head_seat_in_turn(
    side: Seat,
    head: usize,
    seats_in_geometry: usize,
    in_play: &[Seat],
) -> Option<Seat> {
    let seat = ((side as usize + head) % seats_in_geometry) as Seat;
    in_play.contains(&seat).then_some(seat)
}
