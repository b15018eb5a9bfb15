//! A proof search's checkpoint: what it has settled, so that a run cut at
//! any moment (or ended by its budget) resumes where it was, also on
//! another machine. Only settled positions are kept (a key and which way
//! each went, nine bytes), not the open numbers, which are cheap to find
//! again; the key is the position's Zobrist hash mixed with the boards
//! since the last capture, the same on every machine.
//!
//! ```text
//! "MNGPRF02", u64 root id, u64 nodes spent so far,
//! per goal (the side to move wins, the other side wins):
//!     u64 count, then count times (u64 key, u8 1 proved / 0 disproved),
//! per goal: u64 count, then count times u64: the positions (by clock
//!     key) a search with clock keys keeps by history,
//! u32 CRC-32 of everything before it
//! ```
//!
//! A file of the first version ("MNGPRF01", without the second list) is
//! read too.
//!
//! Written under a temporary name and renamed, so a checkpoint on disk is
//! always whole.

use std::fmt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"MNGPRF02";
const FIRST_MAGIC: &[u8; 8] = b"MNGPRF01";

/// What a checkpoint holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// Which search it belongs to: the root position and its history.
    pub root: u64,
    pub nodes: u64,
    /// Per goal, the settled positions: key, and whether proved.
    pub settled: [Vec<(u64, bool)>; 2],
    /// Per goal, the positions kept by history under clock keys.
    pub by_history: [Vec<u64>; 2],
}

