//! `isready` is UCI's barrier (protocol.md, "Order"): while no long work
//! computes, `readyok` comes after the answer of every line sent before
//! it; during a search, `perft`, `bench`, `solve`, `tables` or `selfplay`
//! it comes at once, without stopping the work; after `stop`, it comes
//! after the stopped work's last line.
//!
//! No verdict depends on the machine's speed: long work here could run
//! for hours, so an answer that comes before its `stop` was sent can only
//! have been given during that work; order is read off one output stream.

use crate::live::{tail, Engine};

/// The place of the first line for which `wanted` holds.
fn place(lines: &[String], wanted: impl Fn(&str) -> bool) -> usize {
    lines
        .iter()
        .position(|l| wanted(l))
        .unwrap_or_else(|| panic!("no such line in {lines:?}"))
}

/// Runs `input` (ending the input, so that every line is answered) and
/// returns the engine's lines.
fn transcript(input: &str) -> Vec<String> {
    let mut engine = Engine::start();
    engine.send(input);
    engine.stdin = None;
    let lines = engine.rest();
    assert!(engine.wait().success(), "{:?}", tail(&lines));
    lines
}

#[test]
fn idle_readyok_comes_after_the_answers_of_queries_behind_a_new_game() {
    // The UGI session: the set-up of `uginewgame` runs on the
    // worker, the lines after it wait, and `isready` waits behind them.
    let lines = transcript(
        "ugi\nsetoption name UCI_Variant value safari-dual\nuginewgame\nposition startpos\n\
         query p1turn\nquery gameover\nquery result\nisready\n",
    );
    let ready = place(&lines, |l| l == "readyok");
    let responses: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("response "))
        .collect();
    assert_eq!(responses.len(), 3, "{lines:?}");
    assert!(responses.iter().all(|&r| r < ready), "{lines:?}");
    assert_eq!(ready, lines.len() - 1);
}

#[test]
fn idle_readyok_comes_after_the_game_over_line_of_a_position() {
    for before in [
        "",
        "newgame hat-diviyan-keliya board=large\n",
        "ucinewgame\n",
    ] {
        let lines = transcript(&format!(
            "{before}newgame hdk\nposition fen T/LLL/LL1/L1L l 0 0 99 moves b3c3\nisready\n"
        ));
        assert_eq!(
            lines,
            ["info string game over: draw (no-progress)", "readyok"],
            "after {before:?}"
        );
    }
}

#[test]
fn idle_readyok_comes_after_a_long_new_game_set_up_and_what_waits_behind_it() {
    // A large table takes a while to clear on the worker; everything sent
    // after the set-up waits for it, `isready` too, and every answer
    // keeps its order.
    let lines = transcript(
        "setoption name Hash value 1024\nnewgame hat-diviyan-keliya board=large\n\
         position startpos moves @c3\nd\nquery side\nlegal\nisready\nucinewgame\nisready\nquery side\n",
    );
    let status = place(&lines, |l| l.starts_with("Status: "));
    let response = place(&lines, |l| l.starts_with("response "));
    let legal = place(&lines, |l| l.starts_with("legal "));
    let ready = place(&lines, |l| l == "readyok");
    assert!(
        status < response && response < legal && legal < ready,
        "{lines:?}"
    );
    assert!(
        lines.contains(&"Notation: 1/3/2T/3/3 l 1 8 0".to_string()),
        "{lines:?}"
    );
    let second = lines.len() - 2;
    assert_eq!(lines[second], "readyok", "{lines:?}");
    assert!(lines[lines.len() - 1].starts_with("response "));
}

