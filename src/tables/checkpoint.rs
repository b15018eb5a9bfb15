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
    Damaged(PathBuf),
    /// The file belongs to the search of another position or history.
    OtherRoot(PathBuf),
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CheckpointError::Io(path, e) => write!(f, "checkpoint {}: {e}", path.display()),
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

    /// The checkpoint at `path` for the search of `root`; `None` if there
    /// is no file yet.
    pub fn load(path: &Path, root: u64) -> Result<Option<Checkpoint>, CheckpointError> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CheckpointError::Io(path.to_path_buf(), e)),
        };
        let checkpoint = Checkpoint::decode(&bytes)
            .ok_or_else(|| CheckpointError::Damaged(path.to_path_buf()))?;
        if checkpoint.root != root {
            return Err(CheckpointError::OtherRoot(path.to_path_buf()));
        }
        Ok(Some(checkpoint))
    }

    /// Writes the checkpoint whole or not at all.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        let io = |e| CheckpointError::Io(path.to_path_buf(), e);
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        std::fs::write(&partial, self.encode()).map_err(io)?;
        std::fs::File::open(&partial)
            .and_then(|f| f.sync_all())
            .map_err(io)?;
        std::fs::rename(&partial, path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_round_trip_and_refuse_damage_and_other_roots() {
        let dir = std::env::temp_dir().join(format!("menagerie-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("proof.ckpt");
        assert!(Checkpoint::load(&path, 7).unwrap().is_none());
        let checkpoint = Checkpoint {
            root: 7,
            nodes: 1234,
            settled: [vec![(1, true), (2, false)], vec![(u64::MAX, true)]],
            by_history: [vec![], vec![5, 6]],
        };
        checkpoint.save(&path).unwrap();
        assert_eq!(
            Checkpoint::load(&path, 7).unwrap(),
            Some(checkpoint.clone())
        );
        assert!(matches!(
            Checkpoint::load(&path, 8),
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
        let read = Checkpoint::load(&old, 7).unwrap().unwrap();
        assert_eq!(read.settled, checkpoint.settled);
        assert_eq!(read.by_history, [vec![], vec![]]);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            Checkpoint::load(&path, 7),
            Err(CheckpointError::Damaged(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
