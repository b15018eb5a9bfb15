//! Kilkenny Cats rules (RULES.md section 4) through the library.

use menagerie_rules::game::perft::{divide, perft};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{EndReason, Game, Outcome, Ruleset, Status};
use menagerie_rules::games::kilkenny::{KcMove, Kilkenny, NORTH, SOUTH, WEST};
use menagerie_rules::notation::NotationError;

fn ruleset(players: u8) -> Ruleset {
    Ruleset::parse(Kilkenny::OPTIONS, &[format!("players={players}")]).unwrap()
}

fn session(players: u8, notation: &str) -> Session<Kilkenny> {
    let mut s = Session::new(ruleset(players));
    s.set(
        Kilkenny::from_notation(s.rules(), notation).unwrap_or_else(|e| panic!("{notation}: {e}")),
    );
    s
}

fn legal(s: &Session<Kilkenny>) -> Vec<String> {
    let mut moves = Vec::new();
    s.legal(&mut moves);
    moves.iter().map(|m| m.to_string()).collect()
}

const START_2: &str = "14/14/3NNNNNNNN3/14/14/14/14/14/14/14/14/3SSSSSSSS3/14/14 s - sn -------- 0";

#[test]
fn start_positions() {
    let two = Kilkenny::start(&Kilkenny::rules(&ruleset(2)));
    assert_eq!(two.to_string(), START_2);
    let four = Kilkenny::start(&Kilkenny::rules(&ruleset(4)));
    assert_eq!(
        four.to_string(),
        "14/14/3NNNNNNNN3/2W8E2/2W8E2/2W8E2/2W8E2/2W8E2/2W8E2/2W8E2/2W8E2/3SSSSSSSS3/14/14 s - swne -------- 0"
    );
    assert!(two.is_chance());
}

#[test]
fn perft_by_hand_at_depth_one() {
    // South's eight cats on e4..l4, summed over the six rolls. North: 8
    // for every roll. North-east and north-west: 8 while the edge allows
    // (rolls 1-3), then 7, 6, 5. Along the row only e4 (west) and l4 (east)
    // can go, rolls 1-3. South, south-east, south-west: 8 each for rolls 1
    // and 2 (rank 1 holds only North's mice).
    let two = Kilkenny::start(&Kilkenny::rules(&ruleset(2)));
    let mut split = Vec::new();
    let never = std::sync::atomic::AtomicBool::new(false);
    let total = divide(&two, 1, &never, &mut |mv, n| {
        split.push((mv.to_string(), n))
    })
    .unwrap();
    let per_roll: Vec<u64> = split.iter().map(|(_, n)| *n).collect();
    assert_eq!(per_roll, [50, 50, 26, 22, 20, 18]);
    assert_eq!(total, 186);
    // West's cats on d5..d12 block the north-west diagonals: e4 may still
    // land on d5 (a capture) with a 1, f4 reach d6 with a 2, and so on.
    // Per roll 50, 49, 24, 20, 18, 16.
    let three = Kilkenny::start(&Kilkenny::rules(&ruleset(3)));
    assert_eq!(perft(&three, 1), 177);
    // East's cats on m5..m12 do the same to the north-east diagonals.
    let four = Kilkenny::start(&Kilkenny::rules(&ruleset(4)));
    assert_eq!(perft(&four, 1), 168);
}

#[test]
fn rolls_are_moves_and_go_to_the_seat_to_move() {
    let mut s = session(2, START_2);
    assert_eq!(legal(&s), ["r1", "r2", "r3", "r4", "r5", "r6"]);
    s.play_text("r4").unwrap();
    assert!(!s.position().is_chance());
    assert_eq!(s.position().roll(), Some(4));
    assert!(s.play_text("r4").is_err(), "no second roll");
    s.play_text("e4e8").unwrap();
    assert_eq!(s.position().side(), NORTH);
    assert!(s.position().is_chance());
    assert_eq!(s.position().clock(), 1);
    assert!(s.play_text("e13e9").is_err(), "North must roll first");
    for bad in ["r0", "r7", "r", "R44"] {
        assert!(Kilkenny::parse_move(bad).is_err(), "{bad}");
    }
    assert_eq!(Kilkenny::parse_move("R3").unwrap().to_string(), "r3");
    assert_eq!(Kilkenny::parse_move("PASS").unwrap().to_string(), "pass");
}

