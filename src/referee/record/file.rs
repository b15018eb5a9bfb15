//! Record files: read line by line with a bound, a last line cut short
//! told apart from a bad one, and appended to under a lock.

use std::fmt;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::{Record, RecordError};

/// Reads a record file: every line parsed, or the first bad one with its
/// line number.
pub fn read_file(path: &Path) -> Result<Vec<Record>, RecordError> {
    let read = read_file_past_a_cut(path, false)?;
    match read.cut {
        Some(cut) => Err(cut.error),
        None => Ok(read.records),
    }
}

/// Longest record line read: a record of the longest game here takes
/// tens of kilobytes; a longer line is no record, and reading stops there.
pub const MAX_RECORD_LINE: usize = 16 << 20;

/// One line of a record file: its number (from 1), its text, and whether
/// a line end closed it (the last line of a file cut short has none).
pub struct FileLine {
    pub number: usize,
    pub text: String,
    pub ended: bool,
}

/// The lines of a record file, read as they come: a regular file (opened
/// without blocking), each line at most [`MAX_RECORD_LINE`] bytes of
/// UTF-8, so that memory holds one line, never the whole file.
pub struct FileLines {
    path: std::path::PathBuf,
    reader: std::io::BufReader<std::fs::File>,
    number: usize,
    done: bool,
}

impl FileLines {
    pub fn open(path: &Path) -> Result<FileLines, RecordError> {
        let file = menagerie_os::files::open_regular(path, u64::MAX).map_err(|e| {
            RecordError::Unreadable {
                path: path.to_path_buf(),
                why: e.reason(),
            }
        })?;
        Ok(FileLines {
            path: path.to_path_buf(),
            reader: std::io::BufReader::new(file),
            number: 0,
            done: false,
        })
    }

    fn at_line(&self, error: RecordError) -> RecordError {
        RecordError::AtLine {
            path: self.path.clone(),
            line: self.number,
            error: Box::new(error),
        }
    }
}

impl Iterator for FileLines {
    type Item = Result<FileLine, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::{BufRead, Read};
        if self.done {
            return None;
        }
        let mut bytes = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_RECORD_LINE as u64 + 1)
            .read_until(b'\n', &mut bytes);
        if let Err(e) = read {
            self.done = true;
            return Some(Err(RecordError::Unreadable {
                path: self.path.clone(),
                why: e.to_string(),
            }));
        }
        if bytes.is_empty() {
            self.done = true;
            return None;
        }
        self.number += 1;
        let ended = bytes.last() == Some(&b'\n');
        if ended {
            bytes.pop();
        } else if bytes.len() > MAX_RECORD_LINE {
            // The rest of such a line is not read.
            self.done = true;
            return Some(Err(self.at_line(RecordError::LongLine)));
        } else {
            self.done = true;
        }
        match String::from_utf8(bytes) {
            Ok(text) => Some(Ok(FileLine {
                number: self.number,
                text,
                ended,
            })),
            Err(_) => Some(Err(self.at_line(RecordError::NotText))),
        }
    }
}

/// A last line that a crash or a full disk cut short: no newline ends it
/// and it is no record. Everything before it is whole.
#[derive(Debug)]
pub struct CutLine {
    pub line: usize,
    /// Bytes of the file before the cut line.
    pub whole_bytes: u64,
    pub error: RecordError,
}

/// The records of a file, and its cut last line, if any, left out.
#[derive(Debug)]
pub struct Read {
    pub records: Vec<Record>,
    pub cut: Option<CutLine>,
}

/// Reads a record file as [`read_file`] does, but leaves out a last line
/// cut short (see [`CutLine`]); any other bad line is an error, or with
/// `skip_bad` is left out too.
pub fn read_file_past_a_cut(path: &Path, skip_bad: bool) -> Result<Read, RecordError> {
    let mut records = Vec::new();
    let mut offset = 0u64;
    for line in FileLines::open(path)? {
        let line = line?;
        let start = offset;
        offset += line.text.len() as u64 + 1;
        if line.text.trim().is_empty() || line.text.starts_with('#') {
            continue;
        }
        match line.text.parse::<Record>() {
            Ok(record) => records.push(record),
            Err(e) => {
                let error = RecordError::AtLine {
                    path: path.to_path_buf(),
                    line: line.number,
                    error: Box::new(e),
                };
                if !line.ended {
                    return Ok(Read {
                        records,
                        cut: Some(CutLine {
                            line: line.number,
                            whole_bytes: start,
                            error,
                        }),
                    });
                }
                if skip_bad {
                    continue;
                }
                return Err(error);
            }
        }
    }
    Ok(Read { records, cut: None })
}

/// Why a record file cannot be written.
#[derive(Debug)]
pub enum RecordFileError {
    Open(std::path::PathBuf, std::io::Error),
    /// Another referee holds the file's lock.
    Locked(std::path::PathBuf),
    /// A FIFO that nobody reads (writing to it would wait for ever).
    NoReader(std::path::PathBuf),
    Write(std::path::PathBuf, std::io::Error),
}

impl fmt::Display for RecordFileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RecordFileError::Open(path, e) => write!(f, "{}: {e}", path.display()),
            RecordFileError::Locked(path) => {
                write!(f, "{}: another referee is writing it", path.display())
            }
            RecordFileError::NoReader(path) => {
                write!(f, "{}: is a FIFO that nobody reads", path.display())
            }
            RecordFileError::Write(path, e) => {
                write!(f, "cannot write to {}: {e}", path.display())
            }
        }
    }
}

impl std::error::Error for RecordFileError {}

/// A record file open for appending, locked against a second referee.
pub struct RecordFile {
    file: File,
    path: std::path::PathBuf,
}

impl RecordFile {
    /// Opens (creating) `path` for appending and takes an exclusive lock
    /// on it; a file another referee is writing is an error.
    pub fn open(path: &Path) -> Result<RecordFile, RecordFileError> {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        // Opened without blocking: a FIFO nobody reads is refused at once
        // (records are only appended, so a device such as /dev/null may
        // take them; nothing is ever renamed over the path).
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENXIO) => RecordFileError::NoReader(path.to_path_buf()),
                _ => RecordFileError::Open(path.to_path_buf(), e),
            })?;
        // Writes then wait for a slow reader as writes do.
        // SAFETY: fcntl on a descriptor this function owns.
        unsafe {
            let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
        {
            // SAFETY: flock on a descriptor this function owns.
            let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if locked != 0 {
                return Err(RecordFileError::Locked(path.to_path_buf()));
            }
        }
        Ok(RecordFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Cuts the file back to its first `bytes` (a cut last line's start),
    /// under this referee's lock, so that the next record starts a line.
    pub fn truncate(&mut self, bytes: u64) -> Result<(), RecordFileError> {
        self.file
            .set_len(bytes)
            .and_then(|_| self.file.sync_data())
            .map_err(|e| RecordFileError::Write(self.path.clone(), e))
    }

    /// Appends one record as one write of one line and flushes it to the
    /// disk, so a killed referee leaves whole lines only.
    pub fn append(&mut self, record: &Record) -> Result<(), RecordFileError> {
        let mut line = record.to_string();
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| RecordFileError::Write(self.path.clone(), e))
    }
}
