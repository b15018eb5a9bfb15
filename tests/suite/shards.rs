//! A match in parts: shards, a killed and resumed shard, a retried shard,
//! and `referee merge` adding them up to exactly the whole match.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use menagerie_referee::record::{read_file, Record};

fn referee() -> &'static str {
    env!("CARGO_BIN_EXE_referee")
}

fn engine() -> &'static str {
    env!("CARGO_BIN_EXE_menagerie")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> PathBuf {
    crate::common::temp_path("shards", name)
}

/// A Kilkenny Cats match (dice, so every pair differs) between the engine
/// at depth 1 and its greedy setting; `extra` adds --shard, --resume...
fn match_args(record: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = crate::common::duel_args(10, 1, 21);
    args.extend(["--quiet", "--record"].map(String::from));
    args.push(record.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn referee_run(args: &[String]) -> Output {
    Command::new(referee())
        .args(args)
        .output()
        .expect("referee runs")
}

fn play(record: &Path, extra: &[&str]) {
    let out = referee_run(&match_args(record, extra));
    assert!(out.status.success(), "{extra:?}: {}", text(&out.stderr));
}

/// The games of records, comparable across runs: sorted by game, without
/// the time each move took.
fn games(records: &[Record]) -> Vec<String> {
    let mut lines: Vec<(u32, String)> = records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.thoughts.iter_mut().for_each(|t| t.ms = 0);
            (r.index, r.to_string())
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, l)| l).collect()
}

fn records(paths: &[&Path]) -> Vec<Record> {
    paths
        .iter()
        .flat_map(|p| read_file(p).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn merge(paths: &[&Path], json: &Path) -> (String, serde_json::Value) {
    let mut args = vec!["merge".to_string()];
    args.extend(paths.iter().map(|p| p.to_string_lossy().into_owned()));
    args.extend(["--json".to_string(), json.to_string_lossy().into_owned()]);
    let out = referee_run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (text(&out.stdout), value)
}

/// The whole match, played once for all the tests of this file.
fn whole() -> &'static (Vec<Record>, serde_json::Value) {
    static WHOLE: std::sync::OnceLock<(Vec<Record>, serde_json::Value)> =
        std::sync::OnceLock::new();
    WHOLE.get_or_init(|| {
        let record = temp("whole.txt");
        let json = temp("whole.json");
        play(&record, &["--json", json.to_str().unwrap()]);
        let value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (records(&[&record]), value)
    })
}

/// The counts of a results file that add up across shards.
fn counts(json: &serde_json::Value) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for key in ["games", "wins", "losses", "draws"] {
        out.push((key.to_string(), json[key].as_i64().unwrap()));
    }
    for (i, n) in json["pentanomial"].as_array().unwrap().iter().enumerate() {
        out.push((format!("pentanomial{i}"), n.as_i64().unwrap()));
    }
    for seat in json["per_seat"].as_array().unwrap() {
        for key in ["wins", "losses", "draws"] {
            out.push((
                format!("{} as {} {key}", seat["engine"], seat["seats"]),
                seat[key].as_i64().unwrap(),
            ));
        }
    }
    for (word, n) in json["endings"].as_object().unwrap() {
        out.push((format!("ending {word}"), n.as_i64().unwrap()));
    }
    out.sort();
    out
}

fn add(a: &[(String, i64)], b: &[(String, i64)]) -> Vec<(String, i64)> {
    let mut sum: std::collections::BTreeMap<String, i64> = a.iter().cloned().collect();
    for (k, n) in b {
        *sum.entry(k.clone()).or_default() += n;
    }
    sum.into_iter().collect()
}

