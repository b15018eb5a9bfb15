//! The engine as shell pipelines use it: every game and ruleset x every
//! command x followed by `quit`, by the end of input or by `stop`, the
//! input written in one write or line by line. Every command before the
//! end is answered, in order; long work cut short by `quit` or `stop`
//! still answers as `stop` promises; every `go` ends with one legal
//! `bestmove`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use menagerie_engine::session::{Entry, Unsolved, GAMES};

/// How the input ends after the command under test.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    Quit,
    InputEnds,
    Stop,
}

/// How the input is written.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Writes {
    OneWrite,
    LineByLine,
}

/// One run: the lines sent and what the engine printed.
struct Run {
    input: Vec<String>,
    output: String,
}

fn run(lines: &[String], end: End, writes: Writes) -> Run {
    run_on(env!("CARGO_BIN_EXE_menagerie"), lines, end, writes)
}

/// [`run`] with the engine program `binary`.
fn run_on(binary: &str, lines: &[String], end: End, writes: Writes) -> Run {
    let mut input: Vec<String> = lines.to_vec();
    match end {
        End::Quit => input.push("quit".into()),
        End::Stop => input.push("stop".into()),
        End::InputEnds => {}
    }
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine starts");
    let mut stdin = child.stdin.take().unwrap();
    let text = input.iter().map(|l| format!("{l}\n")).collect::<String>();
    let writer = {
        let input = input.clone();
        std::thread::spawn(move || {
            match writes {
                Writes::OneWrite => {
                    let _ = stdin.write_all(text.as_bytes());
                }
                Writes::LineByLine => {
                    for line in input {
                        if stdin.write_all(format!("{line}\n").as_bytes()).is_err() {
                            break;
                        }
                        let _ = stdin.flush();
                        std::thread::sleep(Duration::from_millis(3));
                    }
                }
            }
            drop(stdin);
        })
    };
    let output = wait_with_deadline(child, Duration::from_secs(60));
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !stderr.contains("panicked"),
        "{input:?}: {} {stderr}",
        output.status
    );
    Run {
        input,
        output: String::from_utf8(output.stdout).expect("UTF-8"),
    }
}

fn wait_with_deadline(child: std::process::Child, deadline: Duration) -> std::process::Output {
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match finished.recv_timeout(deadline) {
        Ok(output) => output.expect("the engine ran"),
        Err(_) => {
            // SAFETY: a plain signal to the engine this test started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("the engine did not end within {deadline:?}");
        }
    }
}

/// A command under test and what must answer it, whatever ends the input.
struct Case {
    command: &'static str,
    /// Long work that `quit` or `stop` may cut short.
    long: bool,
}

const CASES: &[Case] = &[
    Case {
        command: "isready",
        long: false,
    },
    Case {
        command: "d",
        long: false,
    },
    Case {
        command: "legal",
        long: false,
    },
    Case {
        command: "query gameover",
        long: false,
    },
    Case {
        command: "query status",
        long: false,
    },
    Case {
        command: "games",
        long: false,
    },
    Case {
        command: "help",
        long: false,
    },
    Case {
        command: "uci",
        long: false,
    },
    Case {
        command: "ucinewgame",
        long: false,
    },
    Case {
        command: "setoption name Skill value 10",
        long: false,
    },
    Case {
        command: "position startpos",
        long: false,
    },
    Case {
        command: "perft 2",
        long: true,
    },
    Case {
        command: "go perft 3",
        long: true,
    },
    Case {
        command: "solve",
        long: true,
    },
    Case {
        command: "go depth 3",
        long: true,
    },
    Case {
        command: "go nodes 3000",
        long: true,
    },
    Case {
        command: "go movetime 30",
        long: true,
    },
    Case {
        command: "go infinite",
        long: true,
    },
    Case {
        command: "go",
        long: true,
    },
    Case {
        command: "bench",
        long: true,
    },
];

