//! Awithlaknannai Mosona rules (RULES.md section 2) through the library.

use menagerie_rules::game::perft::perft;
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{EndReason, Game, Outcome, Ruleset, Status};
use menagerie_rules::games::awithlaknannai::{Awithlaknannai as Aw, BLACK, WHITE};
use menagerie_rules::notation::NotationError;

fn rules(words: &[&str]) -> <Aw as Game>::Rules {
    Aw::rules(&Ruleset::parse(Aw::OPTIONS, words).unwrap())
}

fn session(words: &[&str], notation: &str) -> Session<Aw> {
    let mut s = Session::new(Ruleset::parse(Aw::OPTIONS, words).unwrap());
    s.set(Aw::from_notation(s.rules(), notation).unwrap());
    s
}

fn legal(words: &[&str], notation: &str) -> Vec<String> {
    let p = Aw::from_notation(&rules(words), notation).unwrap();
    let mut moves = Vec::new();
    p.generate(&mut moves);
    moves.iter().map(|m| m.to_string()).collect()
}

const START: &str = "BBBBBBBB/BBBB1WWWW/WWWWWWWW w 0";

#[test]
fn perft_by_hand_from_the_start() {
    // Only i2 is empty. White's leaps must land there: f1 over g2 is a
    // bent leap (f1-g2 diagonal, g2-i2 middle row, f1 not next to i2);
    // h3 and j3 have no white piece behind them off i2's neighbours.
    // Capture is compulsory, so the three steps into i2 are not allowed.
    let start = Aw::start(&rules(&[]));
    assert_eq!(legal(&[], START), ["f1g2i2"]);
    assert_eq!(perft(&start, 1), 1);
    // Black answers j3 over i2 to g2, or c2 over d1 to f1 (d1-f1 is a line
    // of the lined board); neither chain can go on.
    assert_eq!(perft(&start, 2), 2);
    // After j3i2g2 White's only leap is m2 over l3 to j3; after c2d1f1 it
    // is h1 over f1 to d1, which must go on over e2 to g2.
    assert_eq!(perft(&start, 3), 2);

    // Straight leaps: no white leap reaches i2, so the three steps.
    let straight = Aw::start(&rules(&["leap=straight"]));
    assert_eq!(perft(&straight, 1), 3);
    // k2i2: g2i2k2. h1i2: j3i2h1. j1i2: h3i2j1 or l3k2j1. Total 4.
    assert_eq!(perft(&straight, 2), 4);

    // Plain board: f1g2i2 again; Black's c2d1f1 needs the bottom-row line,
    // so only j3i2g2 remains.
    let plain = Aw::start(&rules(&["board=plain"]));
    assert_eq!(perft(&plain, 1), 1);
    assert_eq!(perft(&plain, 2), 1);
}

#[test]
fn bent_leaps_follow_the_board_and_the_option() {
    // White i2, Black j1: i2 over j1 to l1 turns along the bottom row.
    let position = "8/4W4/4B3 w 0";
    assert_eq!(legal(&[], position), ["i2j1l1"]);
    // Straight leaps only: no leap, so steps (j1 blocks one neighbour).
    let steps = legal(&["leap=straight"], position);
    assert_eq!(steps.len(), 5);
    assert!(steps.iter().all(|m| m.len() == 4));
    // Plain board: j1-l1 is not a line, so no leap either.
    assert_eq!(legal(&["board=plain"], position).len(), 5);
}

#[test]
fn a_chain_of_three_leaps_is_one_move_and_can_win() {
    let mut s = session(&["leap=straight"], "8/WB1B1B3/8 w 0");
    let mut moves = Vec::new();
    s.legal(&mut moves);
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].to_string(), "a2c2e2g2i2k2m2");
    assert_eq!(moves[0].captures(), 3);
    s.play_text("a2c2e2g2i2k2m2").unwrap();
    assert_eq!(s.position().to_string(), "8/6W2/8 b 0");
    // All black pieces captured: White wins.
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(WHITE), EndReason::Rules("all-captured"))
    );
}