#[test]
fn shards_play_exactly_the_whole_match_and_merge_to_its_results() {
    let (whole_records, whole_json) = whole();
    let parts: Vec<PathBuf> = (1..=3).map(|i| temp(&format!("shard{i}.txt"))).collect();
    for (i, part) in parts.iter().enumerate() {
        play(part, &["--shard", &format!("{}/3", i + 1)]);
    }
    let refs: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    // Same games: openings, dice, seats and moves.
    assert_eq!(games(&records(&refs)), games(whole_records));
    // Pairs interleave: shard 2 of 3 has pairs 1 and 4 (from 0).
    let mut pairs: Vec<u32> = records(&refs[1..2]).iter().map(|r| r.set).collect();
    pairs.dedup();
    assert_eq!(pairs, [1, 4]);
    // Merged, the results are the whole match's.
    let (said, merged) = merge(&refs, &temp("merged.json"));
    assert!(said.starts_with("Merged 10 of 10 games"), "{said}");
    assert_eq!(&merged, whole_json);
    // Counts of the shards' own results add up to the whole.
    let mut sum = Vec::new();
    for (i, part) in refs.iter().enumerate() {
        let (_, json) = merge(&[part], &temp(&format!("part{i}.json")));
        sum = add(&sum, &counts(&json));
    }
    let whole_counts: Vec<(String, i64)> = counts(whole_json)
        .into_iter()
        .filter(|(_, n)| *n != 0)
        .collect();
    let sum: Vec<(String, i64)> = sum.into_iter().filter(|(_, n)| *n != 0).collect();
    assert_eq!(sum, whole_counts);
}

#[test]
fn a_retried_shard_counts_once_and_missing_pairs_are_named() {
    let (_, whole_json) = whole();
    let (one, two, retry) = (temp("r1.txt"), temp("r2.txt"), temp("r2-again.txt"));
    play(&one, &["--shard", "1/2"]);
    play(&two, &["--shard", "2/2"]);
    play(&retry, &["--shard", "2/2"]);
    let (said, merged) = merge(&[&one, &two, &retry], &temp("retried.json"));
    assert!(said.contains("4 duplicate record(s) dropped"), "{said}");
    assert_eq!(&merged, whole_json);
    // Shard 1 alone: pairs 1 and 3 are missing, numbered as the records'
    // `set=` (from 0).
    let (said, _) = merge(&[&one], &temp("half.json"));
    assert!(
        said.contains("Missing pairs (2, numbered as in the records): 1 3"),
        "{said}"
    );
}

#[test]
fn a_killed_shard_resumes_and_plays_nothing_twice() {
    let (whole_records, _) = whole();
    let part = temp("killed-shard.txt");
    play(&part, &["--shard", "1/2"]);
    let full: Vec<Record> = records(&[&part]);
    // As a kill leaves it: whole lines, the last pair cut in half.
    let kept: Vec<String> = std::fs::read_to_string(&part)
        .unwrap()
        .lines()
        .take(full.len() - 3)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&part, kept.concat()).unwrap();
    play(&part, &["--shard", "1/2", "--resume"]);
    let resumed = records(&[&part]);
    let mut indices: Vec<u32> = resumed.iter().map(|r| r.index).collect();
    indices.sort();
    assert_eq!(indices, [0, 1, 4, 5, 8, 9], "each game of the shard once");
    let theirs: Vec<Record> = whole_records
        .iter()
        .filter(|r| r.set % 2 == 0)
        .cloned()
        .collect();
    assert_eq!(games(&resumed), games(&theirs));
    // Resuming a finished match plays nothing.
    let before = std::fs::read_to_string(&part).unwrap();
    play(&part, &["--shard", "1/2", "--resume"]);
    assert_eq!(std::fs::read_to_string(&part).unwrap(), before);
}

#[test]
fn a_referee_killed_mid_match_resumes_to_the_whole_match() {
    let (whole_records, _) = whole();
    let part = temp("killed-live.txt");
    // Killed as soon as the first record is written, wherever the other
    // games are (a game cut short leaves no line).
    let mut child = Command::new(referee())
        .args(match_args(&part, &[]))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&part).map_or(0, |t| t.lines().count()) < 1 {
        assert!(Instant::now() < deadline, "no record");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    play(&part, &["--resume"]);
    assert_eq!(games(&records(&[&part])), games(whole_records));
}

