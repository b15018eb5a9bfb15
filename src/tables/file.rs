//! Slice files: `<dir>/<game>/<variant>/<slice>.mtb`.
//!
//! A 128-byte header, then two bytes per position number (the two
//! thresholds of [`Entry`]). Header, little-endian:
//!
//! | offset | size | field                                             |
//! |-------:|-----:|---------------------------------------------------|
//! | 0      | 8    | magic `MNGRTBL1`                                  |
//! | 8      | 4    | format version (1)                                |
//! | 12     | 1    | men of the side to move                           |
//! | 13     | 1    | men of the other side                             |
//! | 14     | 1    | the clock's end for the side to move: 0 loss, 1 draw, 2 win |
//! | 15     | 1    | bytes per entry (2)                               |
//! | 16     | 8    | entries                                           |
//! | 24     | 4    | CRC-32 of the entries                             |
//! | 28     | 4    | no-progress limit in plies                        |
//! | 32     | 48   | game id, zero-padded                              |
//! | 80     | 48   | variant, zero-padded                              |
//!
//! A file is written under a temporary name and renamed when complete, so
//! an interrupted build never leaves a slice that looks whole.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use menagerie_rules::game::endgame::Slice;

use crate::value::{Entry, Wdl};

const MAGIC: &[u8; 8] = b"MNGRTBL1";
const VERSION: u32 = 1;
pub const HEADER: usize = 128;
const NAME_FIELD: usize = 48;

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

/// Why a slice file cannot be used.
#[derive(Debug)]
pub enum FileError {
    Io(PathBuf, io::Error),
    /// Not a table file, or one of another version.
    NotATable(PathBuf),
    /// The header names another game, ruleset, slice or size.
    Mismatch(PathBuf, &'static str),
    /// The entries do not match the header's checksum.
    Checksum(PathBuf),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            FileError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            FileError::NotATable(path) => {
                write!(f, "{}: not a table file of this version", path.display())
            }
            FileError::Mismatch(path, what) => {
                write!(f, "{}: the header has another {what}", path.display())
            }
            FileError::Checksum(path) => {
                write!(f, "{}: checksum mismatch (a damaged file)", path.display())
            }
        }
    }
}

impl std::error::Error for FileError {}

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

impl Header {
    fn to_bytes(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.slice.mover;
        h[13] = self.slice.other;
        h[14] = self.timeout.code();
        h[15] = 2;
        h[16..24].copy_from_slice(&self.entries.to_le_bytes());
        h[24..28].copy_from_slice(&self.checksum.to_le_bytes());
        h[28..32].copy_from_slice(&self.limit.to_le_bytes());
        h[32..80].copy_from_slice(&name_field(&self.game));
        h[80..128].copy_from_slice(&name_field(&self.variant));
        h
    }

    pub fn parse(bytes: &[u8], path: &Path) -> Result<Header, FileError> {
        let bad = || FileError::NotATable(path.to_path_buf());
        if bytes.len() < HEADER || &bytes[0..8] != MAGIC || bytes[15] != 2 {
            return Err(bad());
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        if u32_at(8) != VERSION {
            return Err(bad());
        }
        Ok(Header {
            slice: Slice::new(bytes[12], bytes[13]),
            timeout: Wdl::from_code(bytes[14]).ok_or_else(bad)?,
            entries: u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")),
            checksum: u32_at(24),
            limit: u32_at(28),
            game: read_name(&bytes[32..80]),
            variant: read_name(&bytes[80..128]),
        })
    }
}

/// Writes a slice's entries with their header; the file appears whole or
/// not at all.
pub fn write(path: &Path, header: &Header, entries: &[Entry]) -> Result<(), FileError> {
    let io = |e| FileError::Io(path.to_path_buf(), e);
    let mut data = Vec::with_capacity(2 * entries.len());
    for e in entries {
        data.push(e.first);
        data.push(e.second);
    }
    let header = Header {
        checksum: crc32fast::hash(&data),
        entries: entries.len() as u64,
        ..header.clone()
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let temporary = path.with_extension(format!("mtb.part{}", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(&header.to_bytes())?;
        file.write_all(&data)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.map_err(io)
}

/// Removes the temporary files of builds that died before renaming them
/// (their process is gone); those of live builds are left alone.
pub fn remove_orphans(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .split_once(".mtb.part")
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

/// How much of a slice file is checked when it is mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The header and the size.
    Header,
    /// And every entry against the checksum.
    Checksum,
}

/// A slice file mapped into memory.
pub struct Mapped {
    pub header: Header,
    map: Map,
}

impl Mapped {
    /// Maps the file at `path` and checks its header against what the
    /// caller expects and its entries against the checksum.
    pub fn open(path: &Path, game: &str, variant: &str, slice: Slice) -> Result<Mapped, FileError> {
        Mapped::open_with(path, game, variant, slice, Check::Checksum)
    }

    /// [`Mapped::open`], the checksum read only with `Check::Checksum`.
    pub fn open_with(
        path: &Path,
        game: &str,
        variant: &str,
        slice: Slice,
        check: Check,
    ) -> Result<Mapped, FileError> {
        let map = Map::open(path).map_err(|e| FileError::Io(path.to_path_buf(), e))?;
        let header = Header::parse(map.bytes(), path)?;
        let mismatch = |what| Err(FileError::Mismatch(path.to_path_buf(), what));
        if header.game != game {
            return mismatch("game");
        }
        if header.variant != variant {
            return mismatch("ruleset");
        }
        if header.slice != slice {
            return mismatch("slice");
        }
        let data = &map.bytes()[HEADER..];
        if data.len() as u64 != 2 * header.entries {
            return mismatch("size");
        }
        if check == Check::Checksum && crc32fast::hash(data) != header.checksum {
            return Err(FileError::Checksum(path.to_path_buf()));
        }
        Ok(Mapped { header, map })
    }

    pub fn entries(&self) -> u64 {
        self.header.entries
    }

    /// The entry of position number `index` (below [`Self::entries`]).
    #[inline]
    pub fn entry(&self, index: u64) -> Entry {
        let at = HEADER + 2 * index as usize;
        let bytes = self.map.bytes();
        Entry {
            first: bytes[at],
            second: bytes[at + 1],
        }
    }
}

/// A read-only memory map of a whole file.
struct Map {
    address: *mut libc::c_void,
    length: usize,
}

// SAFETY: the mapping is read-only and lives as long as the value.
unsafe impl Send for Map {}
unsafe impl Sync for Map {}

impl Map {
    fn open(path: &Path) -> io::Result<Map> {
        use std::os::unix::io::AsRawFd;
        let file = fs::File::open(path)?;
        let length = file.metadata()?.len() as usize;
        if length == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "empty file"));
        }
        // SAFETY: a fresh private read-only mapping of a file we opened;
        // the result is checked before use. Table files are only ever
        // replaced by rename, never written in place, so the mapped pages
        // do not change under us.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                length,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Map { address, length })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `address` maps `length` readable bytes until drop.
        unsafe { std::slice::from_raw_parts(self.address as *const u8, self.length) }
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `open`.
        unsafe {
            libc::munmap(self.address, self.length);
        }
    }
}
