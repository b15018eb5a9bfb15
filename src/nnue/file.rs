//! The network file (docs/network.md), little-endian throughout:
//!
//! | part | what |
//! |---|---|
//! | magic | `MNGNET01`, or `MNGNET02` with a policy head (8 bytes) |
//! | game, rules, input set | each a `u8` length and UTF-8 |
//! | inputs, hidden, heads | `u32` each |
//! | scale | `i32`: search units per unit of a head's logit |
//! | note | `u16` length and UTF-8: the command and seed that trained it |
//! | first layer | `i16` weights, input by input (`hidden` each), then `hidden` `i16` biases |
//! | heads | `i16` weights, head by head (`hidden` each), then `heads` `i32` biases |
//! | policy (`MNGNET02` only) | `u32` move keys, then their `i16` weights key by key (`hidden` each) and `i32` biases |
//! | checksum | CRC-32 of everything before it |
//!
//! Quantisation (fixed by the magic's version): first-layer weights and
//! biases are the trainer's floats times [`QA`]; a hidden unit is its sum
//! clipped to `0..=QA`; head weights are floats times [`QB`], head biases
//! times `QA * QB`, so a head's logit is its integer sum over `QA * QB`.
//! A policy key is quantised as a head is; a move's logit is the sum of
//! its keys' ([`menagerie_rules::game::inputs::MoveKeys`]).
//!
//! A network without a policy is written as `MNGNET01`, byte for byte as
//! before the policy existed, so its checksum (its name) stays.

use std::fmt;
use std::path::Path;

use menagerie_rules::game::ruleset::Ruleset;

pub const MAGIC: &[u8; 8] = b"MNGNET01";
/// The magic of a network with a policy head.
pub const MAGIC_POLICY: &[u8; 8] = b"MNGNET02";
/// Most move keys of a policy head.
pub const MAX_MOVE_KEYS: usize = 4096;
/// Scale of the first layer: a hidden unit saturates at this.
pub const QA: i32 = 255;
/// Scale of the heads' weights.
pub const QB: i32 = 64;
/// Widest first layer a file may have.
pub const MAX_HIDDEN: usize = 1024;
/// Most inputs of a network (the games' input sets have up to 1,226).
pub const MAX_INPUTS: usize = 4096;
/// Most bytes of a network file: the largest shape the format allows,
/// its weights and its longest names and note, rounded up. A path is
/// refused by its size before any of it is read.
pub const MAX_FILE_BYTES: u64 = 18 << 20;
/// Most heads (seats) a file may have.
pub const MAX_HEADS: usize = menagerie_rules::game::MAX_SEATS;

/// A network as its file holds it.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// The game's id, as the catalogue names it.
    pub game: String,
    /// The ruleset options it was trained on, less those its input set
    /// covers ([`family`]).
    pub rules: String,
    /// The input set's name ([`menagerie_rules::game::inputs::InputSet`]).
    pub input_set: String,
    pub inputs: usize,
    pub hidden: usize,
    pub heads: usize,
    /// Search units per unit of logit.
    pub scale: i32,
    /// How it was made (the trainer's command and seed).
    pub note: String,
    /// `inputs * hidden`, input by input.
    pub first: Vec<i16>,
    pub first_bias: Vec<i16>,
    /// `heads * hidden`, head by head.
    pub head: Vec<i16>,
    pub head_bias: Vec<i32>,
    /// Move keys of the policy head: 0 for a network without one.
    pub moves: usize,
    /// `moves * hidden`, key by key.
    pub policy: Vec<i16>,
    pub policy_bias: Vec<i32>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Network({})", self.describe())
    }
}

