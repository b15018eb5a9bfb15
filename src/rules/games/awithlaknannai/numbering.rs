//! Numbering the positions of Awithlaknannai Mosona for endgame tables.
//!
//! A position is numbered from the side to move's men ("own") and the
//! other side's ("enemy"); the colours do not matter, as the rules treat
//! both sides alike (pieces move in every direction). The board has four
//! symmetries: the identity, the left-right mirror, the top-bottom mirror
//! and both. A position is first turned by the symmetry that makes its own
//! men the smallest mask (ties broken by the enemy's mask); its own men
//! are then numbered among the masks that are the smallest of their
//! orbit, and its enemy men by combinatorial rank among the points left.
//! Only positions whose own men are symmetric in themselves keep
//! duplicate numbers, which [`position`] refuses.

use std::sync::OnceLock;

use super::{geometry_for, AwRules, Awithlaknannai, ALL, POINTS, WHITE};
use crate::bits::{ones as bits, rank_within, unrank_within, BINOMIAL};
use crate::game::endgame::{capture_dependencies, one_kind_pairs, Endgame, Slice, TableKey};

const SYMMETRIES: usize = 4;
/// Most men of one side.
pub const MAX_SIDE: u8 = 12;

/// Where point `p` goes under symmetry `s` (bit 0: left-right mirror,
/// bit 1: top-bottom mirror).
const fn image(s: usize, p: usize) -> usize {
    let mut q = p;
    if s & 1 != 0 {
        q = if q < 9 {
            8 - q
        } else if q < 17 {
            9 + (16 - q)
        } else {
            17 + (24 - q)
        };
    }
    if s & 2 != 0 && q >= 9 {
        q = if q < 17 { q + 8 } else { q - 8 };
    }
    q
}

/// Images of masks a byte at a time: `IMAGES[s][k][byte]` maps the bits
/// of byte `k` of a mask under symmetry `s`.
static IMAGES: [[[u32; 256]; 4]; SYMMETRIES] = {
    let mut table = [[[0u32; 256]; 4]; SYMMETRIES];
    let mut s = 0;
    while s < SYMMETRIES {
        let mut k = 0;
        while k < 4 {
            let mut byte = 0;
            while byte < 256 {
                let mut bit = 0;
                while bit < 8 {
                    let p = 8 * k + bit;
                    if byte & (1 << bit) != 0 && p < POINTS {
                        table[s][k][byte] |= 1 << image(s, p);
                    }
                    bit += 1;
                }
                byte += 1;
            }
            k += 1;
        }
        s += 1;
    }
    table
};

fn map(s: usize, mask: u32) -> u32 {
    let t = &IMAGES[s];
    t[0][(mask & 255) as usize]
        | t[1][(mask >> 8 & 255) as usize]
        | t[2][(mask >> 16 & 255) as usize]
        | t[3][(mask >> 24) as usize]
}

/// The masks of `men` points that are the smallest of their orbit,
/// ascending.
fn canonical_sets(men: u8) -> &'static [u32] {
    static SETS: [OnceLock<Vec<u32>>; MAX_SIDE as usize + 1] = [const { OnceLock::new() }; 13];
    SETS[men as usize].get_or_init(|| {
        let mut sets = Vec::new();
        if men == 0 {
            return vec![0];
        }
        // Every mask of `men` bits in increasing order (Gosper's hack).
        let mut mask: u32 = (1 << men) - 1;
        while mask <= ALL {
            if (1..SYMMETRIES).all(|s| map(s, mask) >= mask) {
                sets.push(mask);
            }
            let lowest = mask & mask.wrapping_neg();
            let ripple = mask + lowest;
            mask = ripple | (((mask ^ ripple) >> 2) / lowest);
        }
        sets
    })
}

/// The men of each side of a slice of this one-kind game; `None` for a
/// slice with another kind counted.
fn men(slice: Slice) -> Option<(u8, u8)> {
    let ([mover, 0], [other, 0]) = (slice.mover.0, slice.other.0) else {
        return None;
    };
    Some((mover, other))
}

