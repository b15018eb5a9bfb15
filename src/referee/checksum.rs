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

/// A match's fingerprint: the checksum of its settings, written as 16
/// hexadecimal digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The fingerprint of settings written as `text`.
    pub fn of(text: &str) -> Fingerprint {
        Fingerprint(checksum(text))
    }
}

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl std::str::FromStr for Fingerprint {
    type Err = std::num::ParseIntError;

    fn from_str(text: &str) -> Result<Fingerprint, Self::Err> {
        u64::from_str_radix(text, 16).map(Fingerprint)
    }
}
