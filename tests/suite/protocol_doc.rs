//! The documentation's examples, run exactly as written and again with
//! `quit` appended (the way pipelines end):
//! - every ` ```session ` block of protocol.md through the engine binary;
//! - every ` ```console ` block of README.md, protocol.md and docs/ through the
//!   shell, from the repository's root.
//!
//! Expected output is matched by snapbox, the snapshot library of cargo's
//! own test suite: `...` on a line of its own stands for any number of
//! lines and `[..]` for the rest of a line, with a readable diff on failure.

use std::process::Command;

use snapbox::{Assert, IntoData};

use crate::common;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One command of a session and the lines documented to answer it.
struct Step {
    command: String,
    expected: Vec<String>,
}

/// A ` ```session ` block.
struct Session {
    line: usize,
    steps: Vec<Step>,
}

fn sessions(markdown: &str) -> Vec<Session> {
    let mut sessions = Vec::new();
    let mut current: Option<Session> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```session") => {
                current = Some(Session {
                    line: i + 1,
                    steps: Vec::new(),
                })
            }
            (Some(_), "```") => sessions.push(current.take().unwrap()),
            (Some(session), text) => match text.strip_prefix("> ") {
                Some(command) => session.steps.push(Step {
                    command: command.to_string(),
                    expected: Vec::new(),
                }),
                None => session
                    .steps
                    .last_mut()
                    .expect("a session starts with a command")
                    .expected
                    .push(text.to_string()),
            },
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "unterminated session block");
    sessions
}

/// What a command cut short by `quit` may print instead of its documented
/// answer (as `stop` would leave it), if it is long work.
fn cut_short(command: &str) -> Option<&'static str> {
    let word = command.split_whitespace().next().unwrap_or("");
    let second = command.split_whitespace().nth(1);
    match (word, second) {
        ("perft", _) | ("go", Some("perft")) => Some("...\ninfo string perft stopped: [..]\n"),
        ("go", _) => Some("...\nbestmove [..]\n"),
        ("solve", _) => Some("info string solve stopped before the solved table was built\n"),
        ("bench", _) => Some("...\ninfo string bench stopped before the end\n"),
        ("selfplay", _) => Some("...\ninfo string selfplay stopped: [..]\n"),
        _ => None,
    }
}

fn matches(actual: &str, expected: &str) -> Result<(), String> {
    // Board drawings have backslashes, which are no path separators here.
    Assert::new()
        .normalize_paths(false)
        .try_eq(
            Some(&"the engine"),
            actual.to_string().into_data(),
            expected.to_string().into_data(),
        )
        .map_err(|e| e.to_string())
}

/// Every way the session's output may read when `quit` follows it: each
/// long command either as documented or cut short.
fn expectations_with_quit(session: &Session) -> Vec<String> {
    let mut texts = vec![String::new()];
    for step in &session.steps {
        let documented: String = step.expected.iter().map(|l| format!("{l}\n")).collect();
        let mut next = Vec::new();
        for text in &texts {
            next.push(format!("{text}{documented}"));
            if let Some(short) = cut_short(&step.command) {
                next.push(format!("{text}{short}"));
            }
        }
        texts = next;
    }
    texts
}

#[test]
fn every_protocol_session_runs_as_documented_and_with_quit_appended() {
    let markdown = std::fs::read_to_string(format!("{ROOT}/protocol.md")).unwrap();
    let sessions = sessions(&markdown);
    assert!(
        sessions.len() >= 19,
        "only {} examples found",
        sessions.len()
    );
    for session in &sessions {
        let input: Vec<&str> = session.steps.iter().map(|s| s.command.as_str()).collect();
        let expected: String = session
            .steps
            .iter()
            .flat_map(|s| s.expected.iter().map(|l| format!("{l}\n")))
            .collect();
        let output = common::engine(&input);
        if let Err(diff) = matches(&output, &expected) {
            panic!("protocol.md example at line {}:\n{diff}", session.line);
        }
        let mut with_quit = input.clone();
        with_quit.push("quit");
        let output = common::engine(&with_quit);
        let readings = expectations_with_quit(session);
        if !readings.iter().any(|e| matches(&output, e).is_ok()) {
            panic!(
                "protocol.md example at line {} with quit appended prints:\n{output}\nexpected:\n{}",
                session.line, readings[0]
            );
        }
    }
}

