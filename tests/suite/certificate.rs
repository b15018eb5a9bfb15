//! Proof certificates: written by `solve ... certificate PATH`, checked by
//! tools/reference/awithlaknannai_certificate.py, which shares nothing
//! with the engine (its own move generator, draw rules and table values).

use std::path::{Path, PathBuf};

use crate::common::{engine, temp_path};

/// Runs the repository's Python `script` with `args`: whether it
/// succeeded, and what it printed (standard output, then errors).
pub(crate) fn python(script: &str, args: &[&std::ffi::OsStr]) -> (bool, String) {
    let output = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
        .args(args)
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said)
}

/// The checker's verdict and what it printed.
fn check(certificate: &Path) -> (bool, String) {
    python(
        "tools/reference/awithlaknannai_certificate.py",
        &[certificate.as_os_str()],
    )
}

/// 3-men tables in a folder of this test's own (`name`): tests run at
/// once must not build into one folder.
fn tables(name: &str) -> PathBuf {
    let dir = temp_path("certificate", name);
    let build = format!("tables build am men=3 dir={} threads=1", dir.display());
    let out = engine(&[&build]);
    assert!(out.contains("tables build done"), "{out}");
    dir
}

/// Solves `position` (a `position` command's arguments) with the tables
/// of `dir`, writing the certificate to `name`; the output and the path.
fn solve(dir: Option<&Path>, position: &str, nodes: u64, name: &str) -> (String, PathBuf) {
    solve_with(dir, position, &format!("nodes {nodes}"), name)
}

/// [`solve`] with the words `solve` takes before `certificate`.
fn solve_with(dir: Option<&Path>, position: &str, words: &str, name: &str) -> (String, PathBuf) {
    solve_in("awithlaknannai-mosona", dir, position, words, name)
}

/// [`solve_with`] in `game`.
pub(crate) fn solve_in(
    game: &str,
    dir: Option<&Path>,
    position: &str,
    words: &str,
    name: &str,
) -> (String, PathBuf) {
    let path = temp_path("certificate", name);
    let table_path = dir.map_or("<cache>".to_string(), |d| d.display().to_string());
    let out = engine(&[
        &format!("setoption name TablePath value {table_path}"),
        &format!("newgame {game}"),
        &format!("position {position}"),
        &format!("solve {words} certificate {}", path.display()),
    ]);
    (out, path)
}

/// The certificate with `edit` applied to its text, in a file of its own.
pub(crate) fn damaged(original: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(original).unwrap();
    let changed = edit(&text);
    assert_ne!(changed, text, "{name}: the edit changes the certificate");
    let path = temp_path("certificate", name);
    std::fs::write(&path, changed).unwrap();
    path
}

/// The certificate's text with the last move (and its child) taken off
/// every node that lists several answers.
pub(crate) fn without_last_answers(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split(' ').collect();
            if words.get(1) == Some(&"all") && words.len() > 4 {
                words[..words.len() - 2].join(" ")
            } else {
                line.to_string()
            }
        })
        .collect();
    lines.join("\n") + "\n"
}

fn refused_for(path: &Path, reason: &str) {
    refused_by(check, path, reason);
}

/// Asserts that `checker` refuses the certificate at `path`, saying `reason`.
pub(crate) fn refused_by(checker: fn(&Path) -> (bool, String), path: &Path, reason: &str) {
    let (ok, said) = checker(path);
    assert!(!ok, "{}: accepted: {said}", path.display());
    assert!(
        said.contains(reason),
        "{}: refused, but not for {reason:?}: {said}",
        path.display()
    );
}

