//! Hat Diviyan Keliya rules (RULES.md section 1) through the library.

use menagerie_rules::game::perft::perft;
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{EndReason, Game, Outcome, Ruleset, Status};
use menagerie_rules::games::hdk::{Hdk, HdkRules, LEOPARD, TIGER};
use menagerie_rules::notation::NotationError;

const SMALL: HdkRules = HdkRules {
    large: false,
    apex: false,
};
const LARGE: HdkRules = HdkRules {
    large: true,
    apex: false,
};

fn pos(rules: HdkRules, text: &str) -> Hdk {
    Hdk::from_notation(&rules, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(position: &Hdk) -> Vec<String> {
    let mut moves = Vec::new();
    position.generate(&mut moves);
    moves.iter().map(|m| m.to_string()).collect()
}

fn play(position: &mut Hdk, mv: &str) {
    position
        .play_text(mv)
        .unwrap_or_else(|e| panic!("{mv}: {e}"));
}

fn session(words: &[&str]) -> Session<Hdk> {
    Session::new(Ruleset::parse(Hdk::OPTIONS, words).unwrap())
}

#[test]
fn perft_by_hand_small_board() {
    // Edges: three lines of four points (3 edges each) and three of three
    // (2 each) make 15 edges, so the degrees sum to 30. Directed straight
    // triples: 2 per direction on a four-point line, 1 on a three-point
    // line: 2*(3*2 + 3*1) = 18.
    let start = Hdk::start(&SMALL);
    // Depth 1: the tiger drops on any of the 10 points.
    assert_eq!(perft(&start, 1), 10);
    // Depth 2: a leopard drops on any of the 9 others.
    assert_eq!(perft(&start, 2), 90);
    // Depth 3: tiger on T, one leopard on L. Moves = deg(T) steps, minus 1
    // if L is adjacent, plus 1 per triple T-L-x (x is always vacant).
    // Summed over the 9 leopard points: 8*deg(T) + triples(T); over all T:
    // 8*30 + 18 = 258.
    assert_eq!(perft(&start, 3), 258);

    let apex = Hdk::start(&HdkRules {
        large: false,
        apex: true,
    });
    // Leopards drop on 9 points; the tiger on b1 (degree 3) then has 3
    // moves whatever the leopard does (a blocked step becomes a jump).
    assert_eq!(perft(&apex, 1), 9);
    assert_eq!(perft(&apex, 2), 27);
    // After each of the 27: a jump (3 of them) leaves 9 vacant points for
    // the next drop, a step (24) leaves 8: 3*9 + 24*8 = 219.
    assert_eq!(perft(&apex, 3), 219);
}

#[test]
fn perft_by_hand_large_board() {
    let start = Hdk::start(&LARGE);
    // 13 points; the tiger player drops both tigers before moving, so the
    // first four plies are drops on 13, 12, 11 and 10 vacant points.
    assert_eq!(perft(&start, 1), 13);
    assert_eq!(perft(&start, 2), 13 * 12);
    assert_eq!(perft(&start, 3), 13 * 12 * 11);
    assert_eq!(perft(&start, 4), 13 * 12 * 11 * 10);

    let apex = Hdk::start(&HdkRules {
        large: true,
        apex: true,
    });
    // Tigers b1 and b2; the leopard drops on one of 11 points. With no
    // leopard nearby: b1 steps a2 c2, b2 steps a2 c2 b3 = 5 moves.
    // Leopard on a2 (or c2): both lose that step, b1 gains the jump over
    // it = 4. On b3: b2 loses the step and gains the jump b2b3b4 = 5.
    // Total 4 + 4 + 5 + 8*5 = 53.
    assert_eq!(perft(&apex, 1), 11);
    assert_eq!(perft(&apex, 2), 53);
}

#[test]
fn start_positions_match_the_rules() {
    let small = session(&[]);
    assert_eq!(small.position().to_string(), "1/3/3/3 t 1 7 0");
    assert_eq!(
        session(&["start=apex"]).position().to_string(),
        "T/3/3/3 l 0 7 0"
    );
    assert_eq!(
        session(&["board=large"]).position().to_string(),
        "1/3/3/3/3 t 2 8 0"
    );
    assert_eq!(
        session(&["board=large", "start=apex"])
            .position()
            .to_string(),
        "T/1T1/3/3/3 l 0 8 0"
    );
}

#[test]
fn drop_phase_tiger_first_then_only_drops_while_leopards_remain_in_hand() {
    let mut p = Hdk::start(&SMALL);
    assert!(legal(&p).iter().all(|m| m.starts_with('@')));
    play(&mut p, "@b1");
    play(&mut p, "@a2");
    // The tiger has dropped: steps and jumps only.
    assert_eq!(legal(&p), ["b1b2", "b1c2", "b1a2a3"]);
    play(&mut p, "b1b2");
    // Leopard a2 could step, but leopards still in hand must be dropped.
    let moves = legal(&p);
    assert_eq!(moves.len(), 8);
    assert!(moves.iter().all(|m| m.starts_with('@')));
    assert!(p.play_text("a2a3").is_err());
}

#[test]
fn leopards_step_once_all_are_dropped() {
    let p = pos(SMALL, "T/LLL/1L1/L1L l 0 1 2");
    assert!(legal(&p).iter().all(|m| m.starts_with('@')));
    let p = pos(SMALL, "T/LLL/1L1/LLL l 0 0 2");
    // Leopards never jump: only steps to the two vacant points.
    let moves = legal(&p);
    assert!(!moves.is_empty());
    assert!(
        moves.iter().all(|m| m.len() == 4 && !m.starts_with('@')),
        "{moves:?}"
    );
}

#[test]
fn large_board_tigers_drop_both_before_moving() {
    let mut p = Hdk::start(&LARGE);
    play(&mut p, "@b1");
    play(&mut p, "@c5");
    assert!(
        legal(&p).iter().all(|m| m.starts_with('@')),
        "second tiger must be dropped"
    );
    play(&mut p, "@b5");
    play(&mut p, "@a2");
    assert!(legal(&p).iter().all(|m| !m.starts_with('@')));
}

#[test]
fn jumps_follow_straight_lines_and_remove_the_leopard() {
    let mut p = pos(SMALL, "1/TL1/3/3 t 0 6 4");
    // a2 over b2 to c2 is a row jump; over b2 to b3 would not be straight.
    assert!(legal(&p).contains(&"a2b2c2".to_string()));
    assert!(p.play_text("a2b2b3").is_err());
    play(&mut p, "a2b2c2");
    assert_eq!(p.to_string(), "1/2T/3/3 l 0 6 0");
    assert_eq!(p.captured(), 1);
    assert_eq!(p.clock(), 0, "a capture resets the clock");
}

#[test]
fn capturing_is_never_compulsory() {
    let p = pos(SMALL, "1/TL1/3/3 t 0 6 4");
    let moves = legal(&p);
    assert!(moves.contains(&"a2b2c2".to_string()));
    assert!(moves.contains(&"a2a3".to_string()));
}

#[test]
fn fourth_capture_wins_for_the_tiger() {
    let mut s = session(&[]);
    s.set(pos(SMALL, "1/1L1/LTL/1L1 t 0 0 5"));
    assert_eq!(s.status(), Status::Ongoing);
    s.play_text("b3b2b1").unwrap();
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(TIGER), EndReason::Rules("leopards-captured"))
    );
    // The side passes on even though the game is over.
    assert_eq!(s.position().to_string(), "T/3/L1L/1L1 l 0 0 0");
    let mut moves = Vec::new();
    s.legal(&mut moves);
    assert!(moves.is_empty());
}

