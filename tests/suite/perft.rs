//! The perft suite of tests/data/perft.txt, run through the engine binary as
//! users run it (`go perft N` answering `Nodes searched: N`).

use crate::common;

use assert_cmd::Command;

/// Depths whose expected count exceeds this are skipped to keep CI quick.
const NODE_LIMIT: u64 = 5_000_000;

struct Case {
    game: String,
    rules: String,
    position: String,
    expected: Vec<(u32, u64)>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/perft.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split('|').map(str::trim).collect();
            assert_eq!(parts.len(), 4, "malformed perft line: {line}");
            let expected = parts[3]
                .split_whitespace()
                .map(|pair| {
                    let (d, n) = pair.split_once('=').expect("depth=count");
                    (d.parse().expect("depth"), n.parse().expect("count"))
                })
                .collect();
            Case {
                game: parts[0].into(),
                rules: parts[1].into(),
                position: parts[2].into(),
                expected,
            }
        })
        .collect()
}

fn run_game(game: &str) {
    let mut ran = 0;
    for case in cases().into_iter().filter(|c| c.game == game) {
        let mut args = vec![format!("newgame {} {}", case.game, case.rules)];
        args.push(if case.position == "startpos" {
            "position startpos".to_string()
        } else {
            format!("position fen {}", case.position)
        });
        let checked: Vec<(u32, u64)> = case
            .expected
            .iter()
            .copied()
            .filter(|&(_, n)| n <= NODE_LIMIT)
            .collect();
        args.extend(checked.iter().map(|(d, _)| format!("go perft {d}")));
        let out = Command::cargo_bin("menagerie")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            common::errors(&text).is_empty(),
            "{}: {text}",
            case.position
        );
        let totals = common::perft_totals(&text);
        let expected: Vec<u64> = checked.iter().map(|&(_, n)| n).collect();
        assert_eq!(
            totals, expected,
            "{} {} {}",
            case.game, case.rules, case.position
        );
        ran += 1;
    }
    assert!(ran > 0, "no perft cases for {game}");
}

#[test]
fn hat_diviyan_keliya() {
    run_game("hat-diviyan-keliya");
}

#[test]
fn awithlaknannai_mosona() {
    run_game("awithlaknannai-mosona");
}

#[test]
fn safari_dual() {
    run_game("safari-dual");
}

#[test]
fn kilkenny_cats() {
    run_game("kilkenny-cats");
}
