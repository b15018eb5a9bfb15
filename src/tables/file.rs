//! Slice files: `<dir>/<game>/<variant>/<slice>.mtb`.
//!
//! Format 2: a 256-byte header, a table of block checksums, then two bytes
//! per position number (the two thresholds of [`Entry`]), in blocks of
//! [`BLOCK_ENTRIES`] entries. Little-endian:
//!
//! | offset | size | field                                             |
//! |-------:|-----:|---------------------------------------------------|
//! | 0      | 8    | magic `MNGRTBL2`                                  |
//! | 8      | 4    | format version (2)                                |
//! | 12     | 1    | men (of the first kind) of the side to move       |
//! | 13     | 1    | men (of the first kind) of the other side         |
//! | 14     | 1    | the clock's end for the side to move: 0 loss, 1 draw, 2 win |
//! | 15     | 1    | bytes per entry (2)                               |
//! | 16     | 8    | entries                                           |
//! | 24     | 4    | CRC-32 of all the entries                         |
//! | 28     | 4    | no-progress limit in plies                        |
//! | 32     | 48   | game id, zero-padded                              |
//! | 80     | 48   | variant, zero-padded                              |
//! | 128    | 4    | entries per block (2048)                          |
//! | 132    | 4    | CRC-32 of the block checksum table                |
//! | 136    | 1    | men of the second kind of the side to move (0 in a game with one kind) |
//! | 137    | 1    | men of the second kind of the other side          |
//! | 138    | 114  | zero                                              |
//! | 252    | 4    | CRC-32 of bytes 0 to 251                          |
//! | 256    | 4 per block | CRC-32 of each block of entries            |
//!
//! Every field that can change a value is under the header's checksum
//! and compared, on open, with what the game and ruleset say it must be
//! (game, ruleset, slice, entry count, the clock's end, the clock's
//! limit). The entries are read on demand, a block at a time, and each
//! block is checked against its checksum the first time it is read, so
//! that play starts at once and never uses a value it has not checked.
//! Reading (not mapping) the file also means that a file cut or
//! replaced while the engine runs cannot crash it: a short read or a
//! checksum that no longer matches leaves the file out, with its name.
//!
//! A file is written under a temporary name and renamed when complete, so
//! an interrupted build never leaves a slice that looks whole. Format 1
//! files (a 128-byte header, one checksum) are converted by `tables build`.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;

use crate::value::{Entry, Wdl};

const MAGIC: &[u8; 8] = b"MNGRTBL2";
const MAGIC_V1: &[u8; 8] = b"MNGRTBL1";
const VERSION: u32 = 2;
pub const HEADER: usize = 256;
/// More pieces than any game's tables have.
pub const MOST_MEN: u32 = 32;
const HEADER_V1: usize = 128;
const NAME_FIELD: usize = 48;
/// Entries per checked block: 4 KiB, a page.
pub const BLOCK_ENTRIES: u64 = 2048;
const BLOCK_BYTES: usize = 2 * BLOCK_ENTRIES as usize;

/// What a slice file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub game: String,
    pub variant: String,
    pub slice: Slice,
    pub timeout: Wdl,
    pub entries: u64,
    pub checksum: u32,
    pub limit: u32,
}

/// Why a slice file cannot be used. Each names the file.
#[derive(Debug)]
pub enum FileError {
    Io(PathBuf, io::Error),
    /// A FIFO, a device, a folder: only regular files are opened.
    NotRegular(PathBuf),
    /// Not a table file.
    NotATable(PathBuf),
    /// A table file of format 1, which `tables build` converts.
    OldFormat(PathBuf),
    /// The header does not match its own checksum.
    HeaderChecksum(PathBuf),
    /// The header says another game, ruleset, slice, size, ... than the
    /// game and ruleset give: what, what the file says, what it must be.
    Mismatch {
        path: PathBuf,
        field: &'static str,
        found: String,
        expected: String,
    },
    /// The file's length is not what its header says.
    Size {
        path: PathBuf,
        found: u64,
        expected: u64,
    },
    /// The entries do not match the header's checksum.
    Checksum(PathBuf),
    /// A block of entries does not match its checksum: a damaged file, or
    /// one changed since it was opened.
    BlockChecksum(PathBuf, u64),
    /// The file ended before a block it should hold: cut since it was
    /// opened.
    Truncated(PathBuf, u64),
}