/// Why a checkpoint cannot be used or written.
#[derive(Debug)]
pub enum CheckpointError {
    Io(PathBuf, std::io::Error),
    /// The path cannot be read or written as a checkpoint (not a regular
    /// file, larger than the memory the search may use, ...).
    Path(menagerie_os::files::PathError),
    Damaged(PathBuf),
    /// The file belongs to the search of another position or history.
    OtherRoot(PathBuf),
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CheckpointError::Io(path, e) => write!(f, "checkpoint {}: {e}", path.display()),
            CheckpointError::Path(e) => write!(f, "checkpoint {e}"),
            CheckpointError::Damaged(path) => {
                write!(
                    f,
                    "checkpoint {} is damaged (its checksum fails)",
                    path.display()
                )
            }
            CheckpointError::OtherRoot(path) => write!(
                f,
                "checkpoint {} belongs to the proof of another position (or history)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

impl Checkpoint {
    fn encode(&self) -> Vec<u8> {
        let entries: usize = self.settled.iter().map(Vec::len).sum();
        let mut bytes = Vec::with_capacity(44 + 9 * entries);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&self.root.to_le_bytes());
        bytes.extend_from_slice(&self.nodes.to_le_bytes());
        for goal in &self.settled {
            bytes.extend_from_slice(&(goal.len() as u64).to_le_bytes());
            for &(key, proved) in goal {
                bytes.extend_from_slice(&key.to_le_bytes());
                bytes.push(u8::from(proved));
            }
        }
        for goal in &self.by_history {
            bytes.extend_from_slice(&(goal.len() as u64).to_le_bytes());
            for &key in goal {
                bytes.extend_from_slice(&key.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<Checkpoint> {
        let (body, crc) = bytes.split_at(bytes.len().checked_sub(4)?);
        let magic = body.get(..8)?;
        if crc32fast::hash(body).to_le_bytes() != crc || (magic != MAGIC && magic != FIRST_MAGIC) {
            return None;
        }
        let mut at = 8;
        let u64_at = |at: &mut usize| {
            let v = u64::from_le_bytes(body.get(*at..*at + 8)?.try_into().ok()?);
            *at += 8;
            Some(v)
        };
        let root = u64_at(&mut at)?;
        let nodes = u64_at(&mut at)?;
        let mut settled: [Vec<(u64, bool)>; 2] = Default::default();
        for goal in &mut settled {
            let count = u64_at(&mut at)? as usize;
            if count > (body.len() - at) / 9 {
                return None;
            }
            goal.reserve(count);
            for _ in 0..count {
                let key = u64_at(&mut at)?;
                goal.push((key, *body.get(at)? == 1));
                at += 1;
            }
        }
        let mut by_history: [Vec<u64>; 2] = Default::default();
        if magic == MAGIC {
            for goal in &mut by_history {
                let count = u64_at(&mut at)? as usize;
                if count > (body.len() - at) / 8 {
                    return None;
                }
                goal.reserve(count);
                for _ in 0..count {
                    goal.push(u64_at(&mut at)?);
                }
            }
        }
        (at == body.len()).then_some(Checkpoint {
            root,
            nodes,
            settled,
            by_history,
        })
    }

    /// Most bytes of a checkpoint of a search that stores at most
    /// `stored` positions per goal: the header, and per goal its settled
    /// positions (9 bytes each) and those kept by history (8 bytes each).
    pub fn most_bytes(stored: u64) -> u64 {
        let per_goal = 16u64.saturating_add(stored.saturating_mul(17));
        40u64.saturating_add(per_goal.saturating_mul(2))
    }

    /// The checkpoint at `path` for the search of `root`; `None` if there
    /// is no file yet. It must be a regular file of at most `limit` bytes
    /// (what the search may hold: it holds what the file does), and a
    /// path it could not be written to later is refused now.
    pub fn load(path: &Path, root: u64, limit: u64) -> Result<Option<Checkpoint>, CheckpointError> {
        use menagerie_os::files;
        files::write_target(path).map_err(CheckpointError::Path)?;
        let bytes = match files::read_bounded(path, limit) {
            Ok(bytes) => bytes,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(CheckpointError::Path(e)),
        };
        let checkpoint = Checkpoint::decode(&bytes)
            .ok_or_else(|| CheckpointError::Damaged(path.to_path_buf()))?;
        if checkpoint.root != root {
            return Err(CheckpointError::OtherRoot(path.to_path_buf()));
        }
        Ok(Some(checkpoint))
    }

    /// Writes the checkpoint whole or not at all, over a regular file or
    /// nothing only.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = self.encode();
        menagerie_os::files::write_replacing(path, |out| out.write_all(&bytes))
            .map_err(CheckpointError::Path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_of_n_positions_a_goal_fits_its_bound() {
        for n in [0usize, 1, 7, 1000] {
            let checkpoint = Checkpoint {
                root: 1,
                nodes: 2,
                settled: [vec![(3, true); n], vec![(4, false); n]],
                by_history: [vec![5; n], vec![6; n]],
            };
            assert!(checkpoint.encode().len() as u64 <= Checkpoint::most_bytes(n as u64));
        }
    }

    #[test]
    fn checkpoints_round_trip_and_refuse_damage_and_other_roots() {
        let dir = std::env::temp_dir().join(format!("menagerie-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("proof.ckpt");
        assert!(Checkpoint::load(&path, 7, u64::MAX).unwrap().is_none());
        let checkpoint = Checkpoint {
            root: 7,
            nodes: 1234,
            settled: [vec![(1, true), (2, false)], vec![(u64::MAX, true)]],
            by_history: [vec![], vec![5, 6]],
        };
        checkpoint.save(&path).unwrap();
        assert_eq!(
            Checkpoint::load(&path, 7, u64::MAX).unwrap(),
            Some(checkpoint.clone())
        );
        assert!(matches!(
            Checkpoint::load(&path, 8, u64::MAX),
            Err(CheckpointError::OtherRoot(_))
        ));
        // A file of the first version: no positions kept by history.
        let mut first = checkpoint.encode();
        first.truncate(first.len() - 4 - 8 - 8 - 16);
        first[..8].copy_from_slice(FIRST_MAGIC);
        let crc = crc32fast::hash(&first);
        first.extend_from_slice(&crc.to_le_bytes());
        let old = dir.join("first.ckpt");
        std::fs::write(&old, &first).unwrap();
        let read = Checkpoint::load(&old, 7, u64::MAX).unwrap().unwrap();
        assert_eq!(read.settled, checkpoint.settled);
        assert_eq!(read.by_history, [vec![], vec![]]);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            Checkpoint::load(&path, 7, u64::MAX),
            Err(CheckpointError::Damaged(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
