//! Endgame tables of Awithlaknannai Mosona through the engine, as users
//! drive them: `tables build|verify|status` lines and the command line,
//! resuming after an interruption, damaged files, play and `solve` from
//! the tables, and the errors.

use std::path::{Path, PathBuf};

use crate::common::{cli, engine, errors, last_value, temp_path};

fn fresh_dir(name: &str) -> PathBuf {
    let dir = temp_path("tables", name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn folder(dir: &Path) -> PathBuf {
    dir.join("awithlaknannai-mosona").join("lined-bent-draw")
}

fn slice_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    // A running build's files may go between the listing and the read.
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(folder(dir))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter_map(|p| {
                    Some((
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        std::fs::read(&p).ok()?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn build_from_the_command_line_then_status_and_verify() {
    let dir = fresh_dir("cli");
    let dir_word = format!("dir={}", dir.display());
    let (status, out) = cli(&[
        "tables",
        "build",
        "awithlaknannai-mosona",
        "men=4",
        "threads=2",
        &dir_word,
    ]);
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("info string tables 2v2: "), "{out}");
    assert!(out.contains("info string tables 3v1 and 1v3: "), "{out}");
    // Each slice built says its work: captures probed in the smaller
    // tables and positions touched walking back, both there in 3v1.
    let line = out
        .lines()
        .find(|l| l.starts_with("info string tables 3v1 and 1v3: "))
        .unwrap();
    let figure = |after: &str, before: &str| -> String {
        let start = line.find(after).unwrap_or_else(|| panic!("{line}")) + after.len();
        let end = start + line[start..].find(before).unwrap();
        // The count in the parentheses that end the figure.
        line[start..end].rsplit('(').next().unwrap().to_string()
    };
    assert_ne!(figure("classifying ", " probes)"), "0", "{line}");
    assert_ne!(figure("walking ", " touches"), "0", "{line}");
    assert!(line.contains("s on 2 threads ("), "{line}");
    assert!(line.contains(" MB/s"), "{line}");
    let done = out.lines().last().unwrap();
    assert!(
        done.starts_with("info string tables build done:") && done.contains("complete to 4 men"),
        "{done}"
    );
    // Every slice of up to 4 men, each with a checksummed header.
    let names: Vec<String> = slice_files(&dir).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["1v1.mtb", "1v2.mtb", "1v3.mtb", "2v1.mtb", "2v2.mtb", "3v1.mtb"]
    );
    let (_, out) = cli(&["tables", "status", "am", &dir_word]);
    assert!(out.contains("6 slices, complete to 4 men"), "{out}");
    let (status, out) = cli(&["tables", "verify", "am", &dir_word]);
    assert_eq!(status, Some(0));
    assert!(
        out.contains("tables verify done: 6 slices, 0 mismatches, 0 damaged files"),
        "{out}"
    );
    let (_, out) = cli(&["tables", "bench", "am", &dir_word]);
    assert!(
        out.starts_with("info string tables bench: 120000 positions of 6 slices: "),
        "{out}"
    );
    assert!(
        out.contains(" probes/s, move generation ") && out.contains(" times a move generation"),
        "{out}"
    );
    let memory = out.lines().last().unwrap();
    let copy: f64 = memory
        .strip_prefix("info string tables bench memory, one thread: streaming copy ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{memory}"));
    assert!(
        copy > 0.0 && memory.contains(" random byte updates/s over "),
        "{memory}"
    );
    // Building again finds everything.
    let (_, out) = cli(&["tables", "build", "am", "men=4", &dir_word]);
    assert_eq!(out.matches("already built").count(), 4, "{out}");
}

#[test]
fn an_interrupted_build_resumes_to_the_same_tables() {
    let whole = fresh_dir("whole");
    cli(&[
        "tables",
        "build",
        "am",
        "men=6",
        &format!("dir={}", whole.display()),
    ]);
    let cut = fresh_dir("cut");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("menagerie"))
        .args([
            "tables",
            "build",
            "am",
            "men=6",
            &format!("dir={}", cut.display()),
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed as soon as some slices are written, before the last.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let complete = |dir: &Path| {
        slice_files(dir)
            .into_iter()
            .filter(|(n, _)| n.ends_with(".mtb"))
            .count()
    };
    while complete(&cut) < 6 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = complete(&cut);
    assert!(
        (6..15).contains(&kept),
        "{kept} slices written before the kill"
    );
    let (status, out) = cli(&[
        "tables",
        "build",
        "am",
        "men=6",
        &format!("dir={}", cut.display()),
    ]);
    assert_eq!(status, Some(0));
    assert!(out.contains("already built"), "{out}");
    let whole_files = slice_files(&whole);
    let cut_files: Vec<_> = slice_files(&cut)
        .into_iter()
        .filter(|(n, _)| n.ends_with(".mtb"))
        .collect();
    assert_eq!(whole_files.len(), 15);
    assert!(
        whole_files == cut_files,
        "a resumed build differs from a whole one"
    );
    // The killed build's unfinished file is gone.
    assert_eq!(
        slice_files(&cut).len(),
        15,
        "{:?}",
        slice_files(&cut).iter().map(|f| &f.0).collect::<Vec<_>>()
    );
}

#[test]
fn a_damaged_file_is_named_left_out_and_built_again() {
    let dir = fresh_dir("damaged");
    let dir_word = format!("dir={}", dir.display());
    cli(&["tables", "build", "am", "men=3", &dir_word]);
    let path = folder(&dir).join("2v1.mtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let (_, out) = cli(&["tables", "status", "am", &dir_word]);
    assert!(out.contains("2v1.mtb: checksum mismatch"), "{out}");
    assert!(out.contains("2 slices"), "{out}");
    let (status, out) = cli(&["tables", "verify", "am", &dir_word]);
    assert_eq!(status, Some(1), "{out}");
    assert!(
        out.contains("0 mismatches, 1 damaged files, 1 skipped"),
        "{out}"
    );
    assert!(
        out.contains("tables verify 1v2: skipped, its moves lead into 2v1, which is missing"),
        "{out}"
    );
    assert!(
        out.contains("info string error: tables: 1 table file cannot be used"),
        "{out}"
    );
    let (_, out) = cli(&["tables", "build", "am", "men=3", &dir_word]);
    assert!(out.contains("tables 2v1 and 1v2: "), "{out}");
    let (_, out) = cli(&["tables", "status", "am", &dir_word]);
    assert!(out.contains("3 slices, complete to 3 men"), "{out}");
}

#[test]
fn bad_tables_lines_are_one_error_each_and_change_nothing() {
    let dir = fresh_dir("errors");
    let d = format!("dir={}", dir.display());
    let lines = [
        "tables".to_string(),
        "tables fold am men=3".to_string(),
        format!("tables bench am threads=x {d}"),
        "tables build".to_string(),
        format!("tables build am {d}"),
        format!("tables build am men=1 {d}"),
        format!("tables build am men=x {d}"),
        format!("tables build am men=4 board=round {d}"),
        format!("tables build am men=4 threads=0 {d}"),
        format!("tables build am slice=3x2 {d}"),
        format!("tables build am slice=3v2 {d}"),
        format!("tables build hdk men=3 {d}"),
        format!("tables build chess men=3 {d}"),
        "isready".to_string(),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let out = engine(&refs);
    let errs = errors(&out);
    assert_eq!(errs.len(), 13, "{out}");
    for e in &errs {
        assert!(e.starts_with("info string error: tables: "), "{e}");
    }
    assert!(out.contains("tables build needs men=N"));
    assert!(out.contains("'men=1': expected men=N with N from 2 to 32"));
    assert!(out.contains("unknown value 'round' for option 'board'"));
    assert!(
        out.contains("slice 2v1 must be built first") || out.contains("must be built first"),
        "{out}"
    );
    assert!(out.contains("hat-diviyan-keliya has no endgame tables"));
    assert_eq!(out.lines().filter(|l| *l == "readyok").count(), 1, "{out}");
    assert!(
        !dir.exists() || slice_files(&dir).is_empty(),
        "a refused line wrote tables"
    );
}

/// Plays a game from `fen` with the engine on both sides.
fn play_out(dir: &Path, game: &str, fen: &str, extra: &[&str]) -> String {
    let mut lines = vec![format!("setoption name TablePath value {}", dir.display())];
    lines.extend(extra.iter().map(|s| s.to_string()));
    lines.push(format!("newgame {game}"));
    lines.push(format!("position fen {fen}"));
    for _ in 0..60 {
        lines.push("go depth 3".to_string());
        lines.push("move $best".to_string());
    }
    // The engine's replies decide the moves: run it line by line.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("menagerie"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::{BufRead, BufReader, Write};
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut transcript = String::new();
    let mut best = String::new();
    for line in lines {
        let line = line.replace("$best", &best);
        if line == "move " || line == "move (none)" {
            break;
        }
        writeln!(stdin, "{line}").unwrap();
        if line.starts_with("go") {
            loop {
                let mut reply = String::new();
                stdout.read_line(&mut reply).unwrap();
                transcript.push_str(&reply);
                if let Some(mv) = reply.trim().strip_prefix("bestmove ") {
                    best = mv.to_string();
                    break;
                }
            }
        } else {
            writeln!(stdin, "isready").unwrap();
            loop {
                let mut reply = String::new();
                stdout.read_line(&mut reply).unwrap();
                transcript.push_str(&reply);
                if reply.trim() == "readyok" {
                    break;
                }
            }
        }
        if transcript.contains("game over") {
            break;
        }
    }
    drop(stdin);
    child.wait().unwrap();
    transcript
}

#[test]
fn the_engine_plays_won_endings_to_the_win_from_the_tables() {
    let dir = fresh_dir("play");
    cli(&[
        "tables",
        "build",
        "am",
        "men=5",
        &format!("dir={}", dir.display()),
    ]);
    // White to move with three men against two; the tables say who wins.
    let fen = "2B1B3/9/1W1W1W2 w 0";
    let d = format!("setoption name TablePath value {}", dir.display());
    let solved = engine(&[&d, "newgame am", &format!("position fen {fen}"), "solve"]);
    let value = last_value(&solved, "Value: ");
    assert!(value.starts_with("win "), "{solved}");
    assert!(solved.contains("info string solve: from the endgame tables (3v2)"));
    let game = play_out(&dir, "am", fen, &[]);
    assert!(game.contains("info string tables: 3v2 table"), "{game}");
    assert!(game.contains("info string game over: win w"), "{game}");
    // Without tables the same engine says nothing of them.
    let off = play_out(&dir, "am", fen, &["setoption name UseTables value false"]);
    assert!(!off.contains("info string tables:"), "{off}");
}

/// Safari-Dual: Round wins in 8 moves with an elephant beside its lion
/// against the lone Angular lion (every lion bound by the base rules);
/// the engine, both sides at depth 3, plays it out to the win from the
/// tables, each move of the winner keeping the value a win.
#[test]
fn the_engine_plays_safari_dual_to_the_win_from_the_tables() {
    let dir = fresh_dir("play-safari");
    let dir_word = format!("dir={}", dir.display());
    assert_eq!(
        cli(&["tables", "build", "safari-dual", "men=3", &dir_word]).0,
        Some(0)
    );
    let fen = "5/5/5/LEl2/5 r 0";
    let d = format!("setoption name TablePath value {}", dir.display());
    let solved = engine(&[
        &d,
        "newgame safari-dual",
        &format!("position fen {fen}"),
        "solve",
    ]);
    assert_eq!(last_value(&solved, "Value: "), "win 8", "{solved}");
    let game = play_out(&dir, "safari-dual", fen, &[]);
    assert!(
        game.contains("info string tables: 1v0 table, win"),
        "{game}"
    );
    assert!(game.contains("info string game over: win r"), "{game}");
    // Each of Round's moves is answered from the table as a win.
    let round_values: Vec<&str> = game
        .lines()
        .filter(|l| l.starts_with("info string tables: 1v0 table"))
        .collect();
    assert!(round_values.iter().all(|l| l.contains(", win ")), "{game}");
}

#[test]
fn solve_answers_move_by_move_within_the_tables() {
    let dir = fresh_dir("solve");
    cli(&[
        "tables",
        "build",
        "am",
        "men=4",
        &format!("dir={}", dir.display()),
    ]);
    let d = format!("setoption name TablePath value {}", dir.display());
    let fen = "2B5/9/1W1W4 b 0";
    let out = engine(&[
        &d,
        "newgame am",
        &format!("position fen {fen}"),
        "legal",
        "solve",
    ]);
    let legal = crate::common::legal(&out);
    for mv in &legal {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{mv}: ")))
            .unwrap_or_else(|| panic!("no value for {mv}: {out}"));
        let value = &line[mv.len() + 2..];
        assert!(
            value == "draw" || value.starts_with("win ") || value.starts_with("loss "),
            "{line}"
        );
    }
    // The position's value is its best move's.
    let value = last_value(&out, "Value: ");
    let best_is = |v: &str| out.lines().any(|l| l.ends_with(&format!(": {v}")));
    assert!(best_is(value), "{out}");
    // Beyond the tables: a proof search, with its figures.
    let out = engine(&[&d, "newgame am", "solve nodes 2000"]);
    assert!(
        out.contains("info string solve: proof-number search: "),
        "{out}"
    );
    assert!(out.contains(" nodes, "), "{out}");
}

/// The tables of the smallest slices give every sampled position the
/// value that the independent reference under tools/reference/ computes
/// with its own move generator and a plain backward induction over the
/// clock (tests/data/awithlaknannai_tables.txt).
#[test]
fn tables_agree_with_the_independent_reference() {
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/awithlaknannai_tables.txt"
    ))
    .unwrap();
    let mut groups: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        if let Some(rules) = line.strip_prefix("rules ") {
            groups.push((rules.to_string(), Vec::new()));
        } else {
            let (fen, value) = line.split_once('|').unwrap();
            groups
                .last_mut()
                .unwrap()
                .1
                .push((fen.to_string(), value.to_string()));
        }
    }
    assert_eq!(groups.len(), 2);
    for (i, (rules, samples)) in groups.iter().enumerate() {
        let dir = fresh_dir(&format!("reference-{i}"));
        solve_agrees(&dir, "am", rules, 3, samples);
    }
}

/// Safari-Dual's tables of the two lions and one more piece (every base
/// rule in play: each side has lost three) against
/// tools/reference/safari_tables.py (tests/data/safari_tables.txt).
#[test]
fn safari_tables_agree_with_the_independent_reference() {
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/safari_tables.txt"
    ))
    .unwrap();
    let samples: Vec<(String, String)> = data
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (fen, value) = l.split_once('|').unwrap();
            (fen.to_string(), value.to_string())
        })
        .collect();
    // Every material of up to 3 men, and all three values.
    assert_eq!(samples.len(), 300);
    for value in ["win", "draw", "loss"] {
        assert!(samples.iter().any(|(_, v)| v == value), "{value}");
    }
    let dir = fresh_dir("reference-safari");
    solve_agrees(&dir, "safari-dual", "", 3, &samples);
    // Every slice to 4 men (built now), sampled: the engine's values meet
    // the rules through the reference's own moves.
    let dir_word = format!("dir={}", dir.display());
    assert_eq!(
        cli(&["tables", "build", "safari-dual", "men=4", &dir_word]).0,
        Some(0)
    );
    let out = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tools/reference/safari_tables.py"
        ))
        .args(["check", env!("CARGO_BIN_EXE_menagerie")])
        .arg(&dir)
        .args(["4", "20", "1"])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The lions alone, then 1 and 2 more pieces of the four kinds.
    assert_eq!(text.lines().count(), 1 + 4 + 10, "{text}");
    assert!(
        text.lines()
            .all(|l| l.ends_with(": 20 positions, 0 disagree")),
        "{text}"
    );
}