fn position(name: &str) -> String {
    let table = include_str!("../data/kilkenny_positions.txt");
    table
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}|")))
        .unwrap_or_else(|| panic!("no position {name}"))
        .to_string()
}

#[test]
fn capture_by_landing_and_blocked_paths() {
    // South e4 and e5, North e8: with a 3, e4 cannot go north (e5 is in
    // the way) and e5 captures on e8.
    let mut s = session(2, &position("capture_blocked"));
    let moves = legal(&s);
    assert!(!moves.iter().any(|m| m == "e4e7"));
    assert!(moves.contains(&"e5e8".to_string()));
    s.play_text("e5e8").unwrap();
    assert_eq!(
        s.position().to_string(),
        "14/14/10N3/14/14/14/14/3S2N7/14/14/14/3S10/14/14 n - sn -------- 0"
    );
    assert_eq!(s.position().free_cats(NORTH), 2);
    assert_eq!(s.position().clock(), 0, "a capture resets the clock");
}

#[test]
fn mice_need_the_exact_roll() {
    // h12 is four squares below South's mouse h16.
    let exact = session(2, &position("mouse_exact"));
    assert!(legal(&exact).contains(&"h12h16".to_string()));
    let over = session(2, &position("mouse_overshoot"));
    // With a 5 the cat would overshoot h16: no move north at all.
    let north = ["h12h13", "h12h14", "h12h15", "h12h16"];
    assert!(
        !legal(&over).iter().any(|m| north.contains(&m.as_str())),
        "{:?}",
        legal(&over)
    );
    assert!(legal(&over).contains(&"h12h7".to_string()));
    // e13 reaches h16 diagonally with a 3.
    let mut diagonal = session(2, &position("mouse_diag"));
    assert!(legal(&diagonal).contains(&"e13h16".to_string()));
    diagonal.play_text("e13h16").unwrap();
    assert_eq!(diagonal.position().cats_home(SOUTH), 1);
    assert_eq!(diagonal.position().clock(), 0, "a landing resets the clock");
    // A cat on a mouse never moves again: South's cat on h16 has no move.
    let home = session(2, &position("both_mice"));
    assert!(!legal(&home).iter().any(|m| m.starts_with("h16")));
    assert_eq!(home.position().cats_home(SOUTH), 1);
}

#[test]
fn pass_only_when_nothing_else_is_legal() {
    let s = session(2, &position("forced_pass"));
    assert_eq!(legal(&s), ["pass"]);
    let mut s = s;
    s.play_text("pass").unwrap();
    assert_eq!(s.position().side(), NORTH);
    assert_eq!(s.position().clock(), 1, "a pass counts as a ply");
    // With a roll that allows a move, pass is illegal.
    let mut start = session(2, START_2);
    start.play_text("r1").unwrap();
    assert!(start.play_text("pass").is_err());
}

#[test]
fn a_seat_without_free_cats_is_out_and_skipped() {
    // Three players; West has one free cat (e7) and one on its mouse p8.
    let mut s = session(3, &position("goes_out"));
    assert!(!s.position().is_out(WEST));
    s.play_text("e4e7").unwrap();
    assert!(s.position().is_out(WEST));
    assert_eq!(s.position().side(), NORTH, "West is skipped");
    assert_eq!(s.status(), Status::Ongoing);
    s.play_text("r1").unwrap();
    let mv = legal(&s)[0].clone();
    s.play_text(&mv).unwrap();
    assert_eq!(s.position().side(), SOUTH, "West is skipped again");
    // The seats field never changes.
    assert!(s.position().to_string().contains(" swn "));
}

