//! The checksum of record lines and settings fingerprints: a leaf that
//! the record file and the match configuration both use.

/// FNV-1a, 64 bits: a checksum against truncation, not against intent.
pub fn checksum(text: &str) -> u64 {
    checksum_bytes(text.as_bytes())
}

/// [`checksum`] of any bytes.
pub fn checksum_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
