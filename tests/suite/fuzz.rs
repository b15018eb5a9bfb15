//! Random lines and random bytes must never crash the parser or the engine.

use std::io::Write;
use std::sync::{Arc, Mutex};

use menagerie_engine::{run, Input, Output};
use menagerie_wire::command::{parse_line, Command};
use menagerie_wire::reply::Reply;
use menagerie_wire::text::clip;
use proptest::prelude::*;

/// Collects what the engine writes.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run_lines(lines: Vec<String>) -> (i32, String) {
    let sink = Sink::default();
    let code = run(Input::Lines(lines), Output::to(Box::new(sink.clone())));
    let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
    (code, text)
}

/// Words that make lines close to real commands, so the fuzzer reaches
/// deep into argument parsing and execution.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("uci"),
        Just("isready"),
        Just("d"),
        Just("legal"),
        Just("stop"),
        Just("ucinewgame"),
        Just("newgame"),
        Just("hdk"),
        Just("hat-diviyan-keliya"),
        Just("start=apex"),
        Just("board=large"),
        Just("board="),
        Just("position"),
        Just("startpos"),
        Just("fen"),
        Just("moves"),
        Just("move"),
        Just("go"),
        Just("depth"),
        Just("nodes"),
        Just("movetime"),
        Just("wtime"),
        Just("time"),
        Just("infinite"),
        Just("perft"),
        Just("setoption"),
        Just("name"),
        Just("value"),
        Just("Hash"),
        Just("Threads"),
        Just("@b1"),
        Just("@a2"),
        Just("b1b2"),
        Just("b1a2a3"),
        Just("a2a3"),
        Just("T/3/3/3"),
        Just("1/3/3/3"),
        Just("t"),
        Just("l"),
        Just("0"),
        Just("1"),
        Just("2"),
        Just("7"),
        Just("-1"),
        Just("99999999999999999999999"),
        Just("\u{0}"),
        Just("é"),
    ]
    .prop_map(String::from)
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(word(), 0..8).prop_map(|w| w.join(" ")),
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn parser_never_panics_and_commands_print_back(text in any::<String>()) {
        if let Ok(Some(cmd)) = parse_line(&text) {
            prop_assert_eq!(parse_line(&cmd.to_string()).unwrap(), Some(cmd));
        }
    }

    #[test]
    fn parser_handles_near_commands(words in proptest::collection::vec(word(), 0..10)) {
        let text = words.join(" ");
        if let Ok(Some(cmd)) = parse_line(&text) {
            prop_assert_eq!(parse_line(&cmd.to_string()).unwrap(), Some(cmd));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn engine_survives_random_sessions(lines in proptest::collection::vec(line(), 1..12)) {
        // Keep random searches short: huge depths are legitimate requests.
        let lines: Vec<String> = lines
            .into_iter()
            .filter(|l| !l.contains("perft") || l.split_whitespace().all(|w| w.len() < 2 || w.parse::<u64>().is_err()))
            .filter(|l| {
                let deep = l.split_whitespace().any(|w| w.parse::<u64>().is_ok_and(|n| n > 4));
                !(l.contains("go") && l.contains("depth") && deep)
            })
            .collect();
        let (code, out) = run_lines(lines.clone());
        prop_assert_eq!(code, 0, "lines {:?}", lines);
        // Nothing after a quit runs.
        let until_quit: Vec<&String> = lines
            .iter()
            .take_while(|l| !matches!(parse_line(l), Ok(Some(Command::Quit))))
            .collect();
        let first_words: Vec<&str> = until_quit
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        // Every go got exactly one bestmove (`go perft N` is perft, unless
        // it is refused).
        let gos = until_quit
            .iter()
            .filter(|l| l.split_whitespace().next() == Some("go"))
            .filter(|l| {
                !matches!(parse_line(l), Ok(Some(Command::Perft { depth, .. })) if depth <= 1000)
            })
            .count();
        let bestmoves = out.lines().filter(|l| l.starts_with("bestmove ")).count();
        prop_assert_eq!(gos, bestmoves, "lines {:?}\n{}", lines, out);
        for l in out.lines() {
            prop_assert!(!l.contains("panicked"));
            // Every line is a reply that prints back, and every error names
            // a command of the input.
            let reply = Reply::parse(l);
            prop_assert_eq!(reply.to_string(), l);
            if let Reply::Error { command, .. } = reply {
                prop_assert!(
                    first_words.iter().any(|w| clip(w) == command),
                    "error for '{}' of {:?}", command, lines
                );
            }
        }
    }
}

#[test]
fn random_bytes_through_the_binary() {
    let mut rng = menagerie_rules::rng::Rng::new(99);
    for _ in 0..20 {
        let len = rng.below(400) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let out = assert_cmd::Command::cargo_bin("menagerie")
            .unwrap()
            .write_stdin(bytes)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn the_long_fuzzer_keeps_every_promise_on_a_short_run() {
    // tools/fuzz.sh runs the same for an hour.
    let fuzzer = crate::common::example("fuzz_engine");
    let out = std::process::Command::new(fuzzer)
        .args([
            "--sessions",
            "40",
            "--seed",
            "7",
            "--engine",
            env!("CARGO_BIN_EXE_menagerie"),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("40 sessions"));
}