#[test]
fn the_last_seat_not_out_wins() {
    // North's only free cat is on e7, the other on its mouse h1.
    let mut s = session(2, &position("last_standing"));
    s.play_text("e4e7").unwrap();
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(SOUTH), EndReason::Rules("last-seat"))
    );
    assert!(legal(&s).is_empty());
}

#[test]
fn both_mice_win() {
    let mut s = session(2, &position("both_mice"));
    s.play_text("i12i16").unwrap();
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(SOUTH), EndReason::Rules("mice-reached"))
    );
}

#[test]
fn no_seat_left_is_a_draw() {
    let s = session(2, &position("all_out"));
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::Rules("no-seat"))
    );
}

#[test]
fn two_hundred_plies_without_progress_draw() {
    let mut s = session(2, &position("clock"));
    s.play_text("e4e5").unwrap();
    assert_eq!(s.position().clock(), 200);
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::NoProgress)
    );
    // Rolls do not touch the clock.
    let mut s = session(2, START_2);
    s.play_text("r2").unwrap();
    assert_eq!(s.position().clock(), 0);
}

#[test]
fn repetition_does_not_apply_to_a_dice_game() {
    let mut s = session(2, &position("clock").replace(" 199", " 0"));
    for _ in 0..4 {
        s.play_text("e4e5").unwrap();
        s.play_text("r1").unwrap();
        s.play_text("k12k11").unwrap();
        s.play_text("r1").unwrap();
        s.play_text("e5e4").unwrap();
        s.play_text("r1").unwrap();
        s.play_text("k11k12").unwrap();
        s.play_text("r1").unwrap();
    }
    assert_eq!(s.status(), Status::Ongoing);
}

#[test]
fn notation_round_trips() {
    for line in include_str!("../data/kilkenny_positions.txt").lines() {
        let (_, text) = line.split_once('|').unwrap();
        let players = if text.contains(" swn ") { 3 } else { 2 };
        let p = Kilkenny::from_notation(&Kilkenny::rules(&ruleset(players)), text).unwrap();
        assert_eq!(p.to_string(), text);
    }
}

#[test]
fn malformed_notations_name_the_problem() {
    let two = Kilkenny::rules(&ruleset(2));
    let board = "14/14/3NNNNNNNN3/14/14/14/14/14/14/14/14/3SSSSSSSS3/14/14";
    let bad = |rest: &str| Kilkenny::from_notation(&two, &format!("{board} {rest}")).unwrap_err();
    assert!(matches!(
        bad("s - sw -------- 0"),
        NotationError::BadField { field: "seats", .. }
    ));
    assert!(matches!(
        bad("s - swne -------- 0"),
        NotationError::BadField { field: "seats", .. }
    ));
    assert!(matches!(
        bad("w - sn -------- 0"),
        NotationError::BadField { field: "side", .. }
    ));
    assert!(matches!(
        bad("s 7 sn -------- 0"),
        NotationError::BadField { field: "roll", .. }
    ));
    assert!(matches!(
        bad("s 0 sn -------- 0"),
        NotationError::BadField { field: "roll", .. }
    ));
    assert!(matches!(
        bad("s x sn -------- 0"),
        NotationError::BadField { field: "roll", .. }
    ));
    assert!(matches!(
        bad("s - sn ------- 0"),
        NotationError::BadField { field: "mice", .. }
    ));
    assert!(
        matches!(bad("s - sn N------- 0"), NotationError::Inconsistent(_)),
        "North cat on South's mouse"
    );
    assert!(
        matches!(bad("s - sn ----W--- 0"), NotationError::Inconsistent(_)),
        "West not in play"
    );
    assert!(matches!(bad("s - sn"), NotationError::MissingField("mice")));
    assert!(matches!(bad("s -"), NotationError::MissingField("seats")));
    // A board drawn with the frame: the frame's cats can only be mice.
    let framed = format!("{} s - sn -------- 0", ["16"; 16].join("/"));
    let e = Kilkenny::from_notation(&two, &framed).unwrap_err();
    assert!(e.to_string().contains("frame"), "{e}");
    // Too many cats for a seat.
    let crowded = "14/14/3NNNNNNNN3/14/14/14/14/14/14/14/14/3SSSSSSSS3/14/14 s - sn SS------ 0";
    assert!(matches!(
        Kilkenny::from_notation(&two, crowded).unwrap_err(),
        NotationError::PieceCount { found: 10, .. }
    ));
    assert!(matches!(
        Kilkenny::from_notation(
            &two,
            "14/14/3NNNNNNNN3/14/14/14/14/14/14/14/14/3SSSSQSS3/14/14 s - sn -------- 0"
        )
        .unwrap_err(),
        NotationError::UnknownPiece {
            row: 12,
            letter: 'Q'
        }
    ));
}