/// What is wrong with a network file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// The file could not be read.
    Read(String),
    /// Not a network file, or one of another format version.
    Magic,
    /// The file ends before its parts do.
    Truncated,
    /// Bytes past the checksum.
    Trailing,
    /// The checksum does not match the contents.
    Checksum,
    /// A size out of range: which, and the value.
    Size(&'static str, usize),
    /// A name that is not UTF-8.
    Text,
    /// A network of another game: the file's game.
    Game(String),
    /// A network of other ruleset options: the file's and the position's.
    Rules(String, String),
    /// A network of another input set: the file's and the game's.
    InputSet(String, String),
    /// The game gives no inputs for a network.
    NoInputs(String),
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NetworkError::Read(e) => write!(f, "cannot read the file: {e}"),
            NetworkError::Magic => {
                f.write_str("not a network file (no MNGNET01 or MNGNET02 at its start)")
            }
            NetworkError::Truncated => f.write_str("the file is cut short"),
            NetworkError::Trailing => f.write_str("bytes after the checksum"),
            NetworkError::Checksum => {
                f.write_str("the checksum does not match: the file is damaged")
            }
            NetworkError::Size(what, n) => write!(f, "{what} {n} is out of range"),
            NetworkError::Text => f.write_str("a name in the header is not UTF-8"),
            NetworkError::Game(game) => write!(f, "the network is for {game}"),
            NetworkError::Rules(file, here) => write!(
                f,
                "the network is for the options '{file}', this game has '{here}'"
            ),
            NetworkError::InputSet(file, game) => write!(
                f,
                "the network reads inputs '{file}', this game gives '{game}'"
            ),
            NetworkError::NoInputs(game) => write!(f, "{game} has no learned evaluation"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// The options of `ruleset` that a network must match: all but `covers`,
/// as `key=value` words.
pub fn family(ruleset: &Ruleset, covers: &[&str]) -> String {
    ruleset
        .specs()
        .iter()
        .filter(|spec| !covers.contains(&spec.key))
        .map(|spec| format!("{}={}", spec.key, ruleset.value(spec.key)))
        .collect::<Vec<_>>()
        .join(" ")
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NetworkError> {
        let end = self.at.checked_add(n).ok_or(NetworkError::Truncated)?;
        let part = self
            .bytes
            .get(self.at..end)
            .ok_or(NetworkError::Truncated)?;
        self.at = end;
        Ok(part)
    }

    fn u8(&mut self) -> Result<u8, NetworkError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, NetworkError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }

    fn u32(&mut self) -> Result<u32, NetworkError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn text(&mut self, len: usize) -> Result<String, NetworkError> {
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| NetworkError::Text)
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetworkError> {
        let bytes = self.take(n.checked_mul(2).ok_or(NetworkError::Truncated)?)?;
        Ok(bytes
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    fn i32s(&mut self, n: usize) -> Result<Vec<i32>, NetworkError> {
        let bytes = self.take(n.checked_mul(4).ok_or(NetworkError::Truncated)?)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
}

fn bounded(what: &'static str, n: u32, max: usize) -> Result<usize, NetworkError> {
    let n = n as usize;
    if n == 0 || n > max {
        return Err(NetworkError::Size(what, n));
    }
    Ok(n)
}

impl Network {
    /// Reads a network from a file's bytes: every part present, sizes in
    /// range, the checksum right.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let with_policy = match bytes.get(..MAGIC.len()) {
            Some(m) if m == MAGIC => false,
            Some(m) if m == MAGIC_POLICY => true,
            _ => return Err(NetworkError::Magic),
        };
        let mut r = Reader { bytes, at: 8 };
        let len = r.u8()? as usize;
        let game = r.text(len)?;
        let len = r.u8()? as usize;
        let rules = r.text(len)?;
        let len = r.u8()? as usize;
        let input_set = r.text(len)?;
        let inputs = bounded("inputs", r.u32()?, MAX_INPUTS)?;
        let hidden = bounded("hidden", r.u32()?, MAX_HIDDEN)?;
        let heads = bounded("heads", r.u32()?, MAX_HEADS)?;
        let scale = r.u32()? as i32;
        if scale <= 0 {
            return Err(NetworkError::Size("scale", scale as usize));
        }
        let len = r.u16()? as usize;
        let note = r.text(len)?;
        let first = r.i16s(inputs * hidden)?;
        let first_bias = r.i16s(hidden)?;
        let head = r.i16s(heads * hidden)?;
        let head_bias = r.i32s(heads)?;
        let moves = if with_policy {
            bounded("move keys", r.u32()?, MAX_MOVE_KEYS)?
        } else {
            0
        };
        let policy = r.i16s(moves * hidden)?;
        let policy_bias = r.i32s(moves)?;
        let body = r.at;
        let stored = r.u32()?;
        if r.at != bytes.len() {
            return Err(NetworkError::Trailing);
        }
        if crc32fast::hash(&bytes[..body]) != stored {
            return Err(NetworkError::Checksum);
        }
        Ok(Network {
            game,
            rules,
            input_set,
            inputs,
            hidden,
            heads,
            scale,
            note,
            first,
            first_bias,
            head,
            head_bias,
            moves,
            policy,
            policy_bias,
        })
    }

    /// Reads a network file: a regular file of at most
    /// [`MAX_FILE_BYTES`], opened without blocking.
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        let bytes = menagerie_os::files::read_bounded(path, MAX_FILE_BYTES)
            .map_err(|e| NetworkError::Read(e.reason()))?;
        Network::from_bytes(&bytes)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = if self.moves > 0 { MAGIC_POLICY } else { MAGIC }.to_vec();
        for text in [&self.game, &self.rules, &self.input_set] {
            out.push(text.len() as u8);
            out.extend_from_slice(text.as_bytes());
        }
        for n in [self.inputs, self.hidden, self.heads] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.scale.to_le_bytes());
        out.extend_from_slice(&(self.note.len() as u16).to_le_bytes());
        out.extend_from_slice(self.note.as_bytes());
        for w in self.first.iter().chain(&self.first_bias).chain(&self.head) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.head_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        if self.moves > 0 {
            out.extend_from_slice(&(self.moves as u32).to_le_bytes());
            for w in &self.policy {
                out.extend_from_slice(&w.to_le_bytes());
            }
            for b in &self.policy_bias {
                out.extend_from_slice(&b.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Whether this network can evaluate positions of game `game` under
    /// `ruleset`, whose input set is `set`: the same game, input set and
    /// options (less those the set covers).
    pub fn fits(
        &self,
        game: &str,
        ruleset: &Ruleset,
        set: Option<menagerie_rules::game::inputs::InputSet>,
    ) -> Result<(), NetworkError> {
        if self.game != game {
            return Err(NetworkError::Game(self.game.clone()));
        }
        let set = set.ok_or_else(|| NetworkError::NoInputs(game.to_string()))?;
        let policy_fits = self.moves == 0 || self.moves == set.moves;
        if self.input_set != set.name
            || self.inputs != set.inputs
            || self.heads != set.heads
            || !policy_fits
        {
            return Err(NetworkError::InputSet(
                self.input_set.clone(),
                set.name.to_string(),
            ));
        }
        let here = family(ruleset, set.covers);
        if self.rules != here {
            return Err(NetworkError::Rules(self.rules.clone(), here));
        }
        Ok(())
    }

    /// One line for `bench`, `d` and the option's answer: game, input set,
    /// size and the first words of its note.
    pub fn describe(&self) -> String {
        let policy = if self.moves > 0 {
            format!(" policy {}", self.moves)
        } else {
            String::new()
        };
        format!(
            "{} {} {}x{}x{}{policy} crc {:08x}",
            self.game,
            self.input_set,
            self.inputs,
            self.hidden,
            self.heads,
            self.checksum()
        )
    }

    /// The checksum its file carries: a name for this network.
    pub fn checksum(&self) -> u32 {
        let bytes = self.to_bytes();
        u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn tiny() -> Network {
        let (inputs, hidden, heads) = (5, 3, 2);
        Network {
            game: "kilkenny-cats".into(),
            rules: String::new(),
            input_set: "test".into(),
            inputs,
            hidden,
            heads,
            scale: 400,
            note: "hand-made".into(),
            first: (0..inputs * hidden).map(|i| i as i16 * 7 - 40).collect(),
            first_bias: vec![10, -5, 300],
            head: (0..heads * hidden).map(|i| 20 - i as i16 * 9).collect(),
            head_bias: vec![1000, -2000],
            moves: 0,
            policy: Vec::new(),
            policy_bias: Vec::new(),
        }
    }

    /// [`tiny`] with a policy head of four move keys.
    pub(crate) fn tiny_with_policy() -> Network {
        let mut net = tiny();
        net.moves = 4;
        net.policy = (0..4 * net.hidden).map(|i| 30 - i as i16 * 5).collect();
        net.policy_bias = vec![-500, 0, 700, 1200];
        net
    }

    #[test]
    fn the_largest_network_the_format_allows_fits_the_file_bound() {
        let (inputs, hidden, heads) = (MAX_INPUTS, MAX_HIDDEN, MAX_HEADS);
        let net = Network {
            game: "g".repeat(255),
            rules: "r".repeat(255),
            input_set: "i".repeat(255),
            inputs,
            hidden,
            heads,
            scale: 400,
            note: "n".repeat(u16::MAX as usize),
            first: vec![1; inputs * hidden],
            first_bias: vec![0; hidden],
            head: vec![0; heads * hidden],
            head_bias: vec![0; heads],
            moves: MAX_MOVE_KEYS,
            policy: vec![0; MAX_MOVE_KEYS * hidden],
            policy_bias: vec![0; MAX_MOVE_KEYS],
        };
        let bytes = net.to_bytes();
        assert!(bytes.len() as u64 <= MAX_FILE_BYTES, "{}", bytes.len());
        assert_eq!(Network::from_bytes(&bytes), Ok(net));
    }

    #[test]
    fn a_network_round_trips_through_its_bytes() {
        for net in [tiny(), tiny_with_policy()] {
            assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net));
        }
        assert_eq!(&tiny().to_bytes()[..8], MAGIC);
        assert_eq!(&tiny_with_policy().to_bytes()[..8], MAGIC_POLICY);
    }

    /// A first-version file read as a policy file (or the other way) is
    /// cut short or runs past its checksum: the magic decides the layout.
    #[test]
    fn the_magic_decides_whether_a_policy_follows() {
        let mut plain = tiny().to_bytes();
        plain[..8].copy_from_slice(MAGIC_POLICY);
        assert!(Network::from_bytes(&plain).is_err());
        let mut policy = tiny_with_policy().to_bytes();
        policy[..8].copy_from_slice(MAGIC);
        assert!(Network::from_bytes(&policy).is_err());
    }

    #[test]
    fn every_cut_every_flipped_byte_and_any_trailing_byte_is_refused() {
        for bytes in [tiny().to_bytes(), tiny_with_policy().to_bytes()] {
            refused_whenever_damaged(&bytes);
        }
    }

    fn refused_whenever_damaged(bytes: &[u8]) {
        let bytes = bytes.to_vec();
        for cut in 0..bytes.len() {
            assert!(Network::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(Network::from_bytes(&damaged).is_err(), "byte {at} flipped");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Network::from_bytes(&longer), Err(NetworkError::Trailing));
    }
}