#[test]
fn records_of_another_match_are_never_added_up() {
    let (a, b) = (temp("seed21.txt"), temp("seed22.txt"));
    play(&a, &["--shard", "1/2"]);
    let mut other = match_args(&b, &["--shard", "2/2"]);
    let seed = other.iter().position(|s| s == "21").unwrap();
    other[seed] = "22".into();
    assert!(referee_run(&other).status.success());
    let out = referee_run(&[
        "merge".into(),
        a.to_string_lossy().into_owned(),
        b.to_string_lossy().into_owned(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("different matches"),
        "{}",
        text(&out.stderr)
    );
    // Nor resumed with other settings.
    let out = referee_run(&match_args(
        &a,
        &["--shard", "1/2", "--resume", "--max-plies", "9"],
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("another match"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_merge_with_sprt_reports_the_verdict_of_the_pairs_in_order() {
    let parts: Vec<PathBuf> = (1..=2).map(|i| temp(&format!("sprt{i}.txt"))).collect();
    for (i, part) in parts.iter().enumerate() {
        play(part, &["--shard", &format!("{}/2", i + 1)]);
    }
    let json = temp("sprt.json");
    let out = referee_run(&[
        "merge".into(),
        parts[0].to_string_lossy().into_owned(),
        parts[1].to_string_lossy().into_owned(),
        "--sprt".into(),
        "elo0=0".into(),
        "elo1=10".into(),
        "alpha=0.05".into(),
        "beta=0.05".into(),
        "--json".into(),
        json.to_string_lossy().into_owned(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("SPRT (elo0=0 elo1=10 alpha=0.05 beta=0.05): llr "),
        "{said}"
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let llr = value["sprt"]["llr"].as_f64().unwrap();
    assert!(said.contains(&format!("llr {llr:.2}")), "{said}");
}

#[test]
fn a_match_grows_in_waves_without_playing_a_game_twice() {
    let (whole_records, whole_json) = whole();
    let parts = [temp("wave1.txt"), temp("wave2.txt")];
    // The first wave: 6 of the 10 games, in two shards.
    for (i, part) in parts.iter().enumerate() {
        let mut args = match_args(part, &["--shard", &format!("{}/2", i + 1)]);
        let games = args.iter().position(|s| s == "10").unwrap();
        args[games] = "6".into();
        let out = referee_run(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let first: Vec<u32> = records(&[&parts[0], &parts[1]])
        .iter()
        .map(|r| r.index)
        .collect();
    assert_eq!(first.len(), 6);
    // The second wave: the whole length, resumed.
    for (i, part) in parts.iter().enumerate() {
        play(part, &["--shard", &format!("{}/2", i + 1), "--resume"]);
    }
    let mut all = records(&[&parts[0], &parts[1]]);
    assert_eq!(all.len(), 10, "only the new pairs were played");
    // Each record keeps the length its wave was asked for; the games are the same.
    assert_eq!(all.iter().filter(|r| r.games == 6).count(), 6);
    all.iter_mut().for_each(|r| r.games = 10);
    assert_eq!(games(&all), games(whole_records));
    let (_, merged) = merge(&[&parts[0], &parts[1]], &temp("waves.json"));
    assert_eq!(&merged, whole_json);
}

/// A lone-seating match of 3-player Kilkenny Cats: `deep` alone against
/// `greedy` in the two other seats, 4 sets of 3 games.
fn lone_args(record: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = match_args(record, &[]);
    let games = args.iter().position(|a| a == "--games").unwrap();
    args[games + 1] = "12".into();
    let game = args.iter().position(|a| a == "kilkenny-cats").unwrap();
    args.insert(game + 1, "players=3".into());
    args.extend(["--seating", "lone"].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn lone_whole() -> &'static (Vec<Record>, serde_json::Value, String) {
    static WHOLE: std::sync::OnceLock<(Vec<Record>, serde_json::Value, String)> =
        std::sync::OnceLock::new();
    WHOLE.get_or_init(|| {
        let record = temp("lone-whole.txt");
        let json = temp("lone-whole.json");
        let out = referee_run(&lone_args(&record, &["--json", json.to_str().unwrap()]));
        assert!(out.status.success(), "{}", text(&out.stderr));
        let value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (records(&[&record]), value, text(&out.stdout))
    })
}

#[test]
fn a_lone_set_gives_the_first_engine_each_seat_once_on_one_start_and_dice() {
    let (records, json, summary) = lone_whole();
    assert_eq!(records.len(), 12);
    for set in 0..4 {
        let games: Vec<&Record> = records.iter().filter(|r| r.set == set).collect();
        assert_eq!(games.len(), 3, "set {set}");
        let starts: std::collections::BTreeSet<&str> =
            games.iter().map(|r| r.start.as_str()).collect();
        assert_eq!(starts.len(), 1, "one start per set");
        let mut lone_seats: Vec<char> = games
            .iter()
            .map(|r| {
                assert_eq!(r.seating, menagerie_referee::config::Seating::Lone);
                let mine: Vec<char> = r
                    .seats
                    .iter()
                    .filter(|(_, name)| name == "deep")
                    .map(|(seat, _)| *seat)
                    .collect();
                assert_eq!(mine.len(), 1, "deep plays one seat: {:?}", r.seats);
                mine[0]
            })
            .collect();
        lone_seats.sort();
        assert_eq!(lone_seats, ['n', 's', 'w'], "set {set}");
        // The same dice: the first roll of every game of the set agrees.
        let first_rolls: std::collections::BTreeSet<&str> =
            games.iter().map(|r| r.moves[0].as_str()).collect();
        assert_eq!(first_rolls.len(), 1, "{first_rolls:?}");
    }
    // The report and the results give the lone engine's share against par.
    assert!(
        summary.contains("Share of wins of deep alone: "),
        "{summary}"
    );
    assert!(summary.contains("(par 0.333, 4 sets)"), "{summary}");
    assert_eq!(json["seating"], "lone");
    assert_eq!(json["lone"]["seats"], 3);
    assert_eq!(json["lone"]["sets"].as_array().unwrap().len(), 10);
    let sets: u64 = json["lone"]["sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(sets, 4);
    let wins = json["wins"].as_f64().unwrap();
    let draws = json["draws"].as_f64().unwrap();
    let share = json["lone"]["share"].as_f64().unwrap();
    assert!((share - (wins + draws / 3.0) / 12.0).abs() < 1e-9, "{json}");
}

#[test]
fn lone_sets_shard_resume_and_merge_to_the_whole_match() {
    let (whole_records, whole_json, _) = lone_whole();
    let one = temp("lone-1.txt");
    let two = temp("lone-2.txt");
    for (part, shard) in [(&one, "1/2"), (&two, "2/2")] {
        let out = referee_run(&lone_args(part, &["--shard", shard]));
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    // Shard 1 of 2 has sets 0 and 2, all three games each.
    let sets: std::collections::BTreeSet<u32> = records(&[&one]).iter().map(|r| r.set).collect();
    assert_eq!(sets.into_iter().collect::<Vec<_>>(), [0, 2]);
    assert_eq!(games(&records(&[&one, &two])), games(whole_records));
    let (said, merged) = merge(&[&one, &two], &temp("lone-merged.json"));
    assert!(said.starts_with("Merged 12 of 12 games"), "{said}");
    assert_eq!(&merged, whole_json);
    // A shard cut short keeps its games; resume completes the cut set with
    // its own start, dice and seats.
    let cut = temp("lone-cut.txt");
    let lines: Vec<String> = std::fs::read_to_string(&one)
        .unwrap()
        .lines()
        .take(4)
        .map(String::from)
        .collect();
    std::fs::write(&cut, lines.join("\n") + "\n").unwrap();
    let out = referee_run(&lone_args(&cut, &["--shard", "1/2", "--resume"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(games(&records(&[&cut])), games(&records(&[&one])));
    // Merged with a set missing, the set is named as the records number it.
    let (said, _) = merge(&[&one], &temp("lone-half.json"));
    assert!(
        said.contains("Missing sets (2, numbered as in the records): 1 3"),
        "{said}"
    );
}

#[test]
fn the_same_match_again_without_resume_is_refused_and_adds_nothing() {
    let path = temp("again.txt");
    play(&path, &[]);
    let before = std::fs::read(&path).unwrap();
    let out = referee_run(&match_args(&path, &[]));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("already holds 10 game(s) of this match; add --resume"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );
    // Another match may share the file, as a log of matches.
    let mut other = match_args(&path, &[]);
    let seed = other.iter().position(|a| a == "21").unwrap();
    other[seed] = "22".into();
    let out = referee_run(&other);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(records(&[&path]).len(), 20);
}

/// A full disk or a kill mid-write leaves a last line without its end:
/// `merge` leaves it out with a warning, and `--resume` removes it and
/// plays that game again, to the whole match.
#[test]
fn a_cut_last_line_is_left_out_by_merge_and_replayed_by_resume() {
    let (whole, _) = whole();
    let path = temp("cut.txt");
    play(&path, &[]);
    let text_before = std::fs::read_to_string(&path).unwrap();
    let last_start = text_before.trim_end().rfind('\n').unwrap() + 1;
    let cut = &text_before[..last_start + (text_before.len() - last_start) / 2];
    std::fs::write(&path, cut).unwrap();
    let json = temp("cut.json");
    let out = Command::new(referee())
        .args([
            "merge",
            path.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("line 10 was cut short and is left out"),
        "{}",
        text(&out.stderr)
    );
    let out = referee_run(&match_args(&path, &["--resume"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("line 10 was cut short and is removed"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(games(&records(&[&path])), games(whole));
}

#[test]
fn an_engine_rebuilt_between_waves_makes_another_match() {
    // The engine as a file of its own, to be "rebuilt".
    let program = temp("rebuilt-menagerie");
    std::fs::copy(engine(), &program).unwrap();
    let record = temp("rebuilt.txt");
    let with_program = |extra: &[&str]| {
        let mut args = match_args(&record, extra);
        let first = args.iter().position(|s| s == engine()).unwrap();
        args[first] = program.to_string_lossy().into_owned();
        args
    };
    let out = referee_run(&with_program(&["--shard", "1/2"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before = std::fs::read_to_string(&record).unwrap();
    // The same program resumes (and, finished, plays nothing).
    let out = referee_run(&with_program(&["--shard", "1/2", "--resume"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    // One byte more in the program: another match, refused with advice.
    let mut bytes = std::fs::read(&program).unwrap();
    bytes.push(0);
    std::fs::write(&program, bytes).unwrap();
    let out = referee_run(&with_program(&["--shard", "1/2", "--resume"]));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("another match")
            && text(&out.stderr).contains("engine programs"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&record).unwrap(), before);
}

#[test]
fn a_merge_counts_no_pair_after_the_sprt_decided_and_equals_the_match_played_whole() {
    let sprt = ["--sprt", "elo0=-200", "elo1=0", "alpha=0.25", "beta=0.25"];
    // Played whole, one game at a time, the match stops at the decision.
    let (record, json) = (temp("sprt-whole.txt"), temp("sprt-whole.json"));
    let mut args = match_args(&record, &sprt);
    args.extend(["--json".into(), json.to_string_lossy().into_owned()]);
    let out = referee_run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let whole: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let decided = whole["games"].as_i64().unwrap();
    assert!(decided < 10, "the SPRT decided early: {whole}");
    // Shards play every pair; the merge counts up to the deciding pair.
    let parts: Vec<PathBuf> = (1..=2).map(|i| temp(&format!("sprt-cut{i}.txt"))).collect();
    for (i, part) in parts.iter().enumerate() {
        play(part, &["--shard", &format!("{}/2", i + 1)]);
    }
    let merged_json = temp("sprt-cut.json");
    let mut args = vec!["merge".to_string()];
    args.extend(parts.iter().map(|p| p.to_string_lossy().into_owned()));
    args.extend(sprt.iter().map(|s| s.to_string()));
    args.extend(["--json".into(), merged_json.to_string_lossy().into_owned()]);
    let out = referee_run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(&format!(
            "The SPRT decided before the last {} game(s): they are not counted",
            10 - decided
        )),
        "{}",
        text(&out.stdout)
    );
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_json).unwrap()).unwrap();
    assert_eq!(merged, whole);
}
