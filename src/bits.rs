//! The set bits of a mask, lowest first: how the bitboard games walk
//! their pieces.

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

#[cfg(test)]
mod tests {
    #[test]
    fn lowest_first() {
        assert_eq!(super::ones(0b1010_0001).collect::<Vec<_>>(), [0, 5, 7]);
        assert_eq!(super::ones(0).count(), 0);
        assert_eq!(super::ones(1 << 31).collect::<Vec<_>>(), [31]);
    }
}