/// Checks the answer to the last command before the end.
fn check(run: &Run, case: &Case, end: End, legal: &[String], solvable: bool) {
    let out = &run.output;
    let what = format!("{:?} -> {out}", run.input);
    let errors: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    let cut_short = case.long && end != End::InputEnds;
    match case.command {
        "isready" => assert!(out.lines().any(|l| l == "readyok"), "{what}"),
        "d" => assert!(out.lines().any(|l| l.starts_with("Status: ")), "{what}"),
        "legal" => assert!(out.lines().any(|l| l.starts_with("legal")), "{what}"),
        "query gameover" => assert!(out.lines().any(|l| l == "response false"), "{what}"),
        "query status" => assert!(out.lines().any(|l| l == "response ongoing"), "{what}"),
        "games" => assert_eq!(out.lines().last(), Some("gamesok"), "{what}"),
        "help" => assert!(out.contains("Commands"), "{what}"),
        "uci" => assert_eq!(out.lines().last(), Some("uciok"), "{what}"),
        "perft 2" | "go perft 3" => {
            let total = out.lines().any(|l| l.starts_with("Nodes searched: "));
            let stopped = out
                .lines()
                .any(|l| l.starts_with("info string perft stopped: "));
            assert!(total || (cut_short && stopped), "{what}");
        }
        "solve" if solvable => {
            let value = out.lines().any(|l| l.starts_with("Value: "));
            let stopped = out.contains("info string solve stopped");
            assert!(value || (cut_short && stopped), "{what}");
        }
        "solve" => assert!(errors.len() == 1 && errors[0].contains("solve: "), "{what}"),
        "bench" => {
            let total = out.lines().any(|l| l.starts_with("Nodes/second"));
            let stopped = out.contains("info string bench stopped");
            assert!(total || (cut_short && stopped), "{what}");
        }
        go if go.starts_with("go") => {
            let moves: Vec<&str> = out
                .lines()
                .filter_map(|l| l.strip_prefix("bestmove "))
                .collect();
            assert_eq!(moves.len(), 1, "one bestmove: {what}");
            assert!(
                legal.iter().any(|m| m == moves[0]),
                "a legal bestmove: {what}"
            );
        }
        _ => assert_eq!(out, "", "{what}"),
    }
    if case.command != "solve" {
        assert!(errors.is_empty(), "{what}");
    }
}

/// A game and ruleset at a position where a player chooses.
pub struct Position {
    game: String,
    /// `newgame`, then a roll in games with dice.
    setup: Vec<String>,
    legal: Vec<String>,
    solvable: bool,
}

/// Every ruleset of every game of `games`, with the moves that bring it to
/// a position where a player chooses (a roll first in games with dice).
pub fn positions(games: &[Entry]) -> Vec<Position> {
    let mut positions = Vec::new();
    for game in games {
        for ruleset in game.all_rulesets() {
            let words: Vec<String> = ruleset
                .to_string()
                .split_whitespace()
                .map(String::from)
                .collect();
            let mut session = game.session(&words).unwrap();
            let mut setup = Vec::new();
            if session.awaiting_chance() {
                let rolls = session.legal_moves();
                let roll = rolls[rolls.len() / 2].clone();
                session.play_moves(std::slice::from_ref(&roll)).unwrap();
                setup.push(format!("move {roll}"));
            }
            let newgame = format!("newgame {} {}", game.id, words.join(" "));
            let mut lines = vec![newgame.trim_end().to_string()];
            lines.extend(setup);
            // Asked already stopped: only a game that cannot be solved says so.
            let stopped = std::sync::atomic::AtomicBool::new(true);
            let solvable = !matches!(
                session.solve(
                    &stopped,
                    &menagerie_engine::session::SolveRequest {
                        nodes: 1000,
                        memory_mib: None,
                        keys: Default::default(),
                        threads: 1,
                        checkpoint: None,
                        certificate: None,
                        tables: menagerie_tables::probe::default_directory(),
                    },
                    &mut menagerie_search::Silent
                ),
                Err(Unsolved::NotSolvable)
            );
            positions.push(Position {
                game: game.id.to_string(),
                setup: lines,
                legal: session.legal_moves(),
                solvable,
            });
        }
    }
    positions
}

/// Runs every command of the matrix on every position with the engine
/// program `binary`: followed by `quit`, the end of input and `stop`, in
/// one write and line by line.
pub fn matrix(binary: &str, positions: &[Position]) {
    let mut jobs = Vec::new();
    for position in positions {
        for case in CASES {
            // The bench is the same in every game: once per game is enough.
            if case.command == "bench" && position.setup[0] != format!("newgame {}", position.game)
            {
                continue;
            }
            for end in [End::Quit, End::InputEnds, End::Stop] {
                for writes in [Writes::OneWrite, Writes::LineByLine] {
                    jobs.push((position, case, end, writes));
                }
            }
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(position, case, end, writes)) = jobs.get(i) else {
                    break;
                };
                let mut lines = position.setup.clone();
                lines.push(case.command.to_string());
                let run = run_on(binary, &lines, end, writes);
                check(&run, case, end, &position.legal, position.solvable);
            });
        }
    });
}

#[test]
fn every_command_is_answered_before_quit_end_of_input_or_stop() {
    let positions = positions(&GAMES);
    assert_eq!(positions.len(), 16, "every ruleset of every game");
    // Hat Diviyan Keliya has solved tables; the other two-seat games
    // without dice get a proof search; only Kilkenny Cats (dice, more
    // seats) answers `solve` with an error.
    for p in &positions {
        assert_eq!(p.solvable, p.game != "kilkenny-cats", "{}", p.game);
    }
    matrix(env!("CARGO_BIN_EXE_menagerie"), &positions);
}

