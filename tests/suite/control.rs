//! Control lines get through whatever waits: `stop` and `quit` act the
//! moment they are read, `isready` at once during a search, read-only commands are answered during a
//! search, and a flood of any command behind a search is answered or
//! refused line by line, in bounded memory, never holding up a `stop`.
//!
//! Nothing here depends on the machine's speed: a search that runs until
//! `stop` (`go infinite`) is the only clock, and an answer that comes
//! before the `stop` is sent can only have overtaken it.

use std::io::Write;
use std::time::Instant;

use crate::live::{tail, Engine};

/// The engine's bound on lines waiting for their turn (protocol.md).
const WAITING_BOUND: usize = 1024;
/// Lines of each command sent behind a search: ten times the bound.
const FLOOD: usize = 10 * WAITING_BOUND;
/// Starts an infinite search in Safari-Dual and returns once it runs (its
/// first `info` line is out).
fn searching() -> Engine {
    let mut engine = Engine::start();
    engine.send("newgame safari-dual\ngo infinite\n");
    engine.until(|l| l.starts_with("info depth"));
    engine
}

/// What answers one line of a read-only command.
struct ReadOnly {
    line: &'static str,
    /// The line that ends its answer.
    last: fn(&str) -> bool,
}

const READ_ONLY: &[ReadOnly] = &[
    ReadOnly {
        line: "d",
        last: |l| l.starts_with("Status: "),
    },
    ReadOnly {
        line: "legal",
        last: |l| l.starts_with("legal "),
    },
    ReadOnly {
        line: "query side",
        last: |l| l == "response r",
    },
    ReadOnly {
        line: "help",
        last: |l| l.starts_with("Commands (see protocol.md)"),
    },
    ReadOnly {
        line: "games",
        last: |l| l == "gamesok",
    },
    ReadOnly {
        line: "uci",
        last: |l| l == "uciok",
    },
    ReadOnly {
        line: "ugi",
        last: |l| l == "ugiok",
    },
];

#[test]
fn read_only_commands_flooding_a_search_are_all_answered_during_it_then_stop_gets_through() {
    std::thread::scope(|scope| {
        for command in READ_ONLY {
            scope.spawn(move || {
                let mut engine = searching();
                engine.send(&format!("{}\n", command.line).repeat(FLOOD));
                // Every answer comes while the search still runs: nothing
                // has stopped it yet.
                for _ in 0..FLOOD {
                    for line in engine.until(|l| (command.last)(l) || l.starts_with("bestmove")) {
                        assert!(
                            !line.starts_with("bestmove"),
                            "{}: a bestmove before stop",
                            command.line
                        );
                        assert!(
                            !line.starts_with("info string error"),
                            "{}: {line}",
                            command.line
                        );
                    }
                }
                let peak = engine.peak_kib();
                engine.send("stop\nquit\n");
                let after = engine.rest();
                let bestmoves: Vec<&String> = after
                    .iter()
                    .filter(|l| l.starts_with("bestmove "))
                    .collect();
                assert_eq!(bestmoves.len(), 1, "{}: {:?}", command.line, tail(&after));
                assert_ne!(bestmoves[0], "bestmove (none)");
                assert!(engine.wait().success());
                eprintln!("{} x{FLOOD} during a search: peak {peak} KiB", command.line);
                assert!(peak < 64_000, "{}: peak memory {peak} KiB", command.line);
            });
        }
    });
}

/// A state command flooding a search, and how its lines show.
struct State {
    line: &'static str,
    /// Whether a line is one of its refusals (errors naming it).
    refusal: &'static str,
    /// Lines each accepted one prints once it has run.
    answer: Option<fn(&str) -> bool>,
}

const STATE: &[State] = &[
    State {
        line: "position startpos",
        refusal: "info string error: position: refused",
        answer: None,
    },
    State {
        line: "setoption name Skill value 10",
        refusal: "info string error: setoption: refused",
        answer: None,
    },
    State {
        line: "move a1b1",
        refusal: "info string error: move: refused",
        answer: Some(|l| l.starts_with("info string error: move: ")),
    },
    State {
        line: "ucinewgame",
        refusal: "info string error: ucinewgame: refused",
        answer: None,
    },
    State {
        line: "go depth 2",
        refusal: "info string error: go: refused",
        answer: Some(|l| l.starts_with("bestmove ")),
    },
    State {
        line: "perft 1",
        refusal: "info string error: perft: refused",
        answer: Some(|l| {
            l.starts_with("Nodes searched: ") || l.starts_with("info string perft stopped")
        }),
    },
    State {
        line: "roll",
        refusal: "info string error: roll: refused",
        answer: Some(|l| l.starts_with("info string error: roll: ")),
    },
];

