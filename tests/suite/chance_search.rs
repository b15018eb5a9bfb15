//! The chance search against a brute-force expectiminimax: Star1 bounds and
//! Star2 probes may cut the tree but must never change a value. (At depth 2
//! the move filter does not act, so the values must agree exactly.)

use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Ruleset, Seat};
use menagerie_rules::games::kilkenny::{KcMove, KcUndo, Kilkenny};
use menagerie_rules::rng::Rng;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use menagerie_search::expectimax::GREEDY_ROLL_SALT;
use menagerie_search::{expectimax, maxn, Limits, MultiSeat, Shared, Watch};

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
        let scores = expectimax::root_scores(&session, 2, &watch).expect("no limit stops it");
        for (mv, score, _) in scores {
            let mut p = session.position().clone();
            p.play(mv);
            // After the move a roll comes, which spends no depth.
            let expected = brute(&mut p, 1, 1, root);
            assert_eq!(score, expected, "players={players}, move {mv}");
        }
    }
}

/// The value of a finished game for the root seat, `ply` plies deep.
fn outcome_value(outcome: Outcome, ply: i32, root: Seat) -> i32 {
    match outcome {
        Outcome::Draw => 0,
        Outcome::Win(w) if w == root => BOUND - ply,
        Outcome::Win(_) => -(BOUND - ply),
    }
}

/// A leaf of the multi-seat searches: the result, or the evaluation.
fn leaf(p: &Kilkenny, ply: i32, root: Seat) -> i32 {
    match p.outcome() {
        Some(outcome) => outcome_value(outcome, ply, root),
        None => p.evaluate_for(root).clamp(-CERTAIN + 1, CERTAIN - 1),
    }
}

/// The greedy player's turn as BRS+ plays it: a roll drawn from the
/// position, then the move best for the mover's own evaluation (the first
/// of equals). The plies played, to be taken back; none at a finished game.
fn greedy_turn(p: &mut Kilkenny) -> Vec<(KcMove, KcUndo)> {
    let seat = p.side();
    let mut played = Vec::new();
    while p.side() == seat && p.outcome().is_none() {
        let mut moves = Vec::new();
        let mv = if p.is_chance() {
            let mut rng = Rng::new(p.hash() ^ GREEDY_ROLL_SALT);
            p.sample_chance(&mut rng, &mut moves).unwrap()
        } else {
            p.generate(&mut moves);
            let mut best: Option<(i32, KcMove)> = None;
            for &m in &moves {
                let mut child = p.clone();
                child.play(m);
                let v = child.evaluate_for(seat);
                if best.map_or(true, |(b, _)| v > b) {
                    best = Some((v, m));
                }
            }
            best.unwrap().1
        };
        played.push((mv, p.play(mv)));
    }
    played
}

fn take_back(p: &mut Kilkenny, played: Vec<(KcMove, KcUndo)>) {
    for (mv, undo) in played.into_iter().rev() {
        p.undo(mv, undo);
    }
}

/// Best-Reply Search (or BRS+) by brute force, in the root's view: at the
/// start of the turn after a root move, the least over the opponents of
/// that opponent's turn alone; after its reply the root moves again.
fn brute_brs(p: &mut Kilkenny, depth: i32, ply: i32, root: Seat, plus: bool) -> i32 {
    let mut moves = Vec::new();
    p.generate(&mut moves);
    if moves.is_empty() || depth <= 0 {
        return leaf(p, ply, root);
    }
    if p.side() != root && p.is_chance() {
        let mut best = i32::MAX;
        if plus {
            // In turn order: a seat replies, then plays greedily.
            let mut played = Vec::new();
            loop {
                best = best.min(reply(p, depth, ply, root, plus));
                played.extend(greedy_turn(p));
                if p.outcome().is_some() {
                    best = best.min(leaf(p, ply, root));
                    break;
                }
                if p.side() == root {
                    break;
                }
            }
            take_back(p, played);
        } else {
            for &seat in p.clone().seats() {
                if seat == root {
                    continue;
                }
                if let Some(handed) = p.hand_turn(seat) {
                    best = best.min(reply(p, depth, ply, root, plus));
                    p.take_back_turn(handed);
                }
            }
        }
        return best;
    }
    let chance = p.is_chance();
    let values: Vec<i32> = moves
        .iter()
        .map(|&mv| {
            let undo = p.play(mv);
            let v = if chance {
                brute_brs(p, depth, ply + 1, root, plus)
            } else {
                brute_brs(p, depth - 1, ply + 1, root, plus)
            };
            p.undo(mv, undo);
            v
        })
        .collect();
    if chance {
        (values.iter().map(|&v| v as i64).sum::<i64>() / values.len() as i64) as i32
    } else {
        *values.iter().max().unwrap()
    }
}