#[test]
fn queued_commands_before_quit_are_all_answered_in_their_turn() {
    // The report that started this: nothing printed at all. State
    // commands answer in the order sent; a read-only one is answered once
    // the state command before it has started (during its work, as
    // Stockfish answers `d` during a search), never before.
    let lines: Vec<String> = [
        "newgame hat-diviyan-keliya board=large",
        "isready",
        "d",
        "go depth 4",
        "legal",
        "perft 3",
        "query gameover",
        "solve",
        "d",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for writes in [Writes::OneWrite, Writes::LineByLine] {
        let run = run(&lines, End::Quit, writes);
        // The line that ends each command's answer, named by command.
        let answers: Vec<&str> = run
            .output
            .lines()
            .filter_map(|l| match l {
                "readyok" => Some("isready"),
                l if l.starts_with("Status:") => Some("d"),
                l if l.starts_with("bestmove ") => Some("go"),
                l if l.starts_with("legal") => Some("legal"),
                l if l.starts_with("Nodes searched")
                    || l.starts_with("info string perft stopped") =>
                {
                    Some("perft")
                }
                l if l.starts_with("response ") => Some("query"),
                l if l.starts_with("Value: ") || l.starts_with("info string solve stopped") => {
                    Some("solve")
                }
                _ => None,
            })
            .collect();
        let mut sorted = answers.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            ["d", "d", "go", "isready", "legal", "perft", "query", "solve"],
            "{}",
            run.output
        );
        let at = |name: &str, nth: usize| {
            answers
                .iter()
                .enumerate()
                .filter(|(_, a)| **a == name)
                .nth(nth)
                .unwrap()
                .0
        };
        let order = [
            // State commands in the order sent.
            (("go", 0), ("perft", 0)),
            (("perft", 0), ("solve", 0)),
            // Each read-only command after the one before it, and after
            // all but the last state command sent before it.
            (("d", 0), ("legal", 0)),
            (("legal", 0), ("query", 0)),
            (("go", 0), ("query", 0)),
            (("query", 0), ("d", 1)),
            (("perft", 0), ("d", 1)),
            (("d", 0), ("go", 0)),
        ];
        for (first, then) in order {
            assert!(
                at(first.0, first.1) < at(then.0, then.1),
                "{first:?} before {then:?}: {answers:?}"
            );
        }
    }
}

#[test]
fn the_end_of_input_lets_long_work_finish_but_quit_stops_it() {
    let lines: Vec<String> = ["newgame safari-dual", "perft 7"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let finished = run(&lines, End::InputEnds, Writes::OneWrite);
    assert!(
        finished.output.contains("Nodes searched: "),
        "{}",
        finished.output
    );
    let stopped = run(&lines, End::Quit, Writes::OneWrite);
    assert!(
        stopped.output.contains("info string perft stopped: "),
        "{}",
        stopped.output
    );
}

/// Starts the engine with `first` sent, then a thread writing `line`
/// `count` times; returns the child and a counter of lines written.
fn flood(
    first: &str,
    line: &'static str,
    count: usize,
) -> (
    std::process::Child,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    std::thread::JoinHandle<()>,
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first.as_bytes()).unwrap();
    let written = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&written);
    let writer = std::thread::spawn(move || {
        let chunk = line.repeat(1000);
        for _ in 0..count / 1000 {
            if stdin.write_all(chunk.as_bytes()).is_err() {
                return;
            }
            counter.fetch_add(1000, Ordering::Relaxed);
        }
    });
    (child, written, writer)
}

#[test]
fn an_engine_whose_output_nobody_reads_stops_reading_its_input() {
    use std::io::Read;
    use std::sync::atomic::Ordering;
    let lines = 1_000_000;
    let (mut child, written, writer) = flood("", "isready\n", lines);
    // Nobody reads: the engine blocks writing readyok, stops reading, and
    // the writer blocks on the full pipe. Watched until the count has not
    // moved for a while, however fast the machine fills the pipes.
    let mut stalled = written.load(Ordering::Relaxed);
    let mut still = 0;
    while still < 10 {
        std::thread::sleep(Duration::from_millis(100));
        let now = written.load(Ordering::Relaxed);
        assert!(now < lines, "the writer wrote everything with no reader");
        still = if now == stalled { still + 1 } else { 0 };
        stalled = now;
    }
    assert!(stalled < lines / 10, "{stalled} lines read with no reader");
    let peak = crate::common::peak_kib(child.id());
    assert!(peak < 100_000, "peak memory {peak} KiB");
    // A reader comes: every isready gets its readyok.
    let mut output = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut output)
        .unwrap();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(output.matches("readyok\n").count(), lines);
}

