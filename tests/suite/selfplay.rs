//! `selfplay`: training data from games of the engine against itself, read
//! back and replayed through the rules; resumed runs (after a kill, a cut
//! file, or more games asked) write what one whole run writes; shards
//! together hold the whole run's games.

use std::path::Path;
use std::time::Duration;

use menagerie_engine::selfplay_file::{self, SeatResult, NO_SCORE};
use menagerie_rules::catalogue;
use menagerie_rules::game::Status;

use crate::common::{engine, errors, temp_path};

fn selfplay(game_and_words: &str, out: &Path) -> String {
    let line = format!("selfplay {game_and_words} out={}", out.display());
    engine(&[&line])
}

#[test]
fn every_game_writes_games_that_replay_to_their_recorded_results() {
    for (game, words) in [
        ("hat-diviyan-keliya", ""),
        ("awithlaknannai-mosona", ""),
        ("safari-dual", ""),
        ("kilkenny-cats", "players=2"),
        ("kilkenny-cats", "players=3"),
        ("kilkenny-cats", "players=4"),
    ] {
        let out = temp_path("selfplay", &format!("{game}-{words}.bin"));
        let said = selfplay(&format!("{game} {words} games=3 nodes=200"), &out);
        assert!(said.contains("selfplay done: 3 games"), "{said}");
        let data = selfplay_file::read(&out).unwrap();
        assert!(
            data.settings.starts_with(&format!("game={game} ")),
            "{}",
            data.settings
        );
        assert_eq!(data.games.len(), 3);
        for record in &data.games {
            let ruleset: Vec<String> = words.split_whitespace().map(String::from).collect();
            let mut session =
                catalogue::new_session_named(&catalogue::GAMES, game, &ruleset).unwrap();
            session.set_position(Some(&record.start), &[]).unwrap();
            let seats = session.seats_in_play();
            assert_eq!(record.results.len(), seats.len());
            for &(index, score) in &record.plies {
                assert_eq!(
                    session.status(),
                    Status::Ongoing,
                    "{game}: a move after the end"
                );
                let legal = session.legal_moves();
                let mv = legal
                    .get(index as usize)
                    .expect("the move index is legal")
                    .clone();
                // Rolls have no score; every choice has one.
                assert_eq!(session.awaiting_chance(), score == NO_SCORE, "{game}: {mv}");
                session.play_moves(&[mv]).unwrap();
            }
            let Status::Over(outcome, _) = session.status() else {
                panic!("{game}: a recorded game ends");
            };
            for (&seat, &result) in seats.iter().zip(&record.results) {
                let expected = match outcome {
                    menagerie_rules::game::Outcome::Draw => SeatResult::Draw,
                    menagerie_rules::game::Outcome::Win(w) if w == seat => SeatResult::Win,
                    menagerie_rules::game::Outcome::Win(_) => SeatResult::Loss,
                };
                assert_eq!(result, expected, "{game}: seat {seat}");
            }
        }
    }
}