/// A ` ```console ` block: shell commands (`$ ` lines) and their output.
struct Console {
    file: String,
    line: usize,
    command: String,
    expected: String,
}

fn consoles(file: String) -> Vec<Console> {
    let markdown = std::fs::read_to_string(format!("{ROOT}/{file}")).unwrap();
    let mut consoles: Vec<Console> = Vec::new();
    let mut inside = false;
    for (i, line) in markdown.lines().enumerate() {
        match line.trim_end() {
            "```console" => inside = true,
            "```" if inside => inside = false,
            text if inside => match text.strip_prefix("$ ") {
                Some(command) => consoles.push(Console {
                    file: file.clone(),
                    line: i + 1,
                    command: command.to_string(),
                    expected: String::new(),
                }),
                None => {
                    let console = consoles.last_mut().expect("a console block starts with $");
                    console.expected.push_str(text);
                    console.expected.push('\n');
                }
            },
            _ => {}
        }
    }
    consoles
}

/// The command with `quit` as its last protocol line: appended to a
/// `printf` format, or as one more argument of the engine.
fn with_quit(command: &str) -> String {
    if let Some(start) = command.find("printf '") {
        let body = start + "printf '".len();
        let end = body + command[body..].find('\'').expect("a closed printf format");
        format!("{}quit\\n{}", &command[..end], &command[end..])
    } else {
        format!("{command} quit")
    }
}

/// Runs a documented shell command from the repository's root, with the
/// binaries this test was built with in place of `target/release/`.
fn shell(command: &str) -> (bool, String) {
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_menagerie"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    let command = command.replace("target/release/", &format!("{bin_dir}/"));
    let output = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(ROOT)
        .output()
        .expect("sh runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn every_console_example_runs_as_written_and_with_quit_appended() {
    let examples: Vec<Console> = common::documents().into_iter().flat_map(consoles).collect();
    assert!(examples.len() >= 3, "{} console examples", examples.len());
    for example in &examples {
        let (ok, output) = shell(&example.command);
        assert!(ok, "{}:{} failed: {output}", example.file, example.line);
        if let Err(diff) = matches(&output, &example.expected) {
            panic!(
                "{}:{}: {}\n{diff}",
                example.file, example.line, example.command
            );
        }
        if example.command.contains("menagerie") {
            let quitting = with_quit(&example.command);
            let (ok, output) = shell(&quitting);
            assert!(ok, "{}:{} with quit: {output}", example.file, example.line);
            // Long work may be cut short; every go still ends with a
            // bestmove and every perft with its total or its stop.
            let gos = example.expected.matches("bestmove").count();
            assert_eq!(
                output.matches("bestmove ").count(),
                gos,
                "{quitting}: {output}"
            );
            if example.expected.contains("Nodes searched") {
                assert!(
                    output.contains("Nodes searched") || output.contains("perft stopped"),
                    "{quitting}: {output}"
                );
            }
        }
    }
}

#[test]
fn quit_is_appended_where_a_pipeline_or_arguments_end() {
    assert_eq!(
        with_quit("printf 'newgame hdk\\ngo depth 4\\n' | target/release/menagerie"),
        "printf 'newgame hdk\\ngo depth 4\\nquit\\n' | target/release/menagerie"
    );
    assert_eq!(
        with_quit("target/release/menagerie \"newgame hdk\" \"go perft 5\""),
        "target/release/menagerie \"newgame hdk\" \"go perft 5\" quit"
    );
}