#[test]
fn state_commands_flooding_a_search_are_kept_up_to_the_bound_and_refused_by_name_past_it() {
    std::thread::scope(|scope| {
        for command in STATE {
            scope.spawn(move || {
                let mut engine = searching();
                engine.send(&format!("{}\n", command.line).repeat(FLOOD));
                // The refusals come at once, while the search runs.
                let refused = FLOOD - WAITING_BOUND;
                let mut seen = 0;
                let mut before_stop = Vec::new();
                let go = command.line.starts_with("go");
                while seen < refused {
                    before_stop.extend(engine.until(|l| l.starts_with(command.refusal)));
                    if go {
                        // A refused `go` still ends with its bestmove.
                        let answer = engine.until(|_| true);
                        assert_eq!(answer, ["bestmove (none)"]);
                        before_stop.extend(answer);
                    }
                    seen += 1;
                }
                // The queue is at its fullest now.
                let peak = engine.peak_kib();
                let answers_before = before_stop
                    .iter()
                    .filter(|l| !l.starts_with(command.refusal))
                    .filter(|l| command.answer.is_some_and(|a| a(l)))
                    .count();
                // Only a refused `go` answers before the search ends.
                let expected_early = if go { refused } else { 0 };
                assert_eq!(answers_before, expected_early, "{}", command.line);
                engine.send("stop\nisready\nquit\n");
                let after = engine.rest();
                assert!(
                    !after.iter().any(|l| l.starts_with(command.refusal)),
                    "{}: refused more than the lines past the bound",
                    command.line
                );
                let answered = after
                    .iter()
                    .filter(|l| command.answer.is_some_and(|a| a(l)))
                    .count();
                let searches = usize::from(go);
                if command.answer.is_some() {
                    // Each kept line answers in its turn, besides the
                    // infinite search's own bestmove.
                    assert_eq!(
                        answered,
                        WAITING_BOUND + searches,
                        "{}: {:?}",
                        command.line,
                        tail(&after)
                    );
                }
                let bestmoves = before_stop
                    .iter()
                    .chain(&after)
                    .filter(|l| l.starts_with("bestmove "))
                    .count();
                let gos = if go { FLOOD } else { 0 };
                assert_eq!(bestmoves, 1 + gos, "{}: one bestmove per go", command.line);
                assert_eq!(after.iter().filter(|l| *l == "readyok").count(), 1);
                assert!(engine.wait().success());
                eprintln!("{} x{FLOOD} during a search: peak {peak} KiB", command.line);
                assert!(peak < 64_000, "{}: peak memory {peak} KiB", command.line);
            });
        }
    });
}

#[test]
fn isready_and_stop_overtake_a_full_queue_behind_a_search() {
    let mut engine = searching();
    // State commands wait behind the search, read-only ones behind them;
    // then a ping, as GUIs send it.
    let mut flood = "position startpos moves c1d2\n".repeat(WAITING_BOUND / 2);
    flood.push_str(&"d\n".repeat(WAITING_BOUND / 2));
    engine.send(&flood);
    let sent = Instant::now();
    engine.send("isready\n");
    let before = engine.until(|l| l == "readyok");
    let latency = sent.elapsed();
    eprintln!("readyok {latency:?} after isready, behind {WAITING_BOUND} waiting lines");
    // The search still runs (only `stop` ends it), and what waits is not
    // answered before it: readyok overtook it all.
    assert!(!before
        .iter()
        .any(|l| l.starts_with("bestmove") || l.starts_with("Status:")));
    engine.send("stop\n");
    let after = engine.rest_after_quit();
    assert_eq!(
        after.iter().filter(|l| l.starts_with("bestmove ")).count(),
        1
    );
    // Each `d` shows the position the `position` lines before it set.
    let shown: Vec<&String> = after
        .iter()
        .filter(|l| l.starts_with("Notation: "))
        .collect();
    assert_eq!(shown.len(), WAITING_BOUND / 2);
    assert!(
        shown
            .iter()
            .all(|l| l.as_str() != "Notation: 2gel/3ge/E3g/GE3/LGE2 r 0"),
        "{:?}",
        shown[0]
    );
}

#[test]
fn a_read_only_command_is_answered_during_a_search_about_the_position_it_started_from() {
    let mut engine = searching();
    engine.send("d\nlegal\nquery status\n");
    let during = engine.until(|l| l.starts_with("response "));
    assert!(
        during
            .iter()
            .any(|l| l == "Notation: 2gel/3ge/E3g/GE3/LGE2 r 0"),
        "{during:?}"
    );
    assert!(!during.iter().any(|l| l.starts_with("bestmove")));
    // Behind a state command, a read-only one keeps its place after it.
    engine.send("position startpos moves c1d2\nd\nstop\n");
    let after = engine.rest_after_quit();
    let bestmove = after
        .iter()
        .position(|l| l.starts_with("bestmove "))
        .unwrap();
    let notation = after
        .iter()
        .position(|l| l.starts_with("Notation: "))
        .unwrap();
    assert!(bestmove < notation, "{after:?}");
    assert_ne!(after[notation], "Notation: 2gel/3ge/E3g/GE3/LGE2 r 0");
}

