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
}
