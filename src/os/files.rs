//! One way to open a path, for every reader and writer of the project:
//! the engine (networks, checkpoints, certificates, self-play, datasets,
//! table records), the referee and the tools.
//!
//! - Reading opens without blocking (a FIFO or a device never holds a
//!   program up), requires a regular file, and reads at most what the
//!   format allows: a larger file is refused by its size before a byte is
//!   read.
//! - Writing goes to a temporary file beside the target, then renames it
//!   over the target, which must be a regular file or nothing: a device,
//!   a FIFO, a socket or a folder is refused, and never replaced. A
//!   symbolic link is followed on purpose: the file it names is written
//!   (the link stays), if that is a regular file or nothing yet.
//! - Every error names the path and says what it is.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a path could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// Something other than a regular file is there: what it is.
    NotRegular { path: PathBuf, is: &'static str },
    /// A folder was meant, and something else is there.
    NotFolder { path: PathBuf, is: &'static str },
    /// Larger than the format allows.
    TooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    /// A symbolic link to nothing.
    DanglingLink(PathBuf),
    /// What the system said: its kind, and its words.
    Io {
        path: PathBuf,
        kind: io::ErrorKind,
        error: String,
    },
}

impl PathError {
    fn io(path: &Path) -> impl Fn(io::Error) -> PathError + '_ {
        move |error| PathError::Io {
            path: path.to_path_buf(),
            kind: error.kind(),
            error: error.to_string(),
        }
    }

    /// Whether nothing is at the path.
    pub fn is_not_found(&self) -> bool {
        matches!(self, PathError::Io { kind, .. } if *kind == io::ErrorKind::NotFound)
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            PathError::NotRegular { path, .. }
            | PathError::NotFolder { path, .. }
            | PathError::TooLarge { path, .. }
            | PathError::DanglingLink(path)
            | PathError::Io { path, .. } => path,
        }
    }
}

impl PathError {
    /// What is wrong, without the path (for messages that name it
    /// already).
    pub fn reason(&self) -> String {
        match self {
            PathError::NotRegular { is, .. } => format!("is {is}, not a regular file"),
            PathError::NotFolder { is, .. } => format!("is {is}, not a folder"),
            PathError::TooLarge { bytes, limit, .. } => {
                format!("{bytes} bytes, more than the {limit} this file may hold")
            }
            PathError::DanglingLink(_) => "is a symbolic link to nothing".to_string(),
            PathError::Io { error, .. } => error.clone(),
        }
    }
}

impl fmt::Display for PathError {
    /// `<path>: <reason>`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.reason())
    }
}

impl std::error::Error for PathError {}

/// What a file type is, in words.
fn kind_of(file_type: fs::FileType) -> &'static str {
    if file_type.is_file() {
        "a regular file"
    } else if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// Opens `path` for reading, without blocking, if it is a regular file of
/// at most `limit` bytes (checked by its size before anything is read).
pub fn open_regular(path: &Path, limit: u64) -> Result<File, PathError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
        .open(path)
        .map_err(PathError::io(path))?;
    let meta = file.metadata().map_err(PathError::io(path))?;
    if !meta.is_file() {
        return Err(PathError::NotRegular {
            path: path.to_path_buf(),
            is: kind_of(meta.file_type()),
        });
    }
    if meta.len() > limit {
        return Err(PathError::TooLarge {
            path: path.to_path_buf(),
            bytes: meta.len(),
            limit,
        });
    }
    Ok(file)
}

