//! The referee's verdicts under the faults engines show in the field:
//! floods, helpers holding pipes, slow starts, long fixed-depth searches,
//! refused commands and options, and the referee's own faults (a second
//! referee on one record file, a full disk, a cut line, Ctrl-C, a kill).

use crate::common;
use menagerie_referee::outcome::{ForfeitKind, Reason};

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use menagerie_referee::record::{read_file, Record};

fn referee() -> &'static str {
    env!("CARGO_BIN_EXE_referee")
}

fn engine() -> &'static str {
    env!("CARGO_BIN_EXE_menagerie")
}

fn fake(args: &str) -> String {
    format!("{} {args}", common::example("fake_engine"))
}

fn run(args: &[&str]) -> Output {
    Command::new(referee())
        .args(args)
        .output()
        .expect("referee runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> PathBuf {
    crate::common::temp_path("faults", name)
}

fn records(path: &Path) -> Vec<Record> {
    read_file(path).unwrap_or_else(|e| panic!("{e}"))
}

/// Two engines (command lines with their settings), then match arguments.
fn play(a: &[&str], b: &[&str], rest: &[&str]) -> Output {
    let mut args = vec!["--engine"];
    args.extend_from_slice(a);
    args.push("--engine");
    args.extend_from_slice(b);
    args.extend_from_slice(rest);
    run(&args)
}

/// Runs the referee on `args`, watching its own peak memory until it ends
/// (other tests' children would count in the test process's figure); its
/// status, its stderr and the peak in kB.
fn watched<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (std::process::ExitStatus, String, u64) {
    let mut child = Command::new(referee())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut peak_kb = 0;
    let status = loop {
        peak_kb = peak_kb.max(common::peak_kib(child.id()));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no end");
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (status, stderr, peak_kb)
}

fn alive(pid: u32) -> bool {
    // A zombie has no memory left and is only waiting to be reaped.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim()
            .starts_with('Z')
    })
}

