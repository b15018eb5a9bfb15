//! Every path the engine reads or writes, given what a careless or
//! hostile user gives: a FIFO, a device (a private node made here, so
//! that a fault could never replace the machine's), a symbolic link to a
//! device, a folder, a 10 GB sparse file, a path in a missing folder,
//! permission denied, and a file-size limit. Each answers at once with
//! one `info string error` line naming the path, under a named memory
//! bound, and the `quit` after it ends the engine (a write that can only
//! fail when it is made runs to it first); nothing at the path is
//! replaced. Then the referee's paths, the same way.
//!
//! "At once" is checked by what would otherwise never end: a FIFO opened
//! for reading waits for ever, a 10 GB read ends the memory bound. The
//! deadline is only against a hang.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::temp_path;

/// The address space the engine may use here: every path must be
/// answered within it (a 10 GB read cannot be).
const MEMORY_BOUND: u64 = 2 << 30;
/// A file-size limit no written file fits in.
const FILE_SIZE_LIMIT: u64 = 16;
/// Only a hang takes this long.
const HANG: Duration = Duration::from_secs(120);
/// The user permission checks apply to, when the tests run as root.
const NOBODY: u32 = 65534;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Fifo,
    Device,
    LinkToDevice,
    Folder,
    Sparse,
    MissingFolder,
    Denied,
    FileSizeLimit,
}

/// How a path argument is used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Read,
    Write,
    Folder,
}

impl Use {
    fn kinds(self) -> &'static [Kind] {
        use Kind::*;
        match self {
            Use::Read => &[
                Fifo,
                Device,
                LinkToDevice,
                Folder,
                Sparse,
                MissingFolder,
                Denied,
            ],
            Use::Write => &[
                Fifo,
                Device,
                LinkToDevice,
                Folder,
                MissingFolder,
                Denied,
                FileSizeLimit,
            ],
            Use::Folder => &[Fifo, Device, LinkToDevice, Sparse],
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn c_path(path: &Path) -> std::ffi::CString {
    std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap()
}

/// A private character device like /dev/null, made in the test's folder
/// (root only); `None` where it cannot be made.
fn private_device(dir: &Path) -> Option<PathBuf> {
    let path = dir.join("private-null");
    let _ = std::fs::remove_file(&path);
    // SAFETY: a valid C path; makedev(1, 3) is the null device's number.
    let made = unsafe {
        libc::mknod(
            c_path(&path).as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(1, 3),
        )
    };
    (made == 0).then_some(path)
}

/// Makes what `kind` is at a fresh path in `dir` (for `usage`); the path.
fn make(kind: Kind, usage: Use, dir: &Path, n: usize) -> Option<PathBuf> {
    let path = dir.join(format!("case-{n}"));
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(&path);
    match kind {
        Kind::Fifo => {
            // SAFETY: a valid C path.
            assert_eq!(unsafe { libc::mkfifo(c_path(&path).as_ptr(), 0o666) }, 0);
        }
        Kind::Device => {
            return private_device(dir).map(|d| {
                std::fs::rename(&d, &path).unwrap();
                path
            })
        }
        Kind::LinkToDevice => {
            let device = private_device(dir).unwrap_or_else(|| PathBuf::from("/dev/zero"));
            std::os::unix::fs::symlink(device, &path).unwrap();
        }
        Kind::Folder => std::fs::create_dir(&path).unwrap(),
        Kind::Sparse => std::fs::File::create(&path)
            .unwrap()
            .set_len(10 << 30)
            .unwrap(),
        Kind::MissingFolder => return Some(dir.join("nowhere").join(format!("case-{n}"))),
        Kind::Denied if usage == Use::Read => {
            std::fs::write(&path, b"not for you").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        }
        Kind::Denied => {
            std::fs::create_dir(&path).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o555)).unwrap();
            return Some(path.join("inside"));
        }
        Kind::FileSizeLimit => {}
    }
    Some(path)
}

