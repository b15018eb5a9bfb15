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

    let parts = [temp("shard-1.txt"), temp("shard-2.txt")];
    // A fixed sequence of moments, so that a failure can be repeated.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let mut cancels = 0;
    for (i, part) in parts.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        let args = match_args(part, &["--shard", &shard, "--resume"]);
        for attempt in 0.. {
            assert!(attempt < 200, "shard {shard} never finished");
            let mut child = start(&args);
            // Engines start in a few milliseconds; a shard plays for about
            // a second. Most cancels come early, a few late.
            let delay = Duration::from_millis(2 + next() % if attempt % 4 == 3 { 300 } else { 40 });
            let at = Instant::now() + delay;
            let mut ended = None;
            while Instant::now() < at {
                if let Some(status) = child.try_wait().unwrap() {
                    ended = Some(status);
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
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
                break;
            }
        }
    }
    assert!(
        cancels >= 20,
        "only {cancels} cancels: the test proves little"
    );
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
