//! Table files that lie, break or block: every header field that can
//! change a value is caught (a flipped byte by the header's checksum, a
//! forged checksum by the comparison with the ruleset); a damaged body is
//! caught on first use; a file cut, replaced or turned into a FIFO while
//! the engine runs is named and left out, never a crash or a hang; long
//! jobs check the memory they may use first. The checksum here is written
//! out bit by bit, independently of the engine's.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::{cli, temp_path, Live};
use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;
use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};

const HEADER: usize = 256;
const BLOCK_ENTRIES: usize = 2048;

/// CRC-32 (IEEE), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Tables of up to 5 men, built once for this test run; each test copies
/// them to a folder of its own.
fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_path("table-files", "pristine");
        let _ = std::fs::remove_dir_all(&dir);
        let (status, out) = cli(&[
            "tables",
            "build",
            "am",
            "men=5",
            &format!("dir={}", dir.display()),
        ]);
        assert_eq!(status, Some(0), "{out}");
        dir
    })
}

/// A copy of the built tables in a fresh folder `name`; the folder and
/// its ruleset's subfolder.
fn copy(name: &str) -> (PathBuf, PathBuf) {
    let dir = temp_path("table-files", name);
    let _ = std::fs::remove_dir_all(&dir);
    let from = folder(built());
    let to = folder(&dir);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    (dir, to)
}

fn folder(dir: &Path) -> PathBuf {
    dir.join("awithlaknannai-mosona").join("lined-bent-draw")
}

/// `tables status` of `dir`: exit status and output.
fn status(dir: &Path) -> (Option<i32>, String) {
    cli(&["tables", "status", "am", &format!("dir={}", dir.display())])
}

/// The engine's lines on `lines` with the tables of `dir`.
fn with_tables(dir: &Path, lines: &[&str]) -> String {
    let path = format!("setoption name TablePath value {}", dir.display());
    let mut all = vec![path.as_str(), "newgame am"];
    all.extend_from_slice(lines);
    crate::common::engine(&all)
}

/// Two White men against one Black man with 20 plies left: a draw that
/// a lying 2v1 file turns into a win or a loss.
const TWO_AGAINST_ONE: &str = "position fen 8/1W7/1W3B2 w 30";

fn value(out: &str) -> &str {
    crate::common::last_value(out, "Value: ")
}

#[test]
fn every_byte_of_the_header_and_block_table_flipped_is_named_and_never_used() {
    let (dir, files) = copy("flips");
    let path = files.join("2v1.mtb");
    let good = std::fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(good[16..24].try_into().unwrap()) as usize;
    let checked = HEADER + 4 * entries.div_ceil(BLOCK_ENTRIES);
    for at in 0..checked {
        for flip in [0x01u8, 0x80] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            std::fs::write(&path, &bad).unwrap();
            let (code, out) = status(&dir);
            assert_eq!(code, Some(1), "byte {at} ^ {flip:#x}: {out}");
            assert!(
                out.contains("2v1.mtb: ") && out.contains("9 slices"),
                "byte {at} ^ {flip:#x}: {out}"
            );
        }
    }
    // One flip also through play and solve: the value stays the truth.
    let mut bad = good.clone();
    bad[14] ^= 0x01;
    std::fs::write(&path, &bad).unwrap();
    let out = with_tables(&dir, &[TWO_AGAINST_ONE, "solve"]);
    assert!(out.contains("table file left out: "), "{out}");
    assert_eq!(value(&out), "draw", "{out}");
}

/// The good header of `bytes` with `change` made and its checksum made to
/// match again: a forgery the checksum cannot see.
fn forge(bytes: &[u8], change: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut forged = bytes.to_vec();
    change(&mut forged[..HEADER]);
    let crc = crc32(&forged[..252]);
    forged[252..256].copy_from_slice(&crc.to_le_bytes());
    forged
}

