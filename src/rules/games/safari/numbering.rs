//! Numbering Safari-Dual's positions for endgame tables.
//!
//! Both lions are on the board in every position a table holds (taking
//! one ends the game), so a slice counts each side's elephants and
//! giraffes (`2+1v1+2`: two elephants and a giraffe to move against an
//! elephant and two giraffes), and the lions come first in the number.
//!
//! A position is numbered from its side to move: when Angular is to move
//! the board is turned half round and the colours swapped, which the rules
//! cannot tell apart (both sides' pieces move and capture alike, and each
//! lion's base turns into the other's). The side to move's base is then
//! a1. Reflecting the board in the a1-e5 diagonal keeps both bases, so a
//! position and its reflection share a number: the lions' squares are
//! numbered among the pairs that are the smaller of their reflection, and
//! only where both lions stand on the diagonal (their pair its own
//! reflection) are both images numbered and the smaller kept, the other
//! number left unused ([`position`] refuses it).
//!
//! After the lions, the side to move's elephants, its giraffes, the other
//! side's elephants and giraffes are each ranked among the squares left.

use super::{Kind, Piece, Safari, ANGULAR, BASES, NEIGHBOURS, NONE, ROUND, SQUARES};
use crate::bits::{ones, rank_within, unrank_within, BINOMIAL};
use crate::game::endgame::{capture_dependencies, Army, Endgame, Slice, TableKey};

const ALL: u32 = (1 << SQUARES) - 1;
/// Most elephants and giraffes of each side.
const ROUND_ARMY: Army = Army([3, 2]);
const ANGULAR_ARMY: Army = Army([2, 3]);
/// Pairs of lion squares that are the smaller of their reflection.
const LION_PAIRS: usize = 310;

/// The square half round from `s`: a1 and e5 change places.
const fn turned(s: usize) -> usize {
    SQUARES - 1 - s
}

/// The square mirrored in the a1-e5 diagonal: files and ranks swap.
const fn reflected(s: usize) -> usize {
    (s % 5) * 5 + s / 5
}

fn mask_image(mask: u32, image: fn(usize) -> usize) -> u32 {
    ones(mask).fold(0, |m, s| m | 1 << image(usize::from(s)))
}

/// The lions' pairs (the side to move's square, the other's) that are the
/// smaller of their reflection, in order, and each one's rank.
struct LionPairs {
    pairs: [(u8, u8); LION_PAIRS],
    rank: [[u16; SQUARES]; SQUARES],
}

static LIONS: LionPairs = {
    let mut table = LionPairs {
        pairs: [(0, 0); LION_PAIRS],
        rank: [[u16::MAX; SQUARES]; SQUARES],
    };
    let mut n = 0;
    let mut mine = 0;
    while mine < SQUARES {
        let mut theirs = 0;
        while theirs < SQUARES {
            let image = (reflected(mine), reflected(theirs));
            let smaller = mine < image.0 || (mine == image.0 && theirs <= image.1);
            if mine != theirs && smaller {
                table.pairs[n] = (mine as u8, theirs as u8);
                table.rank[mine][theirs] = n as u16;
                n += 1;
            }
            theirs += 1;
        }
        mine += 1;
    }
    assert!(n == LION_PAIRS);
    table
};

/// A position seen from its side to move, whose base is a1: the lions'
/// squares, then the elephants and giraffes of each side as masks (the
/// side to move first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct View {
    lions: [usize; 2],
    men: [[u32; 2]; 2],
}

impl View {
    /// `None` without both lions.
    fn of(position: &Safari) -> Option<View> {
        let me = position.side as usize;
        let lions = [position.lions[me], position.lions[1 - me]];
        if lions.contains(&NONE) {
            return None;
        }
        let mut view = View {
            lions: lions.map(usize::from),
            men: [[0; 2]; 2],
        };
        for (s, cell) in position.board.iter().enumerate() {
            if let Some(piece) = cell {
                let kind = match piece.kind {
                    Kind::Lion => continue,
                    Kind::Elephant => 0,
                    Kind::Giraffe => 1,
                };
                view.men[usize::from(piece.owner != position.side)][kind] |= 1 << s;
            }
        }
        Some(if position.side == ANGULAR {
            view.image(turned)
        } else {
            view
        })
    }

