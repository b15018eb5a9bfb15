//! Helpers shared by the integration tests: run the engine binary on lines.
#![allow(dead_code)]

use assert_cmd::Command;

/// Runs `menagerie` with `lines` on stdin and returns its stdout; asserts
/// exit code 0 and no panic message on stderr.
pub fn engine(lines: &[&str]) -> String {
    let mut input = lines.join("\n");
    input.push('\n');
    let output = Command::cargo_bin("menagerie")
        .expect("binary builds")
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("engine runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "engine panicked: {stderr}");
    assert_eq!(
        output.status.code(),
        Some(0),
        "exit status; stderr: {stderr}"
    );
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

/// Output lines that are errors.
pub fn errors(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| l.starts_with("info string error: "))
        .collect()
}

/// The value of the last `Notation:` line of `d`.
pub fn notation(output: &str) -> String {
    output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Notation: "))
        .expect("a d output")
        .to_string()
}

/// The value of the last line starting with `prefix`.
pub fn last_value<'a>(output: &'a str, prefix: &str) -> &'a str {
    output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line starting with '{prefix}' in:\n{output}"))
}

/// The list printed by `legal`.
pub fn legal(output: &str) -> Vec<String> {
    let line = output
        .lines()
        .rev()
        .find(|l| *l == "legal" || l.starts_with("legal "))
        .expect("a legal line");
    line.split_whitespace().skip(1).map(String::from).collect()
}

/// `Nodes searched` totals, in order.
pub fn perft_totals(output: &str) -> Vec<u64> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("Nodes searched: "))
        .map(|n| n.parse().expect("a count"))
        .collect()
}

/// A running engine spoken to line by line, its output lines collected
/// with the time each arrived.
pub struct Live {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<(std::time::Instant, String)>,
    pub seen: Vec<String>,
}

impl Live {
    pub fn start() -> Live {
        Live::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Live {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send((std::time::Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Live {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Writes `text` (lines joined, one write) and returns when it was sent.
    pub fn send(&mut self, lines: &[&str]) -> std::time::Instant {
        use std::io::Write;
        let mut text = lines.join("\n");
        text.push('\n');
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::time::Instant::now()
    }

    /// Closes the engine's input.
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// The next line for which `wanted` holds, and when it came; `None`
    /// after `timeout` (lines passed over are kept in `seen`).
    pub fn wait_for(
        &mut self,
        timeout: std::time::Duration,
        wanted: impl Fn(&str) -> bool,
    ) -> Option<(std::time::Instant, String)> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let (at, line) = self.lines.recv_timeout(left).ok()?;
            self.seen.push(line.clone());
            if wanted(&line) {
                return Some((at, line));
            }
        }
    }

    /// Waits for the process to end; its exit status and when it ended.
    pub fn wait_exit(
        &mut self,
        timeout: std::time::Duration,
    ) -> Option<(std::time::Instant, std::process::ExitStatus)> {
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some((std::time::Instant::now(), status));
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        None
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The path of example binary `name`, built with the same profile as the
/// engine if this test target was run on its own (cargo builds examples
/// only for whole-package runs).
pub fn example(name: &str) -> String {
    use std::path::Path;
    let engine = env!("CARGO_BIN_EXE_menagerie");
    let bin_dir = Path::new(engine).parent().unwrap();
    let path = bin_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let mut build = std::process::Command::new(env!("CARGO"));
        build.args(["build", "--example", name]);
        if bin_dir.ends_with("release") {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "building example {name}");
    }
    path.to_string_lossy().into_owned()
}

/// The browser board's program, from the workspace's board package, built
/// with the engine's profile if it is not there (a run of this test target
/// alone builds only the root package).
pub fn board() -> String {
    let engine = std::path::Path::new(env!("CARGO_BIN_EXE_menagerie"));
    let bin_dir = engine.parent().unwrap();
    let path = bin_dir.join(format!("menagerie-board{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let mut build = std::process::Command::new(env!("CARGO"));
        build.args(["build", "-p", "menagerie-board"]);
        if bin_dir.ends_with("release") {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "building the board");
    }
    path.to_string_lossy().into_owned()
}

/// A fresh path `name` in this test run's folder for `area` (the file
/// removed if an earlier test left it).
pub fn temp_path(area: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("menagerie-{area}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// The referee's arguments for the tests' usual match: the engine at
/// `depth` (`deep`) against its greedy setting (`greedy`, Skill 1) in
/// 2-player Kilkenny Cats (dice, so every pair differs), `games` games
/// from `seed`.
pub fn duel_args(games: u32, depth: u32, seed: u64) -> Vec<String> {
    let engine = env!("CARGO_BIN_EXE_menagerie");
    let games = games.to_string();
    let depth = depth.to_string();
    let seed = seed.to_string();
    [
        "--engine",
        engine,
        "name=deep",
        "--engine",
        engine,
        "name=greedy",
        "option.Skill=1",
        "--game",
        "kilkenny-cats",
        "--games",
        &games,
        "--depth",
        &depth,
        "--seed",
        &seed,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Peak resident memory of a process (VmHWM), in KiB; 0 if unreadable.
pub fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Runs `menagerie` with `args` on its command line; its exit status and
/// stdout (asserting no panic).
pub fn cli(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::cargo_bin("menagerie")
        .unwrap()
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// The documents users read, by path from the repository's root: the
/// README, protocol.md, the rules and every page of `docs/`.
pub fn documents() -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut pages: Vec<String> = std::fs::read_dir(format!("{root}/docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("docs/ is readable").file_name())
        .map(|name| format!("docs/{}", name.to_string_lossy()))
        .filter(|path| path.ends_with(".md"))
        .collect();
    pages.sort();
    let mut documents: Vec<String> = ["README.md", "protocol.md", "RULES.md"]
        .map(String::from)
        .to_vec();
    documents.extend(pages);
    documents
}