#[test]
fn third_capture_wins_on_the_large_board() {
    let mut s = session(&["board=large"]);
    s.set(pos(LARGE, "T/LT1/3/3/LLL t 0 2 0"));
    // Two captured (8 - 4 on board - 2 in hand); b1 jumps a2 to a3.
    s.play_text("b1a2a3").unwrap();
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(TIGER), EndReason::Rules("leopards-captured"))
    );
}

#[test]
fn trapped_tiger_loses() {
    let mut s = session(&[]);
    // Tiger on a4: neighbours a3 and b4, jumps over them to a2 and c4.
    // Leopards a2 a3 b3 c4 (three captured); b3 steps to b4 and shuts it in.
    s.set(pos(SMALL, "1/L2/LL1/T1L l 0 0 5"));
    assert_eq!(s.status(), Status::Ongoing);
    s.play_text("b3b4").unwrap();
    assert_eq!(s.position().to_string(), "1/L2/L2/TLL t 0 0 6");
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(LEOPARD), EndReason::Rules("tiger-trapped"))
    );
    // The same trap made by a drop.
    s.set(pos(SMALL, "1/L2/L2/T1L l 0 1 2"));
    s.play_text("@b4").unwrap();
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(LEOPARD), EndReason::Rules("tiger-trapped"))
    );
    // One gap is enough for the tiger: a2 empty leaves the jump a4a3a2.
    s.set(pos(SMALL, "L/3/L2/TLL t 0 0 0"));
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(legal(s.position()), ["a4a3a2"]);
}