fn slice_size(slice: Slice) -> u64 {
    let Some((mover, other)) = men(slice) else {
        return 0;
    };
    if mover > MAX_SIDE || other > MAX_SIDE || slice.men() > POINTS as u32 {
        return 0;
    }
    let free = POINTS - mover as usize;
    canonical_sets(mover).len() as u64 * BINOMIAL[free][other as usize]
}

/// The slice and number of the position with `own` men to move against
/// `enemy`.
fn number(own: u32, enemy: u32) -> (Slice, u64) {
    let (mut own_image, mut enemy_image) = (own, enemy);
    for s in 1..SYMMETRIES {
        let (o, e) = (map(s, own), map(s, enemy));
        if (o, e) < (own_image, enemy_image) {
            (own_image, enemy_image) = (o, e);
        }
    }
    let (mover, other) = (own.count_ones() as u8, enemy.count_ones() as u8);
    let slice = Slice::new(mover, other);
    let sets = canonical_sets(mover);
    let own_rank = sets
        .binary_search(&own_image)
        .expect("the smallest image of a mask is canonical") as u64;
    let free = ALL & !own_image;
    let per_own = BINOMIAL[POINTS - mover as usize][other as usize];
    (slice, own_rank * per_own + rank_within(free, enemy_image))
}

const VARIANTS: [&str; 8] = [
    "plain-bent-draw",
    "plain-bent-count",
    "plain-straight-draw",
    "plain-straight-count",
    "lined-bent-draw",
    "lined-bent-count",
    "lined-straight-draw",
    "lined-straight-count",
];

fn variant(rules: &AwRules) -> &'static str {
    VARIANTS
        [usize::from(rules.lined) * 4 + usize::from(rules.straight) * 2 + usize::from(rules.count)]
}

impl Awithlaknannai {
    fn rules_of(&self) -> AwRules {
        AwRules {
            lined: self.geometry.lined,
            straight: self.geometry.straight,
            count: self.count_ending,
        }
    }

    pub(super) fn key(&self) -> Option<TableKey> {
        let (own, enemy) = self.own_and_enemy();
        if own == 0 || enemy == 0 {
            return None;
        }
        let (slice, index) = number(own, enemy);
        Some(TableKey {
            variant: variant(&self.rules_of()),
            slice,
            index,
        })
    }

