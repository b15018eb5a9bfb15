//! A reply belongs to its request: the referee takes a `bestmove` only as
//! the answer to the `go` it sent, whatever an engine does around it.
//! Test engines answer after the clock (once, or always), answer twice,
//! answer a `stop` with one move too many, or never answer `stop`; a real
//! engine is paused (SIGSTOP/SIGCONT) at random moments. In every case
//! every game is played in step: each recorded move is, by the engine's
//! own log, its answer to that very position; no forfeit is recorded but
//! the time losses that happened; `referee replay` agrees with the records.
//!
//! Verdicts do not depend on the machine's speed: engines that answer in
//! time answer at once, against a clock of a second a move; late ones
//! answer a minute late unless stopped.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use menagerie_referee::outcome::Reason;
use menagerie_referee::record::{read_file, Record};
use menagerie_rules::catalogue::{self, GAMES};

fn temp(name: &str) -> PathBuf {
    common::temp_path("step", name)
}

/// Runs `examples/answer_check.rs` on the records and the logs: every
/// engine move must be its engine's answer to that position, by its own
/// log. The number of moves checked.
fn every_move_answers_its_own_request(records: &Path, logs: &[PathBuf]) -> usize {
    let out = Command::new(common::example("answer_check"))
        .arg(records)
        .args(logs)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.split_whitespace().next().unwrap().parse().unwrap()
}

/// A match of `games` Safari-Dual games between two engine command lines
/// at a second a move; its records and its printed summary.
fn play(
    name: &str,
    a: &str,
    b: &str,
    games: u32,
    extra: &[&str],
) -> (Vec<Record>, String, PathBuf) {
    let record = temp(&format!("{name}.txt"));
    let _ = std::fs::remove_file(&record);
    let games = games.to_string();
    let mut args = vec![
        "--engine",
        a,
        "name=a",
        "--engine",
        b,
        "name=b",
        "--game",
        "safari-dual",
        "--games",
        &games,
        "--movetime",
        "1000",
        "--seed",
        "5",
        "--random-openings",
        "4",
        "--max-plies",
        "60",
        "--rating-interval",
        "0",
    ];
    let record_text = record.to_string_lossy().into_owned();
    args.extend(["--record", &record_text]);
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(&args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The records replay by the rules, every one.
    let replay = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["replay", &record_text])
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );
    (read_file(&record).unwrap(), text, record)
}

/// The fake engine with an answer log, and its log's path, named for
/// the engine `name` plays as (`a`, `b`) as answer_check wants it.
fn fake(name: &str, args: &str) -> (String, PathBuf) {
    let (test, engine) = name.rsplit_once('-').unwrap();
    let log = temp(&format!("{engine}.{test}.log"));
    let _ = std::fs::remove_file(&log);
    (
        format!(
            "{} {args} --log {}",
            common::example("fake_engine"),
            log.display()
        ),
        log,
    )
}