#[test]
fn branching_chains_are_distinct_moves_and_need_not_be_longest() {
    let mut moves = legal(&[], "8/WB1B1B3/8 w 0");
    moves.sort();
    assert_eq!(
        moves,
        [
            "a2c2d1",
            "a2c2d3",
            "a2c2e2g2h1",
            "a2c2e2g2h3",
            "a2c2e2g2i2k2l1",
            "a2c2e2g2i2k2l3",
            "a2c2e2g2i2k2m2",
        ]
    );
    // A chain that stops early is still complete: from d3 no leap remains.
    let mut s = session(&[], "8/WB1B1B3/8 w 0");
    s.play_text("a2c2d3").unwrap();
    assert_eq!(s.position().to_string(), "1W6/3B1B3/8 b 0");
    // Stopping a chain that could go on is illegal.
    let mut s = session(&[], "8/WB1B1B3/8 w 0");
    assert!(s.play_text("a2c2e2").is_err());
}

#[test]
fn a_chain_is_numbered_leap_by_leap_and_its_leaps_spell_it() {
    // White's lone man with 3,277 chains, 664 of them between the same
    // two points: numbered by their ends they would collide, leap by leap
    // they do not (OpenSpiel's actions, `Game::move_actions`).
    let moves = legal(&[], "1BB1BB1B/1B1BB2B1/2BWB3 w 0");
    let p = Aw::from_notation(&rules(&[]), "1BB1BB1B/1B1BB2B1/2BWB3 w 0").unwrap();
    let mut generated = Vec::new();
    p.generate(&mut generated);
    let mut sequences = std::collections::HashSet::new();
    for mv in generated {
        let mut actions = Vec::new();
        Aw::move_actions(mv, &mut actions);
        assert!(actions.iter().all(|&a| a < Aw::ACTIONS), "{mv}");
        // Each leap is written as its three points; joined where one
        // lands and the next starts, they give the chain's notation.
        let leaps: Vec<String> = actions
            .iter()
            .map(|&a| Aw::action_text(a).expect("a leap"))
            .collect();
        let mut spelled = leaps[0].clone();
        for leap in &leaps[1..] {
            assert_eq!(spelled[spelled.len() - 2..], leap[..2], "{mv}");
            spelled.push_str(&leap[2..]);
        }
        assert_eq!(spelled, mv.to_string());
        assert_eq!(actions.len(), mv.captures());
        assert!(sequences.insert(actions));
    }
    assert_eq!(sequences.len(), moves.len());
    // A step is one action, written by the move itself.
    let steps = legal(&[], "W7/9/7B w 0");
    assert!(!steps.is_empty());
    for step in steps {
        let mut actions = Vec::new();
        Aw::move_actions(Aw::parse_move(&step).unwrap(), &mut actions);
        assert_eq!(actions.len(), 1);
        assert_eq!(Aw::action_text(actions[0]), None);
    }
    assert_eq!(Aw::action_text(Aw::ACTIONS), None);
}

#[test]
fn a_chain_may_land_on_its_start() {
    // White b3, Black c2 and d3 (and p1). The start is empty as soon as
    // the piece leaves, so b3 over c2 to e2 may go on over d3 back to b3.
    let mut moves = legal(&[], "WB6/1B7/7B w 0");
    moves.sort();
    assert_eq!(
        moves,
        [
            "b3c2b1",
            "b3c2d1",
            "b3c2e2d3b3",
            "b3d3e2c2a2",
            "b3d3e2c2b1",
            "b3d3e2c2b3",
            "b3d3f3"
        ]
    );
    let mut s = session(&[], "WB6/1B7/7B w 0");
    s.play_text("b3c2e2d3b3").unwrap();
    assert_eq!(s.position().to_string(), "W7/9/7B b 0");
    s.undo();
    assert_eq!(s.position().to_string(), "WB6/1B7/7B w 0");
}

#[test]
fn capture_is_compulsory() {
    // Steps exist at the start, but the leap must be played.
    let mut s = session(&[], START);
    assert!(s.play_text("k2i2").is_err());
    assert!(s.position().must_capture());
    s.play_text("f1g2i2").unwrap();
    assert_eq!(s.position().clock(), 0);
}

#[test]
fn a_player_without_moves_loses() {
    // White a2 is hemmed in by b3 c2 b1, and every landing beyond them
    // (d3, e2, d1) is taken.
    let s = session(&[], "BB6/WBB6/BB6 w 5");
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(BLACK), EndReason::Rules("no-move"))
    );
    let mut moves = Vec::new();
    s.legal(&mut moves);
    assert!(moves.is_empty());
}

