//! A shard cancelled as a scheduler cancels it: Slurm (scancel, a time
//! limit, preemption) signals every process of the job at once, the
//! referee and its engines alike. An engine may die of the signal before
//! the referee has seen its own, and that game must not be recorded as the
//! engine's crash: the referee is stopping, so the game is abandoned and
//! `--resume` plays it again. Whatever the moment and the order of the
//! signals, the resumed shards add up to exactly the unsharded match.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use menagerie_referee::record::{read_file, Record};

fn temp(name: &str) -> PathBuf {
    crate::common::temp_path("cancels", name)
}

/// A 2-player Kilkenny Cats match (dice: every game differs) at depth 2,
/// two games at once, so that a signal usually finds games in progress.
fn match_args(record: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = crate::common::duel_args(40, 2, 33);
    args.extend(["--concurrency", "2", "--quiet", "--record"].map(String::from));
    args.push(record.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn start(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("referee starts")
}

/// Every process below `root` (engines and anything they started), read
/// from /proc.
fn descendants(root: u32) -> Vec<i32> {
    let mut parent_of = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The fields after the command name, which may hold spaces.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        if let Some(ppid) = rest.split(' ').nth(1).and_then(|p| p.parse::<i32>().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut found = vec![root as i32];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parent_of
                .iter()
                .filter(|&&(_, p)| p == parent)
                .map(|&(c, _)| c),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// SIGTERM to every process of the "job": the engines first and then the
/// referee, or the other way round.
fn signal_the_job(referee: u32, engines_first: bool) {
    let engines = descendants(referee);
    let term = |pid: i32| {
        // SAFETY: kill with a valid signal number has no memory effects.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    };
    if !engines_first {
        term(referee as i32);
    }
    engines.into_iter().for_each(term);
    if engines_first {
        term(referee as i32);
    }
}

/// The games of records, comparable across runs: sorted by game, without
/// the time each move took.
fn games(records: &[Record]) -> Vec<String> {
    let mut lines: Vec<(u32, String)> = records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.thoughts.iter_mut().for_each(|t| t.ms = 0);
            (r.index, r.to_string())
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, l)| l).collect()
}

#[test]
fn a_shard_whose_every_process_is_signalled_at_random_moments_adds_up_to_the_whole_match() {
    let whole = temp("whole.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(match_args(&whole, &[]))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let whole_games = games(&read_file(&whole).unwrap());
    assert_eq!(whole_games.len(), 40);

    // A fixed sequence of moments, so that a failure can be repeated.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    // Rounds of both shards from empty records, until enough cancels have
    // happened, however fast this machine plays: each round must add up
    // to the whole match.
    let mut cancels = 0;
    for round in 0.. {
        assert!(round < 40, "only {cancels} cancels after {round} rounds");
        let parts = [
            temp(&format!("shard-1-{round}.txt")),
            temp(&format!("shard-2-{round}.txt")),
        ];
        for (i, part) in parts.iter().enumerate() {
            cancels += cancel_until_done(part, i, &mut next);
        }
        check_round(&parts, &whole_games, cancels);
        eprintln!("round {round}: {cancels} cancels in all");
        if cancels >= 20 {
            break;
        }
    }
}

/// Games in a record file so far (0 if it is not there yet).
fn games_recorded(record: &Path) -> usize {
    std::fs::read_to_string(record)
        .map(|text| text.lines().filter(|l| !l.starts_with('#')).count())
        .unwrap_or(0)
}

/// Plays shard `i` of 2 into `part` with `--resume`, signalling the whole
/// "job" at moments `next` chooses, until a run finishes; returns how
/// many runs were cancelled. Moments are set by what the shard has done,
/// not by the clock alone: a cancel comes a few milliseconds after start
/// (before or during the first games), or just after the record file has
/// gained a game (a write just done, the next games under way), so that
/// every run is cut before the shard ends on a machine of any speed.
fn cancel_until_done(part: &Path, i: usize, next: &mut impl FnMut() -> u64) -> usize {
    let shard = format!("{}/2", i + 1);
    let args = match_args(part, &["--shard", &shard, "--resume"]);
    let mut cancels = 0;
    for attempt in 0.. {
        assert!(attempt < 200, "shard {shard} never finished");
        let before = games_recorded(part);
        let mut child = start(&args);
        let started = Instant::now();
        let early = next() % 3 == 0;
        let delay = Duration::from_millis(next() % if early { 40 } else { 5 });
        let mut trigger: Option<Instant> = early.then(|| started + delay);
        let mut ended = None;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                ended = Some(status);
                break;
            }
            if trigger.is_none() && games_recorded(part) > before {
                trigger = Some(Instant::now() + delay);
            }
            if trigger.is_some_and(|at| Instant::now() >= at) {
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        let status = match ended {
            Some(status) => status,
            None => {
                signal_the_job(child.id(), next() % 2 == 0);
                cancels += 1;
                child.wait().unwrap()
            }
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        // 0 when the signal came after the last game, 130 when it
        // stopped the shard; never a panic or a refused record file.
        // A signal in the first moments of the process, before the
        // referee could set up its handler, kills it outright (as any
        // program): it had opened no record file then.
        let killed_at_birth =
            std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGTERM);
        assert!(
            matches!(status.code(), Some(0 | 130)) || killed_at_birth,
            "shard {shard}, attempt {attempt}: {status:?}\n{stderr}"
        );
        if ended.is_some() {
            assert!(status.success(), "{stderr}");
            return cancels;
        }
    }
    unreachable!()
}

/// The shards of one round add up to the whole match, with no game
/// recorded as a crash.
fn check_round(parts: &[PathBuf], whole_games: &[String], cancels: usize) {
    let played: Vec<Record> = parts.iter().flat_map(|p| read_file(p).unwrap()).collect();
    let crashes: Vec<String> = played
        .iter()
        .filter(|r| r.to_string().contains("crash"))
        .map(|r| r.to_string())
        .collect();
    assert!(
        crashes.is_empty(),
        "games recorded as crashes: {crashes:#?}"
    );
    assert_eq!(games(&played), whole_games, "after {cancels} cancels");
}