/// Builds the tables of `game` to `men` in `dir` and checks that `solve`
/// answers each sample from them with its value.
fn solve_agrees(dir: &Path, game: &str, rules: &str, men: u32, samples: &[(String, String)]) {
    let men_word = format!("men={men}");
    let mut args = vec!["tables", "build", game, men_word.as_str()];
    args.extend(rules.split_whitespace());
    let dir_word = format!("dir={}", dir.display());
    args.push(&dir_word);
    assert_eq!(cli(&args).0, Some(0));
    let mut lines = vec![
        format!("setoption name TablePath value {}", dir.display()),
        format!("newgame {game} {rules}"),
    ];
    for (fen, _) in samples {
        lines.push(format!("position fen {fen}"));
        lines.push("solve".to_string());
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let out = engine(&refs);
    let values: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("Value: "))
        .collect();
    assert_eq!(values.len(), samples.len(), "{out}");
    // Each from the tables, or from the rules where the game is over:
    // none searched.
    assert!(!out.contains("proof-number search"), "{out}");
    let over = out.matches("info string game over: ").count();
    let from_tables = out
        .matches("info string solve: from the endgame tables")
        .count();
    assert!(from_tables + over >= samples.len(), "{out}");
    for ((fen, expected), got) in samples.iter().zip(values) {
        assert_eq!(
            got.split_whitespace().next(),
            Some(expected.as_str()),
            "{game} {rules}: {fen}"
        );
    }
}