#[test]
fn perft_is_bounded_in_depth_stoppable_at_any_depth_and_costs_no_memory_up_front() {
    for game in [
        "hat-diviyan-keliya",
        "awithlaknannai-mosona",
        "safari-dual",
        "kilkenny-cats players=4",
    ] {
        // Past the limit: one error, nothing else changes.
        let out = crate::common::engine(&[
            &format!("newgame {game}"),
            "perft 30000",
            "go perft 4294967295",
            "isready",
        ]);
        let errors: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("info string error"))
            .collect();
        assert_eq!(
            errors,
            [
                "info string error: perft: depth 30000 is over the limit of 1000",
                "info string error: go: depth 4294967295 is over the limit of 1000"
            ],
            "{out}"
        );
        // A refused `go perft` ends as every refused `go` does.
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("bestmove"))
                .collect::<Vec<_>>(),
            ["bestmove (none)"],
            "{out}"
        );
        // At the limit: it runs, without a stack overflow or a growing
        // heap, and stop ends it.
        let mut engine = crate::common::Live::start();
        engine.send(&[&format!("newgame {game}"), "perft 1000"]);
        std::thread::sleep(Duration::from_millis(700));
        engine.send(&["stop", "isready"]);
        assert!(
            engine
                .wait_for(Duration::from_secs(30), |l| l
                    .starts_with("info string perft stopped"))
                .is_some(),
            "{game}: {:?}",
            engine.seen
        );
        // (isready may overtake the stopped perft's last line.)
        assert!(
            engine.seen.iter().any(|l| l == "readyok")
                || engine
                    .wait_for(Duration::from_secs(30), |l| l == "readyok")
                    .is_some()
        );
    }
}

#[test]
fn a_proven_result_ends_the_deepening() {
    // Every legal move reaches the no-progress limit at once: a draw the
    // first iteration proves, in a game without and one with dice.
    for (setup, go) in [
        ("newgame safari-dual\nposition fen 2gel/3ge/E3g/GE3/LGE2 r 99", "go depth 60"),
        ("newgame safari-dual\nposition fen 2gel/3ge/E3g/GE3/LGE2 r 99", "go infinite"),
        (
            "newgame kilkenny-cats\nposition fen 14/14/3NNNNNNNN3/14/14/14/14/14/14/14/14/3SSSSSSSS3/14/14 s 3 sn -------- 199",
            "go depth 60",
        ),
    ] {
        let mut engine = crate::common::Live::start();
        engine.send(&[setup, go]);
        std::thread::sleep(Duration::from_millis(300));
        engine.send(&["stop"]);
        engine
            .wait_for(Duration::from_secs(5), |l| l.starts_with("bestmove "))
            .unwrap_or_else(|| panic!("{setup} {go}: {:?}", engine.seen));
        let infos = engine.seen.iter().filter(|l| l.starts_with("info depth")).count();
        assert_eq!(infos, 1, "{setup} {go}: {:?}", engine.seen);
    }
}

#[test]
fn quit_stops_long_work_in_every_state() {
    // Work that would not end by itself on any machine (or only after
    // minutes), cut by `quit`: the engine exits and the work answers as
    // after `stop`. How long it took is printed, never judged.
    let cases: [(&[&str], Option<&str>); 5] = [
        (&["newgame hdk board=large"], None),
        (
            &["newgame hdk board=large start=apex", "solve"],
            Some("Value: |info string solve stopped"),
        ),
        (&["newgame safari-dual", "go infinite"], Some("bestmove ")),
        (
            &["newgame safari-dual", "perft 1000"],
            Some("info string perft stopped"),
        ),
        (&["newgame am", "solve nodes 100000000000"], Some("Value: ")),
    ];
    for (lines, answer) in cases {
        let mut engine = crate::common::Live::start();
        engine.send(lines);
        let sent = engine.send(&["quit"]);
        let (ended, status) = engine
            .wait_exit(Duration::from_secs(120))
            .expect("quit ends it");
        assert!(status.success());
        eprintln!("quit after {lines:?}: {:?}", ended - sent);
        if let Some(answer) = answer {
            let answers: Vec<&str> = answer.split('|').collect();
            assert!(
                engine
                    .wait_for(Duration::from_secs(10), |l| answers
                        .iter()
                        .any(|a| l.starts_with(a)))
                    .is_some(),
                "{lines:?}: {:?}",
                engine.seen
            );
        }
    }
}
