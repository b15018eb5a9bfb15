//! The chance search against a brute-force expectiminimax: Star1 bounds and
//! Star2 probes may cut the tree but must never change a value. (At depth 2
//! the move filter does not act, so the values must agree exactly.)

use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Ruleset, Seat};
use menagerie_rules::games::kilkenny::Kilkenny;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use menagerie_search::{chance, Limits, Shared, Watch};

const BOUND: i32 = 30_000;
const CERTAIN: i32 = BOUND - 1_000;

/// Plain expectiminimax in the root seat's view, as the search defines it.
fn brute(p: &mut Kilkenny, depth: i32, ply: i32, root: Seat) -> i32 {
    let mut moves = Vec::new();
    p.generate(&mut moves);
    if moves.is_empty() {
        return match p.outcome().unwrap() {
            Outcome::Draw => 0,
            Outcome::Win(w) if w == root => BOUND - ply,
            Outcome::Win(_) => -(BOUND - ply),
        };
    }
    if depth <= 0 {
        return p.evaluate_for(root).clamp(-CERTAIN + 1, CERTAIN - 1);
    }
    // A roll spends no depth; a player's move spends one.
    let chance = p.is_chance();
    let values: Vec<i32> = moves
        .iter()
        .map(|&mv| {
            let undo = p.play(mv);
            let v = brute(p, if chance { depth } else { depth - 1 }, ply + 1, root);
            p.undo(mv, undo);
            v
        })
        .collect();
    if chance {
        (values.iter().map(|&v| v as i64).sum::<i64>() / values.len() as i64) as i32
    } else if p.side() == root {
        *values.iter().max().unwrap()
    } else {
        *values.iter().min().unwrap()
    }
}

#[test]
fn pruning_never_changes_a_value() {
    for (players, rolls) in [
        (2, ["r3", "r5"]),
        (2, ["r6", "r1"]),
        (3, ["r4", "r2"]),
        (4, ["r2", "r6"]),
    ] {
        let ruleset = Ruleset::parse(Kilkenny::OPTIONS, &[format!("players={players}")]).unwrap();
        let mut session: Session<Kilkenny> = Session::new(ruleset);
        // Roll, a first move, and the next roll: a position with choices.
        session.play_text(rolls[0]).unwrap();
        let mut first = Vec::new();
        session.legal(&mut first);
        session.play(first[first.len() / 2]);
        session.play_text(rolls[1]).unwrap();
        let root = session.position().side();
        let shared = Shared::new(16);
        let (limits, nodes) = (Limits::depth(2), AtomicU64::new(0));
        let watch = Watch {
            shared: &shared,
            limits: &limits,
            start: Instant::now(),
            nodes: &nodes,
        };
        let scores = chance::root_scores(&session, 2, &watch).expect("no limit stops it");
        for (mv, score, _) in scores {
            let mut p = session.position().clone();
            p.play(mv);
            // After the move a roll comes, which spends no depth.
            let expected = brute(&mut p, 1, 1, root);
            assert_eq!(score, expected, "players={players}, move {mv}");
        }
    }
}
