//! The self-play data file (docs/selfplay.md): what `selfplay` writes
//! and training reads. Games, not positions, are stored: the start, then
//! each move as its index among the legal moves (rolls included), with the
//! search's score beside each chosen move, and every seat's final result;
//! the positions are the replay's. About three bytes a ply.
//!
//! ```text
//! header:  "MNGSELF1", u32 length, then that many bytes of UTF-8
//!          (`game=<id> rules=<ruleset> nodes=N openings=P seed=S`),
//!          then u32 CRC-32 of those bytes
//! record:  u32 body length, u32 CRC-32 of the body, the body:
//!          u32 game index
//!          u16 length, the start position's notation (UTF-8)
//!          u8 seats, then per seat (the position's seat order) u8 result:
//!             0 loss, 1 draw, 2 win
//!          u16 plies, then per ply u8 move index and i16 score
//! ```
//!
//! All numbers little-endian. A score is the mover's, in the search's
//! units: -30000..=30000 an evaluation, 32767 - N a win with the N-th move,
//! -32767 + N a loss after N moves, -32768 none (a roll). A file ends at
//! any record boundary; a record cut short or damaged (a run killed while
//! writing) ends what is read, and a resumed run writes over it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"MNGSELF1";
/// The score of a ply that has none (a roll).
pub const NO_SCORE: i16 = i16::MIN;
/// Longest record body accepted, far above any game's.
const MOST_BODY: u32 = 1 << 24;

/// One seat's result at the end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatResult {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

/// One game of self-play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub index: u32,
    pub start: String,
    pub results: Vec<SeatResult>,
    /// Each ply: the move's index among the legal moves, and the score.
    pub plies: Vec<(u8, i16)>,
}

/// What is wrong with a data file.
#[derive(Debug)]
pub enum FileError {
    Io(io::Error),
    /// Not a self-play file, or its header is damaged.
    NotSelfPlay,
    /// A self-play file of other settings: resuming it would mix data.
    OtherSettings {
        found: String,
    },
    /// The path is no regular file, or larger than memory can hold read.
    Path(menagerie_os::files::PathError),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            FileError::Io(e) => write!(f, "{e}"),
            FileError::NotSelfPlay => {
                f.write_str("not a self-play data file (or its header is damaged)")
            }
            FileError::OtherSettings { found } => {
                write!(f, "the file holds games of other settings ({found})")
            }
            // The message names the path already.
            FileError::Path(e) => f.write_str(&e.reason()),
        }
    }
}

impl std::error::Error for FileError {}

impl From<io::Error> for FileError {
    fn from(e: io::Error) -> FileError {
        FileError::Io(e)
    }
}

impl GameRecord {
    fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(16 + self.start.len() + 3 * self.plies.len());
        body.extend_from_slice(&self.index.to_le_bytes());
        body.extend_from_slice(&(self.start.len() as u16).to_le_bytes());
        body.extend_from_slice(self.start.as_bytes());
        body.push(self.results.len() as u8);
        body.extend(self.results.iter().map(|&r| r as u8));
        body.extend_from_slice(&(self.plies.len() as u16).to_le_bytes());
        for &(mv, score) in &self.plies {
            body.push(mv);
            body.extend_from_slice(&score.to_le_bytes());
        }
        let mut record = Vec::with_capacity(8 + body.len());
        record.extend_from_slice(&(body.len() as u32).to_le_bytes());
        record.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        record.extend_from_slice(&body);
        record
    }

    fn decode(body: &[u8]) -> Option<GameRecord> {
        let mut at = 0;
        let mut take = |n: usize| {
            let part = body.get(at..at + n)?;
            at += n;
            Some(part)
        };
        let index = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let length = u16::from_le_bytes(take(2)?.try_into().ok()?) as usize;
        let start = String::from_utf8(take(length)?.to_vec()).ok()?;
        let seats = take(1)?[0] as usize;
        let results = take(seats)?
            .iter()
            .map(|&r| match r {
                0 => Some(SeatResult::Loss),
                1 => Some(SeatResult::Draw),
                2 => Some(SeatResult::Win),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let count = u16::from_le_bytes(take(2)?.try_into().ok()?) as usize;
        let mut plies = Vec::with_capacity(count);
        for _ in 0..count {
            let ply = take(3)?;
            plies.push((ply[0], i16::from_le_bytes([ply[1], ply[2]])));
        }
        (at == body.len()).then_some(GameRecord {
            index,
            start,
            results,
            plies,
        })
    }
}

fn header_bytes(settings: &str) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&(settings.len() as u32).to_le_bytes());
    bytes.extend_from_slice(settings.as_bytes());
    bytes.extend_from_slice(&crc32fast::hash(settings.as_bytes()).to_le_bytes());
    bytes
}