/// The bytes of the regular file at `path`, at most `limit` of them (a
/// file that grows past it while read is refused too).
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, PathError> {
    let file = open_regular(path, limit)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(PathError::io(path))?;
    if bytes.len() as u64 > limit {
        return Err(PathError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_bounded`], as text (bytes that are not UTF-8 are an error).
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String, PathError> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes).map_err(|_| PathError::Io {
        path: path.to_path_buf(),
        kind: io::ErrorKind::InvalidData,
        error: "bytes that are not UTF-8".to_string(),
    })
}

/// Whether a regular file is at `path` (a missing path is `Ok(false)`;
/// anything else there is an error).
pub fn regular_exists(path: &Path) -> Result<bool, PathError> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(true),
        Ok(meta) => Err(PathError::NotRegular {
            path: path.to_path_buf(),
            is: kind_of(meta.file_type()),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(PathError::io(path)(e)),
    }
}

/// Checks that `path` is a folder, or nothing yet (`create`: then it is
/// made, with its parents).
pub fn folder(path: &Path, create: bool) -> Result<(), PathError> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => Err(PathError::NotFolder {
            path: path.to_path_buf(),
            is: kind_of(meta.file_type()),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
            fs::create_dir_all(path).map_err(PathError::io(path))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(PathError::io(path)(e)),
    }
}

/// Where a write to `path` goes: `path` itself when it is a regular file
/// or nothing yet, the file a symbolic link names (followed on purpose)
/// when that is; anything else is refused before a byte is written.
pub fn write_target(path: &Path) -> Result<PathBuf, PathError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(PathError::io(path)(e)),
    };
    if meta.is_file() {
        return Ok(path.to_path_buf());
    }
    if !meta.file_type().is_symlink() {
        return Err(PathError::NotRegular {
            path: path.to_path_buf(),
            is: kind_of(meta.file_type()),
        });
    }
    match fs::metadata(path) {
        Ok(target) if target.is_file() => fs::canonicalize(path).map_err(PathError::io(path)),
        Ok(target) => Err(PathError::NotRegular {
            path: path.to_path_buf(),
            is: match kind_of(target.file_type()) {
                "a folder" => "a symbolic link to a folder",
                "a FIFO" => "a symbolic link to a FIFO",
                "a character device" => "a symbolic link to a character device",
                "a block device" => "a symbolic link to a block device",
                "a socket" => "a symbolic link to a socket",
                _ => "a symbolic link to something that is not a file",
            },
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(PathError::DanglingLink(path.to_path_buf()))
        }
        Err(e) => Err(PathError::io(path)(e)),
    }
}

/// Writes a file whole or not at all: `write` fills a temporary file
/// beside the target ([`write_target`]), which is synced and renamed over
/// it; on any error the temporary file is removed and the target is as it
/// was.
pub fn write_replacing(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), PathError> {
    let target = write_target(path)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = target.with_file_name(format!(".{name}.part{}", std::process::id()));
    let result = (|| {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(&temporary)?;
        let mut out = io::BufWriter::with_capacity(1 << 16, &file);
        write(&mut out)?;
        out.flush()?;
        drop(out);
        file.sync_all()?;
        fs::rename(&temporary, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.map_err(PathError::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("menagerie-files-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    fn fifo(path: &Path) {
        let _ = fs::remove_file(path);
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn reads_refuse_what_is_not_a_regular_file_at_once() {
        let pipe = temp("pipe");
        fifo(&pipe);
        let refused = read_bounded(&pipe, 100).unwrap_err();
        assert_eq!(
            refused.to_string(),
            format!("{}: is a FIFO, not a regular file", pipe.display())
        );
        let dev = read_bounded(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(
            dev.to_string()
                .ends_with("is a character device, not a regular file"),
            "{dev}"
        );
        let dir = read_bounded(&std::env::temp_dir(), 100).unwrap_err();
        assert!(dir.to_string().contains("is a folder"), "{dir}");
        let missing = read_bounded(&temp("missing"), 100).unwrap_err();
        assert!(matches!(missing, PathError::Io { .. }));
    }

    #[test]
    fn reads_are_bounded_by_size_before_reading() {
        let big = temp("sparse");
        let file = File::create(&big).unwrap();
        file.set_len(10 << 30).unwrap(); // 10 GiB, sparse
        let refused = read_bounded(&big, 1 << 20).unwrap_err();
        assert!(matches!(refused, PathError::TooLarge { bytes, .. } if bytes == 10 << 30));
        fs::write(&big, b"12345").unwrap();
        assert_eq!(read_bounded(&big, 5).unwrap(), b"12345");
        assert!(read_bounded(&big, 4).is_err());
    }

    #[test]
    fn writes_replace_only_regular_files_and_follow_links_on_purpose() {
        let pipe = temp("w-pipe");
        fifo(&pipe);
        let refused = write_replacing(&pipe, |w| w.write_all(b"x")).unwrap_err();
        assert!(refused
            .to_string()
            .ends_with("is a FIFO, not a regular file"));
        assert!(fs::symlink_metadata(&pipe).unwrap().file_type().is_fifo());
        let to_null = temp("to-null");
        let _ = fs::remove_file(&to_null);
        std::os::unix::fs::symlink("/dev/null", &to_null).unwrap();
        let refused = write_replacing(&to_null, |w| w.write_all(b"x")).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("a symbolic link to a character device"),
            "{refused}"
        );
        assert!(fs::symlink_metadata(&to_null)
            .unwrap()
            .file_type()
            .is_symlink());
        // A link to a file: the file is written, the link stays.
        let real = temp("real");
        fs::write(&real, b"old").unwrap();
        let link = temp("link");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_replacing(&link, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        // A failed write leaves the file as it was, and no part file.
        let failed = write_replacing(&real, |_| Err(io::Error::other("cut")));
        assert!(failed.is_err());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        let parts = fs::read_dir(real.parent().unwrap())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".part")
            })
            .count();
        assert_eq!(parts, 0);
        let dangling = temp("dangling");
        let _ = fs::remove_file(&dangling);
        std::os::unix::fs::symlink(temp("nowhere"), &dangling).unwrap();
        assert!(matches!(
            write_replacing(&dangling, |w| w.write_all(b"x")),
            Err(PathError::DanglingLink(_))
        ));
    }
}