#[test]
fn a_proved_win_through_table_leaves_is_certified_and_checked() {
    let dir = tables("tables-win");
    // Three white men against one black: White wins, through captures
    // into the 3-men tables.
    let (out, path) = solve(Some(&dir), "fen 5WW1/1B7/4W3 b 0", 1_000_000, "win.cert");
    assert!(out.contains("Value: loss"), "{out}");
    assert!(
        out.contains("info string solve: certificate: claim w wins: "),
        "{out}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("menagerie-certificate 1\ngame awithlaknannai-mosona\n"));
    assert!(text.contains(" leaf table ") && text.contains(" leaf rules"));
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim w wins: holds"), "{said}");

    // Each kind of damage is found, for its own reason.
    let table_leaf = damaged(&path, "table-leaf.cert", |t| {
        t.replacen(" leaf table win", " leaf table draw", 1)
            .replacen(" leaf table loss", " leaf table draw", 1)
    });
    refused_for(&table_leaf, "the table says draw, the reference");
    let rules_as_table = damaged(&path, "rules-as-table.cert", |t| {
        t.replacen(" leaf rules", " leaf table loss", 1)
    });
    refused_for(&rules_as_table, "a table leaf the rules decide");
    let missing_move = damaged(&path, "missing-move.cert", without_last_answers);
    refused_for(&missing_move, "the moves listed are not every legal move");
    let other_seat = damaged(&path, "other-seat.cert", |t| {
        t.replace("claim w wins", "claim b wins")
    });
    refused_for(&other_seat, "several moves given where one is chosen");
    let cut = damaged(&path, "cut.cert", |t| t.replace("\nend\n", "\n"));
    refused_for(&cut, "cut short");
    // Files that are not certificates at all: refused, never a crash.
    let no_ruleset = damaged(&path, "no-ruleset.cert", |t| {
        t.replace("\nruleset board=lined leap=bent ending=draw\n", "\n")
    });
    refused_for(&no_ruleset, "the header has no 'ruleset' line");
    let garbled = damaged(&path, "garbled.cert", |t| t.replacen("\n0 ", "\nzero ", 1));
    refused_for(&garbled, "malformed");
    refused_for(&temp_path("certificate", "absent.cert"), "cannot read");
}

#[test]
fn a_bound_with_the_draw_rules_and_a_history_is_certified_and_checked() {
    // No tables: the leaves are the rules' (captures, the clock, the
    // third occurrence). Four plies back and forth put the root's board
    // in its history once already.
    // History keys settle only a bound here in a million nodes.
    let position = "fen 8/2B1W1W2/8 b 0 moves e2d3 i2j3 d3e2 j3i2";
    let (out, path) = solve_with(None, position, "nodes 1000000 keys history", "bound.cert");
    assert!(out.contains("Value: at most draw"), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\nstart 8/2B1W1W2/8 b 0\nmoves e2d3 i2j3 d3e2 j3i2\n"));
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim b cannot-win: holds"), "{said}");
    // The same tree from the position without its history does not hold
    // up: the repetitions it counts on come later there.
    let no_history = damaged(&path, "no-history.cert", |t| {
        t.replace(
            "\nstart 8/2B1W1W2/8 b 0\nmoves e2d3 i2j3 d3e2 j3i2\n",
            "\nstart 8/2B1W1W2/8 b 4\nmoves \n",
        )
    });
    let (ok, said) = check(&no_history);
    assert!(!ok, "{said}");
}

#[test]
fn a_win_found_with_clock_keys_holds_under_the_full_rules() {
    // Clock keys settle what history keys leave a bound (above); their
    // proof is walked with each position's own history before it counts
    // (the repairs say where it first did not hold), and the checker,
    // which knows nothing of keys, accepts the certificate.
    let position = "fen 8/2B1W1W2/8 b 0 moves e2d3 i2j3 d3e2 j3i2";
    let (out, path) = solve_with(None, position, "nodes 1000000 keys clock", "clock.cert");
    assert!(out.contains("Value: loss"), "{out}");
    assert!(
        out.contains("did not hold when its proof was walked"),
        "{out}"
    );
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim w wins: holds"), "{said}");
    // Three threads sharing the stored numbers, and the most the option
    // allows (at most one a core run): the same value, and a proof that
    // holds.
    for threads in [3, 256] {
        let path = temp_path("certificate", &format!("threads-{threads}.cert"));
        let out = engine(&[
            &format!("setoption name Threads value {threads}"),
            "newgame awithlaknannai-mosona",
            &format!("position {position}"),
            &format!("solve nodes 1000000 certificate {}", path.display()),
        ]);
        assert!(out.contains("Value: loss"), "{threads} threads: {out}");
        let (ok, said) = check(&path);
        assert!(ok, "{said}");
        assert!(said.starts_with("claim w wins: holds"), "{said}");
    }
}

#[test]
fn nothing_settled_or_nothing_searched_writes_no_certificate() {
    let (out, path) = solve(None, "fen 8/2B1W1W2/8 b 0", 10, "unsettled.cert");
    assert!(
        out.contains("info string error: solve: certificate: nothing was settled"),
        "{out}"
    );
    assert!(out.contains("Value: unknown"), "{out}");
    assert!(!path.exists());
    // A value read from the tables needs no proof search: said, no file.
    let dir = tables("tables-known");
    let (out, path) = solve(Some(&dir), "fen 8/4B1W1W/8 w 0", 1000, "known.cert");
    assert!(
        out.contains("info string solve: no certificate written"),
        "{out}"
    );
    assert!(!path.exists());
}

#[test]
fn a_proof_resumed_from_its_checkpoint_under_a_memory_bound_is_certified_and_checked() {
    // The certificate is read from the settled positions, which a
    // checkpoint keeps and the memory bound never drops.
    let checkpoint = temp_path("certificate", "resumed.ckpt");
    let path = temp_path("certificate", "resumed.cert");
    let cut = engine(&[
        "newgame awithlaknannai-mosona",
        "position fen 8/2B1W1W2/8 b 0",
        &format!(
            "solve nodes 300000 keys history checkpoint {}",
            checkpoint.display()
        ),
    ]);
    assert!(cut.contains("Value: unknown"), "{cut}");
    let out = engine(&[
        "newgame awithlaknannai-mosona",
        "position fen 8/2B1W1W2/8 b 0",
        &format!(
            "solve nodes 1000000 memory 16 keys history checkpoint {} certificate {}",
            checkpoint.display(),
            path.display()
        ),
    ]);
    assert!(out.contains("resumed from the checkpoint"), "{out}");
    assert!(out.contains("the memory bound was reached"), "{out}");
    assert!(out.contains("Value: at most draw"), "{out}");
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim b cannot-win: holds"), "{said}");
}

/// With clock keys a settled goal counts only once its proof, walked
/// under the full rules, holds; a walk is bounded by a quarter of the
/// memory given. Past it the search says where it stopped, gives no
/// value it could not confirm, and the engine answers on; with room for
/// the walk the same search proves the loss.
#[test]
fn a_proof_too_large_to_walk_in_the_memory_given_is_no_value() {
    let run = |memory: u32| {
        engine(&[
            "newgame awithlaknannai-mosona",
            "position fen 8/2B1W1W2/8 b 0",
            &format!("solve nodes 3000000 memory {memory}"),
            "d",
        ])
    };
    let out = run(1);
    assert!(
        out.contains("info string solve: stopped walking a settled goal's proof under the full rules at 2048 positions, the most a quarter of the memory allows (128 bytes each); the value is a bound"),
        "{out}"
    );
    assert!(out.contains("Value: unknown"), "{out}");
    assert!(
        out.contains(
            "side to move wins: disproved by the search, not confirmed under the full rules"
        ),
        "{out}"
    );
    assert!(
        !out.contains("1073741823"),
        "the search's infinity shown: {out}"
    );
    assert!(out.contains("Notation: 8/2B1W1W2/8 b 0"), "{out}");
    let out = run(16);
    assert!(!out.contains("stopped walking"), "{out}");
    assert!(out.contains("Value: loss"), "{out}");
}

/// Runs tools/slurm/proof_split.py with `args`; its status and output.
fn split(args: &[&str]) -> (bool, String) {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    python("tools/slurm/proof_split.py", &args)
}

#[test]
fn a_proof_split_by_its_first_two_plies_merges_into_a_certificate_that_holds() {
    let tables = tables("tables-split");
    let tables = tables.to_str().unwrap();
    let dir = temp_path("certificate", "split");
    let dir_s = dir.to_str().unwrap();
    let engine = assert_cmd::cargo::cargo_bin("menagerie");
    let engine = engine.to_str().unwrap();
    let (ok, tasks) = split(&[
        "plan",
        dir_s,
        "--engine",
        engine,
        "--depth",
        "2",
        "--game",
        "awithlaknannai-mosona",
        "--position",
        "fen 5WW1/1B7/4W3 b 0",
    ]);
    assert!(ok, "{tasks}");
    assert!(tasks.trim().parse::<u32>().unwrap() > 10, "{tasks}");
    let (ok, said) = split(&[
        "run", dir_s, "--engine", engine, "--nodes", "1000000", "--tables", tables, "--jobs", "2",
    ]);
    assert!(ok, "{said}");
    let (ok, said) = split(&["merge", dir_s]);
    assert!(ok && said.contains("Value: loss"), "{said}");
    let merged = dir.join("proof.cert");
    let (ok, said) = check(&merged);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim w wins: holds"), "{said}");
    // A part the checker refuses is never merged.
    let part = (0..64)
        .map(|i| dir.join(format!("task-{i}.cert")))
        .find(|p| {
            std::fs::read_to_string(p)
                .is_ok_and(|t| t.contains(" leaf table win") || t.contains(" leaf table loss"))
        })
        .expect("a part with a table leaf");
    let kept = std::fs::read_to_string(&part).unwrap();
    std::fs::write(
        &part,
        kept.replacen(" leaf table win", " leaf table draw", 1)
            .replacen(" leaf table loss", " leaf table draw", 1),
    )
    .unwrap();
    let (ok, said) = split(&["merge", dir_s]);
    assert!(!ok && said.contains("refused by the checker"), "{said}");
    std::fs::write(&part, kept).unwrap();
    // A task's certificate swapped for another's is refused by the merge.
    std::fs::copy(dir.join("task-2.cert"), dir.join("task-1.cert")).unwrap();
    let (ok, said) = split(&["merge", dir_s]);
    assert!(
        !ok && said.contains("is not the proof of task 1's position"),
        "{said}"
    );
    // With no task settled there is nothing to merge: the value is unknown.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cert") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let (ok, said) = split(&["merge", dir_s]);
    assert!(ok && said.contains("Value: unknown"), "{said}");
    assert!(said.contains("tasks settled nothing"), "{said}");
    assert!(!merged.exists());
}

#[test]
fn other_rulesets_are_certified_and_checked_under_their_own_rules() {
    // Plain board, straight leaps, and the count at the clock's end: two
    // white men against one black, six plies before the limit, White
    // wins on count unless Black captures first.
    let path = temp_path("certificate", "count.cert");
    let out = engine(&[
        "newgame awithlaknannai-mosona board=plain leap=straight ending=count",
        "position fen 8/3W1W3/B7 w 44",
        &format!("solve nodes 100000 certificate {}", path.display()),
    ]);
    assert!(out.contains("Value: win"), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\nruleset board=plain leap=straight ending=count\n"));
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim w wins: holds"), "{said}");
    // Under the default ending the clock's end is a draw: the same tree
    // proves nothing there.
    let drawn = damaged(&path, "count-as-draw.cert", |t| {
        t.replace("ending=count", "ending=draw")
    });
    refused_for(&drawn, "the rules' result goes against the claim");
}

/// A forged certificate: its name, the edit that makes it, and the
/// reason the checker must give.
type Forgery<'a> = (&'a str, &'a dyn Fn(&str) -> String, &'a str);

#[test]
fn what_was_never_a_proof_is_refused_for_its_reason() {
    let dir = tables("tables-forged");
    let (out, path) = solve(
        Some(&dir),
        "fen 5WW1/1B7/4W3 b 0",
        1_000_000,
        "forged-base.cert",
    );
    assert!(out.contains("Value: loss"), "{out}");
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    let header = "\nstart 5WW1/1B7/4W3 b 0\n";
    let forgeries: &[Forgery] = &[
        (
            "seat",
            &|t| t.replace("claim w wins", "claim x cannot-win"),
            "a claim for seat 'x'",
        ),
        (
            "side",
            &|t| t.replace(header, "\nstart 8/9/8 x 0\n"),
            "side 'x', not w or b",
        ),
        (
            "one-row",
            &|t| t.replace(header, "\nstart 5WW1 b 0\n"),
            "1 rows, not 3",
        ),
        (
            "thirteen",
            &|t| t.replace(header, "\nstart BBBBBBBB/BBBBB1WWW/8 b 0\n"),
            "13 B men, more than 12",
        ),
        (
            "negative-clock",
            &|t| t.replace(header, "\nstart 5WW1/1B7/4W3 b -1\n"),
            "clock '-1'",
        ),
        (
            "late-clock",
            &|t| t.replace(header, "\nstart 5WW1/1B7/4W3 b 51\n"),
            "clock '51'",
        ),
        (
            "short-row",
            &|t| t.replace(header, "\nstart 5WW/1B7/4W3 b 0\n"),
            "row 1 has 7 points",
        ),
        (
            "letter",
            &|t| t.replace(header, "\nstart 5WX1/1B7/4W3 b 0\n"),
            "row 1 has 'X'",
        ),
        (
            "unknown-word",
            &|t| t.replace("ending=draw\n", "ending=draw colour=red\n"),
            "ruleset word 'colour=red': not an option",
        ),
        (
            "unknown-value",
            &|t| t.replace("board=lined", "board=zigzag"),
            "board is one of lined|plain",
        ),
        (
            "twice",
            &|t| t.replace("ending=draw\n", "ending=draw ending=count\n"),
            "ruleset option ending given twice",
        ),
    ];
    for (name, forge, reason) in forgeries {
        let forged = damaged(&path, &format!("forged-{name}.cert"), forge);
        refused_for(&forged, reason);
    }
    // Paths that hold no file: at once, without a traceback.
    let fifo = temp_path("certificate", "forged.fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused_for(&fifo, "is a FIFO, not a regular file");
    refused_for(
        Path::new("/dev/zero"),
        "is a character device, not a regular file",
    );
    refused_for(&dir, "is a folder, not a regular file");
    let sparse = temp_path("certificate", "forged-sparse.cert");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(10 << 30)
        .unwrap();
    refused_for(&sparse, "more than the 268435456 a certificate may hold");
    std::fs::remove_file(&sparse).unwrap();
    let binary = temp_path("certificate", "forged-binary.cert");
    std::fs::write(&binary, [0xffu8, 0xfe, 0, 1, 2]).unwrap();
    refused_for(&binary, "bytes that are not UTF-8");
    for forged in [&fifo, &binary] {
        let (_, said) = check(forged);
        assert!(!said.contains("Traceback"), "{said}");
    }
}