    fn image(self, image: fn(usize) -> usize) -> View {
        View {
            lions: self.lions.map(image),
            men: self
                .men
                .map(|side| side.map(|mask| mask_image(mask, image))),
        }
    }

    fn slice(&self) -> Slice {
        let army = |side: [u32; 2]| Army(side.map(|mask| mask.count_ones() as u8));
        Slice::of(army(self.men[0]), army(self.men[1]))
    }

    /// The number of this image, if its lions' pair is a ranked one.
    fn number(&self) -> Option<u64> {
        let rank = LIONS.rank[self.lions[0]][self.lions[1]];
        if rank == u16::MAX {
            return None;
        }
        let mut free = ALL & !(1 << self.lions[0] | 1 << self.lions[1]);
        let mut index = u64::from(rank);
        for mask in self.men.iter().flatten() {
            let radix = BINOMIAL[free.count_ones() as usize][mask.count_ones() as usize];
            index = index * radix + rank_within(free, *mask);
            free &= !mask;
        }
        Some(index)
    }

    /// The position's number: the smaller of its image's and its
    /// reflection's that exist.
    fn key(&self) -> u64 {
        [self.number(), self.image(reflected).number()]
            .into_iter()
            .flatten()
            .min()
            .expect("a pair of lions or its reflection is ranked")
    }
}

/// Whether some colouring of the slice fits the pieces each side starts
/// with.
fn possible(slice: Slice) -> bool {
    let fits = |mover: Army, other: Army| slice.mover.within(mover) && slice.other.within(other);
    fits(ROUND_ARMY, ANGULAR_ARMY) || fits(ANGULAR_ARMY, ROUND_ARMY)
}

/// Numbers the men take after the lions: each kind in turn ranked among
/// the squares left.
fn per_lion_pair(slice: Slice) -> u64 {
    let mut free = SQUARES - 2;
    let mut count = 1;
    for n in slice.mover.0.into_iter().chain(slice.other.0) {
        count *= BINOMIAL[free][usize::from(n)];
        free -= usize::from(n);
    }
    count
}

fn slice_size(slice: Slice) -> u64 {
    if possible(slice) {
        LION_PAIRS as u64 * per_lion_pair(slice)
    } else {
        0
    }
}

fn position(_: &(), slice: Slice, index: u64) -> Option<Safari> {
    if index >= slice_size(slice) {
        return None;
    }
    let per = per_lion_pair(slice);
    let (mine, theirs) = LIONS.pairs[(index / per) as usize];
    let mut rest = index % per;
    let counts: Vec<usize> = slice
        .mover
        .0
        .into_iter()
        .chain(slice.other.0)
        .map(usize::from)
        .collect();
    // Mixed radix, the last kind least significant.
    let mut free = ALL & !(1 << mine | 1 << theirs);
    let mut radices = [0u64; 4];
    for (k, &n) in counts.iter().enumerate() {
        radices[k] = BINOMIAL[free.count_ones() as usize - counts[..k].iter().sum::<usize>()][n];
    }
    let mut ranks = [0u64; 4];
    for k in (0..4).rev() {
        ranks[k] = rest % radices[k];
        rest /= radices[k];
    }
    let mut men = [[0u32; 2]; 2];
    for (k, &n) in counts.iter().enumerate() {
        let mask = unrank_within(free, n, ranks[k]);
        men[k / 2][k % 2] = mask;
        free &= !mask;
    }
    let view = View {
        lions: [usize::from(mine), usize::from(theirs)],
        men,
    };
    // Both lions on the enemy's base: no game gets there.
    let both_won = view.lions == [BASES[1], BASES[0]];
    if both_won || view.key() != index {
        return None;
    }
    // Coloured as a game can have it: the side to move Round if its
    // pieces fit Round's, else Angular, the board turned back.
    let round_to_move = slice.mover.within(ROUND_ARMY) && slice.other.within(ANGULAR_ARMY);
    let (side, view) = if round_to_move {
        (ROUND, view)
    } else {
        (ANGULAR, view.image(turned))
    };
    Some(Safari::with_view(side, &view))
}

