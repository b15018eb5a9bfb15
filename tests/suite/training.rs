//! The trainer (tools/train/train.py) cut at any moment: started again
//! with the same options and data it goes on from its last whole epoch,
//! to the file a run never cut writes; a checkpoint of other options is
//! refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::temp_path;
use crate::network::{python, selfplay_and_dataset};

const OPTIONS: [&str; 12] = [
    "--epochs", "6", "--hidden", "16", "--batch", "128", "--seed", "4", "--policy", "1", "--td",
    "0.5",
];

fn trainer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/train/train.py")
}

fn train(data: &Path, out: &Path, options: &[&str]) -> Command {
    let mut command = Command::new(python());
    command
        .arg(trainer())
        .args([data.as_os_str(), "--out".as_ref(), out.as_os_str()])
        .args(options);
    command
}

fn checkpoint(out: &Path) -> PathBuf {
    let mut name = out.to_path_buf().into_os_string();
    name.push(".ckpt.npz");
    name.into()
}

/// Starts a run and kills it (SIGKILL) once its first checkpoint is on
/// disk; tries again if the run ended first. Whether it was cut.
fn cut_after_a_checkpoint(data: &Path, out: &Path, options: &[&str]) -> bool {
    let mut child = train(data, out, options)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python runs (JAX installed: .ci/run)");
    loop {
        if checkpoint(out).exists() {
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
#[ignore = "needs JAX (.ci/run installs it in target/train-venv)"]
fn a_training_run_cut_mid_way_resumes_to_the_same_network() {
    let (_, data) = selfplay_and_dataset("safari-dual", 30, "resume");
    let whole = temp_path("training", "whole.nnue");
    assert!(train(&data, &whole, &OPTIONS).status().unwrap().success());
    assert!(
        !checkpoint(&whole).exists(),
        "a finished run leaves no checkpoint"
    );

    let cut = temp_path("training", "cut.nnue");
    // The event this test needs is a run killed after a checkpoint: it
    // drives runs until one is, however fast or slow the machine is.
    assert!(
        (0..20).any(|_| {
            let _ = std::fs::remove_file(checkpoint(&cut));
            cut_after_a_checkpoint(&data, &cut, &OPTIONS)
        }),
        "no run was cut after a checkpoint in 20 tries"
    );
    let again = train(&data, &cut, &OPTIONS).output().unwrap();
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{said}");
    assert!(said.contains("resumed from "), "{said}");
    assert_eq!(std::fs::read(&cut).unwrap(), std::fs::read(&whole).unwrap());
    assert!(!checkpoint(&cut).exists());

    // A checkpoint of other options is not taken up.
    let other = temp_path("training", "other.nnue");
    assert!((0..20).any(|_| cut_after_a_checkpoint(&data, &other, &OPTIONS)));
    let mut seed_5 = OPTIONS;
    seed_5[7] = "5";
    let refused = train(&data, &other, &seed_5).output().unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        said.contains("a checkpoint of other options or data"),
        "{said}"
    );

    // An --out in a folder that is not there is said at once, before an
    // epoch's work (its checkpoint could not be written after it).
    let nowhere = temp_path("training", "no-such-folder").join("net.nnue");
    let _ = std::fs::remove_dir_all(nowhere.parent().unwrap());
    let refused = train(&data, &nowhere, &OPTIONS).output().unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(said.contains("no folder"), "{said}");
    assert!(!String::from_utf8_lossy(&refused.stdout).contains("epoch"));
}

/// The generation driver's command line with tiny settings: two
/// generations of 40 games at 100 nodes, gates of at most 20 games.
fn generations(dir: &Path) -> Command {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut command = Command::new(python());
    command
        .arg(root.join("tools/train/generations.py"))
        .args(["run".as_ref(), dir.as_os_str()])
        .args([
            "--game",
            "safari-dual",
            "--generations",
            "2",
            "--games",
            "40",
            "--nodes",
            "100",
            "--gate-games",
            "20",
            "--gate-nodes",
            "100",
            "--concurrency",
            "1",
        ])
        .args(["--train", "--epochs 2 --hidden 16 --batch 128 --policy 1"])
        .args(["--gate-sprt", "elo0=0 elo1=200 alpha=0.2 beta=0.2"])
        .args(["--python", &python()])
        .arg("--engine")
        .arg(env!("CARGO_BIN_EXE_menagerie"))
        .arg("--referee")
        .arg(env!("CARGO_BIN_EXE_referee"));
    command
}

fn generations_of(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("generations.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    state["generations"].clone()
}

#[test]
#[ignore = "needs JAX (.ci/run installs it in target/train-venv)"]
fn generations_cut_with_all_their_processes_go_on_to_the_same_end() {
    use std::os::unix::process::CommandExt;

    let whole = temp_path("training", "generations-whole");
    let out = generations(&whole).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("generation 2: "), "{said}");
    let ended = generations_of(&whole);
    // The start is the run's own copy, under the built-in network's
    // name, so that a later built-in network changes nothing of it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        std::fs::read(whole.join("g0/safari-dual.nnue")).unwrap(),
        std::fs::read(root.join("src/nnue/nets/safari-dual.nnue")).unwrap()
    );
    for g in 0..2 {
        let gate = &ended[g]["steps"]["gate"];
        assert!(gate["games"].as_u64().unwrap() >= 1, "{ended}");
        assert!(ended[g]["promoted"].is_boolean(), "{ended}");
    }

    // A scheduler's kill of the whole job (the driver, the referee and
    // its engines) during the first gate, then the same line again.
    let cut = temp_path("training", "generations-cut");
    let mut child = generations(&cut)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while !cut.join("g1-gate.txt").exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its first gate"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let group = format!("-{}", child.id());
    Command::new("kill")
        .args(["-KILL", "--", &group])
        .status()
        .unwrap();
    child.wait().unwrap();
    let again = generations(&cut).output().unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert_eq!(generations_of(&cut), ended);
    assert_eq!(
        std::fs::read(cut.join("g2.nnue")).unwrap(),
        std::fs::read(whole.join("g2.nnue")).unwrap()
    );

    // Other settings in the same folder are refused.
    let other = generations(&cut).args(["--seed", "2"]).output().unwrap();
    assert!(!other.status.success());
    assert!(String::from_utf8_lossy(&other.stderr).contains("a run of other settings"));
}

/// One generation of Kilkenny Cats whose network serves 3 and 4 seats
/// (`--also-rules`): 20 self-play games of each, the trainer on both
/// (from the start's weights, at a rate too small to move them much),
/// and gates under `sprt` at 100 nodes.
fn two_ruleset_generation(dir: &Path, sprt: &str) -> Command {
    let mut command = Command::new(python());
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/train/generations.py"))
        .args(["run".as_ref(), dir.as_os_str()])
        .args(["--game", "kilkenny-cats", "--rules", "players=3"])
        .args(["--also-rules", "players=4", "--generations", "1"])
        .args(["--games", "20", "--nodes", "100", "--openings", "2"])
        .args([
            "--gate-games",
            "40",
            "--gate-nodes",
            "100",
            "--concurrency",
            "1",
        ])
        .args([
            "--train",
            "--epochs 1 --batch 128 --lr 0.000001",
            "--from-best",
        ])
        .args(["--gate-sprt", sprt, "--python", &python()])
        .arg("--engine")
        .arg(env!("CARGO_BIN_EXE_menagerie"))
        .arg("--referee")
        .arg(env!("CARGO_BIN_EXE_referee"));
    command
}

/// A network that serves two rulesets is made from both rulesets' games
/// and must pass its gate in each to become the best; the first gate it
/// fails ends its gates.
#[test]
#[ignore = "needs JAX (.ci/run installs it in target/train-venv)"]
fn a_network_for_two_rulesets_plays_and_passes_the_gates_of_both() {
    // A bar every network near the start clears (it need only score
    // above 15%): both gates are played, and both pass.
    let cleared = temp_path("training", "generations-two-rulesets");
    let out = two_ruleset_generation(&cleared, "elo0=-400 elo1=-300 alpha=0.05 beta=0.05")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    let generation = &generations_of(&cleared)[0];
    let steps = &generation["steps"];
    assert_eq!(
        steps["train"]["data"],
        serde_json::json!(["g1.data", "g1-r1.data"]),
        "{generation}"
    );
    for gate in ["gate", "gate-r1"] {
        assert_eq!(steps[gate]["verdict"], "H1 accepted", "{generation}");
    }
    assert_eq!(generation["promoted"], true, "{generation}");
    // Each ruleset's games are its own: four seats' records name them.
    let three = std::fs::read_to_string(cleared.join("g1-gate.txt")).unwrap();
    let four = std::fs::read_to_string(cleared.join("g1-gate-r1.txt")).unwrap();
    assert!(three.contains("players=3") && !three.contains("players=4"));
    assert!(four.contains("players=4"), "{four}");
    assert!(
        said.contains("generation 1 (players=4): H1 accepted"),
        "{said}"
    );

    // A bar no network near the start clears: the first gate fails, and
    // the second is never played.
    let failed = temp_path("training", "generations-two-rulesets-failed");
    let out = two_ruleset_generation(&failed, "elo0=300 elo1=400 alpha=0.05 beta=0.05")
        .output()
        .unwrap();
    assert!(out.status.success());
    let generation = &generations_of(&failed)[0];
    assert_eq!(generation["steps"]["gate"]["verdict"], "H0 accepted");
    assert!(generation["steps"].get("gate-r1").is_none(), "{generation}");
    assert!(!failed.join("g1-gate-r1.txt").exists());
    assert_eq!(generation["promoted"], false);
}

/// Two drivers on one folder would write the same files at once: while
/// one holds the folder (as a run does for its life), a `run` and a
/// `curve` there are refused before they touch anything; once it is
/// gone, the folder is free again. Needs only Python's standard library.
#[test]
fn a_folder_in_use_by_another_generations_run_is_refused() {
    use std::io::{BufRead, BufReader};

    let dir = temp_path("training", "generations-held");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lock = dir.join("generations.lock");
    // Another driver: a process holding the folder's lock until killed.
    let holder_code = format!(
        "import fcntl, sys, time\nf = open({:?}, 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(600)\n",
        lock.display().to_string()
    );
    let mut holder = Command::new("python3")
        .args(["-c", &holder_code])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut said)
        .unwrap();
    assert_eq!(said.trim(), "held");

    let run = generations(&dir).output().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/train/generations.py");
    let curve = Command::new("python3")
        .arg(&script)
        .args(["curve".as_ref(), dir.as_os_str()])
        .output()
        .unwrap();
    for refused in [&run, &curve] {
        assert!(!refused.status.success());
        let error = String::from_utf8_lossy(&refused.stderr);
        assert!(
            error.contains("in use by another run of generations.py"),
            "{error}"
        );
    }
    assert!(
        !dir.join("generations.json").exists(),
        "a refused run wrote its state"
    );

    holder.kill().unwrap();
    holder.wait().unwrap();
    // Free again: `curve` now gets past the lock to the missing run.
    let curve = Command::new("python3")
        .arg(&script)
        .args(["curve".as_ref(), dir.as_os_str()])
        .output()
        .unwrap();
    let error = String::from_utf8_lossy(&curve.stderr);
    assert!(!error.contains("in use"), "{error}");
    assert!(error.contains("generations.json"), "{error}");
}

