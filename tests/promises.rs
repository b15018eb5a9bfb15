//! The engine's two promises under every option: every `go` ends with one
//! legal `bestmove` within its limit, and `isready`, `stop` and `quit` are
//! answered at once.

mod common;

use common::{engine, legal};

/// The moves after each `bestmove` of `output`.
fn bestmoves(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .collect()
}

/// Lines that set up a position with choices in each game.
const GAMES: &[(&str, &str)] = &[
    ("hat-diviyan-keliya", "move @b2 @b1"),
    ("hat-diviyan-keliya board=large", "move @b2 @b1"),
    ("awithlaknannai-mosona board=plain", "move k2i2"),
    ("awithlaknannai-mosona", "move f1g2i2"),
    ("safari-dual", "move b1c2"),
    ("kilkenny-cats", "move r3"),
    ("kilkenny-cats players=4", "move r5"),
];

#[test]
fn helper_threads_never_cost_the_move_at_any_depth_or_limit() {
    for (game, setup) in GAMES {
        for threads in [2, 4] {
            for limit in ["depth 1", "depth 2", "nodes 500", "movetime 5", "clocks"] {
                // wtime/btime are the clocks of two-seat games only.
                let limit = match (limit, game.contains("players=4")) {
                    ("clocks", true) => "time 60 inc 0",
                    ("clocks", false) => "wtime 60 btime 60",
                    (other, _) => other,
                };
                let threads = format!("setoption name Threads value {threads}");
                let newgame = format!("newgame {game}");
                let go = format!("go {limit}");
                let out = engine(&[&threads, &newgame, setup, "legal", &go]);
                let moves = bestmoves(&out);
                assert_eq!(moves.len(), 1, "{game} {threads} {go}: {out}");
                assert!(
                    legal(&out).iter().any(|m| m == moves[0]),
                    "{game} {threads} {go}: {out}"
                );
            }
        }
    }
}

#[test]
fn every_skill_level_reports_and_keeps_to_its_time() {
    for (game, setup) in GAMES {
        for skill in [0, 1, 2, 8, 19] {
            let skill_line = format!("setoption name Skill value {skill}");
            let newgame = format!("newgame {game}");
            let started = std::time::Instant::now();
            let out = engine(&[&skill_line, &newgame, setup, "legal", "go movetime 50"]);
            let elapsed = started.elapsed();
            let moves = bestmoves(&out);
            assert_eq!(moves.len(), 1, "{game} skill {skill}: {out}");
            assert!(legal(&out).iter().any(|m| m == moves[0]), "{out}");
            assert!(
                out.lines().any(|l| l.starts_with("info depth ")),
                "skill {skill} prints info lines: {out}"
            );
            // Generous: a whole process start and a loaded machine; before
            // the fix Kilkenny Cats at Skill 8 took seconds.
            assert!(
                elapsed.as_millis() < 1500,
                "{game} skill {skill}: {elapsed:?}"
            );
        }
    }
}
