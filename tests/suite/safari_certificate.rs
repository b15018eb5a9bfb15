//! Safari-Dual's proof certificates, checked by
//! tools/reference/safari_certificate.py: its own move generator (the base
//! rules included), its own reading of how a game ends, and its own values
//! of table leaves of up to 3 pieces; nothing of the engine.

use std::path::{Path, PathBuf};

use crate::certificate::{damaged, python, refused_by, solve_in, without_last_answers};
use crate::common::{engine, temp_path};

const CHECKER: &str = "tools/reference/safari_certificate.py";

fn check(certificate: &Path) -> (bool, String) {
    python(CHECKER, &[certificate.as_os_str()])
}

fn refused_for(path: &Path, reason: &str) {
    refused_by(check, path, reason);
}

/// 3-piece tables (the two lions and one more) in a folder of this
/// test's own.
fn tables(name: &str) -> PathBuf {
    let dir = temp_path("safari-certificate", name);
    let build = format!(
        "tables build safari-dual men=3 dir={} threads=1",
        dir.display()
    );
    let out = engine(&[&build]);
    assert!(out.contains("complete to 3 men"), "{out}");
    dir
}

fn solve(dir: &Path, position: &str, name: &str) -> (String, PathBuf) {
    solve_in("safari-dual", Some(dir), position, "nodes 300000", name)
}

#[test]
fn a_safari_dual_bound_through_table_leaves_and_repetitions_holds() {
    let dir = tables("bound");
    // Four plies back and forth put the root's board in its history, and
    // Angular's captures of the elephant lead into the 3-piece tables.
    let position = "fen 5/5/1g1l1/L4/4E r 50 moves a2b2 d3d4 b2a2 d4d3";
    let (out, path) = solve(&dir, position, "bound.cert");
    assert!(out.contains("Value: at most draw"), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("menagerie-certificate 1\ngame safari-dual\n"));
    assert!(text.contains(" leaf table win") && text.contains(" leaf rules"));
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim r cannot-win: holds"), "{said}");

    // Each kind of damage is found, for its own reason.
    let table_leaf = damaged(&path, "table-leaf.cert", |t| {
        t.replacen(" leaf table win", " leaf table draw", 1)
    });
    refused_for(&table_leaf, "the table says draw, the reference win");
    let missing_move = damaged(&path, "missing-move.cert", without_last_answers);
    refused_for(&missing_move, "the moves listed are not every legal move");
    // The same tree without its history: the repetitions it counts on
    // have not happened there.
    let no_history = damaged(&path, "no-history.cert", |t| {
        t.replace(
            "\nstart 5/5/1g1l1/L4/4E r 50\nmoves a2b2 d3d4 b2a2 d4d3\n",
            "\nstart 5/5/1g1l1/L4/4E r 54\nmoves \n",
        )
    });
    refused_for(&no_history, "a rules leaf the rules do not decide");
}

#[test]
fn a_safari_dual_win_holds_and_what_was_never_a_proof_is_refused() {
    let dir = tables("win");
    // Round's lion, elephant and giraffe against Angular's lone lion.
    let (out, path) = solve(&dir, "fen 5/L4/5/G1l2/1E3 r 7", "win.cert");
    assert!(out.contains("Value: win"), "{out}");
    let (ok, said) = check(&path);
    assert!(ok, "{said}");
    assert!(said.starts_with("claim r wins: holds"), "{said}");

    // Each edit of the text, and what the checker says of it.
    let edits = [
        (
            "claim r wins",
            "claim a wins",
            "one move given where every move is due",
        ),
        (
            "claim r wins",
            "claim w wins",
            "a claim for seat 'w', which the game does not have (r, a)",
        ),
        (
            "game safari-dual",
            "game awithlaknannai-mosona",
            "this checker knows Safari-Dual only",
        ),
        (
            "\nruleset \n",
            "\nruleset board=lined\n",
            "not an option of the game (it has none)",
        ),
        (
            "start 5/L4/5/G1l2/1E3",
            "start 5/L4/EEE2/G1l2/1E3",
            "4 'E', more than 3",
        ),
        (
            "start 5/L4/5/G1l2/1E3",
            "start 4L/5/5/G4/lE3",
            "both lions on the enemy base",
        ),
    ];
    for (number, (from, to, reason)) in edits.into_iter().enumerate() {
        let edited = damaged(&path, &format!("edit-{number}.cert"), |t| {
            t.replace(from, to)
        });
        refused_for(&edited, reason);
    }
    let cut = damaged(&path, "cut.cert", |t| t.replace("\nend\n", "\n"));
    refused_for(&cut, "cut short");
}

#[test]
fn the_checkers_table_values_are_the_plain_inductions() {
    // The checker values leaves by distances; the plain induction over
    // the clock (tools/reference/safari_tables.py) made these samples.
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/safari_tables.txt");
    let (ok, said) = python(CHECKER, &["--compare".as_ref(), samples.as_os_str()]);
    assert!(ok, "{said}");
    assert!(said.contains("300 samples, 0 differ"), "{said}");
    // One value changed is found.
    let text = std::fs::read_to_string(&samples).unwrap();
    let line = text.lines().find(|l| l.ends_with("|win")).unwrap();
    let flipped = temp_path("safari-certificate", "flipped.txt");
    std::fs::write(&flipped, line.replace("|win", "|draw") + "\n").unwrap();
    let (ok, said) = python(CHECKER, &["--compare".as_ref(), flipped.as_os_str()]);
    assert!(!ok && said.contains("1 samples, 1 differ"), "{said}");
}
