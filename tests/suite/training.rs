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