/// The turn of the opponent to move: its roll, then its move worst for the
/// root, then the root's next turn (the seats between playing greedily in
/// BRS+, passing in BRS).
fn reply(p: &mut Kilkenny, depth: i32, ply: i32, root: Seat, plus: bool) -> i32 {
    let mut rolls = Vec::new();
    p.generate(&mut rolls);
    let mut sum = 0i64;
    for &roll in &rolls {
        let undo = p.play(roll);
        let mut moves = Vec::new();
        p.generate(&mut moves);
        let mut worst = i32::MAX;
        for &mv in &moves {
            let undo = p.play(mv);
            let v = if plus {
                let mut played = Vec::new();
                while p.side() != root && p.outcome().is_none() {
                    played.extend(greedy_turn(p));
                }
                let v = if p.side() == root {
                    brute_brs(p, depth - 1, ply + 2, root, plus)
                } else {
                    leaf(p, ply + 2, root)
                };
                take_back(p, played);
                v
            } else {
                match p.hand_turn(root) {
                    Some(handed) => {
                        let v = brute_brs(p, depth - 1, ply + 2, root, plus);
                        p.take_back_turn(handed);
                        v
                    }
                    None => leaf(p, ply + 2, root),
                }
            };
            p.undo(mv, undo);
            worst = worst.min(v);
        }
        p.undo(roll, undo);
        sum += worst as i64;
    }
    (sum / rolls.len() as i64) as i32
}

/// max^n by brute force: every seat's value, each seat choosing the move
/// best for itself (ties to the one worst for the root), chance nodes
/// averaging.
fn brute_maxn(p: &mut Kilkenny, depth: i32, ply: i32, root: Seat) -> [i32; 4] {
    let mut moves = Vec::new();
    p.generate(&mut moves);
    let mut values = [0; 4];
    if moves.is_empty() {
        for &seat in p.seats() {
            values[seat as usize] = outcome_value(p.outcome().unwrap(), ply, seat);
        }
        return values;
    }
    if depth <= 0 {
        for &seat in p.seats() {
            values[seat as usize] = p.evaluate_for(seat).clamp(-CERTAIN + 1, CERTAIN - 1);
        }
        return values;
    }
    let (chance, mover) = (p.is_chance(), p.side() as usize);
    let children: Vec<[i32; 4]> = moves
        .iter()
        .map(|&mv| {
            let undo = p.play(mv);
            let v = brute_maxn(p, if chance { depth } else { depth - 1 }, ply + 1, root);
            p.undo(mv, undo);
            v
        })
        .collect();
    if chance {
        for (seat, value) in values.iter_mut().enumerate() {
            let sum: i64 = children.iter().map(|v| v[seat] as i64).sum();
            *value = (sum / children.len() as i64) as i32;
        }
        return values;
    }
    let r = root as usize;
    *children
        .iter()
        .reduce(|best, v| {
            let better =
                v[mover] > best[mover] || (v[mover] == best[mover] && mover != r && v[r] < best[r]);
            if better {
                v
            } else {
                best
            }
        })
        .unwrap()
}

