//! `bench`: the search signature is pinned, so any change in search
//! behaviour shows here (update the number when the change is intended).

use assert_cmd::Command;

const SIGNATURE: u64 = 1_025_894;

#[test]
fn bench_signature_is_unchanged() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .arg("bench")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let nodes: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("Nodes searched  : "))
        .expect("a total")
        .parse()
        .unwrap();
    assert_eq!(nodes, SIGNATURE, "bench signature changed:\n{text}");
    assert!(text.contains("Nodes/second    : "));
    for game in [
        "hat-diviyan-keliya",
        "awithlaknannai-mosona",
        "safari-dual",
        "kilkenny-cats",
    ] {
        assert!(
            text.contains(&format!("bench {game}")),
            "no bench position for {game}"
        );
    }
}

#[test]
fn bench_perft_and_playouts_report_speed() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .arg("bench playouts 200")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.contains("games/s")).count(),
        4,
        "{text}"
    );
    assert!(text.contains("avg length"));
}

#[test]
fn bench_takes_its_arguments_unquoted_on_the_command_line() {
    let out = Command::cargo_bin("menagerie")
        .unwrap()
        .args(["bench", "playouts", "50"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("error"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("| games 50 |")).count(),
        4,
        "{text}"
    );
}