impl FileError {
    /// The file the problem is about.
    pub fn path(&self) -> &Path {
        match self {
            FileError::Io(path, _)
            | FileError::NotRegular(path)
            | FileError::NotATable(path)
            | FileError::OldFormat(path)
            | FileError::HeaderChecksum(path)
            | FileError::Mismatch { path, .. }
            | FileError::Size { path, .. }
            | FileError::Checksum(path)
            | FileError::BlockChecksum(path, _)
            | FileError::Truncated(path, _) => path,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let path = self.path().display();
        match self {
            FileError::Io(_, e) => write!(f, "{path}: {e}"),
            FileError::NotRegular(_) => write!(f, "{path}: not a regular file"),
            FileError::NotATable(_) => write!(f, "{path}: not a table file"),
            FileError::OldFormat(_) => write!(
                f,
                "{path}: a table file of format 1 ('tables build' converts it)"
            ),
            FileError::HeaderChecksum(_) => {
                write!(f, "{path}: header checksum mismatch (a damaged file)")
            }
            FileError::Mismatch {
                field,
                found,
                expected,
                ..
            } => write!(
                f,
                "{path}: the header says {field} {found}, the ruleset gives {expected}"
            ),
            FileError::Size {
                found, expected, ..
            } => write!(
                f,
                "{path}: {found} bytes, its header says {expected} (a cut or damaged file)"
            ),
            FileError::Checksum(_) => write!(f, "{path}: checksum mismatch (a damaged file)"),
            FileError::BlockChecksum(_, block) => write!(
                f,
                "{path}: checksum mismatch in block {block} (a damaged file, or one changed while in use)"
            ),
            FileError::Truncated(_, block) => write!(
                f,
                "{path}: the file ends before block {block} (cut while in use)"
            ),
        }
    }
}

impl std::error::Error for FileError {}

/// What the game and ruleset say each slice file must hold.
pub struct Expected {
    pub game: &'static str,
    pub variant: &'static str,
    pub limit: u32,
    /// The game's pairs of slices up to a number of pieces
    /// ([`menagerie_rules::game::endgame::Endgame::pairs`]).
    pub pairs: fn(u32) -> Vec<Slice>,
    /// The slices a slice's captures (and its mirror's) lead into.
    pub dependencies: fn(Slice) -> Vec<Slice>,
    /// Pieces every position has besides its slice's.
    pub fixed_men: u32,
    entries: fn(Slice) -> u64,
    timeout: Box<dyn Fn(Slice) -> Option<Wdl> + Send + Sync>,
}

impl Expected {
    /// What the tables of `G` under `rules` hold; `None` if it has none.
    pub fn of<G: Game>(rules: &G::Rules) -> Option<Expected> {
        let endgame = G::endgame()?;
        let rules = rules.clone();
        Some(Expected {
            game: G::ID,
            variant: (endgame.variant)(&rules),
            limit: G::NO_PROGRESS_LIMIT,
            pairs: endgame.pairs,
            dependencies: endgame.dependencies,
            fixed_men: endgame.fixed_men,
            entries: endgame.slice_size,
            timeout: Box::new(move |slice| clock_end::<G>(&rules, slice)),
        })
    }

    /// Every slice the game has tables for, both of each pair.
    pub fn all_slices(&self) -> Vec<Slice> {
        (self.pairs)(MOST_MEN)
            .into_iter()
            .flat_map(Slice::members)
            .collect()
    }

    /// Position numbers of `slice`.
    pub fn entries(&self, slice: Slice) -> u64 {
        (self.entries)(slice)
    }