    fn with_pieces(rules: &AwRules, pieces: [u32; 2], side: u8) -> Awithlaknannai {
        let mut p = Awithlaknannai {
            geometry: geometry_for(rules),
            count_ending: rules.count,
            pieces,
            side,
            clock: 0,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }
}

fn position(rules: &AwRules, slice: Slice, index: u64) -> Option<Awithlaknannai> {
    let (mover, other) = men(slice)?;
    if index >= slice_size(slice) || mover == 0 || other == 0 {
        return None;
    }
    let per_own = BINOMIAL[POINTS - mover as usize][other as usize];
    let own = canonical_sets(mover)[(index / per_own) as usize];
    let enemy = unrank_within(ALL & !own, other as usize, index % per_own);
    (number(own, enemy).1 == index).then(|| Awithlaknannai::with_pieces(rules, [own, enemy], WHITE))
}

/// Positions one step before `after`: a man of the side that just moved
/// goes back to an empty neighbour, where its side had no leap (capturing
/// is compulsory, so a step is only played where there is none).
fn unmoves(after: &Awithlaknannai, out: &mut Vec<Awithlaknannai>) {
    let mover = 1 - after.side;
    let empty = after.empty();
    let rules = after.rules_of();
    for to in bits(after.pieces[mover as usize]) {
        for from in bits(after.geometry.neighbours[to as usize] & empty) {
            let mut pieces = after.pieces;
            pieces[mover as usize] ^= 1 << to | 1 << from;
            let before = Awithlaknannai::with_pieces(&rules, pieces, mover);
            if !before.must_capture() {
                out.push(before);
            }
        }
    }
}

fn pairs(men: u32) -> Vec<Slice> {
    one_kind_pairs(MAX_SIDE, men)
}

/// A side with no man left has lost: its slices are never read.
fn dependencies(pair: Slice) -> Vec<Slice> {
    capture_dependencies(pair, 1)
}

pub(super) fn endgame() -> Endgame<Awithlaknannai> {
    Endgame {
        pairs,
        dependencies,
        fixed_men: 0,
        variant,
        slice_size,
        position,
        unmoves,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BLACK, LINED_BENT, LINED_STRAIGHT, PLAIN_BENT, PLAIN_STRAIGHT};
    use super::*;
    use crate::game::Game;

    #[test]
    fn symmetries_keep_every_line_and_leap() {
        for g in [&LINED_BENT, &LINED_STRAIGHT, &PLAIN_BENT, &PLAIN_STRAIGHT] {
            for s in 0..SYMMETRIES {
                for a in 0..POINTS {
                    assert_eq!(map(s, g.neighbours[a]), g.neighbours[image(s, a)]);
                    for b in 0..POINTS {
                        assert_eq!(
                            map(s, g.landings[a][b]),
                            g.landings[image(s, a)][image(s, b)]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn ranks_are_a_bijection() {
        let free = ALL & !0b1010_0000_0001_0000_0110;
        let size = 3;
        let count = BINOMIAL[free.count_ones() as usize][size];
        for rank in 0..count {
            let subset = unrank_within(free, size, rank);
            assert_eq!(subset & !free, 0);
            assert_eq!(subset.count_ones() as usize, size);
            assert_eq!(rank_within(free, subset), rank);
        }
    }

    #[test]
    fn canonical_sets_cover_every_orbit_once() {
        for men in 1..=3u8 {
            let sets = canonical_sets(men);
            let total: u64 = sets
                .iter()
                .map(|&m| {
                    let mut orbit: Vec<u32> = (0..SYMMETRIES).map(|s| map(s, m)).collect();
                    orbit.sort_unstable();
                    orbit.dedup();
                    orbit.len() as u64
                })
                .sum();
            assert_eq!(total, BINOMIAL[POINTS][men as usize]);
        }
    }

    #[test]
    fn numbers_round_trip_and_ignore_symmetry_and_colour() {
        let rules = AwRules {
            lined: true,
            straight: false,
            count: false,
        };
        let slice = Slice::new(2, 2);
        let mut valid = 0;
        for index in 0..slice_size(slice) {
            let Some(p) = position(&rules, slice, index) else {
                continue;
            };
            valid += 1;
            let key = p.table_key().unwrap();
            assert_eq!((key.slice, key.index), (slice, index));
            for s in 0..SYMMETRIES {
                // The same men turned, and with the colours swapped.
                let turned = [map(s, p.pieces[0]), map(s, p.pieces[1])];
                let q = Awithlaknannai::with_pieces(&rules, turned, WHITE);
                assert_eq!(q.table_key(), Some(key));
                let swapped = Awithlaknannai::with_pieces(&rules, [turned[1], turned[0]], BLACK);
                assert_eq!(swapped.table_key(), Some(key));
            }
        }
        // Each position up to symmetry once: at least a quarter of all.
        let all = BINOMIAL[POINTS][2] * BINOMIAL[POINTS - 2][2];
        assert!(valid * 4 >= all && valid < all / 3, "{valid} of {all}");
    }

    #[test]
    fn unmoves_are_exactly_the_steps_back() {
        let rules = AwRules {
            lined: false,
            straight: true,
            count: false,
        };
        let slice = Slice::new(2, 3);
        let mut moves = Vec::new();
        let mut before = Vec::new();
        for index in (0..slice_size(slice)).step_by(97) {
            let Some(after) = position(&rules, slice, index) else {
                continue;
            };
            before.clear();
            unmoves(&after, &mut before);
            for b in &before {
                moves.clear();
                b.generate(&mut moves);
                let reaches = moves.iter().any(|&mv| {
                    let mut c = b.clone();
                    c.play(mv);
                    !mv.is_leap() && c.pieces == after.pieces
                });
                assert!(reaches, "{b} does not step to {after}");
            }
        }
    }
}