#[test]
fn verification_resumes_from_its_records_and_checks_again_what_changed() {
    let dir = fresh_dir("verify-records");
    let dir_word = format!("dir={}", dir.display());
    let (status, _) = cli(&["tables", "build", "am", "men=4", &dir_word]);
    assert_eq!(status, Some(0));
    // A verification that got as far as one slice (as a run cut short, or
    // one task of the Slurm array, does) leaves its record.
    let (status, out) = cli(&["tables", "verify", "am", &dir_word, "slice=2v1"]);
    assert_eq!(status, Some(0), "{out}");
    let record = folder(&dir).join("2v1.mtb.verified");
    assert!(record.exists());
    let verify = |extra: &[&str]| {
        let mut args = vec!["tables", "verify", "am", dir_word.as_str()];
        args.extend_from_slice(extra);
        cli(&args)
    };
    let (status, out) = verify(&[]);
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("tables verify 2v1: verified before"), "{out}");
    assert!(
        out.contains("tables verify done: 6 slices, 0 mismatches, 0 damaged files, 0 skipped, 1 verified before"),
        "{out}"
    );
    let (_, out) = verify(&[]);
    assert!(out.contains(", 6 verified before"), "{out}");
    // A record that no longer matches its files (a slice it reads was
    // built again differently) is stale: that slice is derived again.
    let stale = folder(&dir).join("3v1.mtb.verified");
    let text = std::fs::read_to_string(&stale).unwrap();
    std::fs::write(&stale, text.replacen(" 1v1 ", " 1v1 0", 1)).unwrap();
    let (_, out) = verify(&[]);
    assert!(out.contains("tables verify 3v1 ("), "{out}");
    assert!(out.contains(", 5 verified before"), "{out}");
    let (_, out) = verify(&["fresh"]);
    assert!(out.contains(", 0 verified before"), "{out}");
    // A record does not spare a damaged file: its bytes are read again.
    let file = folder(&dir).join("2v2.mtb");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    std::fs::write(&file, bytes).unwrap();
    let (status, out) = verify(&[]);
    assert_ne!(status, Some(0), "{out}");
    assert!(out.contains("1 damaged files"), "{out}");
}