/// The forfeits of the records, as (engine, kind word).
fn forfeits(records: &[Record]) -> Vec<(String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.reason {
            Reason::Forfeit(kind) => {
                Some((r.by().unwrap_or_default().to_string(), kind.to_string()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_late_answer_once_costs_one_game_and_every_later_game_is_in_step() {
    // The fourth move is answered a minute late: a time loss; told to
    // stop, the engine answers with that move, which is read and dropped.
    let (a, a_log) = fake("late-once-a", "--mode late --after 3 --ms 60000 --seed 3");
    let (b, b_log) = fake("late-once-b", "--seed 4");
    let (records, text, record) = play("late-once", &a, &b, 8, &[]);
    assert_eq!(records.len(), 8);
    assert_eq!(
        forfeits(&records),
        [("a".to_string(), "time-loss".to_string())],
        "{text}"
    );
    let checked = every_move_answers_its_own_request(&record, &[a_log.clone(), b_log]);
    assert!(checked > 8 * 4, "{checked}");
    // Without b's log, b's moves answer nothing: the check can fail.
    let alone = Command::new(common::example("answer_check"))
        .arg(&record)
        .arg(&a_log)
        .output()
        .unwrap();
    assert_eq!(alone.status.code(), Some(1));
    assert!(!text.contains("Engine restarts"), "{text}");
    assert!(!text.contains("Replies to no request"), "{text}");
}

#[test]
fn an_engine_late_on_every_move_loses_each_game_on_time_and_nothing_else() {
    let (a, a_log) = fake("late-always-a", "--mode think --ms 60000 --seed 3");
    let (b, b_log) = fake("late-always-b", "--seed 4");
    let (records, text, record) = play("late-always", &a, &b, 6, &[]);
    assert_eq!(records.len(), 6);
    let lost = forfeits(&records);
    assert_eq!(lost.len(), 6, "{text}");
    assert!(
        lost.iter()
            .all(|(by, kind)| by == "a" && kind == "time-loss"),
        "{lost:?}"
    );
    every_move_answers_its_own_request(&record, &[a_log, b_log]);
    assert!(!text.contains("Engine restarts"), "{text}");
}

#[test]
fn a_late_answer_that_comes_by_itself_after_the_clock_is_drained_too() {
    // The late move comes 1.5 s after its `go`, stop or no stop.
    let (a, a_log) = fake(
        "late-ignore-a",
        "--mode late --after 2 --ms 1500 --stop ignore --seed 3",
    );
    let (b, b_log) = fake("late-ignore-b", "--seed 4");
    let (records, text, record) = play("late-ignore", &a, &b, 6, &[]);
    assert_eq!(
        forfeits(&records),
        [("a".to_string(), "time-loss".to_string())],
        "{text}"
    );
    every_move_answers_its_own_request(&record, &[a_log, b_log]);
    assert!(!text.contains("Engine restarts"), "{text}");
}

#[test]
fn an_engine_that_answers_twice_plays_in_step_and_its_second_answers_are_counted() {
    let (a, a_log) = fake("twice-a", "--mode twice --seed 3");
    let (b, b_log) = fake("twice-b", "--seed 4");
    let (records, text, record) = play("twice", &a, &b, 6, &[]);
    assert_eq!(forfeits(&records), [], "{text}");
    every_move_answers_its_own_request(&record, &[a_log, b_log]);
    // One stray per move of `a`, but for the last one when the match
    // ended before it was read.
    let moves_of_a: usize = records.iter().map(|r| moves_of(r, "a")).sum();
    let strays: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("Replies to no request (a bestmove after its search was given up, or a second one; ignored): a "))
        .unwrap_or_else(|| panic!("no strays reported: {text}"))
        .parse()
        .unwrap();
    assert!(
        (moves_of_a - 1..=moves_of_a).contains(&strays),
        "{strays} of {moves_of_a}: {text}"
    );
}

/// The moves engine `name` played in `record`.
fn moves_of(record: &Record, name: &str) -> usize {
    let mut session =
        catalogue::new_session_named(&GAMES, &record.game, &record.rules).expect("ruleset");
    session
        .set_position(Some(&record.start), &[])
        .expect("start");
    let mut count = 0;
    for mv in &record.moves {
        if !session.awaiting_chance() {
            let letter = session.side_letter();
            count += usize::from(record.seats.iter().any(|(l, n)| *l == letter && n == name));
        }
        session.play_moves(std::slice::from_ref(mv)).expect("legal");
    }
    count
}

#[test]
fn an_engine_that_answers_stop_with_one_move_too_many_plays_in_step() {
    // Stopped after a time loss, it prints the stopped move and one more
    // (as an engine does that answers a stop that came after its move).
    let (a, a_log) = fake(
        "extra-a",
        "--mode late --after 2 --ms 60000 --stop extra --seed 3",
    );
    let (b, b_log) = fake("extra-b", "--seed 4");
    let (records, text, record) = play("extra", &a, &b, 6, &[]);
    assert_eq!(
        forfeits(&records),
        [("a".to_string(), "time-loss".to_string())],
        "{text}"
    );
    every_move_answers_its_own_request(&record, &[a_log, b_log]);
    assert!(text.contains("Replies to no request"), "{text}");
    assert!(!text.contains("Engine restarts"), "{text}");
}

#[test]
fn an_engine_that_never_answers_stop_is_restarted_and_the_restarts_are_reported() {
    // Each process plays two moves, then loses its third search for good:
    // a time loss, no bestmove after stop within the stall deadline, a
    // restart; the next game starts a fresh process.
    let (a, a_log) = fake(
        "never-a",
        "--mode late --after 2 --ms 600000 --stop never --seed 3",
    );
    let (b, b_log) = fake("never-b", "--seed 4");
    let (records, text, record) = play("never", &a, &b, 6, &["--stall-timeout", "500"]);
    assert_eq!(records.len(), 6);
    let lost = forfeits(&records);
    assert!(!lost.is_empty());
    assert!(
        lost.iter()
            .all(|(by, kind)| by == "a" && kind == "time-loss"),
        "{lost:?}\n{text}"
    );
    every_move_answers_its_own_request(&record, &[a_log, b_log]);
    assert!(
        text.contains(&format!(
            "Engine restarts: a {} ({} no answer to stop (no 'bestmove' in time))",
            lost.len(),
            lost.len()
        )),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn real_engines_paused_at_random_moments_play_every_game_in_step() {
    // Each engine process runs under a wrapper that logs every protocol
    // line (RUST_LOG=debug) and its process id; a thread stops one of
    // them for 50-300 ms at random moments while the match runs.
    let dir = temp("paused");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper = |name: &str| {
        let script = dir.join(format!("{name}.sh"));
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho $$ >> {dir}/pids\nRUST_LOG=menagerie_engine=debug exec {engine} 2>> {dir}/{name}.$$.log\n",
                dir = dir.display(),
                engine = env!("CARGO_BIN_EXE_menagerie")
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script.to_string_lossy().into_owned()
    };
    let (a, b) = (wrapper("a"), wrapper("b"));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pauses = {
        let (dir, done) = (dir.clone(), std::sync::Arc::clone(&done));
        std::thread::spawn(move || {
            let mut rng = menagerie_rules::rng::Rng::new(11);
            let mut pauses = 0u32;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let pids: Vec<i32> = std::fs::read_to_string(dir.join("pids"))
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect();
                let pick = pids
                    .get(rng.below(pids.len().max(1) as u64) as usize)
                    .copied();
                // Only a live engine of this test: a process id of one
                // that ended may belong to another process by now.
                let ours = |pid: i32| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("menagerie"))
                };
                if let Some(pid) = pick.filter(|&pid| ours(pid)) {
                    // SAFETY: signals to a process id this test's wrapper wrote.
                    unsafe { libc::kill(pid, libc::SIGSTOP) };
                    std::thread::sleep(std::time::Duration::from_millis(50 + rng.below(251)));
                    unsafe { libc::kill(pid, libc::SIGCONT) };
                    pauses += 1;
                }
                std::thread::sleep(std::time::Duration::from_millis(rng.below(400)));
            }
            pauses
        })
    };
    let record = dir.join("games.txt");
    let record_text = record.to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args([
            "--engine",
            &a,
            "name=a",
            "--engine",
            &b,
            "name=b",
            "option.Skill=10",
            "--game",
            "safari-dual",
            "--games",
            "8",
            "--tc",
            "1+0.02",
            "--concurrency",
            "2",
            "--seed",
            "9",
            "--random-openings",
            "4",
            "--rating-interval",
            "0",
            "--record",
            &record_text,
        ])
        .output()
        .unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let pauses = pauses.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let records = read_file(&record).unwrap();
    assert_eq!(records.len(), 8, "{text}");
    // Any forfeit is a time loss the pauses caused; nothing else.
    for (by, kind) in forfeits(&records) {
        assert_eq!(kind, "time-loss", "{by}: {text}");
    }
    let logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "log"))
        .collect();
    let checked = every_move_answers_its_own_request(&record, &logs);
    eprintln!("{pauses} pauses, {checked} moves checked against the engines' logs");
    assert!(pauses > 0 && checked > 0);
}

/// A short match of fake engines; the referee's output.
fn short_match(extra: &[&str]) -> String {
    let fake = common::example("fake_engine");
    let mut args = vec![
        "--engine",
        &fake,
        "name=a",
        "--engine",
        &fake,
        "name=b",
        "--games",
        "2",
        "--max-plies",
        "10",
        "--rating-interval",
        "0",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_match_on_a_clock_warns_when_its_engines_need_more_than_the_cores() {
    let cores = menagerie_os::load::cores();
    let concurrency = (cores + 1).to_string();
    let text = short_match(&["--movetime", "1000", "--concurrency", &concurrency]);
    let warning = "Warning: this machine is busier than its cores for a match on a clock";
    // In the header, before the first game, and in the report.
    assert_eq!(text.matches(warning).count(), 2, "{text}");
    assert!(text.find(warning) < text.find("Finished game"), "{text}");
    assert!(
        text.contains(&format!(
            "Machine: {cores} cores; up to {} engine threads at once",
            cores + 1
        )),
        "{text}"
    );
    // Fixed work does not depend on time: neither warning nor readings.
    let text = short_match(&["--nodes", "100", "--concurrency", &concurrency]);
    assert!(
        !text.contains("Warning: this machine") && !text.contains("Machine:"),
        "{text}"
    );
}

#[test]
fn a_match_on_a_clock_sees_other_runnable_threads() {
    // Threads spinning beside the match keep the machine busier than its
    // cores whatever else runs: the referee warns.
    let cores = menagerie_os::load::cores();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spinners: Vec<_> = (0..cores + 1)
        .map(|_| {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let text = short_match(&["--movetime", "1000"]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    assert!(
        text.contains("Warning: this machine is busier than its cores"),
        "{text}"
    );
}
