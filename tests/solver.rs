//! The retrograde solver: exact values, checked against the minimax
//! recurrence at every position and against an independent alpha-beta.

use std::collections::{HashSet, VecDeque};

use menagerie::game::session::Session;
use menagerie::game::{Game, Outcome, Ruleset};
use menagerie::games::hdk::Hdk;
use menagerie::search::solver::{solve, Value};
use menagerie::search::{alphabeta, Limits, Score, Settings, Shared, Silent};

fn start(words: &[&str]) -> Hdk {
    Hdk::start(&Hdk::rules(&Ruleset::parse(Hdk::OPTIONS, words).unwrap()))
}

/// Best of the children's values for the side to move (what the position's
/// value must be), or the decided value when there is no move.
fn recomputed(p: &Hdk, value_of: &dyn Fn(&Hdk) -> Value) -> Value {
    let mut moves = Vec::new();
    p.generate(&mut moves);
    if moves.is_empty() {
        return match p.outcome().unwrap() {
            Outcome::Draw => Value::Draw,
            Outcome::Win(w) if w == p.side() => Value::Win(0),
            Outcome::Win(_) => Value::Loss(0),
        };
    }
    let mut best: Option<Value> = None;
    for mv in moves {
        let mut child = p.clone();
        child.play(mv);
        let v = value_of(&child).for_mover();
        if best.is_none_or(|b| v.better_than(b)) {
            best = Some(v);
        }
    }
    best.unwrap()
}

fn check_consistency(words: &[&str]) -> usize {
    let root = start(words);
    let table = solve(&root);
    let value_of = |p: &Hdk| {
        table
            .value_of(p)
            .expect("reachable positions are in the table")
    };
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([root]);
    while let Some(p) = queue.pop_front() {
        if !seen.insert(p.solver_key().unwrap()) {
            continue;
        }
        assert_eq!(value_of(&p), recomputed(&p, &value_of), "at {p}");
        let mut moves = Vec::new();
        p.generate(&mut moves);
        for mv in moves {
            let mut child = p.clone();
            child.play(mv);
            queue.push_back(child);
        }
    }
    assert_eq!(seen.len(), table.len());
    seen.len()
}

#[test]
fn every_value_of_the_small_boards_obeys_the_minimax_recurrence() {
    assert_eq!(check_consistency(&[]), 31517);
    assert_eq!(check_consistency(&["start=apex"]), 30358);
}

#[test]
fn every_value_of_the_large_apex_board_obeys_the_minimax_recurrence() {
    assert_eq!(check_consistency(&["board=large", "start=apex"]), 747213);
}

#[test]
fn start_values() {
    assert_eq!(
        solve(&start(&[])).value_of(&start(&[])),
        Some(Value::Loss(14))
    );
    assert_eq!(
        solve(&start(&["start=apex"])).value_of(&start(&["start=apex"])),
        Some(Value::Win(13))
    );
    let large = start(&["board=large"]);
    assert_eq!(solve(&large).value_of(&large), Some(Value::Draw));
}

#[test]
fn alpha_beta_without_the_table_proves_the_same_results() {
    for (words, expected) in [
        (vec![], Score::Loss(7)),
        (vec!["start=apex"], Score::Win(7)),
    ] {
        let session: Session<Hdk> = Session::new(Ruleset::parse(Hdk::OPTIONS, &words).unwrap());
        let settings = Settings {
            solver: false,
            ..Settings::default()
        };
        let result = alphabeta::search(
            &session,
            &Limits::depth(16),
            &Shared::new(32),
            &settings,
            &mut Silent,
        );
        assert_eq!(result.score, expected, "{words:?}");
    }
}

#[test]
fn go_wins_fastest_keeps_draws_and_loses_slowest() {
    use menagerie::search::{solved, Reporter};
    // Random positions of the small board reached by random play.
    let mut rng = menagerie::rng::Rng::new(17);
    let mut seen = [0u32; 3];
    for i in 0..300 {
        // The large board has the draws; the small one few.
        let words: &[&str] = if i % 2 == 0 {
            &["start=apex"]
        } else {
            &["board=large"]
        };
        let mut session: Session<Hdk> = Session::new(Ruleset::parse(Hdk::OPTIONS, words).unwrap());
        let plies = rng.below(16);
        for _ in 0..plies {
            let mut moves = Vec::new();
            session.legal(&mut moves);
            if moves.is_empty() {
                break;
            }
            session.play(moves[rng.below(moves.len() as u64) as usize]);
        }
        let Some(analysis) = solved::analyse(&session) else {
            continue;
        };
        if analysis.moves.is_empty() {
            continue;
        }
        struct Quiet;
        impl Reporter for Quiet {
            fn info(&mut self, _: &menagerie::search::Info) {}
            fn text(&mut self, _: &str) {}
        }
        let best = solved::search(&session, &mut Quiet).best.unwrap();
        let chosen = analysis
            .moves
            .iter()
            .find(|(m, _)| m.to_string() == best)
            .unwrap()
            .1;
        assert_eq!(chosen, analysis.value, "at {}: {best}", session.position());
        seen[match analysis.value {
            Value::Win(_) => 0,
            Value::Draw => 1,
            Value::Loss(_) => 2,
        }] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 5),
        "wins, draws and losses all met: {seen:?}"
    );
}
