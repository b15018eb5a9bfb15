//! The retrograde solver: exact values, checked against the minimax
//! recurrence at every position and against an independent alpha-beta.

use std::collections::{HashSet, VecDeque};

use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Ruleset};
use menagerie_rules::games::hdk::Hdk;
use menagerie_search::{alphabeta, Limits, Score, Settings, Shared, Silent};
use menagerie_tables::exact::{Analysis, Exact};
use menagerie_tables::solved::solve;
use menagerie_tables::Value;

/// The exact layer's values of the session's position and its moves.
fn analyse(session: &Session<Hdk>) -> Option<Analysis<<Hdk as Game>::Move>> {
    let folder = menagerie_tables::probe::default_directory();
    Exact::open(session, &folder, || false).analyse(session)
}

/// The move the search plays from exact knowledge.
fn best_move(session: &Session<Hdk>) -> String {
    menagerie_search::exact::play(
        session,
        &Limits::depth(1),
        &Shared::new(1),
        &Settings::default(),
        &mut Silent,
    )
    .and_then(|result| result.best)
    .expect("a solved position with moves gets one")
    .to_string()
}

fn start(words: &[&str]) -> Hdk {
    Hdk::start(&Hdk::rules(&Ruleset::parse(Hdk::OPTIONS, words).unwrap()))
}

/// The positions after each legal move of `p`.
fn children(p: &Hdk) -> Vec<Hdk> {
    let mut moves = Vec::new();
    p.generate(&mut moves);
    moves
        .into_iter()
        .map(|mv| {
            let mut child = p.clone();
            child.play(mv);
            child
        })
        .collect()
}

