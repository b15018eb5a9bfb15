//! The set bits of a mask, lowest first: how the bitboard games walk
//! their pieces; and the ranks of sets of squares, by which endgame
//! tables number positions.

pub fn ones(mut mask: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            Some(i)
        }
    })
}

/// Index of the `n`-th set bit of `mask`, lowest first (`n` below the
/// number of set bits).
#[inline]
pub fn nth_one(mask: u64, n: usize) -> u8 {
    select(mask, n as u32)
}

const BYTES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The `rank`-th set bit of each byte value.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut rank) = (0, 0);
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][rank] = bit as u8;
                rank += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// The `n`-th set bit of a 64-bit mask, without a branch: random playouts
/// pick a random set bit at every move, and a loop whose length is random
/// is a branch the processor mispredicts. Broadword selection: population
/// counts of every byte at once, their running sums by one multiplication,
/// the byte holding the bit by comparing all sums with `n` at once, then a
/// table for the bit within that byte.
#[inline]
fn select(mask: u64, n: u32) -> u8 {
    let mut counts = mask - ((mask >> 1) & 0x5555_5555_5555_5555);
    counts = (counts & 0x3333_3333_3333_3333) + ((counts >> 2) & 0x3333_3333_3333_3333);
    counts = (counts + (counts >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i: set bits in bytes 0..=i (at most 64, so the top bit is free).
    let sums = counts.wrapping_mul(BYTES);
    // Byte i's top bit: n is at or past the end of byte i.
    let passed = (((u64::from(n) * BYTES) | HIGH_BITS) - sums) & HIGH_BITS;
    let byte = passed.count_ones();
    let before = ((sums << 8) >> (8 * byte)) as u8;
    let within = (mask >> (8 * byte)) as u8;
    (8 * byte) as u8 + SELECT_IN_BYTE[within as usize][(n - u32::from(before)) as usize & 7]
}

/// Indices of the set bits of a 128-bit mask, lowest first.
pub fn ones_wide(mut mask: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            bit
        })
    })
}

/// [`nth_one`] of a 128-bit mask: the half chosen by population count.
#[inline]
pub fn nth_one_wide(mask: u128, n: usize) -> u8 {
    debug_assert!(n < mask.count_ones() as usize);
    let low_count = (mask as u64).count_ones();
    let upper = u32::from(n as u32 >= low_count);
    let half = (mask >> (64 * upper)) as u64;
    (64 * upper) as u8 + select(half, n as u32 - low_count * upper)
}

/// A function from point masks to 128-bit slot masks that is an OR over
/// the points (plus a constant), given as one table per byte of the point
/// mask: `N` lookups ORed instead of a loop over the points. The games
/// number their moves as slots and find the open ones by ANDing a few such
/// functions of the occupancy.
#[derive(Debug, PartialEq, Eq)]
pub struct ByteTables<const N: usize> {
    tables: [[u128; 256]; N],
}

impl<const N: usize> ByteTables<N> {
    pub const EMPTY: Self = ByteTables {
        tables: [[0; 256]; N],
    };

    /// The tables of `mask -> always | OR of per_point[p] over the points p
    /// of mask`.
    pub const fn new(per_point: &[u128], always: u128) -> Self {
        let mut tables = [[0; 256]; N];
        let mut byte = 0;
        while byte < N {
            let mut m = 0;
            while m < 256 {
                let mut acc = if byte == 0 { always } else { 0 };
                let mut b = 0;
                while b < 8 {
                    let point = 8 * byte + b;
                    if m & (1 << b) != 0 && point < per_point.len() {
                        acc |= per_point[point];
                    }
                    b += 1;
                }
                tables[byte][m] = acc;
                m += 1;
            }
            byte += 1;
        }
        ByteTables { tables }
    }

    #[inline(always)]
    pub fn of(&self, mask: u32) -> u128 {
        let mut acc = 0;
        let mut byte = 0;
        while byte < N {
            acc |= self.tables[byte][(mask >> (8 * byte)) as usize & 0xff];
            byte += 1;
        }
        acc
    }
}

/// `BINOMIAL[n][k]`: n choose k.
pub static BINOMIAL: [[u64; 33]; 33] = {
    let mut c = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
};

/// Rank of `subset` among the subsets of its size of `free`, in
/// colexicographic order of the positions within `free`.
pub fn rank_within(free: u32, subset: u32) -> u64 {
    ones(subset)
        .enumerate()
        .map(|(k, p)| BINOMIAL[(free & ((1 << p) - 1)).count_ones() as usize][k + 1])
        .sum()
}

/// The subset of `free` with `size` points and colexicographic rank `rank`.
pub fn unrank_within(free: u32, size: usize, mut rank: u64) -> u32 {
    let mut subset = 0;
    let mut top = free.count_ones() as usize;
    for k in (1..=size).rev() {
        // The largest position whose count of smaller subsets fits.
        while BINOMIAL[top][k] > rank {
            top -= 1;
        }
        rank -= BINOMIAL[top][k];
        subset |= 1 << nth_one(u64::from(free), top);
    }
    subset
}

#[cfg(test)]
mod tests {
    #[test]
    fn lowest_first() {
        assert_eq!(super::ones(0b1010_0001).collect::<Vec<_>>(), [0, 5, 7]);
        assert_eq!(super::ones(0).count(), 0);
        assert_eq!(super::ones(1 << 31).collect::<Vec<_>>(), [31]);
    }

    #[test]
    fn nth_one_wide_follows_ones_wide() {
        let mut masks = vec![
            1u128,
            1 << 127,
            u128::MAX,
            0x8000_0000_0000_0001 << 32,
            0xf0f0 << 60,
        ];
        let mut rng = crate::rng::Rng::new(5);
        masks.extend(
            (0..200).map(|_| u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())),
        );
        for mask in masks {
            for (n, bit) in super::ones_wide(mask).enumerate() {
                assert_eq!(super::nth_one_wide(mask, n), bit);
            }
            assert_eq!(super::ones_wide(mask).count(), mask.count_ones() as usize);
        }
    }

    #[test]
    fn byte_tables_or_over_the_points() {
        let per_point: Vec<u128> = (0..25).map(|p| 1 << (3 * p) | 1 << 100).collect();
        let tables = super::ByteTables::<4>::new(&per_point, 1 << 127);
        let mut rng = crate::rng::Rng::new(9);
        for _ in 0..300 {
            let mask = rng.next_u64() as u32 & ((1 << 25) - 1);
            let want = super::ones(mask).fold(1 << 127, |acc, p| acc | per_point[p as usize]);
            assert_eq!(tables.of(mask), want);
        }
    }

    #[test]
    fn nth_one_follows_ones() {
        let mut masks = vec![1u32, 0b1010_0001, 0xFFFF_FFFF, 1 << 31, 0x8000_0101];
        let mut rng = crate::rng::Rng::new(3);
        masks.extend((0..200).map(|_| rng.next_u64() as u32 | 1));
        for mask in masks {
            for (n, bit) in super::ones(mask).enumerate() {
                assert_eq!(super::nth_one(mask.into(), n), bit);
            }
        }
    }
}
