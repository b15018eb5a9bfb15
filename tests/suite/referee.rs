//! The referee through its binary, against the real engine and the fake
//! engines of examples/fake_engine.rs (a seeded random mover, and ones that
//! crash, hang, play an illegal move or print garbage).

use crate::common;
use menagerie_referee::outcome::{ForfeitKind, Reason, Score};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use menagerie_referee::record::{replay, Record};

fn referee() -> &'static str {
    env!("CARGO_BIN_EXE_referee")
}

fn engine() -> &'static str {
    env!("CARGO_BIN_EXE_menagerie")
}

/// The fake engine of examples/fake_engine.rs.
fn fake() -> String {
    common::example("fake_engine")
}

fn run(args: &[&str]) -> Output {
    Command::new(referee())
        .args(args)
        .output()
        .expect("referee runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn temp(name: &str) -> PathBuf {
    crate::common::temp_path("referee", name)
}

fn records(path: &Path) -> Vec<Record> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            l.parse()
                .unwrap_or_else(|e| panic!("record does not parse back: {e}: {l}"))
        })
        .collect()
}

/// A match between the seeded random fake and a faulty one.
fn faulty(mode: &str, record: &Path) -> (String, Vec<Record>) {
    let random = format!("{} --mode random --seed 5", fake());
    let faulty = format!("{} --mode {mode} --after 2", fake());
    let out = run(&[
        "--engine",
        &random,
        "name=steady",
        "--engine",
        &faulty,
        &format!("name={mode}"),
        "--game",
        "hat-diviyan-keliya",
        "--games",
        "4",
        "--depth",
        "1",
        "--seed",
        "3",
        "--stall-timeout",
        "300",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (stdout(&out), records(record))
}

#[test]
fn a_crashing_engine_forfeits_and_is_restarted_for_the_next_game() {
    let (out, recs) = faulty("crash", &temp("crash.txt"));
    assert_eq!(recs.len(), 4, "the match goes on after each crash");
    assert!(
        recs.iter()
            .all(|r| r.reason == Reason::Forfeit(ForfeitKind::Crash)
                && r.by() == Some("crash")
                && r.result == Score::FirstWins),
        "{recs:?}"
    );
    assert!(out.contains("Forfeits: crash: crash 4"), "{out}");
}

#[test]
fn a_hanging_engine_forfeits_by_stall() {
    let (out, recs) = faulty("hang", &temp("hang.txt"));
    assert!(
        recs.iter()
            .all(|r| r.reason == Reason::Forfeit(ForfeitKind::Stall) && r.by() == Some("hang")),
        "{recs:?}"
    );
    assert!(out.contains("hang: stall 4"), "{out}");
}

#[test]
fn an_illegal_move_forfeits() {
    let (_, recs) = faulty("illegal", &temp("illegal.txt"));
    assert!(
        recs.iter()
            .all(|r| r.reason == Reason::Forfeit(ForfeitKind::IllegalMove)
                && r.by() == Some("illegal")
                && r.detail.as_deref().is_some_and(|d| d.contains("a1a1"))),
        "{recs:?}"
    );
}

#[test]
fn garbage_output_forfeits() {
    let (_, recs) = faulty("garbage", &temp("garbage.txt"));
    assert!(
        recs.iter()
            .all(|r| r.reason == Reason::Forfeit(ForfeitKind::Garbage)
                && r.by() == Some("garbage")),
        "{recs:?}"
    );
}

#[test]
fn records_replay_against_the_rules() {
    let path = temp("replay.txt");
    let out = run(&[
        "--engine",
        engine(),
        "name=a",
        "--engine",
        engine(),
        "name=b",
        "option.Skill=1",
        "--game",
        "awithlaknannai-mosona",
        "--games",
        "2",
        "--depth",
        "2",
        "--seed",
        "11",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    for r in records(&path) {
        let replayed =
            replay(&r, &menagerie_rules::catalogue::GAMES).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !r.is_forfeit() && r.reason != Reason::MaxPlies,
            "a game that ended by the rules: {}",
            replayed.ending
        );
    }
    let out = run(&["replay", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.ends_with("Replayed 2 record(s) of 1 file(s): 2 agree with the rules, 0 do not\n"));
    // Several files at once, each line naming its file.
    let out = run(&["replay", path.to_str().unwrap(), path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert_eq!(
        text.matches(&format!("{}: record ", path.display()))
            .count(),
        4,
        "{text}"
    );
    assert!(text.ends_with("Replayed 4 record(s) of 2 file(s): 4 agree with the rules, 0 do not\n"));
    // Nobody reading the output (`| head`) neither panics nor stops the
    // replay's verdict or a match's JSON.
    let closed = |args: &[&str]| {
        let mut child = Command::new(referee())
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("referee runs");
        drop(child.stdout.take());
        child.wait_with_output().expect("referee ends")
    };
    let out = closed(&["replay", path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = temp("closed.json");
    let out = closed(&[
        "--engine",
        engine(),
        "--engine",
        engine(),
        "option.Skill=1",
        "--game",
        "safari-dual",
        "--games",
        "4",
        "--depth",
        "1",
        "--seed",
        "3",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    assert!(std::fs::read_to_string(&json)
        .unwrap()
        .contains("\"games\": 4"));
    // A tampered record fails the replay.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replacen("moves=", "moves=zz9 ", 1);
    std::fs::write(&path, text).unwrap();
    let out = run(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}

/// The records without the time each move took (which varies run to run).
fn sorted_records(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = records(path)
        .into_iter()
        .map(|mut r| {
            r.thoughts.iter_mut().for_each(|t| t.ms = 0);
            r.to_string()
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn concurrency_does_not_change_results_and_pairs_share_dice() {
    let one = temp("c1.txt");
    let two = temp("c2.txt");
    for (path, k) in [(&one, "1"), (&two, "2")] {
        let out = run(&[
            "--engine",
            engine(),
            "name=deep",
            "--engine",
            engine(),
            "name=greedy",
            "option.Skill=1",
            "--game",
            "kilkenny-cats",
            "--games",
            "4",
            "--depth",
            "1",
            "--seed",
            "99",
            "--concurrency",
            k,
            "--record",
            path.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(sorted_records(&one), sorted_records(&two));
    // Both games of a pair: same start, seats swapped, the same rolls.
    let recs = records(&one);
    for pair in 0..2 {
        let games: Vec<&Record> = recs.iter().filter(|r| r.set == pair).collect();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].start, games[1].start);
        assert_eq!(games[0].seats[0].1, games[1].seats[1].1);
        assert_eq!(games[0].seats[1].1, games[1].seats[0].1);
        let rolls = |r: &Record| {
            r.moves
                .iter()
                .filter(|m| m.starts_with('r'))
                .cloned()
                .collect::<Vec<_>>()
        };
        let (a, b) = (rolls(games[0]), rolls(games[1]));
        let n = a.len().min(b.len());
        assert!(n > 3);
        assert_eq!(a[..n], b[..n], "the dice of a pair are the same");
    }
}

#[test]
fn more_than_two_seats_alternate_between_the_engines() {
    let path = temp("seats.txt");
    let out = run(&[
        "--engine",
        engine(),
        "name=a",
        "--engine",
        engine(),
        "name=b",
        "--game",
        "kilkenny-cats",
        "players=3",
        "--games",
        "2",
        "--depth",
        "1",
        "--seed",
        "4",
        "--max-plies",
        "30",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let recs = records(&path);
    let seats: Vec<String> = recs
        .iter()
        .map(|r| {
            r.seats
                .iter()
                .map(|(s, n)| format!("{s}:{n}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert!(seats.contains(&"s:a,w:b,n:a".to_string()), "{seats:?}");
    assert!(seats.contains(&"s:b,w:a,n:b".to_string()), "{seats:?}");
    assert!(recs.iter().all(|r| r.rules == ["players=3"]));
}

#[test]
fn openings_are_each_played_twice_with_seats_swapped() {
    let openings = temp("openings.txt");
    std::fs::write(
        &openings,
        "# two openings\n@b1 @a2\nT/LLL/1L1/L1L t 0 1 2\n",
    )
    .unwrap();
    let path = temp("openings-records.txt");
    let out = run(&[
        "--engine",
        engine(),
        "name=a",
        "--engine",
        engine(),
        "name=b",
        "option.Skill=3",
        "--game",
        "hdk",
        "--rounds",
        "2",
        "--depth",
        "2",
        "--seed",
        "1",
        "--openings",
        openings.to_str().unwrap(),
        "--record",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut starts: Vec<String> = records(&path).iter().map(|r| r.start.clone()).collect();
    starts.sort();
    assert_eq!(
        starts,
        [
            "T/L2/3/3 t 0 6 0",
            "T/L2/3/3 t 0 6 0",
            "T/LLL/1L1/L1L t 0 1 2",
            "T/LLL/1L1/L1L t 0 1 2"
        ]
    );
}

#[test]
fn random_openings_follow_the_seed() {
    let starts = |seed: &str| {
        let path = temp(&format!("random-{seed}.txt"));
        let out = run(&[
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--game",
            "safari-dual",
            "--games",
            "4",
            "--depth",
            "1",
            "--seed",
            seed,
            "--random-openings",
            "6",
            "--record",
            path.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(out.status.success());
        let mut s: Vec<String> = records(&path).iter().map(|r| r.start.clone()).collect();
        s.sort();
        s
    };
    let a = starts("5");
    assert_eq!(a, starts("5"));
    assert_ne!(a, starts("6"));
    assert_ne!(a[0], "2gel/3ge/E3g/GE3/LGE2 r 0");
}

#[test]
fn sprt_stops_the_match_when_it_decides() {
    let out = run(&[
        "--engine",
        engine(),
        "name=strong",
        "--engine",
        &format!("{} --mode random", fake()),
        "name=random",
        "--game",
        "safari-dual",
        "--games",
        "200",
        "--depth",
        "2",
        "--seed",
        "8",
        "--sprt",
        "elo0=0",
        "elo1=100",
        "alpha=0.05",
        "beta=0.05",
    ]);
    assert!(out.status.success());
    let text = stdout(&out);
    let stop = text
        .lines()
        .find_map(|l| l.strip_prefix("SPRT: H1 accepted after "))
        .unwrap_or_else(|| panic!("no decision: {text}"));
    let decided_at: usize = stop.split(' ').next().unwrap().parse().unwrap();
    let played = text
        .lines()
        .filter(|l| l.starts_with("Finished game"))
        .count();
    assert_eq!(played, decided_at, "no game starts after the decision");
    assert!(played < 60, "stopped early: {played} games");
    // The final report states the same verdict as the stop.
    let summary = text.rsplit("Score of strong vs random").next().unwrap();
    assert!(
        summary.contains(&format!("H1 accepted after {decided_at} games")),
        "{summary}"
    );
}

#[test]
fn summary_reports_elo_los_draws_and_pentanomial() {
    let out = run(&[
        "--engine",
        engine(),
        "name=a",
        "--engine",
        engine(),
        "name=b",
        "option.Skill=2",
        "--game",
        "awithlaknannai-mosona",
        "--games",
        "4",
        "--depth",
        "2",
        "--seed",
        "2",
    ]);
    let text = stdout(&out);
    assert!(text.contains("Score of a vs b: "), "{text}");
    assert!(
        text.contains("LOS: ") && text.contains("DrawRatio: "),
        "{text}"
    );
    assert!(text.contains("Ptnml(0-2): ["), "{text}");
    assert!(text.contains("Elo difference: "), "{text}");
}

#[test]
fn a_killed_match_keeps_every_finished_game() {
    let path = temp("killed.txt");
    let mut child = Command::new(referee())
        .args([
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--game",
            "safari-dual",
            "--games",
            "1000",
            "--depth",
            "1",
            "--seed",
            "1",
            "--record",
            path.to_str().unwrap(),
            "--quiet",
        ])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::fs::read_to_string(&path).map_or(0, |t| t.lines().count()) < 3 {
        assert!(std::time::Instant::now() < deadline, "no games recorded");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with('\n'), "only whole lines are written");
    for r in records(&path) {
        replay(&r, &menagerie_rules::catalogue::GAMES).unwrap();
    }
}

#[test]
fn bad_input_exits_with_code_2_before_any_game() {
    let missing = run(&["--engine", "/no/such/engine", "--engine", engine()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot start"));
    let bad_opening = temp("bad-openings.txt");
    std::fs::write(&bad_opening, "@b1 zz\n").unwrap();
    for args in [
        vec!["--engine", engine()],
        vec![
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--game",
            "chess",
        ],
        vec![
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--game",
            "hdk",
            "board=huge",
        ],
        vec![
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--tc",
            "soon",
        ],
        // Times past a week would overflow deadlines and forfeit every game.
        vec!["--movetime", "18446744073709551615"],
        vec!["--tc", "1+999999999"],
        vec![
            "--engine",
            engine(),
            "movetime=999999999999",
            "--engine",
            engine(),
        ],
        vec![
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--openings",
            "/no/such/file",
        ],
        vec![
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--game",
            "hdk",
            "--openings",
            bad_opening.to_str().unwrap(),
        ],
        vec!["--engine", engine(), "colour=red", "--engine", engine()],
        vec![
            "--engine",
            engine(),
            "name=a",
            "--engine",
            engine(),
            "name=b",
            "--sprt",
            "elo0=5",
            "elo1=0",
        ],
        vec!["--games", "x"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            !String::from_utf8_lossy(&out.stderr).trim().is_empty(),
            "{args:?}: a message"
        );
        assert!(!stdout(&out).contains("Finished game"), "{args:?}");
    }
}

#[test]
fn demo_runs_with_no_arguments() {
    let out = run(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.contains("Score of full vs greedy"));
    // It says what it is, with a seed that does not change run to run,
    // what the letters and Ptnml mean, and what to run next.
    assert!(text.starts_with("Demo match: "), "{text}");
    assert!(text.contains("seed 2026"), "{text}");
    assert!(text.contains("r = Round, a = Angular"), "{text}");
    assert!(text.contains("Ptnml(0-2) counts the pairs"), "{text}");
    assert!(text.contains("Next: "), "{text}");
    // The Elo block is printed once, in the summary.
    assert_eq!(text.matches("Elo difference").count(), 1, "{text}");
    let quiet = stdout(&run(&["--games", "2", "--quiet"]));
    assert!(quiet.starts_with("Score of full vs greedy"), "{quiet:?}");
}

#[test]
fn help_text_is_unchanged() {
    let out = run(&["--help"]);
    let expected = include_str!("../data/referee_help.txt");
    assert_eq!(
        stdout(&out),
        expected,
        "update tests/data/referee_help.txt if the change is intended"
    );
}

#[test]
fn rust_log_debug_logs_the_referees_lines_whole() {
    let out = Command::new(referee())
        .env("RUST_LOG", "debug")
        .args(crate::common::duel_args(1, 1, 4))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    // The last position sent holds the whole game: far over any clip.
    let longest = log
        .lines()
        .filter(|l| l.contains(" < position "))
        .map(|l| l.len())
        .max()
        .unwrap_or(0);
    assert!(
        longest > 400,
        "longest position line logged: {longest} bytes"
    );
    assert!(!log.contains("... ("), "a clipped line in the log");
}
