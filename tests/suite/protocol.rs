//! The engine protocol through the real binary: every command and every
//! error path of protocol.md.

use crate::common;

use assert_cmd::Command;
use common::{engine, errors, legal, notation, perft_totals};

const START: &str = "1/3/3/3 t 1 7 0";

#[test]
fn uci_handshake_lists_identity_and_options() {
    let out = engine(&["uci", "isready"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("id name menagerie "));
    assert!(lines[1].starts_with("id author "));
    assert!(out.contains("option name Hash type spin default 16 min 1 max 65536"));
    assert!(out.contains("option name Threads type spin default 1 min 1 max 256"));
    let uciok = lines.iter().position(|l| *l == "uciok").expect("uciok");
    assert_eq!(lines[uciok + 1], "readyok");
}

#[test]
fn setoption_accepts_known_options_and_rejects_others() {
    let out = engine(&[
        "setoption name Hash value 32",
        "setoption name threads value 2",
        "setoption name Colour value red",
        "setoption name Hash value lots",
        "setoption name Hash value 0",
        "setoption name Threads",
        "go depth 3",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 4, "{out}");
    assert!(errs[0].contains("unknown option 'Colour' (known: Hash, Threads"));
    assert!(errs[1].contains("option Hash needs a whole number from 1 to 65536, not 'lots'"));
    assert!(errs[2].contains("not '0'"));
    assert!(errs[3].contains("option Threads needs 'value <number>'"));
    assert!(out.lines().any(|l| l.starts_with("bestmove ")));
}

#[test]
fn newgame_selects_game_and_ruleset_by_id_or_alias() {
    let out = engine(&["newgame hdk start=apex board=large", "d"]);
    assert_eq!(notation(&out), "T/1T1/3/3/3 l 0 8 0");
    assert!(out.contains("Game: hat-diviyan-keliya start=apex board=large"));
    let out = engine(&["newgame HAT-DIVIYAN-KELIYA", "d"]);
    assert_eq!(notation(&out), START);
}

#[test]
fn newgame_errors_leave_the_game_unchanged() {
    let out = engine(&[
        "newgame hdk start=apex",
        "newgame chess",
        "newgame hdk board=huge",
        "newgame hdk size=3",
        "newgame hdk board",
        "newgame",
        "d",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 5, "{out}");
    assert!(errs[0].contains("unknown game 'chess' (known: hat-diviyan-keliya"));
    assert!(errs[1].contains("unknown value 'huge' for option 'board' (allowed: small|large)"));
    assert!(errs[2].contains("unknown ruleset option 'size' (known: start, board)"));
    assert!(errs[3].contains("'board' is not of the form key=value"));
    assert!(errs[4].contains("newgame: expected a game id, found end of line"));
    assert_eq!(notation(&out), "T/3/3/3 l 0 7 0");
}

#[test]
fn position_startpos_and_fen_with_moves() {
    let out = engine(&["position startpos moves @b1 @b2", "d"]);
    assert_eq!(notation(&out), "T/1L1/3/3 t 0 6 0");
    let out = engine(&["position fen T/1L1/3/3 t 0 6 0 moves b1b2b3", "d"]);
    assert_eq!(notation(&out), "1/3/1T1/3 l 0 6 0");
    // The clock is optional and printed; the side letter may be upper case.
    let out = engine(&["position fen T/1L1/3/3 T 0 6", "d"]);
    assert_eq!(notation(&out), "T/1L1/3/3 t 0 6 0");
}

#[test]
fn position_errors_leave_the_position_unchanged() {
    let out = engine(&[
        "position startpos moves @b1",
        "position fen 1/3/3 t 1 7 0",
        "position fen 1/3/3/3 x 1 7 0",
        "position fen 1/3/3/3 t 1",
        "position fen 1/3/3/3 t 1 7 0 5 extra",
        "position fen 1/3/Q2/3 t 1 7 0",
        "position startpos moves @b1 @b1",
        "position startpos moves @b1 b1a1",
        "position fen",
        "position sideways",
        "d",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 9, "{out}");
    assert!(errs[0].contains("bad notation: board field has 3 rows, expected 4"));
    assert!(errs[1].contains("side field 'x' is invalid, expected t or l"));
    assert!(errs[2].contains("notation lacks the leopards-in-hand field"));
    assert!(errs[3].contains("unexpected extra field '5'"));
    assert!(errs[4].contains("board row 3 has unknown piece letter 'Q'"));
    assert!(errs[5].contains("move 2: illegal move '@b1' in this position"));
    assert!(errs[6].contains("move 2: move 'b1a1' names point 'a1', which is not on the board"));
    assert!(errs[7].contains("position: expected a notation after 'fen', found end of line"));
    assert!(errs[8].contains("position: expected 'startpos' or 'fen <notation>', found 'sideways'"));
    assert_eq!(notation(&out), "T/3/3/3 l 0 7 0");
}

#[test]
fn move_plays_all_or_nothing() {
    let out = engine(&[
        "move @b1 @a2",
        "move b1b2 a2a3",
        "move b1c2 zz",
        "move",
        "d",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 3, "{out}");
    assert!(
        errs[0].contains("move 2: illegal move 'a2a3' in this position"),
        "{errs:?}"
    );
    assert!(errs[1].contains("move 2: 'zz' is not a move"));
    assert!(errs[2].contains("move: expected at least one move"));
    assert_eq!(notation(&out), "T/L2/3/3 t 0 6 0");
}

#[test]
fn moves_parse_in_upper_case_and_print_lower_case() {
    let out = engine(&["move @B1 @A2 B1B2", "d"]);
    assert_eq!(notation(&out), "1/LT1/3/3 l 0 6 1");
}

#[test]
fn legal_lists_moves_and_nothing_when_decided() {
    let out = engine(&["legal"]);
    assert_eq!(
        legal(&out),
        ["@b1", "@a2", "@b2", "@c2", "@a3", "@b3", "@c3", "@a4", "@b4", "@c4"]
    );
    // Tiger on a4 trapped by leopards: the leopards have won.
    let out = engine(&["position fen 1/L2/L2/TLL t 0 0 3", "legal", "d"]);
    assert!(legal(&out).is_empty());
    assert!(out.contains("Status: win l"));
}

#[test]
fn d_prints_board_notation_side_and_status() {
    let out = engine(&["d"]);
    let lines: Vec<&str> = out.lines().collect();
    let n = lines.len();
    assert_eq!(lines[n - 3], "Notation: 1/3/3/3 t 1 7 0");
    assert_eq!(lines[n - 2], "Side: t");
    assert_eq!(lines[n - 1], "Status: ongoing");
    assert!(lines[0].trim() == ". 1" || lines[0].contains('.'));
}

#[test]
fn go_prints_info_then_a_legal_bestmove() {
    let out = engine(&["newgame safari-dual", "go depth 4", "legal"]);
    let info: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info depth "))
        .collect();
    assert_eq!(info.len(), 4, "{out}");
    for field in [
        " seldepth ",
        " score ",
        " nodes ",
        " nps ",
        " time ",
        " hashfull ",
        " pv ",
    ] {
        assert!(info[3].contains(field), "missing {field} in {}", info[3]);
    }
    let best = common::last_value(&out, "bestmove ");
    assert!(legal(&out).iter().any(|m| m == best), "{best} not legal");
}

#[test]
fn go_accepts_every_limit() {
    for go in [
        "go depth 2",
        "go nodes 500",
        "go movetime 50",
        "go wtime 1000 btime 1000 winc 10 binc 10",
        "go wtime 1000 btime 1000 movestogo 5",
        "go time 500 inc 5",
    ] {
        let out = engine(&[go]);
        assert!(
            out.lines().last().unwrap().starts_with("bestmove @"),
            "{go}: {out}"
        );
        assert!(errors(&out).is_empty(), "{go}: {out}");
    }
}

#[test]
fn go_errors_name_the_parameter() {
    let out = engine(&[
        "go depth",
        "go depth -1",
        "go nodes many",
        "go fast",
        "go depth 1 depth 2",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 5, "{out}");
    assert!(errs[0].ends_with("go: expected a number after 'depth', found end of line"));
    assert!(errs[1].ends_with("go: expected a number after 'depth', found '-1'"));
    assert!(errs[2].ends_with("go: expected a number after 'nodes', found 'many'"));
    assert!(errs[3].contains("go: expected a go parameter"));
    assert!(errs[4].ends_with("go: expected each go parameter at most once, found 'depth'"));
    // Every go line is answered, a rejected one with no move, right after
    // its error.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10, "{out}");
    for pair in lines.chunks(2) {
        assert!(pair[0].starts_with("info string error: go: "), "{out}");
        assert_eq!(pair[1], "bestmove (none)");
    }
}

#[test]
fn go_on_a_decided_position_answers_none() {
    let out = engine(&["position fen 1/L2/L2/TLL t 0 0 3", "go depth 3"]);
    assert_eq!(out.lines().last(), Some("bestmove (none)"));
    assert!(errors(&out).is_empty());
}

#[test]
fn stop_and_isready_work_during_an_infinite_search() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("engine starts");
    use std::io::{BufRead, BufReader, Write};
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "position startpos moves @b1 @b2\ngo infinite").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    writeln!(stdin, "isready").unwrap();
    let mut line = String::new();
    loop {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(
            !line.starts_with("bestmove"),
            "infinite search ended by itself"
        );
        if line.trim() == "readyok" {
            break;
        }
    }
    writeln!(stdin, "stop").unwrap();
    loop {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "stdout closed before bestmove"
        );
        if line.starts_with("bestmove ") {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn quit_during_a_search_exits_cleanly() {
    let out = engine(&["go infinite", "quit", "d"]);
    assert!(!out.contains("Notation:"), "commands after quit ran: {out}");
}

#[test]
fn end_of_input_lets_a_search_finish_then_exits() {
    let out = engine(&["newgame hat-diviyan-keliya", "go depth 4"]);
    assert!(
        out.lines().last().unwrap().starts_with("bestmove "),
        "{out}"
    );
    // An infinite search cannot be stopped after the end of input: it stops.
    let out = engine(&["go infinite"]);
    assert!(
        out.lines().last().unwrap().starts_with("bestmove "),
        "{out}"
    );
}

#[test]
fn commands_after_go_wait_for_the_search() {
    let out = engine(&["go depth 3", "move @b1", "d", "go depth 3"]);
    let first_best = out.find("bestmove").unwrap();
    let notation_at = out.find("Notation:").unwrap();
    assert!(first_best < notation_at);
    assert_eq!(notation(&out), "T/3/3/3 l 0 7 0");
    assert_eq!(out.matches("bestmove ").count(), 2);
}

#[test]
fn perft_and_go_perft_print_the_stockfish_format() {
    let out = engine(&[
        "position startpos moves @b1",
        "go perft 2",
        "perft 1",
        "perft 0",
    ]);
    assert!(out.contains("@a2: 3\n"), "{out}");
    assert_eq!(perft_totals(&out), [27, 9, 1]);
    let blank_then_total = out.contains("\n\nNodes searched: 27\n");
    assert!(blank_then_total, "{out}");
}

#[test]
fn unknown_and_malformed_lines_get_one_error_each() {
    let out = engine(&[
        "fly",
        "ucinewgamex",
        "uci extra",
        "perft x",
        "bench quickly",
        "\u{7f}\u{1b}[A",
        "   ",
        "d",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 6, "{out}");
    assert_eq!(
        errs[0],
        "info string error: fly: unknown command (try 'help')"
    );
    assert!(errs[2].ends_with("uci: expected end of line, found 'extra'"));
    assert!(errs[3].ends_with("perft: expected a depth (a number), found 'x'"));
    assert_eq!(notation(&out), START);
}

#[test]
fn invalid_utf8_is_an_error_not_a_crash() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .write_stdin(vec![0xff, 0xfe, b'\n', b'd', b'\n'])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(errors(&text).len(), 1);
    assert!(text.contains("Status: ongoing"));
    // Refused whole, with the input's own byte count, whatever the line
    // would have said with other bytes in their place.
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .write_stdin(
            [
                &[0xff; 50][..],
                b"\ngo \xff\nsetoption name TablePath value /tmp/\xff\n",
            ]
            .concat(),
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        errors(&text),
        [
            "info string error: ????????????????????????????????????????... (50 bytes): line of 50 bytes has bytes that are not UTF-8; skipped",
            "info string error: go: line of 4 bytes has bytes that are not UTF-8; skipped",
            "info string error: setoption: line of 37 bytes has bytes that are not UTF-8; skipped",
        ],
        "{text}"
    );
    assert!(text.contains("bestmove (none)"));
}

#[test]
fn help_lists_commands_and_games() {
    let out = engine(&["help"]);
    for word in [
        "newgame",
        "position",
        "go",
        "perft",
        "legal",
        "bench",
        "hat-diviyan-keliya",
    ] {
        assert!(out.contains(word), "help lacks {word}");
    }
    assert!(out.contains("start=ludovici|apex board=small|large"));
}

#[test]
fn arguments_run_as_protocol_lines_then_exit() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .args(["newgame hat-diviyan-keliya", "go perft 5"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(perft_totals(&String::from_utf8_lossy(&out.stdout)), [5836]);
}

#[test]
fn clap_gives_help_and_version() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("menagerie "));
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
}

#[test]
fn debug_logging_shows_lines_in_and_out_on_stderr() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .env("RUST_LOG", "debug")
        .write_stdin("isready\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("in: isready"), "{stderr}");
    assert!(stderr.contains("out: readyok"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "readyok\n");
}

#[test]
fn solved_games_play_perfectly_with_exact_scores() {
    // Default ruleset: every tiger drop loses in 7 moves.
    let out = engine(&["go depth 3"]);
    assert!(out.contains(" score loss 7 "), "{out}");
    // start=apex: the leopards win in 7 moves, dropping on the base row.
    // (Fixed work waits for the table, which a busy machine builds late;
    // a timed search would not wait.)
    let out = engine(&["newgame hdk start=apex", "go depth 3"]);
    assert!(out.contains(" score win 7 "), "{out}");
    let best = common::last_value(&out, "bestmove ");
    assert!(["@a4", "@b4", "@c4"].contains(&best), "{best}");
}

#[test]
fn solve_prints_the_value_of_the_position_and_of_each_move() {
    let out = engine(&["newgame hdk start=apex", "solve"]);
    assert!(out.contains("@a4: win 7\n"), "{out}");
    assert!(out.contains("@a2: win 8\n"), "{out}");
    assert!(out.ends_with("\nValue: win 7\n"), "{out}");
    // Beyond any table: a proof search within its budget.
    let out = engine(&["newgame safari-dual", "solve nodes 500"]);
    assert!(
        out.contains("info string solve: proof-number search: unknown after 500 nodes"),
        "{out}"
    );
    assert!(out.ends_with("\nValue: unknown\n"), "{out}");
    let out = engine(&["newgame kilkenny-cats", "solve"]);
    assert_eq!(errors(&out), ["info string error: solve: kilkenny-cats cannot be solved: solve needs a game of two seats without dice"]);
}

#[test]
fn skill_zero_is_a_seeded_random_move() {
    let pick = |seed: &str| {
        let out = engine(&[
            "newgame safari-dual",
            "setoption name Skill value 0",
            &format!("setoption name Seed value {seed}"),
            "go depth 5",
        ]);
        common::last_value(&out, "bestmove ").to_string()
    };
    let moves: std::collections::BTreeSet<String> = (0..12).map(|s| pick(&s.to_string())).collect();
    assert!(moves.len() >= 4, "seeds give different moves: {moves:?}");
    assert_eq!(pick("7"), pick("7"), "the same seed gives the same move");
    let out = engine(&["setoption name Skill value 21"]);
    assert_eq!(errors(&out).len(), 1);
}

#[test]
fn greedy_skill_takes_an_immediate_capture() {
    // Safari: the elephant on c2 can capture in two directions at once.
    let out = engine(&[
        "newgame safari",
        "position fen 4l/5/Eg1gE/2E2/L4 r 0",
        "setoption name Skill value 1",
        "go depth 1",
    ]);
    assert_eq!(common::last_value(&out, "bestmove "), "c2c3");
}

#[test]
fn dice_and_multi_seat_games_search_after_the_roll() {
    for setup in ["newgame kilkenny-cats", "newgame kilkenny-cats players=4"] {
        let out = engine(&[setup, "move r3", "go depth 2", "legal"]);
        let best = common::last_value(&out, "bestmove ");
        assert!(
            legal(&out).iter().any(|m| m == best),
            "{best} not legal: {out}"
        );
        assert!(out.contains("info depth 2 "), "{out}");
    }
}

#[test]
fn growing_position_commands_equal_one_full_command() {
    // A referee sends the whole game before every move; the engine plays
    // only the new moves, and must end exactly where a full replay ends,
    // repetition history included.
    let fen = "position fen T/L1L/L1L/L1L t 0 0 0 moves";
    let tour = [
        "b1b2", "a3b3", "b2b1", "b3a3", "b1b2", "a3b3", "b2b1", "b3a3",
    ];
    let mut lines: Vec<String> = (1..=tour.len())
        .map(|n| format!("{fen} {}", tour[..n].join(" ")))
        .collect();
    lines.push("d".into());
    let grown = engine(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let full = engine(&[&format!("{fen} {}", tour.join(" ")), "d"]);
    assert_eq!(notation(&grown), notation(&full));
    assert!(
        grown.ends_with("Status: draw (repetition)\n"),
        "threefold repetition: {grown}"
    );
    assert!(full.ends_with("Status: draw (repetition)\n"));
    // A command that does not extend the last one starts afresh.
    let out = engine(&[
        &lines[3],
        "position fen T/L1L/L1L/L1L t 0 0 0 moves b1b2",
        "d",
    ]);
    assert_eq!(notation(&out), "1/LTL/L1L/L1L l 0 0 1");
}

#[test]
fn tune_options_change_the_evaluation_and_are_checked() {
    let score = |setup: &[&str]| {
        let mut lines = setup.to_vec();
        // The weights are the hand-written evaluation's.
        lines.extend([
            "newgame safari-dual",
            "setoption name UseNetwork value false",
            "go depth 3",
        ]);
        let out = engine(&lines);
        assert!(errors(&out).is_empty(), "{out}");
        out.lines()
            .rev()
            .find(|l| l.starts_with("info depth 3"))
            .unwrap()
            .to_string()
    };
    let default = score(&[]);
    let tuned = score(&["setoption name Tune.safari.mobility value 30"]);
    assert_ne!(default, tuned, "the weight reaches the evaluation");
    let out = engine(&[
        "setoption name Tune.safari.mobility value -1",
        "setoption name Tune.nothing value 1",
        "setoption name Tune.safari.mobility",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 3, "{out}");
    assert!(errs[0].contains("safari.mobility needs a whole number from 0 to 100, not '-1'"));
    assert!(errs[1].contains("unknown option 'Tune.nothing'"));
}

#[test]
fn a_hash_size_the_machine_cannot_give_is_an_error_not_a_crash() {
    // Under a 2 GB address-space limit, 64 GiB cannot be had.
    let script = format!(
        "ulimit -v 2000000; printf 'setoption name Hash value 65536\\ngo depth 2\\n' | '{}'",
        env!("CARGO_BIN_EXE_menagerie")
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let errs = errors(&text);
    assert_eq!(errs.len(), 1, "{text}");
    assert!(
        errs[0].starts_with("info string error: setoption: option Hash: cannot allocate 65536 MiB"),
        "{}",
        errs[0]
    );
    assert!(errs[0].ends_with("; the table keeps its size"));
    assert!(text.contains("bestmove "), "{text}");
}

#[test]
fn a_hash_larger_than_the_memory_available_is_refused_before_it_is_touched() {
    // Memory is handed over lazily, so without the check the allocation
    // would succeed and the process be killed once the search fills it.
    let Some(available) = menagerie_os::memory::available_bytes() else {
        return;
    };
    // The table is a power of two of slots, so ask for one: 64 GiB.
    let mib = 65536u64;
    if mib << 20 <= available {
        return; // a machine with more than 64 GiB free
    }
    let set = format!("setoption name Hash value {mib}");
    let out = engine(&[&set, "isready", "go depth 3"]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{out}");
    assert!(
        errs[0].contains(&format!("cannot allocate {mib} MiB (about ")),
        "{out}"
    );
    assert!(
        out.contains("readyok") && out.contains("bestmove "),
        "{out}"
    );
}

#[test]
fn rust_log_debug_logs_every_line_whole() {
    // A long line (3,000 bytes of moves) in, and a long reply out.
    let moves = vec!["c5c4"; 600].join(" ");
    let input = format!("newgame safari-dual\nposition startpos moves {moves}\nlegal\nquit\n");
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .env("RUST_LOG", "debug")
        .write_stdin(input)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.lines()
            .any(|l| l.ends_with(&format!("in: position startpos moves {moves}"))),
        "the long line is not logged whole"
    );
    let error = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with("info string error: position"))
        .expect("the illegal line is refused")
        .to_string();
    assert!(
        log.lines().any(|l| l.ends_with(&format!("out: {error}"))),
        "{log}"
    );
}

/// A game record's comment lines (protocol.md, "Game records") get no
/// answer and move nothing: the same lines with and without them give the
/// same output, `readyok` still after all before it, in a pipeline ending
/// in `quit`.
#[test]
fn comment_lines_are_answered_by_nothing() {
    let plain = [
        "newgame hat-diviyan-keliya start=ludovici board=small",
        "position fen 1/L2/L2/T1L l 0 1 3 moves @b4",
        "query status",
        "isready",
        "d",
        "quit",
    ];
    let mut noted = vec![
        "# menagerie game record 1",
        "  # result: win l (tiger-trapped)",
    ];
    for line in plain {
        noted.push(line);
        noted.push("# a note between commands");
    }
    let out = engine(&noted);
    assert_eq!(out, engine(&plain));
    assert!(errors(&out).is_empty(), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let over = lines
        .iter()
        .position(|l| *l == "info string game over: win l (tiger-trapped)");
    let ready = lines.iter().position(|l| *l == "readyok");
    assert!(over.is_some() && over < ready, "{out}");
    assert_eq!(lines[ready.unwrap() - 1], "response win l tiger-trapped");
}
