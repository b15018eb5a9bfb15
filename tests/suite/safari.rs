//! Safari-Dual rules (RULES.md section 3) through the library.

use menagerie_rules::game::perft::perft;
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{EndReason, Game, Outcome, Ruleset, Status};
use menagerie_rules::games::safari::{Safari, ANGULAR, ROUND};
use menagerie_rules::notation::NotationError;

fn session(notation: &str) -> Session<Safari> {
    let mut s = Session::new(Ruleset::defaults(Safari::OPTIONS));
    s.set(Safari::from_notation(&(), notation).unwrap_or_else(|e| panic!("{notation}: {e}")));
    s
}

fn legal(notation: &str) -> Vec<String> {
    let mut moves = Vec::new();
    session(notation).legal(&mut moves);
    let mut moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    moves.sort();
    moves
}

/// Plays `mv` and returns the resulting notation and status.
fn after(notation: &str, mv: &str) -> (String, Status) {
    let mut s = session(notation);
    s.play_text(mv)
        .unwrap_or_else(|e| panic!("{mv} in {notation}: {e}"));
    (s.position().to_string(), s.status())
}

const ONGOING: Status = Status::Ongoing;
const ROUND_TAKES_THE_LION: Status =
    Status::Over(Outcome::Win(ROUND), EndReason::Rules("lion-captured"));

#[test]
fn perft_by_hand_from_the_start() {
    let start = Safari::start(&());
    assert_eq!(start.to_string(), "2gel/3ge/E3g/GE3/LGE2 r 0");
    // The lion on a1 is boxed in by its own pieces. Giraffe a2 -> b3,
    // giraffe b1 -> c2, elephants a3 -> a4 b3 b4, b2 -> b3 c2 c3,
    // c1 -> c2 d1 d2: 11 moves.
    assert_eq!(legal("2gel/3ge/E3g/GE3/LGE2 r 0").len(), 11);
    assert_eq!(perft(&start, 1), 11);
    // Angular has the mirror 11, minus one after each Round move that takes
    // one of its target squares (to b4, c3 or d2); nothing is captured.
    assert_eq!(perft(&start, 2), 11 * 11 - 3);
}

#[test]
fn several_enemy_pieces_between_a_pair_are_captured_together() {
    // Round elephant a2 -> a3: b3 g, c3 l, d3 g, then Round elephant e3.
    let (notation, status) = after("5/5/1glgE/E4/L1GG1 r 0", "a2a3");
    assert_eq!(notation, "5/5/E3E/5/L1GG1 a 0");
    assert_eq!(
        status, ROUND_TAKES_THE_LION,
        "the Angular lion was among them"
    );
}

#[test]
fn an_enemy_elephant_closes_the_sandwich_and_is_spared() {
    // Round elephant, Angular giraffe, Angular lion, Angular elephant.
    let (notation, status) = after("5/5/1gle1/E4/L1GG1 r 0", "a2a3");
    assert_eq!(notation, "5/5/E2e1/5/L1GG1 a 0");
    assert_eq!(status, ROUND_TAKES_THE_LION);
}

#[test]
fn the_lion_pairs_with_its_own_elephants_and_giraffes() {
    // Round lion c2 -> c3: d3 e, then Round giraffe e3.
    let (notation, _) = after("4l/5/3eG/2L2/1EG2 r 0", "c2c3");
    assert_eq!(notation, "4l/5/2L1G/5/1EG2 a 0");
    // The giraffe moving instead, with the lion at the far end.
    let (notation, _) = after("4l/5/3eG/2L2/1EG2 r 0", "e3e4");
    assert_eq!(notation, "4l/4G/5/2L2/1EG2 a 0");
    // An Angular lion moving with its own elephant beyond a Round piece.
    let (notation, _) = after("4l/5/E1E2/1e3/L2G1 a 0", "e5d4");
    assert_eq!(notation, "5/3l1/E4/1e3/L2G1 r 0");
}

#[test]
fn mixed_and_lion_pairs_do_not_capture() {
    // Own elephant and own giraffe never pair.
    let (notation, _) = after("4l/5/1gG2/E4/L1E2 r 0", "a2a3");
    assert_eq!(notation, "4l/5/EgG2/5/L1E2 a 1");
    // Two lions never pair: the Angular lion is passed like any enemy and
    // the walk runs off the board.
    let (notation, _) = after("5/5/3el/2L2/1EG2 r 0", "c2c3");
    assert_eq!(notation, "5/5/2Lel/5/1EG2 a 1");
    // Own elephant, nothing between, own elephant: nothing to capture.
    let (notation, _) = after("4l/5/2E2/E4/L1G2 r 0", "a2b3");
    assert_eq!(notation, "4l/5/1EE2/5/L1G2 a 1");
}

#[test]
fn captures_in_several_directions_happen_together() {
    let (notation, status) = after("4l/5/Eg1gE/2E2/L4 r 0", "c2c3");
    assert_eq!(notation, "4l/5/E1E1E/5/L4 a 0");
    assert_eq!(status, ONGOING);
}

#[test]
fn moving_between_two_enemies_is_safe() {
    // Angular has three helpers left, so its lion is free to stay home.
    let (notation, _) = after("3gl/4g/E1E2/1e3/L2G1 a 0", "b2b3");
    assert_eq!(notation, "3gl/4g/EeE2/5/L2G1 r 1");
}