impl Safari {
    fn with_view(side: u8, view: &View) -> Safari {
        let mut p = Safari {
            board: [None; SQUARES],
            occupied: [0; 2],
            lions: [NONE; 2],
            side,
            clock: 0,
            hash: 0,
        };
        for (k, owner) in [side, 1 - side].into_iter().enumerate() {
            p.put(
                view.lions[k],
                Piece {
                    owner,
                    kind: Kind::Lion,
                },
            );
            for (mask, kind) in view.men[k].into_iter().zip([Kind::Elephant, Kind::Giraffe]) {
                for s in ones(mask) {
                    p.put(usize::from(s), Piece { owner, kind });
                }
            }
        }
        p.hash = p.compute_hash();
        p
    }

    pub(super) fn key(&self) -> Option<TableKey> {
        let view = View::of(self)?;
        let slice = view.slice();
        possible(slice).then(|| TableKey {
            variant: VARIANT,
            slice,
            index: view.key(),
        })
    }

    pub(super) fn slice_of(&self) -> Option<Slice> {
        if self.lions.contains(&NONE) {
            return None;
        }
        let mut armies = [Army::default(); 2];
        for piece in self.board.iter().flatten() {
            if piece.kind != Kind::Lion {
                let side = usize::from(piece.owner != self.side);
                armies[side].0[usize::from(piece.kind == Kind::Giraffe)] += 1;
            }
        }
        let slice = Slice::of(armies[0], armies[1]);
        possible(slice).then_some(slice)
    }
}

/// Positions one step before `after`: a piece of the side that just moved
/// goes back to an empty neighbour, where that step was legal (the base
/// rules) and took nothing.
fn unmoves(after: &Safari, out: &mut Vec<Safari>) {
    let mover = 1 - after.side;
    let empty = after.empty();
    for to in ones(after.occupied[mover as usize]) {
        // No step that takes nothing ends on its own side's base: closed
        // once the lion has left, and the lion's while it is there.
        if usize::from(to) == BASES[mover as usize] {
            continue;
        }
        for from in ones(NEIGHBOURS[usize::from(to)] & empty) {
            let mut before = after.clone();
            let piece = before.take(usize::from(to));
            before.put(usize::from(from), piece);
            before.side = mover;
            before.hash = before.compute_hash();
            let step = super::SafariMove { from, to };
            if before.decided().is_some() || before.is_capturing(step) {
                continue;
            }
            // A lion that must leave its base moves first, if it can.
            let base = BASES[mover as usize];
            if before.lion_must_leave()
                && usize::from(from) != base
                && NEIGHBOURS[base] & before.empty() != 0
            {
                continue;
            }
            out.push(before);
        }
    }
}

/// Every pair of slices of up to `men` pieces (the two lions counted).
fn pairs(men: u32) -> Vec<Slice> {
    let mut pairs = Vec::new();
    let (r, a) = (ROUND_ARMY.0, ANGULAR_ARMY.0);
    for elephants in 0..=r[0] {
        for giraffes in 0..=r[1] {
            for their_elephants in 0..=a[0] {
                for their_giraffes in 0..=a[1] {
                    let slice = Slice::of(
                        Army([elephants, giraffes]),
                        Army([their_elephants, their_giraffes]),
                    );
                    if slice.men() + 2 <= men {
                        pairs.push(slice.pair());
                    }
                }
            }
        }
    }
    pairs.sort_by_key(|&s| (s.men(), s));
    pairs.dedup();
    pairs
}

/// A side with no elephant or giraffe still has its lion.
fn dependencies(pair: Slice) -> Vec<Slice> {
    capture_dependencies(pair, 0)
}

/// Safari-Dual has one ruleset.
const VARIANT: &str = "standard";