#[test]
fn a_forged_header_is_compared_with_the_ruleset_field_by_field() {
    let (dir, files) = copy("forged");
    let path = files.join("2v1.mtb");
    let good = std::fs::read(&path).unwrap();
    assert_eq!(crc32(&good[..252]).to_le_bytes(), good[252..256], "our CRC");
    type Change = Box<dyn Fn(&mut [u8])>;
    let cases: Vec<(&str, Change)> = vec![
        ("the clock's end loss", Box::new(|h| h[14] = 0)),
        ("the clock's end win", Box::new(|h| h[14] = 2)),
        ("no-progress limit 60", Box::new(|h| h[28] = 60)),
        // 2 * entries wrapped past 2^64 once passed a size check.
        ("entries", Box::new(|h| h[23] |= 0x80)),
        ("slice 1v2", Box::new(|h| h.swap(12, 13))),
        ("game", Box::new(|h| h[32] = b'x')),
        ("ruleset", Box::new(|h| h[80] = b'x')),
    ];
    for (said, change) in cases {
        std::fs::write(&path, forge(&good, change)).unwrap();
        let (code, out) = status(&dir);
        assert_eq!(code, Some(1), "{said}: {out}");
        assert!(
            out.contains(&format!("2v1.mtb: the header says {said}")),
            "{said}: {out}"
        );
        // Play and solve never use it; build replaces it by name.
        let out = with_tables(&dir, &[TWO_AGAINST_ONE, "solve", "go depth 3"]);
        assert!(out.contains("table file left out: "), "{said}: {out}");
        assert_eq!(value(&out), "draw", "{said}: {out}");
        let (_, out) = cli(&[
            "tables",
            "build",
            "am",
            "men=3",
            &format!("dir={}", dir.display()),
        ]);
        assert!(
            out.contains("tables build: rebuilding ") && out.contains("2v1.mtb: the header says"),
            "{said}: {out}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            good,
            "{said}: rebuilt the same"
        );
    }
}