#[test]
fn the_lion_must_leave_its_base_after_three_losses() {
    // Round has lost three of its five elephants and giraffes.
    assert_eq!(legal("4l/5/5/1E3/L1G2 r 0"), ["a1a2", "a1b1"]);
    assert!(session("4l/5/5/1E3/L1G2 r 0").position().lion_must_leave());
    // Two losses: no obligation.
    assert!(legal("4l/5/5/GE3/L1G2 r 0").len() > 2);
    // The lion cannot leave (a2 b1 own, b2 enemy): any legal move.
    assert_eq!(
        legal("4l/5/5/Ge3/LE3 r 0"),
        ["a2a3", "a2b3", "b1c1", "b1c2"]
    );
}

#[test]
fn a_lion_that_left_closes_its_base_except_to_take_the_enemy_lion() {
    // Round lion on c3. Elephant b2 -> a1 takes the Angular lion on a2
    // (against elephant a3): allowed, and wins. Giraffe b1 -> a1 would not
    // capture (giraffe and elephant do not pair): banned.
    let moves = legal("5/4e/E1L2/lE3/1G3 r 0");
    assert!(moves.contains(&"b2a1".to_string()));
    assert!(!moves.contains(&"b1a1".to_string()));
    assert_eq!(
        after("5/4e/E1L2/lE3/1G3 r 0", "b2a1").1,
        ROUND_TAKES_THE_LION
    );
    // The lion itself may not come back either.
    let moves = legal("4l/5/5/1L3/2E2 r 0");
    assert!(!moves.contains(&"b2a1".to_string()));
    // Angular: lion on c5, elephant e4 may not enter e5.
    let moves = legal("2l2/4e/5/1L3/5 a 0");
    assert!(!moves.contains(&"e4e5".to_string()));
}

#[test]
fn a_lion_on_the_enemy_base_wins() {
    let (notation, status) = after("2l2/3L1/5/5/5 r 0", "d4e5");
    assert_eq!(notation, "2l1L/5/5/5/5 a 1");
    assert_eq!(
        status,
        Status::Over(Outcome::Win(ROUND), EndReason::Rules("base-reached"))
    );
    assert!(legal(&notation).is_empty());
}

#[test]
fn a_player_without_moves_loses() {
    let s = session("4l/5/5/ge3/Lg3 r 0");
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(ANGULAR), EndReason::Rules("no-move"))
    );
}

#[test]
fn hundred_plies_without_capture_draw() {
    let mut s = session("4l/5/5/5/L4 r 99");
    s.play_text("a1a2").unwrap();
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::NoProgress)
    );
    // A capture on the hundredth ply resets the clock.
    let (notation, status) = after("4l/5/Eg1gE/2E2/L4 r 99", "c2c3");
    assert!(notation.ends_with(" 0"));
    assert_eq!(status, ONGOING);
}

#[test]
fn threefold_repetition_draws() {
    let mut s = session("3l1/5/5/1L3/5 r 0");
    for (i, mv) in ["b2c2", "d5c5", "c2b2", "c5d5"]
        .iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        assert_eq!(s.status(), ONGOING, "before ply {i}");
        s.play_text(mv).unwrap();
    }
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::Repetition)
    );
}

#[test]
fn notation_round_trips() {
    for text in [
        "2gel/3ge/E3g/GE3/LGE2 r 0",
        "1g1el/1E1ge/2G1g/GE1E1/L4 a 17",
        "5/5/E3E/5/L1GG1 a 0",
    ] {
        assert_eq!(Safari::from_notation(&(), text).unwrap().to_string(), text);
    }
    assert_eq!(
        Safari::from_notation(&(), "2gel/3ge/E3g/GE3/LGE2 R")
            .unwrap()
            .to_string(),
        "2gel/3ge/E3g/GE3/LGE2 r 0"
    );
}

#[test]
fn malformed_notations_name_the_problem() {
    let cases: &[(&str, NotationError)] = &[
        ("", NotationError::Empty),
        ("5/5/5/5/L3l", NotationError::MissingField("side")),
        (
            "5/5/5/5 r",
            NotationError::RowCount {
                expected: 5,
                found: 4,
            },
        ),
        (
            "5/5/5/6/L3l r",
            NotationError::RowLength {
                row: 4,
                expected: 5,
                found: 6,
            },
        ),
        (
            "5/5/5/5/L2Xl r",
            NotationError::UnknownPiece {
                row: 5,
                letter: 'X',
            },
        ),
        (
            "5/5/5/5/L3l x",
            NotationError::BadField {
                field: "side",
                text: "x".into(),
                expected: "r or a",
            },
        ),
        (
            "L4/5/5/5/L3l r",
            NotationError::PieceCount {
                piece: "Round lions",
                found: 2,
                expected: "at most 1",
            },
        ),
        (
            "EEEE1/5/5/5/L3l r",
            NotationError::PieceCount {
                piece: "Round elephants",
                found: 4,
                expected: "at most 3",
            },
        ),
        (
            "eee2/5/5/5/L3l r",
            NotationError::PieceCount {
                piece: "Angular elephants",
                found: 3,
                expected: "at most 2",
            },
        ),
        (
            "5/5/5/5/E3e r",
            NotationError::Inconsistent("both lions are missing"),
        ),
        (
            "4L/5/5/5/l4 r",
            NotationError::Inconsistent("both lions stand on the enemy base"),
        ),
        ("5/5/5/5/L3l r 0 1", NotationError::ExtraField("1".into())),
    ];
    for (text, expected) in cases {
        assert_eq!(
            Safari::from_notation(&(), text).unwrap_err(),
            *expected,
            "{text}"
        );
    }
}

#[test]
fn moves_parse_with_clear_errors() {
    assert_eq!(Safari::parse_move("A2B3").unwrap().to_string(), "a2b3");
    for bad in ["", "a2", "a2b3c4", "a0a1", "f1f2", "a6a5", "@a2"] {
        assert!(Safari::parse_move(bad).is_err(), "{bad}");
    }
}