#[test]
fn a_run_resumed_after_a_kill_a_cut_or_for_more_games_writes_what_one_run_writes() {
    let words = "kilkenny-cats players=3 nodes=150 seed=7";
    let whole = temp_path("selfplay", "whole.bin");
    selfplay(&format!("{words} games=8"), &whole);
    let whole_bytes = std::fs::read(&whole).unwrap();

    // More games asked of a finished run.
    let grown = temp_path("selfplay", "grown.bin");
    selfplay(&format!("{words} games=3"), &grown);
    let said = selfplay(&format!("{words} games=8"), &grown);
    assert!(said.contains("resuming after 3 games"), "{said}");
    assert_eq!(std::fs::read(&grown).unwrap(), whole_bytes);

    // A file cut inside a record (a machine that died while writing).
    let cut = temp_path("selfplay", "cut.bin");
    std::fs::write(&cut, &whole_bytes[..whole_bytes.len() - 10]).unwrap();
    selfplay(&format!("{words} games=8"), &cut);
    assert_eq!(std::fs::read(&cut).unwrap(), whole_bytes);

    // A run killed once it has written a game, at whatever point it is.
    let killed = temp_path("selfplay", "killed.bin");
    let line = format!("selfplay {words} games=8 out={}", killed.display());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .arg(&line)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while selfplay_file::read(&killed).map_or(0, |d| d.games.len()) == 0 {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = selfplay_file::read(&killed).unwrap().games.len();
    let said = engine(&[&line]);
    assert!(
        before == 8 || said.contains(&format!("resuming after {before} games")),
        "{said}"
    );
    assert_eq!(std::fs::read(&killed).unwrap(), whole_bytes);
}

#[test]
fn shards_joined_make_the_whole_runs_file() {
    use menagerie_engine::selfplay::shard_path;
    let words = "kilkenny-cats players=2 nodes=150 seed=3 games=5";
    let whole = temp_path("selfplay", "shards-whole.bin");
    selfplay(words, &whole);
    let joined = temp_path("selfplay", "shards-joined.bin");
    // A join before every shard is there names what is missing.
    let out = selfplay(&format!("{words} join=2"), &joined);
    assert!(errors(&out)[0].contains("shards-joined.bin.1"), "{out}");
    for i in 1..=2 {
        selfplay(&format!("{words} shard={i}/2"), &shard_path(&joined, i));
    }
    // A shard that is not done is refused too.
    let second = std::fs::read(shard_path(&joined, 2)).unwrap();
    std::fs::write(shard_path(&joined, 2), &second[..second.len() - 1]).unwrap();
    let out = selfplay(&format!("{words} join=2"), &joined);
    assert!(errors(&out)[0].contains("other settings"), "{out}");
    std::fs::write(shard_path(&joined, 2), &second).unwrap();
    let out = selfplay(&format!("{words} join=2"), &joined);
    assert!(out.contains("selfplay joined 2 shards: 5 games"), "{out}");
    assert_eq!(
        std::fs::read(&joined).unwrap(),
        std::fs::read(&whole).unwrap()
    );
}

#[test]
fn bad_lines_and_files_are_refused_and_the_engine_keeps_answering() {
    let other = temp_path("selfplay", "other.bin");
    selfplay("kilkenny-cats games=1 nodes=100", &other);
    let not_data = temp_path("selfplay", "not-data.bin");
    std::fs::write(&not_data, "hello").unwrap();
    let out = engine(&[
        "selfplay kilkenny-cats nodes=100 out=/tmp/x.bin",
        "selfplay kilkenny-cats games=2",
        "selfplay kilkenny-cats games=2 shard=3/2 out=/tmp/x.bin",
        "selfplay kilkenny-cats games=0 out=/tmp/x.bin",
        "selfplay chess games=1 out=/tmp/x.bin",
        &format!(
            "selfplay kilkenny-cats games=1 nodes=101 out={}",
            other.display()
        ),
        &format!("selfplay kilkenny-cats games=1 out={}", not_data.display()),
        "isready",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 7, "{out}");
    assert!(
        errs[0].contains("selfplay: selfplay needs games=N"),
        "{out}"
    );
    assert!(errs[1].contains("needs out=PATH"), "{out}");
    assert!(errs[2].contains("'shard=3/2': expected shard=I/N"), "{out}");
    assert!(errs[3].contains("'games=0': expected games=N"), "{out}");
    assert!(errs[4].contains("unknown game 'chess'"), "{out}");
    assert!(errs[5].contains("other settings"), "{out}");
    assert!(errs[6].contains("not a self-play data file"), "{out}");
    // Answered at once, as isready always is, while the refusals come.
    assert!(out.contains("readyok\n"), "{out}");
    assert_eq!(std::fs::read(&not_data).unwrap(), b"hello");
}

/// `network=PATH`: both sides search with that network, and the file's
/// settings line names it by its checksum, so a run goes on only with
/// the same network; a file that cannot serve the game is one error and
/// nothing is written.
#[test]
fn selfplay_with_a_network_plays_other_games_and_names_the_network() {
    let net_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/nnue/nets/safari-dual.nnue"
    );
    let net = menagerie_nnue::Network::load(Path::new(net_path)).unwrap();
    let words = "safari-dual games=3 nodes=200 seed=4";
    let (hand, with, again) = (
        temp_path("selfplay", "hand.bin"),
        temp_path("selfplay", "network.bin"),
        temp_path("selfplay", "network-again.bin"),
    );
    for (path, extra) in [
        (&hand, String::new()),
        (&with, format!(" network={net_path}")),
    ] {
        let out = selfplay(&format!("{words}{extra}"), path);
        assert!(errors(&out).is_empty(), "{out}");
    }
    let out = selfplay(&format!("{words} games=2 network={net_path}"), &again);
    assert!(errors(&out).is_empty(), "{out}");
    let (hand_data, net_data) = (
        selfplay_file::read(&hand).unwrap(),
        selfplay_file::read(&with).unwrap(),
    );
    assert!(!hand_data.settings.contains("network="));
    assert!(
        net_data
            .settings
            .ends_with(&format!(" network={:08x}", net.checksum())),
        "{}",
        net_data.settings
    );
    assert_eq!(hand_data.games.len(), 3);
    assert_eq!(net_data.games.len(), 3);
    // The same starts, other searches: the scores differ.
    for (h, n) in hand_data.games.iter().zip(&net_data.games) {
        assert_eq!(h.start, n.start);
    }
    assert_ne!(hand_data.games, net_data.games);
    // The same network again plays the same games, and extends the run.
    let out = selfplay(&format!("{words} network={net_path}"), &again);
    assert!(out.contains("resuming after 2 games"), "{out}");
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&with).unwrap()
    );
    // Going on without the network, or with a file that cannot serve.
    let before = std::fs::read(&with).unwrap();
    let kc_net = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/nnue/nets/kilkenny-cats.nnue"
    );
    let none = temp_path("selfplay", "never.bin");
    let out = engine(&[
        &format!("selfplay {words} games=4 out={}", with.display()),
        &format!("selfplay {words} network={kc_net} out={}", none.display()),
        &format!("selfplay {words} network=Cargo.toml out={}", none.display()),
        &format!(
            "selfplay {words} network=/nonexistent.nnue out={}",
            none.display()
        ),
        "isready",
    ]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 4, "{out}");
    assert!(errs[0].contains("other settings"), "{out}");
    assert!(
        errs[1].contains("network ") && errs[1].contains("the network is for kilkenny-cats"),
        "{out}"
    );
    assert!(errs[2].contains("not a network file"), "{out}");
    assert!(errs[3].contains("cannot read the file"), "{out}");
    assert!(out.contains("readyok"), "{out}");
    assert_eq!(std::fs::read(&with).unwrap(), before);
    assert!(!none.exists());
}