/// A run's folder as `generations.py` leaves it, made by hand: its
/// start in g0/ and one kept generation (built-in networks stand in for
/// trained ones), so that the measurements of a run need no trainer.
fn finished_run(dir: &Path, rules: &str, also_rules: &[&str], start: &str, generation: &str) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("g0")).unwrap();
    let nets = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/nnue/nets");
    std::fs::copy(nets.join(start), dir.join("g0").join(start)).unwrap();
    std::fs::copy(nets.join(generation), dir.join("g1.nnue")).unwrap();
    let state = serde_json::json!({
        "settings": {"game": "kilkenny-cats", "rules": [rules], "also_rules": also_rules.iter().map(|r| [r]).collect::<Vec<_>>(),
                     "start": nets.join(start), "referee_args": ""},
        "start_copy": format!("g0/{start}"), "best": "g1.nnue", "best_generation": 1,
        "generations": [{"generation": 1, "steps": {}, "promoted": true}],
    });
    std::fs::write(dir.join("generations.json"), state.to_string()).unwrap();
}

fn greedy_series(dir: &Path, targets: &[&str]) -> std::process::Output {
    let mut command = Command::new("python3");
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/train/generations.py"))
        .args(["greedy".as_ref(), dir.as_os_str()])
        .args(["--games", "12", "--nodes", "50", "--concurrency", "1"])
        .arg("--engine")
        .arg(env!("CARGO_BIN_EXE_menagerie"))
        .arg("--referee")
        .arg(env!("CARGO_BIN_EXE_referee"));
    for target in targets {
        command.args(["--target", target]);
    }
    command.output().unwrap()
}