#[test]
fn large_board_leopards_win_only_when_no_tiger_can_move() {
    // The tiger on a5 is shut in (a4, b5 and the points beyond them are
    // taken); the tiger on b1 can still move, so the game goes on.
    let p = pos(LARGE, "T/L2/L2/LL1/TLL t 0 1 0");
    assert!(p.outcome().is_none());
    assert!(
        legal(&p).iter().all(|m| m.starts_with("b1")),
        "{:?}",
        legal(&p)
    );
}

#[test]
fn leopards_without_a_move_lose_but_the_boards_never_allow_it() {
    // RULES.md: leopards with no legal move on their turn lose. While a
    // leopard is in hand a drop is always possible; with all dropped and
    // fewer than the winning captures made, no placement on either board
    // leaves the leopards without a step. Check every placement.
    for rules in [SMALL, LARGE] {
        let (points, tigers, leopards, win) = if rules.large {
            (13u32, 2, 8, 3)
        } else {
            (10, 1, 7, 4)
        };
        let mut checked = 0;
        for code in 0..3u32.pow(points) {
            let mut cells = Vec::with_capacity(points as usize);
            let mut rest = code;
            for _ in 0..points {
                cells.push(['.', 'T', 'L'][(rest % 3) as usize]);
                rest /= 3;
            }
            let t = cells.iter().filter(|&&c| c == 'T').count();
            let l = cells.iter().filter(|&&c| c == 'L').count();
            if t != tigers || l > leopards || leopards - l >= win {
                continue;
            }
            let p = pos(rules, &notation_of(&cells, 'l'));
            checked += 1;
            assert_eq!(p.outcome(), None, "leopards stuck in {p}");
        }
        assert!(checked > 1000, "enumerated only {checked}");
    }
}

fn notation_of(cells: &[char], side: char) -> String {
    let mut rows: Vec<String> = vec![cells[0].to_string()];
    rows.extend(cells[1..].chunks(3).map(|r| r.iter().collect::<String>()));
    let board: Vec<String> = rows
        .iter()
        .map(|row| {
            let mut out = String::new();
            let mut run = 0;
            for c in row.chars() {
                if c == '.' {
                    run += 1;
                    continue;
                }
                if run > 0 {
                    out.push_str(&run.to_string());
                    run = 0;
                }
                out.push(c);
            }
            if run > 0 {
                out.push_str(&run.to_string());
            }
            out
        })
        .collect();
    format!("{} {side} 0 0 0", board.join("/"))
}

#[test]
fn drops_and_captures_reset_the_clock_and_steps_advance_it() {
    let mut p = pos(SMALL, "T/3/3/3 l 0 7 40");
    play(&mut p, "@b2");
    assert_eq!(p.clock(), 0);
    play(&mut p, "b1a2");
    assert_eq!(p.clock(), 1);
}

#[test]
fn no_progress_limit_draws_unless_a_decisive_result_holds() {
    let mut s = session(&[]);
    // Leopards b1 a2 a3 c4 (three captured), tiger a4 free via b4.
    s.set(pos(SMALL, "L/L2/L2/T1L l 0 0 99"));
    s.play_text("b1b2").unwrap();
    assert_eq!(s.position().clock(), 100);
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::NoProgress)
    );
    let mut moves = Vec::new();
    s.legal(&mut moves);
    assert!(moves.is_empty(), "legal lists nothing at a drawn position");
    // perft ignores the draw rules.
    assert_eq!(perft(s.position(), 1), 1);

    // A step that traps the tiger on the 100th ply: the win stands.
    s.set(pos(SMALL, "L/L2/LL1/T1L l 0 0 99"));
    s.play_text("b3b4").unwrap();
    assert_eq!(s.position().clock(), 100);
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Win(LEOPARD), EndReason::Rules("tiger-trapped"))
    );
}