    /// The result for the side to move when the clock ends a game of
    /// `slice` (the same for all its positions).
    pub fn timeout(&self, slice: Slice) -> Option<Wdl> {
        (self.timeout)(slice)
    }
}

/// The clock's end for the side to move in `slice`, from its first
/// position.
pub fn clock_end<G: Game>(rules: &G::Rules, slice: Slice) -> Option<Wdl> {
    let endgame = G::endgame()?;
    let size = (endgame.slice_size)(slice);
    let sample = (0..size).find_map(|i| (endgame.position)(rules, slice, i))?;
    Some(Wdl::of_outcome(sample.no_progress_outcome(), &sample))
}

/// The folder of one ruleset's tables.
pub fn folder(dir: &Path, game: &str, variant: &str) -> PathBuf {
    dir.join(game).join(variant)
}

pub fn slice_path(folder: &Path, slice: Slice) -> PathBuf {
    folder.join(format!("{slice}.mtb"))
}

fn name_field(name: &str) -> [u8; NAME_FIELD] {
    let mut field = [0u8; NAME_FIELD];
    let bytes = &name.as_bytes()[..name.len().min(NAME_FIELD)];
    field[..bytes.len()].copy_from_slice(bytes);
    field
}

fn read_name(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Blocks of `entries` entries.
fn blocks_of(entries: u64) -> u64 {
    entries.div_ceil(BLOCK_ENTRIES)
}

/// The length of a file of `entries` entries (saturating).
pub fn length(entries: u64) -> u64 {
    length_of(entries).unwrap_or(u64::MAX)
}

/// The file length a header of `entries` entries means, if it fits in a
/// `u64` at all (a damaged count may not).
fn length_of(entries: u64) -> Option<u64> {
    let table = blocks_of(entries).checked_mul(4)?;
    let body = entries.checked_mul(2)?;
    (HEADER as u64).checked_add(table)?.checked_add(body)
}

impl Header {
    fn to_bytes(&self, block_table_crc: u32) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.slice.mover.0[0];
        h[13] = self.slice.other.0[0];
        h[14] = self.timeout.code();
        h[15] = 2;
        h[16..24].copy_from_slice(&self.entries.to_le_bytes());
        h[24..28].copy_from_slice(&self.checksum.to_le_bytes());
        h[28..32].copy_from_slice(&self.limit.to_le_bytes());
        h[32..80].copy_from_slice(&name_field(&self.game));
        h[80..128].copy_from_slice(&name_field(&self.variant));
        h[128..132].copy_from_slice(&(BLOCK_ENTRIES as u32).to_le_bytes());
        h[132..136].copy_from_slice(&block_table_crc.to_le_bytes());
        h[136] = self.slice.mover.0[1];
        h[137] = self.slice.other.0[1];
        let crc = crc32fast::hash(&h[..252]);
        h[252..256].copy_from_slice(&crc.to_le_bytes());
        h
    }

    /// The fields both formats keep at the same offsets (bytes 12 to 127).
    fn fields(bytes: &[u8], path: &Path) -> Result<Header, FileError> {
        Ok(Header {
            slice: Slice::new(bytes[12], bytes[13]),
            timeout: Wdl::from_code(bytes[14])
                .ok_or_else(|| FileError::NotATable(path.to_path_buf()))?,
            entries: u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")),
            checksum: u32_at(bytes, 24),
            limit: u32_at(bytes, 28),
            game: read_name(&bytes[32..80]),
            variant: read_name(&bytes[80..128]),
        })
    }

    /// The header of a format 2 file and its block table's checksum.
    fn parse(bytes: &[u8], path: &Path) -> Result<(Header, u32), FileError> {
        if bytes.len() >= 8 && &bytes[0..8] == MAGIC_V1 {
            return Err(FileError::OldFormat(path.to_path_buf()));
        }
        if bytes.len() < HEADER || &bytes[0..8] != MAGIC {
            return Err(FileError::NotATable(path.to_path_buf()));
        }
        if crc32fast::hash(&bytes[..252]) != u32_at(bytes, 252) {
            return Err(FileError::HeaderChecksum(path.to_path_buf()));
        }
        // Under the checksum, so only a writer of another format (or a
        // forged checksum) gets here with other values.
        if u32_at(bytes, 8) != VERSION
            || bytes[15] != 2
            || u64::from(u32_at(bytes, 128)) != BLOCK_ENTRIES
        {
            return Err(FileError::NotATable(path.to_path_buf()));
        }
        let mut header = Header::fields(bytes, path)?;
        header.slice.mover.0[1] = bytes[136];
        header.slice.other.0[1] = bytes[137];
        Ok((header, u32_at(bytes, 132)))
    }

    /// Compares every field that can change a value with what the game
    /// and ruleset say of `slice`.
    fn check(&self, path: &Path, expected: &Expected, slice: Slice) -> Result<(), FileError> {
        let mismatch = |field, found: String, expected: String| {
            Err(FileError::Mismatch {
                path: path.to_path_buf(),
                field,
                found,
                expected,
            })
        };
        if self.game != expected.game {
            return mismatch("game", self.game.clone(), expected.game.to_string());
        }
        if self.variant != expected.variant {
            return mismatch(
                "ruleset",
                self.variant.clone(),
                expected.variant.to_string(),
            );
        }
        if self.slice != slice {
            return mismatch("slice", self.slice.to_string(), slice.to_string());
        }
        let entries = expected.entries(slice);
        if self.entries != entries {
            return mismatch("entries", self.entries.to_string(), entries.to_string());
        }
        if self.limit != expected.limit {
            return mismatch(
                "no-progress limit",
                self.limit.to_string(),
                expected.limit.to_string(),
            );
        }
        if let Some(timeout) = expected.timeout(slice) {
            if self.timeout != timeout {
                return mismatch(
                    "the clock's end",
                    format!("{:?}", self.timeout).to_lowercase(),
                    format!("{timeout:?}").to_lowercase(),
                );
            }
        }
        Ok(())
    }
}

/// Opens `path` for reading if it is a regular file, without blocking
/// (a FIFO or a device never holds the engine up): the one way of
/// `menagerie_os::files`.
fn open_regular(path: &Path) -> Result<File, FileError> {
    use menagerie_os::files::PathError;
    menagerie_os::files::open_regular(path, u64::MAX).map_err(|e| match e {
        PathError::Io { kind, error, .. } => {
            FileError::Io(path.to_path_buf(), std::io::Error::new(kind, error))
        }
        _ => FileError::NotRegular(path.to_path_buf()),
    })
}

/// Writes a slice's entries with their header; the file appears whole or
/// not at all.
pub fn write(path: &Path, header: &Header, entries: &[Entry]) -> Result<(), FileError> {
    let io = |e| FileError::Io(path.to_path_buf(), e);
    let mut whole = crc32fast::Hasher::new();
    let mut blocks = Vec::with_capacity(blocks_of(entries.len() as u64) as usize);
    let mut buffer = Vec::with_capacity(BLOCK_BYTES);
    for block in entries.chunks(BLOCK_ENTRIES as usize) {
        fill(&mut buffer, block);
        whole.update(&buffer);
        blocks.push(crc32fast::hash(&buffer));
    }
    let table: Vec<u8> = blocks.iter().flat_map(|c| c.to_le_bytes()).collect();
    let header = Header {
        checksum: whole.finalize(),
        entries: entries.len() as u64,
        ..header.clone()
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let temporary = path.with_extension(format!("mtb.part{}", writer_tag()));
    let result = (|| {
        let file = File::create(&temporary)?;
        let mut out = BufWriter::with_capacity(1 << 20, &file);
        out.write_all(&header.to_bytes(crc32fast::hash(&table)))?;
        out.write_all(&table)?;
        for block in entries.chunks(BLOCK_ENTRIES as usize) {
            fill(&mut buffer, block);
            out.write_all(&buffer)?;
        }
        out.flush()?;
        drop(out);
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.map_err(io)
}

/// The bytes of `entries`, as the file holds them.
fn fill(buffer: &mut Vec<u8>, entries: &[Entry]) {
    buffer.clear();
    for e in entries {
        buffer.push(e.first);
        buffer.push(e.second);
    }
}

/// Checks that a build can write into `folder` (creating it), before it
/// spends any time on a slice.
pub fn check_writable(folder: &Path) -> Result<(), FileError> {
    let io = |e| FileError::Io(folder.to_path_buf(), e);
    fs::create_dir_all(folder).map_err(io)?;
    let probe = folder.join(format!(".writable{}", std::process::id()));
    File::create(&probe).map_err(io)?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// Rewrites a format 1 file at `path` in format 2, if its entries match
/// its checksum and its header the ruleset and `slice`.
pub fn convert_v1(path: &Path, expected: &Expected, slice: Slice) -> Result<(), FileError> {
    let io = |e| FileError::Io(path.to_path_buf(), e);
    let mut bytes = Vec::new();
    open_regular(path)?.read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() < HEADER_V1 || &bytes[0..8] != MAGIC_V1 || bytes[15] != 2 {
        return Err(FileError::NotATable(path.to_path_buf()));
    }
    let header = Header::fields(&bytes, path)?;
    header.check(path, expected, slice)?;
    let data = &bytes[HEADER_V1..];
    if Some(data.len() as u64) != header.entries.checked_mul(2) {
        return Err(FileError::Size {
            path: path.to_path_buf(),
            found: bytes.len() as u64,
            expected: (HEADER_V1 as u64).saturating_add(header.entries.saturating_mul(2)),
        });
    }
    if crc32fast::hash(data) != header.checksum {
        return Err(FileError::Checksum(path.to_path_buf()));
    }
    let entries: Vec<Entry> = data
        .chunks_exact(2)
        .map(|p| Entry {
            first: p[0],
            second: p[1],
        })
        .collect();
    drop(bytes);
    write(path, &header, &entries)
}

/// This host's name, as the kernel has it.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// What a temporary file's name says of its writer: the host and the
/// process, so that builds on several machines sharing a folder (the
/// tasks of a cluster job) never take each other's files for orphans.
fn writer_tag() -> String {
    format!("{}-{}", host(), std::process::id())
}

/// Removes the temporary files of builds on this host that died before
/// renaming them (their process is gone); those of live builds, and of
/// other hosts, are left alone.
pub fn remove_orphans(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let here = host();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((_, tag)) = name.split_once(".mtb.part") else {
            continue;
        };
        let Some(pid) = tag
            .rsplit_once('-')
            .filter(|(h, _)| *h == here)
            .and_then(|(_, pid)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH);
        if !alive {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// How much of a slice file is checked when it is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The header, the size and the block table; each block when it is
    /// first read.
    Header,
    /// And every entry now, against the block and whole checksums.
    Checksum,
}

/// Bytes of checked blocks kept in memory by every open slice file of
/// the process, and the most they may keep; past it, blocks are read and
/// checked at each use instead (slower, never wrong).
static CACHED: AtomicU64 = AtomicU64::new(0);
static CACHE_LIMIT: OnceLock<u64> = OnceLock::new();

fn cache_limit() -> u64 {
    *CACHE_LIMIT
        .get_or_init(|| menagerie_os::memory::available_bytes().map_or(1 << 30, |bytes| bytes / 2))
}

/// An open slice file, read a checked block at a time.
pub struct SliceFile {
    pub header: Header,
    pub path: PathBuf,
    file: File,
    /// Where the entries start.
    body: u64,
    block_crcs: Box<[u32]>,
    blocks: Box<[OnceLock<Box<[u8]>>]>,
    /// A check failed: the file is left out from then on.
    failed: AtomicBool,
    /// The first failure, until it has been reported.
    problem: Mutex<Option<FileError>>,
}

impl SliceFile {
    /// Opens the file at `path` and checks its header against what the
    /// game and ruleset say of `slice`, and its size; with
    /// `Check::Checksum`, every entry too.
    pub fn open(
        path: &Path,
        expected: &Expected,
        slice: Slice,
        check: Check,
    ) -> Result<SliceFile, FileError> {
        let io = |e| FileError::Io(path.to_path_buf(), e);
        let file = open_regular(path)?;
        let length = file.metadata().map_err(io)?.len();
        let mut head = vec![0u8; HEADER.min(length as usize)];
        file.read_exact_at(&mut head, 0).map_err(io)?;
        let (header, table_crc) = Header::parse(&head, path)?;
        header.check(path, expected, slice)?;
        let expected_length = length_of(header.entries).ok_or_else(|| FileError::Size {
            path: path.to_path_buf(),
            found: length,
            expected: u64::MAX,
        })?;
        if length != expected_length {
            return Err(FileError::Size {
                path: path.to_path_buf(),
                found: length,
                expected: expected_length,
            });
        }
        let blocks = blocks_of(header.entries) as usize;
        let mut table = vec![0u8; 4 * blocks];
        file.read_exact_at(&mut table, HEADER as u64).map_err(io)?;
        if crc32fast::hash(&table) != table_crc {
            return Err(FileError::HeaderChecksum(path.to_path_buf()));
        }
        let block_crcs = table.chunks_exact(4).map(|c| u32_at(c, 0)).collect();
        let opened = SliceFile {
            body: (HEADER + 4 * blocks) as u64,
            header,
            path: path.to_path_buf(),
            file,
            block_crcs,
            blocks: (0..blocks).map(|_| OnceLock::new()).collect(),
            failed: AtomicBool::new(false),
            problem: Mutex::new(None),
        };
        if check == Check::Checksum {
            opened.check_all()?;
        }
        Ok(opened)
    }

    pub fn entries(&self) -> u64 {
        self.header.entries
    }

    /// Reads every entry and checks it against the block and the whole
    /// checksums (blocks are not kept).
    pub fn check_all(&self) -> Result<(), FileError> {
        let mut whole = crc32fast::Hasher::new();
        let mut buffer = vec![0u8; BLOCK_BYTES];
        for block in 0..self.blocks.len() as u64 {
            let bytes = self.read_block(block, &mut buffer)?;
            whole.update(bytes);
        }
        if whole.finalize() != self.header.checksum {
            return Err(FileError::Checksum(self.path.clone()));
        }
        Ok(())
    }

    /// Reads block `block` into `buffer` and checks it; the bytes read.
    fn read_block<'b>(&self, block: u64, buffer: &'b mut [u8]) -> Result<&'b [u8], FileError> {
        let first = block * BLOCK_ENTRIES;
        let count = (self.header.entries - first).min(BLOCK_ENTRIES) as usize;
        let bytes = &mut buffer[..2 * count];
        match self.file.read_exact_at(bytes, self.body + 2 * first) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(FileError::Truncated(self.path.clone(), block))
            }
            Err(e) => return Err(FileError::Io(self.path.clone(), e)),
        }
        if crc32fast::hash(bytes) != self.block_crcs[block as usize] {
            return Err(FileError::BlockChecksum(self.path.clone(), block));
        }
        Ok(bytes)
    }

    /// The entry of position number `index` (below [`Self::entries`]);
    /// `None` once the file has failed a check (it is left out).
    #[inline]
    pub fn entry(&self, index: u64) -> Option<Entry> {
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        let block = index / BLOCK_ENTRIES;
        let at = 2 * (index % BLOCK_ENTRIES) as usize;
        let cached = &self.blocks[block as usize];
        if let Some(bytes) = cached.get() {
            return Some(Entry {
                first: bytes[at],
                second: bytes[at + 1],
            });
        }
        self.load(block, at)
    }

    /// Reads and checks a block not yet in memory; keeps it while the
    /// process's cache has room.
    #[cold]
    fn load(&self, block: u64, at: usize) -> Option<Entry> {
        let mut buffer = [0u8; BLOCK_BYTES];
        let bytes = match self.read_block(block, &mut buffer) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        let entry = Entry {
            first: bytes[at],
            second: bytes[at + 1],
        };
        let size = bytes.len() as u64;
        if CACHED.fetch_add(size, Ordering::Relaxed) + size <= cache_limit() {
            if self.blocks[block as usize].set(bytes.into()).is_err() {
                // Another thread kept it first.
                CACHED.fetch_sub(size, Ordering::Relaxed);
            }
        } else {
            CACHED.fetch_sub(size, Ordering::Relaxed);
        }
        Some(entry)
    }

    /// Leaves the file out, keeping the first reason to report.
    fn fail(&self, problem: FileError) {
        if !self.failed.swap(true, Ordering::Relaxed) {
            log::info!("endgame table left out: {problem}");
            *self.problem.lock().unwrap_or_else(|e| e.into_inner()) = Some(problem);
        }
    }

    /// Whether a check has failed since the file was opened.
    pub fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The failure not reported yet, once.
    pub fn take_problem(&self) -> Option<FileError> {
        self.problem
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

impl Drop for SliceFile {
    fn drop(&mut self) {
        let kept: u64 = self
            .blocks
            .iter()
            .filter_map(|b| b.get())
            .map(|b| b.len() as u64)
            .sum();
        CACHED.fetch_sub(kept, Ordering::Relaxed);
    }
}