/// `greedy` plays every generation, the start included, alone against
/// greedy players on the same sets, per ruleset, and draws the share of
/// wins against its par and each ruleset's target; with two seats the
/// share is the score, par one half. Needs only Python's standard library.
#[test]
fn the_greedy_series_measures_every_generation_alone_against_greedy_players() {
    let dir = temp_path("training", "generations-greedy");
    finished_run(
        &dir,
        "players=3",
        &["players=4"],
        "kilkenny-cats-3-4.nnue",
        "kilkenny-cats-3.nnue",
    );
    // A target for each ruleset, or one for all: three for two are refused
    // before a game is played.
    let refused = greedy_series(&dir, &["0.5", "0.42", "0.4"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("one for each of the run's 2 rulesets")
    );
    assert!(!dir.join("g0-vs-greedy.txt").exists());
    let out = greedy_series(&dir, &["0.5", "0.42"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (suffix, seats, par, target) in [("", 3, "0.3333", "0.50"), ("-r1", 4, "0.2500", "0.42")] {
        let csv = std::fs::read_to_string(dir.join(format!("greedy{suffix}.csv"))).unwrap();
        let rows: Vec<Vec<&str>> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect())
            .collect();
        assert_eq!(
            rows.iter().map(|r| r[0]).collect::<Vec<_>>(),
            ["0", "1"],
            "{csv}"
        );
        for (g, row) in rows.iter().enumerate() {
            assert_eq!((row[4], row[5]), (par, "12"), "{csv}");
            // The share is what the record says: the games the network
            // alone won, of all.
            let record =
                std::fs::read_to_string(dir.join(format!("g{g}-vs-greedy{suffix}.txt"))).unwrap();
            assert_eq!(record.lines().count(), 12);
            assert!(record
                .lines()
                .all(|l| l.contains(&format!("players={seats}")) && l.contains("seating=lone")));
            let won = record
                .lines()
                .filter(|l| l.contains(&format!("winner=g{g}\t")))
                .count();
            let share: f64 = row[2].parse().unwrap();
            assert!((share - won as f64 / 12.0).abs() < 1e-3, "{csv} {won}");
        }
        let picture = std::fs::read_to_string(dir.join(format!("greedy{suffix}.svg"))).unwrap();
        assert!(
            picture.contains(&format!("target {target}"))
                && picture.contains(&format!("players={seats}")),
            "{picture}"
        );
    }
    // Played again, each match resumes from its whole record: no game
    // more, the record not even rewritten.
    let written = |name: &str| {
        std::fs::metadata(dir.join(name))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = written("g1-vs-greedy.txt");
    let again = greedy_series(&dir, &["0.5", "0.42"]);
    assert!(again.status.success());
    assert_eq!(written("g1-vs-greedy.txt"), before);
    let record = std::fs::read_to_string(dir.join("g1-vs-greedy.txt")).unwrap();
    assert_eq!(record.lines().count(), 12);

    let two = temp_path("training", "generations-greedy-two");
    finished_run(
        &two,
        "players=2",
        &[],
        "kilkenny-cats.nnue",
        "kilkenny-cats.nnue",
    );
    let out = greedy_series(&two, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(two.join("greedy.csv")).unwrap();
    assert!(
        csv.lines()
            .skip(1)
            .all(|l| l.split(',').nth(4) == Some("0.5000")),
        "{csv}"
    );
    // A run's folder without its networks says so, and draws nothing.
    std::fs::remove_dir_all(two.join("g0")).unwrap();
    std::fs::remove_file(two.join("g1.nnue")).unwrap();
    std::fs::remove_file(two.join("greedy.svg")).unwrap();
    let bare = greedy_series(&two, &[]);
    assert!(!bare.status.success());
    assert!(String::from_utf8_lossy(&bare.stderr).contains("none of the run's networks is there"));
    assert!(!two.join("greedy.svg").exists());
}