#[test]
fn a_damaged_body_is_caught_on_first_use_and_the_truth_is_answered() {
    let (dir, files) = copy("body");
    let path = files.join("2v1.mtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let body = HEADER + 4 * entries.div_ceil(BLOCK_ENTRIES);
    for b in &mut bytes[body..] {
        *b = b.wrapping_sub(4);
    }
    std::fs::write(&path, &bytes).unwrap();
    let out = with_tables(&dir, &[TWO_AGAINST_ONE, "solve"]);
    assert!(
        out.contains("table file left out: ")
            && out.contains("2v1.mtb: checksum mismatch in block"),
        "{out}"
    );
    assert_eq!(value(&out), "draw", "{out}");
    assert!(
        !out.contains(": win"),
        "no move valued from the damaged file: {out}"
    );
    let (code, out) = cli(&["tables", "verify", "am", &format!("dir={}", dir.display())]);
    assert_eq!(code, Some(1));
    assert!(out.contains("2v1.mtb: checksum mismatch in block"), "{out}");
}

/// The notation of position number `index` of `slice` (default rules),
/// or of the next valid number after it.
fn position_near(slice: Slice, index: u64) -> String {
    let endgame = Awithlaknannai::endgame().unwrap();
    let rules = AwRules {
        lined: true,
        straight: false,
        count: false,
    };
    let size = (endgame.slice_size)(slice);
    (index..size)
        .find_map(|i| (endgame.position)(&rules, slice, i))
        .expect("a position")
        .to_string()
}

#[test]
fn a_file_cut_or_replaced_while_the_engine_runs_is_named_never_fatal() {
    let (dir, files) = copy("live");
    let mut engine = Live::start();
    engine.send(&[
        &format!("setoption name TablePath value {}", dir.display()),
        "newgame am",
    ]);
    // Positions in the first and the last blocks of 3v2 (the second's
    // block never read before the cut).
    let size = (Awithlaknannai::endgame().unwrap().slice_size)(Slice::new(3, 2));
    let first = position_near(Slice::new(3, 2), 0);
    let last = position_near(Slice::new(3, 2), size - 3 * BLOCK_ENTRIES as u64);
    let solve = |engine: &mut Live, fen: &str| {
        engine.send(&[&format!("position fen {fen}"), "solve"]);
        engine
            .wait_for(std::time::Duration::from_secs(60), |l| {
                l.starts_with("Value: ")
            })
            .expect("a value")
            .1
    };
    let before = solve(&mut engine, &first);
    // Cut, as `truncate -s 4096` does: a mapped file would kill the
    // engine with SIGBUS here.
    for name in ["3v2.mtb", "2v3.mtb"] {
        std::fs::OpenOptions::new()
            .write(true)
            .open(files.join(name))
            .unwrap()
            .set_len(4096)
            .unwrap();
    }
    solve(&mut engine, &last);
    assert!(
        engine
            .seen
            .iter()
            .any(|l| l.contains("table file left out: ")
                && l.contains("3v2.mtb: the file ends before block")),
        "{:?}",
        engine.seen
    );
    // The cut file is left out whole: its positions are proved again,
    // to the same result.
    let again = solve(&mut engine, &first);
    assert_eq!(
        again.split_whitespace().nth(1),
        before.split_whitespace().nth(1),
        "{before} then {again}"
    );
    // A file copied over another (the same inode, new bytes).
    std::fs::copy(files.join("2v3.mtb"), files.join("3v1.mtb")).unwrap();
    let near = position_near(Slice::new(3, 1), 5 * BLOCK_ENTRIES as u64);
    solve(&mut engine, &near);
    engine.send(&["isready"]);
    engine
        .wait_for(std::time::Duration::from_secs(60), |l| l == "readyok")
        .expect("the engine goes on");
    assert!(
        engine
            .seen
            .iter()
            .any(|l| l.contains("table file left out: ") && l.contains("3v1.mtb: ")),
        "{:?}",
        engine.seen
    );
}

#[test]
fn a_table_path_that_would_block_never_holds_the_engine_up() {
    let (dir, files) = copy("fifo");
    let path = files.join("2v1.mtb");
    std::fs::remove_file(&path).unwrap();
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let out = with_tables(
        &dir,
        &["isready", "go movetime 100", TWO_AGAINST_ONE, "solve"],
    );
    assert!(
        out.contains("readyok") && out.contains("bestmove "),
        "{out}"
    );
    assert!(out.contains("2v1.mtb: not a regular file"), "{out}");
    assert_eq!(value(&out), "draw");
    let (code, out) = status(&dir);
    assert_eq!(code, Some(1));
    assert!(out.contains("2v1.mtb: not a regular file"), "{out}");
    // A build replaces it with the file.
    let (code, out) = cli(&[
        "tables",
        "build",
        "am",
        "men=3",
        &format!("dir={}", dir.display()),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(status(&dir).0, Some(0));
}

/// Runs the engine under `ulimit -d <kib>` with `args`.
fn limited(kib: u64, args: &[&str]) -> (Option<i32>, String, String) {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -d {kib} && exec \"$0\" {}",
            quoted.join(" ")
        ))
        .arg(env!("CARGO_BIN_EXE_menagerie"))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn long_jobs_check_the_memory_they_may_use_before_they_allocate() {
    let dir = temp_path("table-files", "memory");
    let dir_word = format!("dir={}", dir.display());
    // A build that would abort in an allocation is refused, with figures.
    let (code, out, err) = limited(150_000, &["tables build am men=8", &dir_word]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(
        out.starts_with("info string error: tables: slice ")
            && out.contains("MiB to build, and about ")
            && out.contains("(ulimit -d)"),
        "{out}"
    );
    assert!(
        !err.contains("memory allocation") && !err.contains("panicked"),
        "{err}"
    );
    // Beyond any machine: refused with the estimate, nothing written.
    let (code, out) = cli(&["tables build am men=32", &dir_word]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("MiB to build"), "{out}");
    // Hash quotes the limit in force.
    let (code, out, _) = limited(150_000, &["setoption name Hash value 1024"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("(ulimit -d)"), "{out}");
    // A proof search with no node limit stops at the memory it may use.
    let (code, out, err) = limited(150_000, &["newgame am", "solve nodes 18446744073709551615"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("info string solve: stopped at the memory this process may use"),
        "{out}"
    );
    assert!(out.contains("Value: "), "{out}");
    // With a bound of its own it drops open positions there and goes on,
    // its peak within the limit (no allocation fails), to its node budget.
    let (code, out, err) = limited(150_000, &["newgame am", "solve nodes 3000000 memory 24"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("memory allocation"), "{err}");
    assert!(out.contains("the memory bound was reached"), "{out}");
    assert!(out.contains("after 3000000 nodes"), "{out}");
}

#[test]
fn a_build_that_cannot_write_fails_before_any_work() {
    // Where the game's folder should be, a file.
    let dir = temp_path("table-files", "unwritable");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("awithlaknannai-mosona"), "not a folder").unwrap();
    let dir_word = format!("dir={}", dir.display());
    let (code, out) = cli(&["tables", "build", "am", "men=5", &dir_word]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        !out.contains("tables build 2v1:") && !out.contains("positions in"),
        "work was done before failing: {out}"
    );
    assert!(out.starts_with("info string error: tables: "), "{out}");
    // A folder that cannot be read is an error, not "0 slices".
    let (code, out) = status(&dir);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("info string error: tables: "), "{out}");
    assert!(!out.contains("0 slices"), "{out}");
}

#[test]
fn format_1_files_are_converted_by_build_and_left_out_by_play() {
    let (dir, files) = copy("v1");
    // Rewrite 2v1 in format 1: a 128-byte header, one checksum.
    let path = files.join("2v1.mtb");
    let v2 = std::fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(v2[16..24].try_into().unwrap()) as usize;
    let body = &v2[HEADER + 4 * entries.div_ceil(BLOCK_ENTRIES)..];
    let mut v1 = Vec::new();
    v1.extend_from_slice(b"MNGRTBL1");
    v1.extend_from_slice(&1u32.to_le_bytes());
    v1.extend_from_slice(&v2[12..24]);
    v1.extend_from_slice(&crc32(body).to_le_bytes());
    v1.extend_from_slice(&v2[28..128]);
    v1.extend_from_slice(body);
    std::fs::write(&path, &v1).unwrap();
    let out = with_tables(&dir, &[TWO_AGAINST_ONE, "solve"]);
    assert!(out.contains("2v1.mtb: a table file of format 1"), "{out}");
    let (code, out) = cli(&[
        "tables",
        "build",
        "am",
        "men=5",
        &format!("dir={}", dir.display()),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("2v1.mtb converted to format 2"), "{out}");
    assert!(
        out.contains("tables 2v1 and 1v2: already built"),
        "built again: {out}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), v2);
}

#[test]
fn a_file_forged_with_matching_checksums_is_caught_by_verify_in_plain_words() {
    // Checksums catch damage; a lie written with every checksum right is
    // what `tables verify` is for: it derives each value again.
    let (dir, files) = copy("forged-body");
    let path = files.join("2v1.mtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let entries = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let blocks = entries.div_ceil(BLOCK_ENTRIES);
    let body = HEADER + 4 * blocks;
    // Every win threshold of the first block moved one ply later.
    for b in bytes[body..body + 2 * BLOCK_ENTRIES.min(entries)]
        .iter_mut()
        .step_by(2)
    {
        if *b != u8::MAX && *b > 0 {
            *b += 1;
        }
    }
    for block in 0..blocks {
        let start = body + 2 * block * BLOCK_ENTRIES;
        let end = (start + 2 * BLOCK_ENTRIES).min(bytes.len());
        let crc = crc32(&bytes[start..end]);
        bytes[HEADER + 4 * block..HEADER + 4 * block + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let whole = crc32(&bytes[body..]);
    bytes[24..28].copy_from_slice(&whole.to_le_bytes());
    let table = crc32(&bytes[HEADER..body]);
    bytes[132..136].copy_from_slice(&table.to_le_bytes());
    let forged = forge(&bytes, |_| {});
    std::fs::write(&path, forged).unwrap();
    assert_eq!(status(&dir).0, Some(0), "every checksum matches");
    let (code, out) = cli(&["tables", "verify", "am", &format!("dir={}", dir.display())]);
    assert_eq!(code, Some(1), "{out}");
    let example = out
        .lines()
        .find(|l| l.starts_with("info string tables verify 2v1: mismatch: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        example.contains(": the table says ") && example.contains(", its moves give "),
        "{example}"
    );
    assert!(
        !example.contains("Some(") && !example.contains("Probe {"),
        "{example}"
    );
}

#[test]
fn go_names_the_table_its_value_comes_from_never_a_file_left_out() {
    // With the position's own slice gone, the value comes from the table
    // after the best move: that one is named.
    let (dir, files) = copy("source");
    std::fs::remove_file(files.join("2v1.mtb")).unwrap();
    let out = with_tables(&dir, &[TWO_AGAINST_ONE, "go depth 1"]);
    let said: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string tables: "))
        .collect();
    assert_eq!(said.len(), 1, "{out}");
    assert!(!said[0].contains("2v1"), "{out}");
    assert!(
        said[0].starts_with("info string tables: 1v2 table after "),
        "{out}"
    );
    assert!(
        said[0].contains("the position's own file is left out"),
        "{out}"
    );
    // With it, the position's own.
    let (dir, _) = copy("source-whole");
    let out = with_tables(&dir, &[TWO_AGAINST_ONE, "go depth 1"]);
    assert!(out.contains("info string tables: 2v1 table, draw"), "{out}");
}