/// Positions of 3 and 4 seats with choices, the root to move after its roll.
fn multi_seat_positions() -> Vec<Session<Kilkenny>> {
    let mut sessions = Vec::new();
    for (players, rolls) in [
        (3, ["r4", "r2"]),
        (3, ["r6", "r5"]),
        (4, ["r2", "r6"]),
        (4, ["r5", "r3"]),
    ] {
        let ruleset = Ruleset::parse(Kilkenny::OPTIONS, &[format!("players={players}")]).unwrap();
        let mut session: Session<Kilkenny> = Session::new(ruleset);
        session.play_text(rolls[0]).unwrap();
        let mut first = Vec::new();
        session.legal(&mut first);
        session.play(first[first.len() / 2]);
        session.play_text(rolls[1]).unwrap();
        sessions.push(session);
    }
    sessions
}

#[test]
fn best_reply_searches_give_the_values_of_their_definition() {
    for session in multi_seat_positions() {
        let root = session.position().side();
        for (method, plus) in [
            (MultiSeat::BestReply, false),
            (MultiSeat::BestReplyPlus, true),
        ] {
            let shared = Shared::new(16);
            let (limits, nodes) = (Limits::depth(2), AtomicU64::new(0));
            let watch = Watch {
                shared: &shared,
                limits: &limits,
                start: Instant::now(),
                nodes: &nodes,
            };
            let scores =
                expectimax::root_scores_with(&session, 2, &watch, method, 0).expect("no limit");
            for (mv, score, _) in scores {
                let mut p = session.position().clone();
                p.play(mv);
                let expected = brute_brs(&mut p, 1, 1, root, plus);
                assert_eq!(
                    score,
                    expected,
                    "{method:?} at {}, move {mv}",
                    session.position()
                );
            }
        }
    }
}

#[test]
fn max_n_gives_the_values_of_its_definition() {
    for session in multi_seat_positions() {
        let root = session.position().side();
        let shared = Shared::new(16);
        let (limits, nodes) = (Limits::depth(2), AtomicU64::new(0));
        let watch = Watch {
            shared: &shared,
            limits: &limits,
            start: Instant::now(),
            nodes: &nodes,
        };
        for (mv, score) in maxn::root_scores(&session, 2, &watch).expect("no limit") {
            let mut p = session.position().clone();
            p.play(mv);
            let expected = brute_maxn(&mut p, 1, 1, root)[root as usize];
            assert_eq!(
                score,
                expected,
                "max^n at {}, move {mv}",
                session.position()
            );
        }
    }
}

/// The methods differ where they should: with three or four seats some
/// root move's value differs between any two of them, and with two seats
/// they are all expectiminimax.
#[test]
fn the_methods_differ_with_more_than_two_seats_only() {
    let ruleset = Ruleset::parse(Kilkenny::OPTIONS, &["players=2".to_string()]).unwrap();
    let mut two: Session<Kilkenny> = Session::new(ruleset);
    two.play_text("r3").unwrap();
    let mut sessions = multi_seat_positions();
    sessions.push(two);
    for session in sessions {
        let shared = Shared::new(16);
        let (limits, nodes) = (Limits::depth(2), AtomicU64::new(0));
        let watch = Watch {
            shared: &shared,
            limits: &limits,
            start: Instant::now(),
            nodes: &nodes,
        };
        let values: Vec<Vec<i32>> = [
            MultiSeat::Paranoid,
            MultiSeat::BestReply,
            MultiSeat::BestReplyPlus,
        ]
        .into_iter()
        .map(|m| {
            let scores = expectimax::root_scores_with(&session, 2, &watch, m, 0).unwrap();
            scores.into_iter().map(|(_, s, _)| s).collect()
        })
        .collect();
        let seats = session.position().seats().len();
        if seats == 2 {
            assert!(
                values.iter().all(|v| *v == values[0]),
                "two seats: {values:?}"
            );
        } else {
            assert_ne!(values[0], values[1], "{seats} seats: paranoid and BRS");
            assert_ne!(values[1], values[2], "{seats} seats: BRS and BRS+");
        }
    }
}