pub(super) fn endgame() -> Endgame<Safari> {
    Endgame {
        pairs,
        dependencies,
        fixed_men: 2,
        variant: |_| VARIANT,
        slice_size,
        position,
        unmoves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    fn slice(mover: [u8; 2], other: [u8; 2]) -> Slice {
        Slice::of(Army(mover), Army(other))
    }

    /// The same position under each symmetry of the rules: reflected in
    /// the diagonal, turned with the colours swapped, and both.
    fn images(p: &Safari) -> Vec<Safari> {
        let mut out = Vec::new();
        for (turn, reflect) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut q = Safari::with_view(
                ROUND,
                &View {
                    lions: [0, 1],
                    men: [[0; 2]; 2],
                },
            );
            q.board = [None; SQUARES];
            q.occupied = [0; 2];
            q.lions = [NONE; 2];
            q.side = if turn { 1 - p.side } else { p.side };
            for (s, cell) in p.board.iter().enumerate() {
                if let Some(piece) = cell {
                    let mut to = if reflect { reflected(s) } else { s };
                    let mut owner = piece.owner;
                    if turn {
                        to = turned(to);
                        owner = 1 - owner;
                    }
                    q.put(
                        to,
                        Piece {
                            owner,
                            kind: piece.kind,
                        },
                    );
                }
            }
            q.hash = q.compute_hash();
            out.push(q);
        }
        out
    }

    #[test]
    fn numbers_round_trip_and_ignore_the_symmetries() {
        for slice in [
            slice([1, 0], [0, 1]),
            slice([0, 0], [0, 0]),
            slice([1, 1], [1, 0]),
        ] {
            let mut valid = 0u64;
            for index in 0..slice_size(slice) {
                let Some(p) = position(&(), slice, index) else {
                    continue;
                };
                valid += 1;
                let key = p.table_key().expect("a numbered position has a key");
                assert_eq!((key.slice, key.index), (slice, index), "{p}");
                assert_eq!(p.table_slice(), Some(slice));
                // It prints as the notation every game reads back.
                assert_eq!(Safari::from_notation(&(), &p.to_string()).unwrap(), p);
                for q in images(&p) {
                    assert_eq!(q.table_key(), Some(key), "{q} is an image of {p}");
                }
            }
            // Each position once up to the reflection: about half of all
            // placements, a little more for the diagonal's.
            let all = 600 * per_lion_pair(slice);
            assert!(
                valid * 2 >= all - 2 * per_lion_pair(slice)
                    && valid * 2 <= all + 40 * per_lion_pair(slice),
                "{slice}: {valid} of {all}"
            );
        }
    }

    #[test]
    fn slices_fit_the_pieces_each_side_starts_with() {
        assert_eq!(
            slice_size(slice([3, 2], [2, 3])),
            LION_PAIRS as u64 * per_lion_pair(slice([3, 2], [2, 3]))
        );
        assert_eq!(slice_size(slice([3, 0], [3, 0])), 0);
        assert_eq!(slice_size(slice([0, 3], [0, 3])), 0);
        let start = Safari::start(&());
        assert_eq!(start.table_slice(), Some(slice([3, 2], [2, 3])));
        // Pairs up to the whole game, each built after what it reads.
        let all = pairs(12);
        for (i, &pair) in all.iter().enumerate() {
            assert_eq!(pair, pair.pair());
            for needed in dependencies(pair) {
                assert!(
                    all[..i].contains(&needed.pair()),
                    "{pair} reads {needed}, built later"
                );
            }
        }
        assert_eq!(pairs(2), [slice([0, 0], [0, 0])]);
        assert_eq!(all.last(), Some(&slice([3, 2], [2, 3])));
    }

    /// Steps back are exactly the steps that took nothing: every position
    /// an unmove gives steps to the one after, and every such step of a
    /// position is found again from where it leads.
    #[test]
    fn unmoves_are_exactly_the_steps_back() {
        let mut moves = Vec::new();
        let mut before = Vec::new();
        let mut checked = 0;
        // Forced lions among them: a side with two pieces has lost three.
        for slice in [
            slice([1, 1], [1, 1]),
            slice([2, 0], [0, 1]),
            slice([0, 1], [2, 1]),
        ] {
            let step = (slice_size(slice) / 3000).max(1) as usize;
            for index in (0..slice_size(slice)).step_by(step) {
                let Some(p) = position(&(), slice, index) else {
                    continue;
                };
                moves.clear();
                p.generate(&mut moves);
                for &mv in &moves {
                    if p.is_capture(mv) {
                        continue;
                    }
                    let mut after = p.clone();
                    after.play(mv);
                    after.clock = 0;
                    before.clear();
                    unmoves(&after, &mut before);
                    assert!(
                        before
                            .iter()
                            .any(|b| b.board == p.board && b.side == p.side),
                        "{p}: {mv} not found back from {after}"
                    );
                    for b in &before {
                        let mut steps = Vec::new();
                        b.generate(&mut steps);
                        let reaches = steps.iter().any(|&m| {
                            let mut c = b.clone();
                            c.play(m);
                            !b.is_capture(m) && c.board == after.board
                        });
                        assert!(reaches, "{b} does not step to {after}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