/// The engine on `lines` then `quit`, under the memory bound (and, for
/// `kind`, the file-size limit or another user): its status, output and
/// time.
fn engine(
    lines: &[String],
    kind: Kind,
    tables: &Path,
    quit: bool,
) -> (Option<i32>, String, Duration) {
    let as_nobody = kind == Kind::Denied && is_root();
    let program = if as_nobody {
        // The other user may not reach the build folder (a clone in a
        // private temporary folder): a copy beside the test's files.
        let copy = tables.with_file_name("menagerie-for-nobody");
        if !copy.exists() {
            std::fs::copy(env!("CARGO_BIN_EXE_menagerie"), &copy).unwrap();
            std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        copy
    } else {
        PathBuf::from(env!("CARGO_BIN_EXE_menagerie"))
    };
    let mut command = Command::new(program);
    command
        .env("MENAGERIE_TABLES", tables)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if as_nobody {
        // Root reads and writes past permissions: another user does not.
        command.uid(NOBODY).gid(NOBODY);
    }
    let fsize = (kind == Kind::FileSizeLimit).then_some(FILE_SIZE_LIMIT);
    // SAFETY: only setrlimit, which is async-signal-safe, after fork.
    unsafe {
        command.pre_exec(move || {
            let limit = |resource, bytes: u64| {
                let l = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                libc::setrlimit(resource, &l);
            };
            limit(libc::RLIMIT_AS, MEMORY_BOUND);
            if let Some(bytes) = fsize {
                limit(libc::RLIMIT_FSIZE, bytes);
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let mut input = lines.join("\n");
    input.push_str(if quit { "\nquit\n" } else { "\n" });
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input.as_bytes()).unwrap();
    drop(child.stdin.take());
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
        text
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("no end within {HANG:?}: {lines:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    (status.code(), reader.join().unwrap(), started.elapsed())
}

struct Argument {
    name: &'static str,
    usage: Use,
    /// Lines before the one with the path.
    setup: &'static [&'static str],
    /// The line, with `{P}` for the path and `{D}` for the test's folder.
    line: &'static str,
}

const ARGUMENTS: &[Argument] = &[
    Argument {
        name: "EvalFile",
        usage: Use::Read,
        setup: &[],
        line: "setoption name EvalFile value {P}",
    },
    Argument {
        name: "<game>.EvalFile",
        usage: Use::Read,
        setup: &[],
        line: "setoption name safari-dual.EvalFile value {P}",
    },
    Argument {
        name: "solve checkpoint",
        usage: Use::Read,
        setup: &["newgame am", "position fen 8/1W1W5/1B6 w 0"],
        line: "solve nodes 2000 checkpoint {P}",
    },
    Argument {
        name: "solve checkpoint (written)",
        usage: Use::Write,
        setup: &["newgame am", "position fen 8/1W1W5/1B6 w 0"],
        line: "solve nodes 2000 checkpoint {P}",
    },
    Argument {
        name: "solve certificate",
        usage: Use::Write,
        setup: &["newgame am", "position fen 8/1W1W5/1B6 w 0"],
        line: "solve nodes 2000 certificate {P}",
    },
    Argument {
        name: "selfplay network",
        usage: Use::Read,
        setup: &[],
        line: "selfplay safari-dual games=1 nodes=100 out={D}/unused.dat network={P}",
    },
    Argument {
        name: "selfplay out",
        usage: Use::Write,
        setup: &[],
        line: "selfplay safari-dual games=1 nodes=100 out={P}",
    },
    Argument {
        name: "dataset in",
        usage: Use::Read,
        setup: &[],
        line: "dataset {P} out={D}/unused.bin",
    },
    Argument {
        name: "dataset out",
        usage: Use::Write,
        setup: &[],
        line: "dataset {D}/games.dat out={P}",
    },
    Argument {
        name: "TablePath",
        usage: Use::Folder,
        setup: &[],
        line: "setoption name TablePath value {P}",
    },
    Argument {
        name: "tables dir",
        usage: Use::Folder,
        setup: &[],
        line: "tables status am dir={P}",
    },
];

#[test]
fn every_path_argument_refuses_what_is_no_file_at_once_by_name() {
    let dir = temp_path("paths", "engine");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Readable by the other user of the permission cases, whatever the
    // umask made of the folders.
    for folder in [dir.parent().unwrap(), &dir] {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let tables = dir.join("tables");
    // A data file for `dataset out`.
    let games = dir.join("games.dat");
    let line = format!(
        "selfplay safari-dual games=1 nodes=100 out={}",
        games.display()
    );
    let (_, out, _) = engine(&[line], Kind::Fifo, &tables, false);
    assert!(games.is_file(), "{out}");
    std::fs::set_permissions(&games, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (mut cases, mut slowest) = (0, Duration::ZERO);
    for argument in ARGUMENTS {
        for &kind in argument.usage.kinds() {
            cases += 1;
            let Some(path) = make(kind, argument.usage, &dir, cases) else {
                eprintln!(
                    "{}: {kind:?}: no private device here (not root); left out",
                    argument.name
                );
                continue;
            };
            let shown = path.display().to_string();
            let mut lines: Vec<String> = argument.setup.iter().map(|l| l.to_string()).collect();
            lines.push(
                argument
                    .line
                    .replace("{P}", &shown)
                    .replace("{D}", &dir.display().to_string()),
            );
            let before = std::fs::symlink_metadata(&path).ok().map(|m| m.file_type());
            // Refused up front, the line is followed by `quit`; a write
            // that fails only when it is made (a missing folder, no
            // permission, the size limit) needs the work to run to it:
            // the end of input lets it.
            let at_write = argument.usage == Use::Write
                && matches!(
                    kind,
                    Kind::MissingFolder | Kind::Denied | Kind::FileSizeLimit
                );
            let (status, out, took) = engine(&lines, kind, &tables, !at_write);
            slowest = slowest.max(took);
            let case = format!("{} with {kind:?} ({shown})", argument.name);
            assert_eq!(status, Some(0), "{case}: {out}");
            let errors: Vec<&str> = out
                .lines()
                .filter(|l| l.starts_with("info string error: "))
                .collect();
            assert_eq!(errors.len(), 1, "{case}: {out}");
            assert!(errors[0].contains(&shown), "{case}: {}", errors[0]);
            // Nothing at the path was replaced.
            let after = std::fs::symlink_metadata(&path).ok().map(|m| m.file_type());
            assert_eq!(before, after, "{case}");
            if let Some(t) = after {
                assert!(
                    !(t.is_file() && before.is_some_and(|b| !b.is_file())),
                    "{case}"
                );
                if t.is_char_device() || t.is_fifo() {
                    assert!(!t.is_file());
                }
            }
        }
    }
    eprintln!("{cases} cases; the slowest answered and quit in {slowest:?}");
}

/// The referee with `args`: its status and what it printed.
fn referee(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn the_referees_paths_refuse_what_is_no_file_at_once_by_name() {
    let dir = temp_path("paths", "referee");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fake = crate::common::example("fake_engine");
    let play = [
        "--engine", &fake, "name=a", "--engine", &fake, "name=b", "--games", "2", "--depth", "1",
    ];
    let mut n = 0;
    for kind in [
        Kind::Fifo,
        Kind::Device,
        Kind::LinkToDevice,
        Kind::Folder,
        Kind::Sparse,
    ] {
        n += 1;
        let Some(path) = make(kind, Use::Read, &dir, n) else {
            continue;
        };
        let shown = path.display().to_string();
        let before = std::fs::symlink_metadata(&path).unwrap().file_type();
        // Read: openings, replay, merge, resume.
        for args in [
            [&play[..], &["--openings", &shown]].concat(),
            vec!["replay", &shown],
            vec!["merge", &shown],
        ] {
            // Refused (status 2), or, for replay, a file of no records
            // (status 1, as for a bad record).
            let (status, said) = referee(&args);
            assert!(matches!(status, Some(1 | 2)), "{kind:?} {args:?}: {said}");
            assert!(said.contains(&shown), "{kind:?} {args:?}: {said}");
        }
        // Written whole: the results, refused before any game.
        if kind != Kind::Sparse {
            let (status, said) = referee(&[&play[..], &["--json", &shown]].concat());
            assert_eq!(status, Some(2), "{kind:?}: {said}");
            assert!(
                said.contains(&format!("--json {shown}")) && !said.contains("Finished game"),
                "{said}"
            );
        }
        assert_eq!(
            std::fs::symlink_metadata(&path).unwrap().file_type(),
            before
        );
    }
    // Records are appended to, so a device may take them; a FIFO that
    // nobody reads is refused at once instead of waiting for a reader.
    let fifo = make(Kind::Fifo, Use::Write, &dir, 99).unwrap();
    let (status, said) = referee(&[&play[..], &["--record", &fifo.display().to_string()]].concat());
    assert_eq!(status, Some(2), "{said}");
    assert!(said.contains("is a FIFO that nobody reads"), "{said}");
}