#[test]
fn threefold_repetition_draws() {
    let mut s = session(&[]);
    s.set(pos(SMALL, "T/L1L/L1L/L1L t 0 0 0"));
    let tour = ["b1b2", "a3b3", "b2b1", "b3a3"];
    for (i, mv) in tour.iter().cycle().take(8).enumerate() {
        assert_eq!(s.status(), Status::Ongoing, "before move {i}");
        s.play_text(mv).unwrap();
    }
    // The set position has now occurred three times (it counts itself).
    assert_eq!(
        s.status(),
        Status::Over(Outcome::Draw, EndReason::Repetition)
    );
    // Only positions since the set position count.
    s.set(s.position().clone());
    assert_eq!(s.status(), Status::Ongoing);
}

#[test]
fn notation_round_trips() {
    for (rules, text) in [
        (SMALL, "1/3/3/3 t 1 7 0"),
        (SMALL, "T/LLL/1L1/L1L t 0 1 2"),
        (SMALL, "1/L2/L2/TLL t 0 0 57"),
        (LARGE, "T/1T1/L1L/3/LLL t 0 3 0"),
        (LARGE, "1/3/3/3/3 t 2 8 0"),
    ] {
        let p = pos(rules, text);
        assert_eq!(p.to_string(), text);
        assert_eq!(pos(rules, &p.to_string()), p);
    }
    // Optional clock, upper-case side, extra blanks.
    assert_eq!(
        pos(SMALL, "  T/3/3/3   L 0 7 ").to_string(),
        "T/3/3/3 l 0 7 0"
    );
}

#[test]
fn malformed_notations_are_rejected_with_the_field_named() {
    let cases: &[(&str, NotationError)] = &[
        ("", NotationError::Empty),
        ("1/3/3/3", NotationError::MissingField("side")),
        ("1/3/3/3 t", NotationError::MissingField("tigers-in-hand")),
        (
            "1/3/3/3 t 1",
            NotationError::MissingField("leopards-in-hand"),
        ),
        (
            "1/3/3 t 1 7",
            NotationError::RowCount {
                expected: 4,
                found: 3,
            },
        ),
        (
            "2/3/3/3 t 1 7",
            NotationError::RowLength {
                row: 1,
                expected: 1,
                found: 2,
            },
        ),
        (
            "1/3/3/2X t 1 7",
            NotationError::UnknownPiece {
                row: 4,
                letter: 'X',
            },
        ),
        (
            "1/3/3/3 x 1 7",
            NotationError::BadField {
                field: "side",
                text: "x".into(),
                expected: "t or l",
            },
        ),
        (
            "1/3/3/3 t 2 7",
            NotationError::BadField {
                field: "tigers-in-hand",
                text: "2".into(),
                expected: "a count of tigers in hand",
            },
        ),
        (
            "1/3/3/3 t 1 7 -3",
            NotationError::BadField {
                field: "clock",
                text: "-3".into(),
                expected: "a number of plies",
            },
        ),
        ("1/3/3/3 t 1 7 0 9", NotationError::ExtraField("9".into())),
        (
            "T/3/3/3 t 1 7",
            NotationError::PieceCount {
                piece: "tigers on the board and in hand",
                found: 2,
                expected: "1",
            },
        ),
        (
            "1/LLL/3/3 t 1 7",
            NotationError::PieceCount {
                piece: "leopards on the board and in hand",
                found: 10,
                expected: "at most 7",
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(
            Hdk::from_notation(&SMALL, text).unwrap_err(),
            *expected,
            "{text}"
        );
    }
    assert!(matches!(
        Hdk::from_notation(&SMALL, "T/3/3/3 t 0 2"),
        Err(NotationError::Inconsistent(_))
    ));
    assert!(matches!(
        Hdk::from_notation(&SMALL, "1/3/3/3/3 t 1 7"),
        Err(NotationError::RowCount { .. })
    ));
}

#[test]
fn moves_print_and_parse_in_the_rules_notation() {
    for text in ["@b2", "a2a3", "b1b2b3", "a5b5c5"] {
        let mv = Hdk::parse_move(text).unwrap();
        assert_eq!(mv.to_string(), text);
        assert_eq!(Hdk::parse_move(&text.to_uppercase()).unwrap(), mv);
    }
    for bad in ["", "@", "b2", "a1a2", "d2d3", "@b2b3", "a2a3a4a5", "a2-a3"] {
        assert!(Hdk::parse_move(bad).is_err(), "{bad}");
    }
}
