//! The MultiSeat option through the protocol: listed, checked, and each
//! method playing legal moves at 3 and 4 seats, within every limit, while
//! two-seat play does not depend on it.

use crate::common::{engine, errors, last_value, legal};

const METHODS: [&str; 8] = [
    "paranoid", "brs", "brs-plus", "maxn", "mcts", "puct", "gumbel", "greedy",
];

#[test]
fn the_option_is_listed_and_bad_values_are_refused_with_the_choices() {
    let out = engine(&["uci"]);
    let line = out
        .lines()
        .find(|l| l.starts_with("option name MultiSeat "))
        .expect("MultiSeat is listed");
    for method in METHODS {
        assert!(line.contains(&format!(" var {method}")), "{line}");
    }
    let out = engine(&[
        "setoption name MultiSeat value BRS",
        "setoption name MultiSeat value minimax",
        "setoption name MultiSeat",
        "isready",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 2, "{out}");
    assert!(
        errs[0].contains(
            "option MultiSeat needs one of paranoid|brs|brs-plus|maxn|mcts|puct|gumbel|greedy, not 'minimax'"
        ),
        "{out}"
    );
    assert!(
        errs[1].contains(
            "option MultiSeat needs 'value <paranoid|brs|brs-plus|maxn|mcts|puct|gumbel|greedy>'"
        ),
        "{out}"
    );
    assert!(out.ends_with("readyok\n"), "{out}");
}

/// A few turns of a game, each method choosing for every seat: every
/// answer is one of the moves `legal` lists, under nodes, depth and
/// movetime limits.
#[test]
fn every_method_plays_legal_moves_with_three_and_four_seats() {
    for method in METHODS {
        for players in [3, 4] {
            for limit in ["nodes 3000", "depth 2", "movetime 30"] {
                let mut lines = vec![
                    format!("setoption name MultiSeat value {method}"),
                    format!("newgame kilkenny-cats players={players}"),
                ];
                let mut played = Vec::new();
                for turn in 0..2 * players {
                    let roll = format!("r{}", turn % 6 + 1);
                    let mut script = lines.clone();
                    script.push(format!(
                        "position startpos moves {}",
                        [played.clone(), vec![roll.clone()]].concat().join(" ")
                    ));
                    script.push("legal".into());
                    script.push(format!("go {limit}"));
                    let refs: Vec<&str> = script.iter().map(String::as_str).collect();
                    let out = engine(&refs);
                    assert!(errors(&out).is_empty(), "{method} {players} {limit}: {out}");
                    let moves = legal(&out);
                    let best = last_value(&out, "bestmove ").to_string();
                    assert!(
                        moves.contains(&best),
                        "{method} {players} {limit}: {best} not in {moves:?}"
                    );
                    assert_eq!(out.matches("bestmove").count(), 1, "{out}");
                    played.push(roll);
                    played.push(best);
                }
                lines.clear();
            }
        }
    }
}

/// With two seats every method is the same expectiminimax: the same
/// info lines (but the time) and the same move.
#[test]
fn two_seat_play_does_not_depend_on_the_method() {
    let strip = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("info depth") || l.starts_with("bestmove"))
            .map(|l| {
                let words: Vec<&str> = l.split(' ').collect();
                let mut kept = Vec::new();
                let mut skip = false;
                for w in words {
                    if skip {
                        skip = false;
                        continue;
                    }
                    if w == "time" || w == "nps" {
                        skip = true;
                        continue;
                    }
                    kept.push(w);
                }
                kept.join(" ")
            })
            .collect()
    };
    let runs: Vec<Vec<String>> = METHODS
        .iter()
        .map(|method| {
            strip(&engine(&[
                &format!("setoption name MultiSeat value {method}"),
                "newgame kilkenny-cats",
                "position startpos moves r4",
                "go nodes 20000",
            ]))
        })
        .collect();
    assert!(runs[0].len() >= 2, "{runs:?}");
    for run in &runs {
        assert_eq!(run, &runs[0]);
    }
}

/// PUCT takes a win that is there, at 3 and 4 seats, however small its
/// budget, and says so; a finished game it keeps finding counts against
/// the node limit, so the search ends.
#[test]
fn puct_takes_a_win_at_once_and_ends_within_its_nodes() {
    for (players, seats) in [(3, "swn"), (4, "swne")] {
        let out = engine(&[
            &format!("newgame kilkenny-cats players={players}"),
            "setoption name MultiSeat value puct",
            &format!("position fen 14/14/14/7S6/14/1N12/14/14/14/3W10/3S10/14/14/14 s 4 {seats} S------- 0"),
            "go nodes 300",
        ]);
        assert!(errors(&out).is_empty(), "{out}");
        assert_eq!(last_value(&out, "bestmove "), "i12i16", "{out}");
        assert!(out.contains("score win 1"), "{out}");
    }
}