/// The greedy-model search as defined: the root maximises, a roll is
/// averaged, and every other seat plays the greedy player's one move;
/// only the root's moves spend depth.
fn brute_greedy(p: &mut Kilkenny, depth: i32, ply: i32, root: Seat, history_len: usize) -> i32 {
    let mut moves = Vec::new();
    p.generate(&mut moves);
    if moves.is_empty() {
        return outcome_value(p.outcome().unwrap(), ply, root);
    }
    if p.clock() >= Kilkenny::NO_PROGRESS_LIMIT {
        return outcome_value(p.no_progress_outcome(), ply, root);
    }
    if depth <= 0 {
        return p.evaluate_for(root).clamp(-CERTAIN + 1, CERTAIN - 1);
    }
    let child = |p: &mut Kilkenny, mv: KcMove, depth: i32| {
        let undo = p.play(mv);
        let v = brute_greedy(p, depth, ply + 1, root, history_len + 1);
        p.undo(mv, undo);
        v
    };
    if p.is_chance() {
        let sum: i64 = moves.iter().map(|&mv| child(p, mv, depth) as i64).sum();
        (sum / moves.len() as i64) as i32
    } else if p.side() == root {
        moves
            .iter()
            .map(|&mv| child(p, mv, depth - 1))
            .max()
            .unwrap()
    } else {
        let mut scratch = Vec::new();
        let mv = menagerie_search::greedy::greedy_choice(p, history_len, 7, &mut scratch).unwrap();
        child(p, mv, depth)
    }
}

#[test]
fn the_greedy_model_gives_the_values_of_its_definition() {
    for session in multi_seat_positions() {
        let root = session.position().side();
        let shared = Shared::new(16);
        let (limits, nodes) = (Limits::depth(2), AtomicU64::new(0));
        let watch = Watch {
            shared: &shared,
            limits: &limits,
            start: Instant::now(),
            nodes: &nodes,
        };
        let scores = expectimax::root_scores_with(&session, 2, &watch, MultiSeat::Greedy, 7)
            .expect("no limit");
        let mut differs_from_paranoid = false;
        let paranoid = expectimax::root_scores_with(&session, 2, &watch, MultiSeat::Paranoid, 7)
            .expect("no limit");
        for ((mv, score, _), (_, other, _)) in scores.into_iter().zip(paranoid) {
            let mut p = session.position().clone();
            p.play(mv);
            let expected = brute_greedy(&mut p, 1, 1, root, session.history().len() + 1);
            assert_eq!(score, expected, "at {}, move {mv}", session.position());
            differs_from_paranoid |= score != other;
        }
        assert!(differs_from_paranoid, "at {}", session.position());
    }
}

/// The model's greedy move is the move Skill 1 plays, ties included, in
/// positions of games it plays against itself on random dice (under two
/// seeds).
#[test]
fn the_greedy_model_plays_what_skill_1_plays() {
    use menagerie_search::{Settings, Silent};
    let mut rng = Rng::new(43);
    let mut compared = 0;
    for players in [3, 4] {
        let ruleset = Ruleset::parse(Kilkenny::OPTIONS, &[format!("players={players}")]).unwrap();
        for seed in [0, 99, 0, 99, 0, 99] {
            let mut session: Session<Kilkenny> = Session::new(ruleset.clone());
            let settings = Settings {
                skill: 1,
                seed,
                ..Settings::default()
            };
            for _ in 0..400 {
                let mut moves = Vec::new();
                session.legal(&mut moves);
                if moves.is_empty() {
                    break;
                }
                if session.position().is_chance() {
                    session.play(moves[rng.below(moves.len() as u64) as usize]);
                    continue;
                }
                let skill_1 = menagerie_search::run(
                    &session,
                    &Limits::depth(1),
                    &Shared::new(1),
                    &settings,
                    &mut Silent,
                )
                .best
                .unwrap();
                let mut p = session.position().clone();
                let modelled = menagerie_search::greedy::greedy_choice(
                    &mut p,
                    session.history().len(),
                    seed,
                    &mut Vec::new(),
                )
                .unwrap();
                assert_eq!(modelled, skill_1, "at {}", session.position());
                compared += 1;
                session.play(skill_1);
            }
        }
    }
    assert!(compared > 400, "{compared} moves compared");
}