/// The evaluation's roll counts (which rolls let an enemy take a cat,
/// which land a cat on a mouse) agree with the move generator: for every
/// seat and roll, the legal moves of that position are the truth.
#[test]
fn threat_and_landing_rolls_agree_with_the_legal_moves() {
    use menagerie_rules::rng::Rng;
    const SIDES: [&str; 4] = ["s", "w", "n", "e"];
    let mut rng = Rng::new(2026);
    let mut checked = 0;
    for players in [2u8, 3, 4] {
        let rules = Kilkenny::rules(&ruleset(players));
        for _game in 0..12 {
            let mut p = Kilkenny::start(&rules);
            let mut moves = Vec::new();
            for _ply in 0..120 {
                if p.outcome().is_some() {
                    break;
                }
                let text = p.to_string();
                let fields: Vec<&str> = text.split(' ').collect();
                // Where each seat's cats could land, by roll.
                let mut lands = [[[false; 6]; 256]; 4];
                let seats: Vec<_> = p
                    .seats()
                    .iter()
                    .copied()
                    .filter(|&s| !p.is_out(s))
                    .collect();
                let positions: Vec<Vec<Kilkenny>> = seats
                    .iter()
                    .map(|&seat| {
                        (1..=6)
                            .map(|roll| {
                                let mut f = fields.clone();
                                let roll = roll.to_string();
                                f[1] = SIDES[seat as usize];
                                f[2] = &roll;
                                Kilkenny::from_notation(&rules, &f.join(" ")).unwrap()
                            })
                            .collect()
                    })
                    .collect();
                for (&seat, by_roll) in seats.iter().zip(&positions) {
                    for (k, q) in by_roll.iter().enumerate() {
                        moves.clear();
                        q.generate(&mut moves);
                        for mv in &moves {
                            if let KcMove::Step { to, .. } = *mv {
                                lands[seat as usize][to as usize][k] = true;
                            }
                        }
                    }
                }
                for &seat in &seats {
                    let rolls = |hit: &dyn Fn(usize) -> bool| {
                        (0..6).filter(|&k| hit(k)).fold(0u8, |r, k| r | 1 << k)
                    };
                    for s in p.cats_of(seat) {
                        let by_enemy = rolls(&|k| {
                            seats
                                .iter()
                                .any(|&e| e != seat && lands[e as usize][s as usize][k])
                        });
                        assert_eq!(p.threat_rolls(s, seat), by_enemy, "{p}, cat on {s}");
                        checked += 1;
                    }
                    let home = rolls(&|k| {
                        MICE_OF[seat as usize]
                            .iter()
                            .any(|&m| lands[seat as usize][m as usize][k])
                    });
                    assert_eq!(p.landing_rolls(seat), home, "{p}, seat {seat}");
                }
                moves.clear();
                p.generate(&mut moves);
                let mv = moves[rng.below(moves.len() as u64) as usize];
                p.play(mv);
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// Each seat's mice as square indices ((rank - 1) * 16 + file), in seat
/// order S, W, N, E.
const MICE_OF: [[u8; 2]; 4] = [
    [15 * 16 + 7, 15 * 16 + 8],
    [7 * 16 + 15, 8 * 16 + 15],
    [7, 8],
    [7 * 16, 8 * 16],
];
