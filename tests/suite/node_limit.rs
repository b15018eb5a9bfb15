//! `go nodes N` stops where protocol.md says: a deepening search looks at
//! the limit after every iteration and every 1,024 nodes, so `go nodes 1`
//! is exactly the first iteration, and no search passes its limit (or its
//! first iteration) by more than the documented margin.
//!
//! Node counts, not time: the verdicts do not depend on the machine.

use crate::common::{engine, errors, last_value, legal};

/// Positions with a move to choose, one per game and seat count: the
/// line that sets the game up, the position, and the multi-seat method
/// (`None`: the game's two-seat search).
const POSITIONS: [(&str, &str, Option<&str>); 8] = [
    ("newgame safari-dual", "position startpos", None),
    ("newgame awithlaknannai-mosona", "position startpos", None),
    ("newgame hat-diviyan-keliya", "position startpos", None),
    ("newgame kilkenny-cats", "position startpos moves r4", None),
    (
        "newgame kilkenny-cats players=3",
        "position startpos moves r4",
        Some("paranoid"),
    ),
    (
        "newgame kilkenny-cats players=3",
        "position startpos moves r4",
        Some("brs"),
    ),
    (
        "newgame kilkenny-cats players=4",
        "position startpos moves r2",
        Some("brs-plus"),
    ),
    (
        "newgame kilkenny-cats players=4",
        "position startpos moves r2",
        Some("maxn"),
    ),
];

/// The tree searches, which look every 1,024 nodes and after each walk.
const TREE_METHODS: [&str; 3] = ["mcts", "puct", "gumbel"];

/// A look every 1,024 nodes, and what the thread searches while it
/// unwinds after the look that stops it (protocol.md, `go`).
const MARGIN: u64 = 2048;

/// Runs one `go` on a fresh engine (an empty hash table) and returns the
/// last `info` line's node count, after checking the move is legal.
fn searched(setup: &str, position: &str, method: Option<&str>, go: &str) -> u64 {
    searched_on(1, setup, position, method, go)
}

/// `searched` with `threads` search threads.
fn searched_on(threads: u64, setup: &str, position: &str, method: Option<&str>, go: &str) -> u64 {
    let method = format!("setoption name MultiSeat value {}", method.unwrap_or("brs"));
    let threads = format!("setoption name Threads value {threads}");
    let out = engine(&[
        "setoption name UseTables value false",
        &threads,
        &method,
        setup,
        position,
        "legal",
        go,
    ]);
    assert!(errors(&out).is_empty(), "{setup} {go}: {out}");
    let best = last_value(&out, "bestmove ");
    assert!(
        legal(&out).iter().any(|m| m == best),
        "{setup} {go}: {best} not legal in {out}"
    );
    let info = out
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("{setup} {go}: no info line in {out}"));
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "nodes")
        .expect("nodes field");
    words[at + 1].parse().expect("a node count")
}

#[test]
fn one_node_is_exactly_the_first_iteration_in_every_game() {
    for (setup, position, method) in POSITIONS {
        let first = searched(setup, position, method, "go depth 1");
        let one = searched(setup, position, method, "go nodes 1");
        assert_eq!(
            one, first,
            "{setup} {method:?}: go nodes 1 against go depth 1"
        );
    }
}

#[test]
fn no_search_passes_its_node_limit_by_more_than_the_margin() {
    let mut cases: Vec<(&str, &str, Option<&str>)> = POSITIONS.to_vec();
    for method in TREE_METHODS {
        cases.push((
            "newgame kilkenny-cats players=3",
            "position startpos moves r4",
            Some(method),
        ));
    }
    for (setup, position, method) in cases {
        let first = searched(setup, position, method, "go depth 1");
        for limit in [1u64, 700, 3000, 20_000] {
            let nodes = searched(setup, position, method, &format!("go nodes {limit}"));
            assert!(
                nodes <= limit.max(first) + MARGIN,
                "{setup} {method:?}: go nodes {limit} searched {nodes} (depth 1: {first})"
            );
        }
    }
}

/// With several threads each looks at the shared count every 1,024 of
/// its own nodes and may hold up to 1,023 it has not added yet: past a
/// limit well beyond the first iteration, at most 2,048 a thread more.
#[test]
fn threads_together_pass_the_limit_by_at_most_the_margin_each() {
    const THREADS: u64 = 4;
    for (setup, position, method) in POSITIONS {
        for limit in [3000u64, 20_000] {
            let nodes = searched_on(
                THREADS,
                setup,
                position,
                method,
                &format!("go nodes {limit}"),
            );
            assert!(
                nodes <= limit + MARGIN * THREADS,
                "{setup} {method:?}: go nodes {limit} on {THREADS} threads searched {nodes}"
            );
        }
    }
}