#[test]
fn stop_reaches_the_running_search_and_every_search_waiting_before_it() {
    let mut engine = searching();
    // Two more unbounded searches wait behind the first; one stop ends
    // all three, and a search sent after the stop runs as asked.
    engine.send("go infinite\nposition startpos\ngo infinite\nstop\ngo depth 2\n");
    let lines = engine.until(|l| l.starts_with("bestmove ")); // the first
    assert!(!lines.is_empty());
    let mut bestmoves = 1;
    let mut depths = Vec::new();
    while bestmoves < 4 {
        for line in engine.until(|l| l.starts_with("bestmove ") || l.starts_with("info depth")) {
            if line.starts_with("bestmove ") {
                bestmoves += 1;
            } else if let Some(depth) = line.split_whitespace().nth(2) {
                depths.push((bestmoves, depth.parse::<u32>().unwrap()));
            }
        }
    }
    // The search after the stop reached its depth.
    assert!(
        depths
            .iter()
            .any(|&(after, depth)| after == 3 && depth == 2),
        "{depths:?}"
    );
    let rest = engine.rest_after_quit();
    assert!(!rest.iter().any(|l| l.starts_with("bestmove")), "{rest:?}");
}

#[test]
fn long_lines_behind_a_search_are_bounded_in_bytes_too() {
    // 100 lines of 400 KB (10 times the 4 MiB the waiting lines may
    // hold): about ten wait, the rest are refused by name.
    let mut engine = searching();
    let line = format!("position fen {}\n", "x".repeat(400_000));
    let count = 100;
    let writer = {
        let mut stdin = engine.stdin.take().unwrap();
        let line = line.clone();
        std::thread::spawn(move || {
            for _ in 0..count {
                stdin.write_all(line.as_bytes()).unwrap();
            }
            stdin.write_all(b"stop\nquit\n").unwrap();
        })
    };
    let out = engine.rest();
    writer.join().unwrap();
    let refused = out
        .iter()
        .filter(|l| l.starts_with("info string error: position: refused"))
        .count();
    let rejected = out
        .iter()
        .filter(|l| l.starts_with("info string error: position: ") && !l.contains("refused"))
        .count();
    let kept = (4 << 20) / line.len();
    assert_eq!(
        (refused, rejected),
        (count - kept, kept),
        "{:?}",
        tail(&out)
    );
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove ")).count(), 1);
}

#[test]
fn a_flood_of_hash_settings_touches_no_table_memory() {
    // Tables are asked for zeroed and handed over lazily: 1,024 settings
    // of 16 and 17 MiB touch a few pages, not 16 MiB of them each (they did once glibc
    // raised its mapping threshold after the first free, and quit took
    // 0.7 s). Counted in page faults, which no machine's speed changes.
    let mut engine = searching();
    // The search's own pages are touched before the count starts.
    engine.send("stop\nisready\n");
    engine.until(|l| l == "readyok");
    let before = engine.minor_faults();
    let flood: String = (0..WAITING_BOUND)
        .map(|i| format!("setoption name Hash value {}\n", 16 + i % 2))
        .collect();
    engine.send(&flood);
    engine.send("isready\n");
    engine.until(|l| l == "readyok");
    let touched = engine.minor_faults() - before;
    eprintln!("{touched} pages touched by {WAITING_BOUND} Hash settings");
    // One table's pages alone would be 4,096.
    assert!(touched < 4096, "{touched} pages touched");
    assert!(engine.rest_after_quit().is_empty());
}

#[test]
fn a_new_game_keeps_the_tables_pages_so_its_search_touches_no_new_memory() {
    // A game's search fills most of the 16 MiB table (4,096 pages). The
    // next game's table is cleared in place: had `newgame` handed the
    // pages back to the system, its search would fault each of them in
    // again, on the clock. Counted in page faults, not time.
    let mut engine = Engine::start();
    let game = "newgame safari-dual\ngo nodes 300000\n";
    engine.send(game);
    engine.until(|l| l.starts_with("bestmove "));
    let before = engine.minor_faults();
    engine.send(game);
    engine.until(|l| l.starts_with("bestmove "));
    let touched = engine.minor_faults() - before;
    eprintln!("{touched} pages touched by the second game's search");
    assert!(touched < 1024, "{touched} pages touched");
    assert!(engine.rest_after_quit().is_empty());
}