/// Reads the header's settings line, or why the file is no data file.
fn read_header(file: &mut impl Read) -> Result<String, FileError> {
    let mut magic = [0; 12];
    file.read_exact(&mut magic)
        .map_err(|_| FileError::NotSelfPlay)?;
    if &magic[..8] != MAGIC {
        return Err(FileError::NotSelfPlay);
    }
    let length = u32::from_le_bytes(magic[8..].try_into().expect("four bytes"));
    if length > 1 << 16 {
        return Err(FileError::NotSelfPlay);
    }
    let mut text = vec![0; length as usize + 4];
    file.read_exact(&mut text)
        .map_err(|_| FileError::NotSelfPlay)?;
    let (text, crc) = text.split_at(length as usize);
    if crc32fast::hash(text).to_le_bytes() != crc {
        return Err(FileError::NotSelfPlay);
    }
    String::from_utf8(text.to_vec()).map_err(|_| FileError::NotSelfPlay)
}

/// The next whole record, or `None` at the end or at a record cut short or
/// damaged.
fn read_record(file: &mut impl Read) -> Option<GameRecord> {
    let mut head = [0; 8];
    file.read_exact(&mut head).ok()?;
    let length = u32::from_le_bytes(head[..4].try_into().ok()?);
    if length > MOST_BODY {
        return None;
    }
    let mut body = vec![0; length as usize];
    file.read_exact(&mut body).ok()?;
    if crc32fast::hash(&body).to_le_bytes() != head[4..] {
        return None;
    }
    GameRecord::decode(&body)
}

/// A data file read whole: its settings and its games (up to the first
/// record cut short or damaged).
pub struct DataFile {
    pub settings: String,
    pub games: Vec<GameRecord>,
}

/// Reads a data file: a regular file (opened without blocking), held in
/// memory read, so at most what the process may still use.
pub fn read(path: &Path) -> Result<DataFile, FileError> {
    let limit = menagerie_os::memory::available_bytes().unwrap_or(u64::MAX);
    let file = menagerie_os::files::open_regular(path, limit).map_err(FileError::Path)?;
    let mut file = io::BufReader::new(file);
    let settings = read_header(&mut file)?;
    let mut games = Vec::new();
    while let Some(game) = read_record(&mut file) {
        games.push(game);
    }
    Ok(DataFile { settings, games })
}

/// Appends games to a data file.
pub struct Writer {
    file: File,
}

impl Writer {
    /// Opens `path` to add games of `settings`: a new file gets its header;
    /// an existing one must have the same settings, and is cut after its
    /// last whole record. Returns the games already there.
    pub fn open(path: &Path, settings: &str) -> Result<(Writer, Vec<GameRecord>), FileError> {
        // A regular file or nothing: a device or a FIFO is refused before
        // it is opened (which could block); a link to a file is followed.
        let existed = menagerie_os::files::regular_exists(path).map_err(FileError::Path)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        if file.metadata()?.len() == 0 {
            let started = file
                .write_all(&header_bytes(settings))
                .and_then(|()| file.sync_data());
            if let Err(e) = started {
                // A file this run made and could not start is not left
                // behind (a full disk, a file-size limit).
                if !existed {
                    let _ = std::fs::remove_file(path);
                }
                return Err(e.into());
            }
            return Ok((Writer { file }, Vec::new()));
        }
        let mut reader = io::BufReader::new(&mut file);
        let found = read_header(&mut reader)?;
        if found != settings {
            return Err(FileError::OtherSettings { found });
        }
        let mut games = Vec::new();
        let mut end = reader.stream_position()?;
        while let Some(game) = read_record(&mut reader) {
            games.push(game);
            end = reader.stream_position()?;
        }
        drop(reader);
        file.set_len(end)?;
        file.seek(SeekFrom::Start(end))?;
        Ok((Writer { file }, games))
    }

    /// Appends one game in one write, so that a run killed mid-write
    /// leaves at most one record cut short.
    pub fn append(&mut self, game: &GameRecord) -> io::Result<()> {
        self.file.write_all(&game.encode())
    }

    /// Makes what was written survive a crash of the machine.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(index: u32) -> GameRecord {
        GameRecord {
            index,
            start: "14/14 s - swn -------- 0".to_string(),
            results: vec![SeatResult::Win, SeatResult::Loss, SeatResult::Draw],
            plies: vec![(3, NO_SCORE), (0, -30000), (255, 32767 - 4)],
        }
    }

    #[test]
    fn records_round_trip_and_a_cut_record_is_dropped_then_overwritten() {
        let dir = std::env::temp_dir().join(format!("selfplay-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.bin");
        let _ = std::fs::remove_file(&path);
        let (mut writer, old) = Writer::open(&path, "game=x").unwrap();
        assert!(old.is_empty());
        writer.append(&game(0)).unwrap();
        writer.append(&game(1)).unwrap();
        drop(writer);
        let whole = std::fs::read(&path).unwrap();
        // Cut inside the second record.
        std::fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        assert_eq!(read(&path).unwrap().games, vec![game(0)]);
        let (mut writer, old) = Writer::open(&path, "game=x").unwrap();
        assert_eq!(old, vec![game(0)]);
        writer.append(&game(1)).unwrap();
        drop(writer);
        assert_eq!(std::fs::read(&path).unwrap(), whole);
        assert!(matches!(
            Writer::open(&path, "game=y"),
            Err(FileError::OtherSettings { .. })
        ));
        std::fs::write(&path, b"not a data file at all").unwrap();
        assert!(matches!(read(&path), Err(FileError::NotSelfPlay)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