/// `win N` beats `draw` beats `loss N`; sooner wins and later losses
/// are better.
fn rank(value: &str) -> (i32, i64) {
    let n = |v: &str| v.parse::<i64>().unwrap();
    match value.split_once(' ') {
        Some(("win", k)) => (2, -n(k)),
        Some(("loss", k)) => (0, n(k)),
        _ if value == "draw" => (1, 0),
        _ => panic!("not a value: {value}"),
    }
}

#[test]
fn solve_speaks_one_distance_the_best_move_is_the_value_in_every_position_of_a_slice() {
    use menagerie_rules::game::endgame::Slice;
    use menagerie_rules::game::Game;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    let dir = fresh_dir("one-distance");
    let (status, out) = cli(&[
        "tables",
        "build",
        "am",
        "men=4",
        &format!("dir={}", dir.display()),
    ]);
    assert_eq!(status, Some(0), "{out}");
    let endgame = Awithlaknannai::endgame().unwrap();
    let rules = AwRules {
        lined: true,
        straight: false,
        count: false,
    };
    // Every position of a slice of 4 men whose captures lead into the
    // 3-men tables (not to the end of the game), at the no-progress
    // clock's start, middle and end (the limit is 50 plies); one `solve`
    // at a time, as a GUI asks them.
    let mut engine = crate::live::Engine::start();
    engine.send(&format!(
        "setoption name TablePath value {}\nnewgame am\n",
        dir.display()
    ));
    let slice = Slice::new(2, 2);
    let (mut positions, mut checked) = (0, 0);
    for index in 0..(endgame.slice_size)(slice) {
        let Some(position) = (endgame.position)(&rules, slice, index) else {
            continue;
        };
        let notation = position.to_string();
        let (board, _clock) = notation.rsplit_once(' ').unwrap();
        for clock in [0, 25, 48] {
            engine.send(&format!("position fen {board} {clock}\nsolve\n"));
            let answer =
                engine.until(|l| l.starts_with("Value: ") || l.starts_with("info string error"));
            let value = answer
                .last()
                .unwrap()
                .strip_prefix("Value: ")
                .unwrap_or_else(|| panic!("{answer:?}"));
            let moves: Vec<&str> = answer
                .iter()
                .filter(|l| !l.starts_with("info ") && !l.starts_with("Value: "))
                .filter_map(|l| l.split_once(": ").map(|(_, v)| v))
                .collect();
            positions += 1;
            if let Some(best) = moves.iter().max_by_key(|v| rank(v)) {
                assert_eq!(*best, value, "position fen {board} {clock}: {answer:?}");
                checked += 1;
            }
        }
    }
    eprintln!("{checked} positions of {positions} with moves checked");
    assert!(checked * 10 > positions * 9, "{checked} of {positions}");
}

/// A game already over is answered from the rules, tables or not: the
/// side to move has lost (a lion taken, every man taken, a lion on its
/// base), never "unknown after 0 nodes".
#[test]
fn solve_answers_a_finished_game_from_the_rules() {
    let empty = fresh_dir("no-tables");
    let d = format!("setoption name TablePath value {}", empty.display());
    for (game, fen) in [
        ("safari-dual", "5/1g1g1/5/2l2/5 r 0"),
        ("safari-dual", "5/5/5/5/l1L2 r 7"),
        ("am", "8/9/1W6 b 0"),
    ] {
        let out = engine(&[
            &d,
            &format!("newgame {game}"),
            &format!("position fen {fen}"),
            "solve",
        ]);
        assert_eq!(last_value(&out, "Value: "), "loss 0", "{game} {fen}: {out}");
        assert!(!out.contains("proof-number search"), "{out}");
    }
}