#[test]
fn readyok_is_at_once_during_each_kind_of_long_work_which_goes_on() {
    let dir = crate::common::temp_path("barrier", "tables");
    let out = crate::common::temp_path("barrier", "selfplay.txt");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&out);
    // Each runs for far longer than any machine takes to answer a line;
    // the line that shows it ran on after `readyok`; the line it ends
    // with once stopped.
    type Check = fn(&str) -> bool;
    let work: Vec<(String, Check)> = vec![
        ("newgame safari-dual\ngo infinite".into(), |l| {
            l.starts_with("bestmove ")
        }),
        ("newgame kilkenny-cats players=4\nperft 60".into(), |l| {
            l.starts_with("info string perft stopped")
        }),
        ("bench playouts 1000000000".into(), |l| {
            l == "info string bench stopped before the end"
        }),
        (
            "newgame safari-dual\nsolve nodes 1000000000000".into(),
            |l| l.starts_with("Value: "),
        ),
        (
            format!(
                "tables build awithlaknannai-mosona men=8 dir={}",
                dir.display()
            ),
            |l| l.starts_with("info string error: tables: stopped"),
        ),
        (
            format!(
                "selfplay safari-dual games=1000000 nodes=2000 out={}",
                out.display()
            ),
            |l| l.starts_with("info string selfplay stopped"),
        ),
    ];
    for (command, stopped) in work {
        let mut engine = Engine::start();
        engine.send(&format!("{command}\nisready\n"));
        let before = engine.until(|l| l == "readyok");
        assert!(!before.iter().any(|l| stopped(l)), "{command}: {before:?}");
        // Stopped: `isready` now waits for the work's last line.
        engine.send("stop\nisready\n");
        let after = engine.until(|l| l == "readyok");
        let end = place(&after, stopped);
        assert!(end < after.len() - 1, "{command}: {after:?}");
        let rest = engine.rest_after_quit();
        assert!(!rest.iter().any(|l| stopped(l)), "{command}: {rest:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn during_a_search_readyok_overtakes_lines_queued_behind_it_and_they_keep_their_order() {
    let mut engine = Engine::start();
    engine.send("newgame safari-dual\ngo infinite\n");
    engine.until(|l| l.starts_with("info depth"));
    engine.send("position startpos moves c1d2\nquery side\nd\nisready\n");
    // While the search runs (nothing has stopped it), only `readyok`.
    let during = engine.until(|l| l == "readyok");
    assert!(
        !during
            .iter()
            .any(|l| l.starts_with("bestmove") || l.starts_with("response")),
        "{during:?}"
    );
    engine.send("stop\nisready\n");
    let after = engine.until(|l| l == "readyok");
    let bestmove = place(&after, |l| l.starts_with("bestmove "));
    let response = place(&after, |l| l.starts_with("response "));
    let status = place(&after, |l| l.starts_with("Status: "));
    assert!(
        bestmove < response && response < status && status == after.len() - 2,
        "{after:?}"
    );
    assert!(engine.rest_after_quit().is_empty());
}

#[test]
fn a_search_sent_while_a_set_up_runs_answers_isready_at_once_once_it_runs() {
    // `isready` waits behind the set-up and the `go`; once that search
    // runs, the engine is calculating and answers it at once.
    let mut engine = Engine::start();
    engine.send("setoption name Hash value 256\nnewgame safari-dual\ngo infinite\nisready\n");
    let before = engine.until(|l| l == "readyok");
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "{before:?}"
    );
    engine.send("stop\n");
    let after = engine.rest_after_quit();
    assert_eq!(
        after.iter().filter(|l| l.starts_with("bestmove ")).count(),
        1
    );
}

#[test]
fn every_isready_gets_one_readyok_even_past_a_full_queue() {
    // 1,024 lines fill the queue behind a search (state commands, and
    // queries that keep their place behind them); then `stop`, and
    // 100,000 pings arrive while that search ends: each is answered
    // once, and none is refused.
    let mut engine = Engine::start();
    engine.send("newgame safari-dual\ngo infinite\n");
    engine.until(|l| l.starts_with("info depth"));
    const PINGS: usize = 100_000;
    let mut input = "position startpos\n".repeat(1000);
    input.push_str(&"query side\n".repeat(24));
    input.push_str("stop\n");
    input.push_str(&"isready\n".repeat(PINGS));
    let writer = {
        let mut stdin = engine.stdin.take().unwrap();
        std::thread::spawn(move || {
            use std::io::Write;
            stdin.write_all(input.as_bytes()).unwrap();
        })
    };
    let lines = engine.rest();
    writer.join().unwrap();
    assert!(engine.wait().success());
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), PINGS);
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("response ")).count(),
        24
    );
    assert!(
        !lines.iter().any(|l| l.contains("error")),
        "{:?}",
        tail(&lines)
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
        1
    );
    // The last answer is a `readyok`: every query was answered before
    // the pings that came after it.
    assert_eq!(lines.last().map(String::as_str), Some("readyok"));
}
