//! A seeded SplitMix64 generator and compile-time Zobrist tables.
//!
//! Hand-written rather than taken from `rand` on purpose: game records store
//! a seed and must replay the same dice and openings forever, and `rand`
//! does not promise a stable stream for its standard generators across
//! versions. SplitMix64 is a fixed, published algorithm of a few lines.

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A table of `N` pseudo-random keys, built at compile time from `seed`.
pub const fn zobrist_table<const N: usize>(seed: u64) -> [u64; N] {
    let mut table = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        state = state.wrapping_add(GOLDEN);
        table[i] = mix(state);
        i += 1;
    }
    table
}

/// The purposes [`derive_seed`] mixes in for a game's dice and its random
/// opening.
pub const DICE: u64 = 0xD1CE;
pub const OPENING: u64 = 0x0BE1;

/// 64 well-mixed bits from a seed, an index (a set, a game) and a purpose
/// (dice, opening): the one way the referee and `selfplay` give each game
/// randomness of its own that depends on nothing else.
pub fn derive_seed(seed: u64, index: u32, purpose: u64) -> u64 {
    Rng::new(seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ purpose).next_u64()
}

/// SplitMix64: small, fast, and the same stream on every platform.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix(self.state)
    }

    /// A uniform number in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        // Lemire's multiply-shift with rejection of the biased low zone; the
        // division that finds the zone is only needed when the low half
        // falls below n, which is rare.
        let mut product = (self.next_u64() as u128) * (n as u128);
        if (product as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (product as u64) < threshold {
                product = (self.next_u64() as u128) * (n as u128);
            }
        }
        (product >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_fixed() {
        // The first outputs for seed 0 of the published SplitMix64.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::new(7);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[rng.below(6) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }

    #[test]
    fn tables_have_distinct_keys() {
        const T: [u64; 64] = zobrist_table(1);
        let mut keys = T.to_vec();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 64);
    }
}