fn pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn wait_until(what: &str, seconds: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_burst_of_thousands_of_info_lines_on_each_move_is_not_a_flood() {
    // 5,000 lines at once after 50 ms on each of its moves: a chatty
    // engine (the old referee forfeited more than 1,024 at once), not
    // output without end.
    let record = temp("chatty.txt");
    let out = play(
        &[
            &fake("--mode chatty --lines 5000 --ms 50 --seed 4"),
            "name=chatty",
        ],
        &[&fake("--seed 5"), "name=quiet"],
        &[
            "--game",
            "safari-dual",
            "--games",
            "2",
            "--depth",
            "1",
            "--max-plies",
            "16",
            "--seed",
            "3",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let recs = records(&record);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert!(r.by().is_none(), "no forfeit: {r:?}");
        assert!(r.moves.len() >= 8, "the game was played: {r:?}");
    }
}

#[test]
fn a_flooding_engine_is_forfeited_and_the_referee_stays_small() {
    let record = temp("flood.txt");
    // The steady engine thinks 30 ms a move: time for the flood to fill
    // the referee's buffer while nobody reads it.
    let steady = fake("--mode think --ms 30 --seed 2");
    let flood = fake("--mode flood --after 1");
    let record_path = record.to_string_lossy().into_owned();
    let (status, stderr, peak_kb) = watched(&[
        "--engine",
        &steady,
        "name=steady",
        "--engine",
        &flood,
        "name=flood",
        "--game",
        "safari-dual",
        "--games",
        "2",
        "--depth",
        "1",
        "--seed",
        "3",
        "--record",
        &record_path,
    ]);
    assert!(status.success(), "{stderr}");
    let recs = records(&record);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(
            (r.reason.to_string(), r.by()),
            ("flood".to_string(), Some("flood")),
            "{r:?}"
        );
        assert_eq!(r.winner(), Some("steady"));
    }
    eprintln!("the referee peaked at {peak_kb} kB");
    assert!(peak_kb < 300 * 1024, "the referee peaked at {peak_kb} kB");
}

#[test]
fn a_helper_holding_the_pipes_is_killed_and_the_crash_is_a_crash() {
    let record = temp("grandchild.txt");
    let pid_file = temp("grandchild-pids.txt");
    let out = play(
        &[&fake("--seed 5"), "name=steady"],
        &[
            &fake(&format!(
                "--mode grandchild --after 1 --pids {}",
                pid_file.display()
            )),
            "name=parent",
        ],
        &[
            "--game",
            "hdk",
            "--games",
            "2",
            "--depth",
            "1",
            "--seed",
            "3",
            "--stall-timeout",
            "5000",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for r in records(&record) {
        assert_eq!(r.reason, Reason::Forfeit(ForfeitKind::Crash), "{r:?}");
        assert!(
            r.detail.as_deref().unwrap_or("").contains("status 3"),
            "{r:?}"
        );
    }
    let started = pids(&pid_file);
    assert!(
        started.len() >= 4,
        "two engines and their helpers: {started:?}"
    );
    wait_until("the helpers to die", 5, || {
        started.iter().all(|&p| !alive(p))
    });
}

#[test]
fn engines_die_with_a_killed_referee() {
    let record = temp("orphans.txt");
    let pid_file = temp("orphans-pids.txt");
    let slow = fake(&format!(
        "--mode think --ms 50 --pids {}",
        pid_file.display()
    ));
    let mut child = Command::new(referee())
        .args([
            "--engine",
            &slow,
            "name=a",
            "--engine",
            &slow,
            "name=b",
            "--games",
            "100",
            "--depth",
            "1",
            "--seed",
            "1",
            "--concurrency",
            "2",
            "--record",
            record.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("four engines", 20, || pids(&pid_file).len() >= 4);
    child.kill().unwrap();
    child.wait().unwrap();
    let started = pids(&pid_file);
    wait_until("the engines to die", 5, || {
        started.iter().all(|&p| !alive(p))
    });
}

#[test]
fn a_slow_starting_engine_gets_the_startup_timeout() {
    let slow = fake("--mode slowstart --ms 1200");
    let ok = play(
        &[&slow, "name=slow"],
        &[&fake(""), "name=quick"],
        &[
            "--games",
            "2",
            "--depth",
            "1",
            "--stall-timeout",
            "100",
            "--startup-timeout",
            "5000",
        ],
    );
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let summary = text(&ok.stdout);
    assert!(summary.contains("Forfeits: none"), "{summary}");
    // Started once for the first game: each game line, no restarts.
    assert!(!summary.contains("no-start"), "{summary}");

    let late = play(
        &[&slow, "name=slow"],
        &[&fake(""), "name=quick"],
        &["--games", "2", "--depth", "1", "--startup-timeout", "300"],
    );
    assert_eq!(late.status.code(), Some(2));
    let why = text(&late.stderr);
    assert!(
        why.contains("slow") && why.contains("no 'uciok' within 300 ms"),
        "{why}"
    );
}

#[test]
fn a_long_fixed_depth_search_that_answers_isready_never_stalls() {
    let record = temp("think.txt");
    let out = play(
        &[&fake("--mode think --ms 1000"), "name=deep"],
        &[&fake(""), "name=quick"],
        &[
            "--game",
            "hdk",
            "--games",
            "2",
            "--depth",
            "30",
            "--max-plies",
            "6",
            "--stall-timeout",
            "250",
            "--seed",
            "1",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for r in records(&record) {
        assert!(!r.is_forfeit(), "{r:?}");
        // Each of the deep engine's moves took its 1000 ms, four times the
        // stall timeout, and was recorded with its time.
        let deep_moves = r.thoughts.iter().filter(|t| t.ms >= 1000).count();
        assert!(deep_moves >= 3, "{r:?}");
    }
}

#[test]
fn what_an_engine_said_is_in_the_forfeit_it_led_to() {
    let record = temp("reject.txt");
    let out = play(
        &[&fake(""), "name=steady"],
        &[&fake("--mode reject"), "name=picky"],
        &[
            "--game",
            "safari-dual",
            "--games",
            "2",
            "--depth",
            "1",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for r in records(&record) {
        assert_eq!(r.by(), Some("picky"));
        assert!(
            r.detail
                .as_deref()
                .is_some_and(|d| d.contains("it said: position: bad notation")),
            "{r:?}"
        );
    }
    assert!(
        text(&out.stdout).contains("engine said (2x): position: bad notation"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn unknown_and_refused_options_stop_the_match_before_any_game() {
    for (engine_cmd, option, expected) in [
        (fake(""), "option.Colour=red", "has no option 'Colour'"),
        (fake(""), "option.Skill=99", "refused option 'Skill"),
        (
            engine().to_string(),
            "option.Colour=red",
            "has no option 'Colour'",
        ),
        (
            engine().to_string(),
            "option.Skill=99",
            "refused option 'Skill",
        ),
        (
            engine().to_string(),
            "option.Hash=abc",
            "refused option 'Hash",
        ),
    ] {
        let out = play(
            &[&engine_cmd, "name=typo", option],
            &[&fake(""), "name=other"],
            &["--games", "2", "--depth", "1"],
        );
        assert_eq!(out.status.code(), Some(2), "{option}");
        let why = text(&out.stderr);
        assert!(
            why.contains("typo") && why.contains(expected),
            "{option}: {why}"
        );
        assert!(!text(&out.stdout).contains("Finished game"));
    }
}

#[test]
fn bad_match_settings_are_refused_with_their_reason() {
    let engines = |rest: &[&str]| play(&[&fake(""), "name=a"], &[&fake(""), "name=b"], rest);
    for (args, expected) in [
        (vec!["--games", "0"], "--games must be at least 1"),
        (vec!["--rounds", "0"], "--rounds must be at least 1"),
        (vec!["--max-plies", "0"], "--max-plies must be at least 1"),
        (
            vec!["--stall-timeout", "0"],
            "--stall-timeout must be at least 1",
        ),
        (vec!["--movetime", "0"], "--movetime must be at least 1"),
        (vec!["--tc", "0+0.1"], "base"),
        (vec!["--tc", "1e300+0"], "--tc '1e300+0'"),
        (vec!["--tc", "5+-1"], "--tc '5+-1'"),
        (vec!["--sprt", "elo0=0"], "missing elo1, alpha, beta"),
        (
            vec!["--sprt", "elo0=0", "elo1=5", "alpha=0.7", "beta=0.05"],
            "alpha must be between 0 and 0.5",
        ),
        (vec!["--shard", "3/2", "--seed", "1"], "--shard '3/2'"),
        (vec!["--shard", "1/2"], "--shard needs --seed"),
        (
            vec![
                "--shard",
                "1/2",
                "--seed",
                "1",
                "--sprt",
                "elo0=0",
                "elo1=5",
                "alpha=0.05",
                "beta=0.05",
            ],
            "a shard cannot decide alone",
        ),
    ] {
        let out = engines(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let why = text(&out.stderr);
        assert!(why.contains(expected), "{args:?}: {why}");
    }
}

/// A match long enough to be caught while it runs.
fn long_match(record: &Path) -> std::process::Child {
    Command::new(referee())
        .args([
            "--engine",
            &fake("--mode think --ms 20"),
            "name=a",
            "--engine",
            &fake(""),
            "name=b",
            "--games",
            "400",
            "--depth",
            "1",
            "--seed",
            "1",
            "--record",
            record.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn lines_in(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn a_second_referee_on_the_same_record_file_is_refused() {
    let record = temp("locked.txt");
    let mut first = long_match(&record);
    wait_until("a first record", 30, || lines_in(&record) >= 1);
    let second = play(
        &[&fake(""), "name=a"],
        &[&fake(""), "name=b"],
        &[
            "--games",
            "2",
            "--depth",
            "1",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(second.status.code(), Some(2));
    assert!(
        text(&second.stderr).contains("another referee is writing it"),
        "{}",
        text(&second.stderr)
    );
    // Every line of the file is whole and checks.
    records(&record);
}

#[test]
fn ctrl_c_prints_the_summary_so_far_and_exits_130() {
    let record = temp("interrupted.txt");
    let first = long_match(&record);
    wait_until("three records", 30, || lines_in(&record) >= 3);
    // SAFETY: a signal to a child this test started and has not reaped.
    unsafe {
        libc::kill(first.id() as libc::pid_t, libc::SIGINT);
    }
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = text(&out.stdout);
    let summary = stdout.rsplit("\n\n").next().unwrap();
    assert!(summary.contains("Score of a vs b"), "{stdout}");
    assert!(stdout.contains("Interrupted"), "{stdout}");
    let counted: u32 = summary
        .lines()
        .next()
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(
        counted as usize,
        lines_in(&record),
        "the summary counts every record"
    );
}

#[test]
fn a_failed_record_write_stops_the_match_with_status_1() {
    let out = play(
        &[&fake(""), "name=a"],
        &[&fake(""), "name=b"],
        &["--games", "4", "--depth", "1", "--record", "/dev/full"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("/dev/full"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn cut_duplicated_or_altered_record_lines_are_refused_with_their_line_number() {
    let record = temp("strict.txt");
    let out = play(
        &[&fake(""), "name=a"],
        &[&fake("--seed 9"), "name=b"],
        &[
            "--games",
            "3",
            "--depth",
            "1",
            "--seed",
            "4",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success());
    let good = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let cut = format!("{}\n{}\n", lines[0], &lines[1][..lines[1].len() - 30]);
    let doubled = format!("{}\n{}\tresult=1-0\n", lines[0], lines[1]);
    let altered = format!(
        "{}\n{}\n",
        lines[0],
        lines[1].replacen("result=", "result=0", 1)
    );
    for (what, bad) in [("cut", cut), ("doubled key", doubled), ("altered", altered)] {
        std::fs::write(&record, &bad).unwrap();
        let replay = run(&["replay", record.to_str().unwrap()]);
        assert_eq!(replay.status.code(), Some(1), "{what}");
        assert!(
            text(&replay.stdout).contains("record 2: error"),
            "{what}: {}",
            text(&replay.stdout)
        );
        let merge = run(&["merge", record.to_str().unwrap()]);
        assert_eq!(merge.status.code(), Some(2), "{what}");
        assert!(
            text(&merge.stderr).contains("line 2"),
            "{what}: {}",
            text(&merge.stderr)
        );
    }
}

#[test]
fn a_time_loss_is_recorded_by_seat_and_replays_as_one() {
    let record = temp("timeloss.txt");
    let out = play(
        &[&fake("--seed 3"), "name=quick"],
        &[&fake("--mode think --ms 300 --after 1"), "name=slow"],
        &[
            "--game",
            "hdk",
            "--games",
            "2",
            "--movetime",
            "50",
            "--seed",
            "2",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for r in records(&record) {
        assert_eq!(r.reason, Reason::Forfeit(ForfeitKind::TimeLoss), "{r:?}");
        assert_eq!(r.winner(), Some("quick"));
        let quick_seat = r.seats.iter().find(|(_, n)| n == "quick").unwrap().0;
        assert_eq!(r.seat, Some(quick_seat), "the winning seat is quick's");
        let last = r.thoughts.last().unwrap();
        // Forfeited at the limit and its margin: 50 + 50 ms.
        assert!(last.ms >= 100, "the losing move's time is kept: {r:?}");
    }
    let replay = run(&["replay", record.to_str().unwrap()]);
    assert!(replay.status.success());
    let said = text(&replay.stdout);
    assert_eq!(
        said.matches("time-loss by slow: quick wins as").count(),
        2,
        "{said}"
    );
}

#[test]
fn the_report_shows_seats_progress_and_repeated_games() {
    let out = play(
        &[engine(), "name=a"],
        &[engine(), "name=b", "option.Skill=20"],
        &[
            "--game",
            "hdk",
            "--games",
            "6",
            "--depth",
            "2",
            "--rating-interval",
            "2",
        ],
    );
    assert!(out.status.success());
    let said = text(&out.stdout);
    // The settings before the first game.
    assert!(
        said.starts_with("Match: a vs b, hat-diviyan-keliya"),
        "{said}"
    );
    assert!(said.contains("Warning: 3 pairs from 1 start(s)"), "{said}");
    // An Elo block every two games but the last (the summary's follows).
    assert_eq!(said.matches("Elo difference").count(), 3, "{said}");
    // Each engine by seat: the tiger and the leopards.
    for line in ["  a as t: ", "  a as l: ", "  b as t: ", "  b as l: "] {
        assert!(said.contains(line), "{line}: {said}");
    }
    // Identical deterministic engines from one start repeat their games.
    assert!(said.contains("Warning: 4 of 6 games repeated"), "{said}");
}

#[test]
fn an_openings_file_without_end_or_with_a_huge_line_is_refused_in_bounded_memory() {
    let long_line = temp("long-line.txt");
    std::fs::write(&long_line, format!("@b1 @b2\n{}\n", "@b1 ".repeat(40_000))).unwrap();
    let sparse = temp("sparse-openings.txt");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(10 << 30)
        .unwrap();
    for (path, said) in [
        (
            PathBuf::from("/dev/zero"),
            "/dev/zero: is a character device, not a regular file".to_string(),
        ),
        (
            sparse.clone(),
            "larger than the limit of 256 MiB".to_string(),
        ),
        (
            long_line.clone(),
            "line 2: 160000 bytes, longer than the limit of 65536 bytes".to_string(),
        ),
    ] {
        let path_text = path.to_string_lossy().into_owned();
        let (status, stderr, peak_kb) = watched(&[
            "--game",
            "hdk",
            "--games",
            "2",
            "--depth",
            "1",
            "--openings",
            &path_text,
        ]);
        assert_eq!(status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&said), "{stderr}");
        assert!(
            peak_kb < 100 * 1024,
            "{}: peak {peak_kb} kB",
            path.display()
        );
    }
}