/// Best of the children's values for the side to move (what the position's
/// value must be), or the decided value when there is no move.
fn recomputed(p: &Hdk, value_of: &dyn Fn(&Hdk) -> Value) -> Value {
    let children = children(p);
    if children.is_empty() {
        return match p.outcome().unwrap() {
            Outcome::Draw => Value::Draw,
            Outcome::Win(w) if w == p.side() => Value::Win(0),
            Outcome::Win(_) => Value::Loss(0),
        };
    }
    let mut best: Option<Value> = None;
    for child in children {
        let v = value_of(&child).for_mover();
        if best.map_or(true, |b| v.better_than(b)) {
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
        queue.extend(children(&p));
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

/// tools/strength-results.md leans on this: the strength runs open each
/// pair with 4 random plies, and in the default ruleset none of them gives
/// the tiger a draw or a win, so the tiger's seat of every pair starts lost.
#[test]
fn every_four_ply_opening_of_the_default_ruleset_is_lost_for_the_tiger() {
    let root = start(&[]);
    let table = solve(&root);
    let tiger = root.side();
    let mut openings = vec![root];
    for _ in 0..4 {
        openings = openings.iter().flat_map(children).collect();
    }
    // By hand: for each tiger point T and leopard point L, the tiger's
    // steps then 8 drops, its jumps then 9. Summed over L, a tiger on T has
    // 8 * deg(T) steps and one jump per straight triple starting at T. The
    // board has 15 lines between neighbours (degrees sum to 30) and 9
    // straight triples (18 with a direction): 64 * 30 + 9 * 18.
    assert_eq!(openings.len(), 64 * 30 + 9 * 18);
    for p in &openings {
        assert_eq!(p.side(), tiger, "the tiger moves again at {p}");
        assert!(
            matches!(table.value_of(p), Some(Value::Loss(_))),
            "{p}: {:?}",
            table.value_of(p)
        );
    }
}

#[test]
fn alpha_beta_without_the_table_proves_the_same_results() {
    for (words, expected) in [
        (vec![], Score::Loss(7)),
        (vec!["start=apex"], Score::Win(7)),
    ] {
        let session: Session<Hdk> = Session::new(Ruleset::parse(Hdk::OPTIONS, &words).unwrap());
        let settings = Settings {
            exact: false,
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
    // Random positions of the small board reached by random play.
    let mut rng = menagerie_rules::rng::Rng::new(17);
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
        let Some(analysis) = analyse(&session) else {
            continue;
        };
        if analysis.moves.is_empty() {
            continue;
        }
        let best = best_move(&session);
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

/// Lines of a running engine up to and including its `bestmove`.
fn until_bestmove(stdout: &mut impl std::io::BufRead) -> String {
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "no bestmove in {seen}"
        );
        seen.push_str(&line);
        if line.starts_with("bestmove ") {
            return seen;
        }
    }
}

#[test]
fn a_search_on_the_clock_never_waits_for_the_table() {
    use std::io::{BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // A table that is not built yet (newgame has only started it) is not
    // waited for: the timed search plays by alpha-beta while a thread
    // builds it, and a later search uses it.
    writeln!(
        stdin,
        "newgame hat-diviyan-keliya board=large\ngo movetime 20"
    )
    .unwrap();
    let before = until_bestmove(&mut stdout);
    assert!(!before.contains("solved"), "{before}");
    let mut later = String::new();
    for _ in 0..500 {
        writeln!(stdin, "go movetime 20").unwrap();
        later = until_bestmove(&mut stdout);
        if later.contains("info string solved") {
            break;
        }
    }
    assert!(later.contains("info string solved"), "never used: {later}");
    writeln!(stdin, "quit").unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_table_player_counts_repetitions_and_the_no_progress_rule() {
    use menagerie_rules::game::Status;
    let ends_drawn = |s: &Session<Hdk>| matches!(s.status(), Status::Over(Outcome::Draw, _));
    // (a lost side took a draw by the rules, a drawing side played on)
    let mut seen = (0, 0);
    let mut rng = menagerie_rules::rng::Rng::new(5);
    for _ in 0..60 {
        let rules = Ruleset::parse(Hdk::OPTIONS, &["board=large"]).unwrap();
        let mut session: Session<Hdk> = Session::new(rules);
        while session.status() == Status::Ongoing {
            let analysis = analyse(&session).unwrap();
            let after = |mv: &str| {
                let mut s = session.clone();
                s.play_text(mv).unwrap();
                s
            };
            let best = best_move(&session);
            let chosen = after(&best);
            let value_of = |mv: &str, table: Value| {
                if ends_drawn(&after(mv)) {
                    Value::Draw
                } else {
                    table
                }
            };
            let values: Vec<(String, Value)> = analysis
                .moves
                .iter()
                .map(|(m, v)| (m.to_string(), value_of(&m.to_string(), *v)))
                .collect();
            let chosen_value = values.iter().find(|(m, _)| *m == best).unwrap().1;
            assert!(
                values.iter().all(|(_, v)| !v.better_than(chosen_value)),
                "{best} is not best at {}: {values:?}",
                session.position()
            );
            if let (Value::Loss(_), Value::Draw) = (analysis.value, chosen_value) {
                seen.0 += 1;
            }
            if chosen_value == Value::Draw {
                let plays_on = values
                    .iter()
                    .any(|(m, v)| *v == Value::Draw && !ends_drawn(&after(m)));
                assert_eq!(
                    ends_drawn(&chosen),
                    !plays_on,
                    "{best} at {}",
                    session.position()
                );
                if plays_on && values.iter().any(|(m, _)| ends_drawn(&after(m))) {
                    seen.1 += 1;
                }
            }
            // The opponent: random, or the table player half the time.
            let mut moves = Vec::new();
            session.legal(&mut moves);
            if rng.below(2) == 0 {
                session.play_text(&best).unwrap();
            } else {
                session.play(moves[rng.below(moves.len() as u64) as usize]);
            }
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0, "both cases met: {seen:?}");
}

/// The exact value under the full rules (the no-progress clock included,
/// repetition aside), by a plain search over position and clock that knows
/// nothing of the solver: remembered by position and clock.
fn exact_with_clock(p: &Hdk, known: &mut std::collections::HashMap<(u64, u32), Value>) -> Value {
    let decided = |outcome: Outcome| match outcome {
        Outcome::Draw => Value::Draw,
        Outcome::Win(w) if w == p.side() => Value::Win(0),
        Outcome::Win(_) => Value::Loss(0),
    };
    if let Some(outcome) = p.outcome() {
        return decided(outcome);
    }
    if p.clock() >= Hdk::NO_PROGRESS_LIMIT {
        return Value::Draw;
    }
    if let Some(&v) = known.get(&(p.hash(), p.clock())) {
        return v;
    }
    let mut best: Option<Value> = None;
    for child in children(p) {
        let v = exact_with_clock(&child, known).for_mover();
        if best.map_or(true, |b| v.better_than(b)) {
            best = Some(v);
        }
    }
    let value = best.expect("an undecided position has a move");
    known.insert((p.hash(), p.clock()), value);
    value
}

#[test]
fn solved_values_hold_at_every_clock_against_an_exact_search() {
    use menagerie_rules::game::session::DynSession;
    // Deep recursion (one frame per ply, a hundred per phase).
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut known = std::collections::HashMap::new();
            let mut rng = menagerie_rules::rng::Rng::new(44);
            let rules = Ruleset::parse::<&str>(Hdk::OPTIONS, &[]).unwrap();
            let (mut checked, mut changed_by_the_clock) = (0, 0);
            while checked < 400 {
                // A random position after the drops, where the clock runs.
                let mut p = start(&[]);
                let mut plies = 0;
                while p.outcome().is_none() && (p.leopards_in_hand() > 0 || plies < 12) {
                    let mut moves = Vec::new();
                    p.generate(&mut moves);
                    p.play(moves[rng.below(moves.len() as u64) as usize]);
                    plies += 1;
                }
                if p.outcome().is_some() {
                    continue;
                }
                for clock in [0, 60, 85, 90, 94, 97, 99, 100] {
                    p.set_clock(clock);
                    let mut session: Session<Hdk> = Session::new(rules.clone());
                    session.set_position(Some(&p.to_string()), &[]).unwrap();
                    let analysis = analyse(&session).unwrap();
                    let exact = exact_with_clock(&p, &mut known);
                    assert_eq!(analysis.value, exact, "at {p}");
                    for (mv, value) in &analysis.moves {
                        let mut child = p.clone();
                        child.play(*mv);
                        let exact = exact_with_clock(&child, &mut known).for_mover();
                        assert_eq!(*value, exact, "{mv} at {p}");
                    }
                    let mut at_zero = p.clone();
                    at_zero.set_clock(0);
                    if exact_with_clock(&at_zero, &mut known) != exact {
                        changed_by_the_clock += 1;
                    }
                    checked += 1;
                }
            }
            assert!(
                changed_by_the_clock >= 20,
                "only {changed_by_the_clock} of {checked} values changed by the clock"
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn solve_and_go_answer_under_the_no_progress_clock() {
    // Three plies before the limit the leopards cannot trap the tiger in
    // time; at clock 0 they can.
    let output = crate::common::engine(&[
        "newgame hat-diviyan-keliya",
        "position fen T/1L1/1LL/1LL t 0 0 97",
        "solve",
        "go depth 3",
        "position fen T/1L1/1LL/1LL t 0 0 0",
        "solve",
    ]);
    let values: Vec<&str> = output
        .lines()
        .filter_map(|l| l.strip_prefix("Value: "))
        .collect();
    assert_eq!(values, ["draw", "loss 11"], "{output}");
    assert!(
        output.contains("score cp 0") && !output.contains("score loss"),
        "{output}"
    );
    // A program learns that the score is exact before it shows it.
    let solved = output.find("info string solved").expect("solved said");
    let scored = output.find("score cp 0").expect("scored");
    assert!(solved < scored, "{output}");
}

#[test]
fn one_setting_turns_all_exact_knowledge_off_in_play_but_not_in_solve() {
    // With UseTables false the solved game is searched like any other;
    // `solve` still answers from the table.
    let output = crate::common::engine(&[
        "setoption name UseTables value false",
        "newgame hat-diviyan-keliya",
        "go depth 3",
        "solve",
        "setoption name UseTables value true",
        "go depth 3",
    ]);
    let searched = output.find("bestmove").expect("first bestmove");
    let second = output[searched + 1..].find("bestmove").expect("second") + searched + 1;
    assert!(
        !output[..searched].contains("info string solved"),
        "{output}"
    );
    assert!(output[..searched].contains("info depth 3"), "{output}");
    assert!(output[searched..].contains("Value: loss 7"), "{output}");
    assert!(
        output[searched..second].contains("info string solved"),
        "{output}"
    );
}

#[test]
fn a_long_proof_reports_progress_stops_and_resumes_from_its_checkpoint() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let checkpoint = crate::common::temp_path("proof", "start.ckpt");
    let solve = format!("solve nodes 1000000000 checkpoint {}", checkpoint.display());
    let run = |lines: &[&str], stop_at_progress: bool| -> Vec<String> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        for line in lines {
            writeln!(stdin, "{line}").unwrap();
        }
        let mut out = Vec::new();
        for line in BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            // The first progress line: the search has run a second.
            if stop_at_progress && line.contains(" nodes/s, ") {
                writeln!(stdin, "stop").unwrap();
            }
            let done = line.starts_with("Value: ") || line.contains("error");
            out.push(line);
            if done {
                break;
            }
        }
        writeln!(stdin, "quit").unwrap();
        child.wait().unwrap();
        out
    };
    // The start of Awithlaknannai Mosona without tables: far from settled.
    let first = run(
        &[
            "setoption name TablePath value /nonexistent",
            "newgame am",
            &solve,
        ],
        true,
    );
    let progress = first
        .iter()
        .find(|l| l.contains(" nodes/s, "))
        .expect("progress");
    assert!(
        progress.starts_with("info string solve: ") && progress.contains("positions stored"),
        "{first:?}"
    );
    assert!(checkpoint.exists(), "the checkpoint is written at the end");
    let second = run(
        &[
            "setoption name TablePath value /nonexistent",
            "newgame am",
            &solve.replace("nodes 1000000000", "nodes 1000"),
        ],
        false,
    );
    assert!(
        second
            .iter()
            .any(|l| l.starts_with("info string solve: resumed from the checkpoint: ")),
        "{second:?}"
    );
    // The same file for another position is refused.
    let other = run(&["newgame am", "move f1g2i2", &solve], false);
    assert!(
        other
            .iter()
            .any(|l| l.starts_with("info string error: solve: checkpoint ")
                && l.contains("another position")),
        "{other:?}"
    );
}