#[test]
fn fifty_plies_without_capture_end_the_game_by_the_ending_option() {
    // White has two pieces, Black one; 49 plies without a capture.
    let position = "B7/9/W1W5 w 49";
    let mut draw = session(&[], position);
    draw.play_text("b1a2").unwrap();
    assert_eq!(draw.position().clock(), 50);
    assert_eq!(
        draw.status(),
        Status::Over(Outcome::Draw, EndReason::NoProgress)
    );

    let mut count = session(&["ending=count"], position);
    count.play_text("b1a2").unwrap();
    assert_eq!(
        count.status(),
        Status::Over(Outcome::Win(WHITE), EndReason::NoProgress)
    );

    // Equal numbers: a draw under ending=count too.
    let mut even = session(&["ending=count"], "B7/9/W7 w 49");
    even.play_text("b1a2").unwrap();
    assert_eq!(
        even.status(),
        Status::Over(Outcome::Draw, EndReason::NoProgress)
    );

    // A capture resets the clock.
    let mut capture = session(&["ending=count"], "8/WB1B1B3/8 w 49");
    capture.play_text("a2c2d3").unwrap();
    assert_eq!(capture.position().clock(), 0);
    assert_eq!(capture.status(), Status::Ongoing);
}

#[test]
fn threefold_repetition_draws() {
    // White p1 and Black b3 walk back and forth, far apart.
    let mut s = session(&[], "B7/9/7W w 0");
    for (i, mv) in ["p1q2", "b3a2", "q2p1", "a2b3"]
        .iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        assert_eq!(s.status(), Status::Ongoing, "before ply {i}");
        s.play_text(mv).unwrap();
    }
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::Repetition)
    );
}

#[test]
fn notation_round_trips_and_errors_name_the_field() {
    for text in [
        START,
        "8/WB1B1B3/8 w 0",
        "B1B1B3/1W1B1W3/1B5W b 7",
        "8/9/8 b 0",
    ] {
        let p = Aw::from_notation(&rules(&[]), text).unwrap();
        assert_eq!(p.to_string(), text);
    }
    assert_eq!(
        Aw::from_notation(&rules(&[]), "BBBBBBBB/BBBB1WWWW/WWWWWWWW W")
            .unwrap()
            .to_string(),
        START
    );
    let r = rules(&[]);
    let cases: &[(&str, NotationError)] = &[
        ("", NotationError::Empty),
        ("8/9/8", NotationError::MissingField("side")),
        (
            "8/9 w",
            NotationError::RowCount {
                expected: 3,
                found: 2,
            },
        ),
        (
            "8/10/8 w",
            NotationError::RowLength {
                row: 2,
                expected: 9,
                found: 10,
            },
        ),
        (
            "7/9/8 w",
            NotationError::RowLength {
                row: 1,
                expected: 8,
                found: 7,
            },
        ),
        (
            "8/4X4/8 w",
            NotationError::UnknownPiece {
                row: 2,
                letter: 'X',
            },
        ),
        (
            "8/4w4/8 w",
            NotationError::UnknownPiece {
                row: 2,
                letter: 'w',
            },
        ),
        (
            "8/9/8 r",
            NotationError::BadField {
                field: "side",
                text: "r".into(),
                expected: "w or b",
            },
        ),
        ("8/9/8 w 0 0", NotationError::ExtraField("0".into())),
        (
            "WWWWWWWW/WWWWWWWWW/8 w",
            NotationError::PieceCount {
                piece: "white pieces",
                found: 17,
                expected: "at most 12",
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(
            Aw::from_notation(&r, text).unwrap_err(),
            *expected,
            "{text}"
        );
    }
}

#[test]
fn moves_parse_with_clear_errors() {
    for good in ["k2i2", "m2k2i2", "b3c2e2f3h3", "K2I2"] {
        assert!(Aw::parse_move(good).is_ok(), "{good}");
    }
    assert_eq!(Aw::parse_move("B3C2E2").unwrap().to_string(), "b3c2e2");
    for bad in ["", "k2", "a1a2", "b2c2", "k2i2g2h3", "@k2", "k2-i2", "r4"] {
        assert!(Aw::parse_move(bad).is_err(), "{bad}");
    }
}
