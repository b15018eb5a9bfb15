//! What a new game gets for being one file and one catalogue line: the
//! test-only take-away game (tests/takeaway) run through the generic
//! checks every game gets, with an engine and a referee built over its
//! catalogue (examples/takeaway_engine.rs, examples/takeaway_referee.rs).
//! Nothing here knows the game's rules but the independent perft count.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use assert_cmd::Command;
use menagerie_engine::session::Searching;
use menagerie_rules::catalogue::{GameEntry, Rules};
use menagerie_wire::reply::{GameFact, Reply};

use crate::common;

const ID: &str = "take-away";

fn entry<A: menagerie_rules::catalogue::Attach>() -> GameEntry<A> {
    menagerie_takeaway::catalogue::<A>()
        .into_iter()
        .find(|g| g.id == ID)
        .expect("take-away is in its catalogue")
}

fn engine_program() -> String {
    common::example("takeaway_engine")
}

/// Runs the take-away engine on `lines`.
fn engine(lines: &[&str]) -> String {
    let mut input = lines.join("\n");
    input.push('\n');
    let output = Command::new(engine_program())
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Leaves of the take-away tree `depth` moves deep from `stones`, counted
/// by dynamic programming over (stones, depth) instead of walking moves:
/// the independent count the engine's perft is held to.
fn independent_perft(stones: u32, take: u32, depth: u32) -> u64 {
    fn count(n: u32, take: u32, d: u32, memo: &mut HashMap<(u32, u32), u64>) -> u64 {
        if d == 0 {
            return 1;
        }
        if n == 0 {
            return 0;
        }
        if let Some(&known) = memo.get(&(n, d)) {
            return known;
        }
        let total = (1..=take.min(n))
            .map(|k| count(n - k, take, d - 1, memo))
            .sum();
        memo.insert((n, d), total);
        total
    }
    count(stones, take, depth, &mut HashMap::new())
}

#[test]
fn random_play_keeps_every_invariant_in_every_ruleset() {
    let game = entry::<Rules>();
    for ruleset in game.all_rulesets() {
        let stats = (game.self_check)(&ruleset, 7, 300).unwrap_or_else(|v| panic!("{v}"));
        assert_eq!(stats.games, 300);
        assert_eq!(stats.decided, 300, "every game ends by the rules");
    }
}

#[test]
fn perft_matches_an_independent_count_in_every_ruleset() {
    let game = entry::<Rules>();
    let never = AtomicBool::new(false);
    for ruleset in game.all_rulesets() {
        let words: Vec<String> = ruleset
            .to_string()
            .split_whitespace()
            .map(String::from)
            .collect();
        let stones: u32 = ruleset.value("stones").parse().unwrap();
        let take: u32 = ruleset.value("take").parse().unwrap();
        let session = game.session(&words).unwrap();
        for depth in 1..=9 {
            let counted = session.perft_divide(depth, &never, &mut |_, _| {});
            assert_eq!(
                counted,
                Some(independent_perft(stones, take, depth)),
                "{ruleset} depth {depth}"
            );
        }
        // And through the engine's protocol.
        let newgame = format!("newgame {ID} {ruleset}");
        let out = engine(&[&newgame, "perft 6"]);
        assert_eq!(
            common::perft_totals(&out),
            [independent_perft(stones, take, 6)],
            "{out}"
        );
    }
}

#[test]
fn the_catalogue_and_the_options_list_it_with_its_own_facts() {
    let out = engine(&["uci", "ugi", "games"]);
    let facts: Vec<GameFact> = out
        .lines()
        .filter_map(|l| match Reply::parse(l) {
            Reply::Catalogue { game, fact } if game == ID => Some(fact),
            _ => None,
        })
        .collect();
    let game = entry::<Rules>();
    assert!(facts.contains(&GameFact::Name(game.name.to_string())));
    assert!(facts.contains(&GameFact::Seat {
        letter: 'f',
        name: "First".into()
    }));
    assert!(facts
        .iter()
        .any(|f| matches!(f, GameFact::Option { key, .. } if key == "stones")));
    assert!(facts
        .iter()
        .any(|f| matches!(f, GameFact::End { reason, .. } if reason == "last-stone")));
    // UCI and UGI list it: two seats, no dice.
    assert_eq!(
        out.matches("var take-away").count(),
        2,
        "UCI_Variant in uci and ugi: {out}"
    );
    assert!(out.contains("option name take-away.stones type combo default 10 var 10 var 13"));
}

#[test]
fn the_protocol_contract_holds_for_it() {
    // Every line typed and printed back; every go one legal bestmove; the
    // end announced with the game's own reason; solve and UCI_Variant.
    let out = engine(&[
        "newgame nim stones=13 take=2",
        "d",
        "legal",
        "go depth 4",
        "go movetime 20",
        "solve",
        "move t2 t2 t2 t2 t2 t2",
        "go depth 3",
        "move t1",
        "go depth 1",
        "query result",
        "setoption name UCI_Variant value take-away",
        "setoption name take-away.take value 2",
        "legal",
        "move t3",
    ]);
    for line in out.lines() {
        assert_eq!(Reply::parse(line).to_string(), line);
    }
    let bestmoves: Vec<&str> = out.lines().filter(|l| l.starts_with("bestmove ")).collect();
    assert_eq!(
        bestmoves,
        [
            "bestmove t1",
            "bestmove t1",
            "bestmove t1",
            "bestmove (none)"
        ],
        "{out}"
    );
    assert!(out.contains("Value: win"), "{out}");
    assert!(
        out.contains("info string game over: win f (last-stone)"),
        "{out}"
    );
    assert!(out.contains("response p1win"), "{out}");
    assert!(
        out.contains("legal t1 t2\n"),
        "the ruleset option applied: {out}"
    );
    assert!(
        out.contains("info string error: move: move 1: illegal move 't3' in this position"),
        "{out}"
    );
}

#[test]
fn every_command_is_answered_in_every_pipeline() {
    let games = menagerie_takeaway::catalogue::<Searching>();
    let positions = crate::pipelines::positions(&games[games.len() - 1..]);
    assert_eq!(positions.len(), 4, "every ruleset of take-away");
    crate::pipelines::matrix(&engine_program(), &positions);
}

#[test]
fn the_referee_plays_adjudicates_records_and_replays_it() {
    let dir = std::env::temp_dir().join(format!("menagerie-takeaway-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("games.txt");
    let _ = std::fs::remove_file(&record);
    let engine = engine_program();
    let output = std::process::Command::new(common::example("takeaway_referee"))
        .args(["--engine", &engine, "name=perfect"])
        .args(["--engine", &engine, "name=weak", "option.Skill=0"])
        .args(["--game", ID, "stones=13", "--games", "20", "--depth", "3"])
        .args([
            "--random-openings",
            "1",
            "--seed",
            "5",
            "--quiet",
            "--record",
        ])
        .arg(&record)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("Score of perfect vs weak"), "{text}");
    assert!(text.contains("Endings: last-stone 20"), "{text}");
    let replay = std::process::Command::new(common::example("takeaway_referee"))
        .arg("replay")
        .arg(&record)
        .output()
        .unwrap();
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{replayed}");
    assert_eq!(replayed.matches("(last-stone)").count(), 20, "{replayed}");
    let _ = std::fs::remove_dir_all(&dir);
}
