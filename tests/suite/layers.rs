//! The layers of the library stay apart: the rules know no search, the
//! search knows no protocol, and so on up. A forbidden import that comes
//! back fails here, naming the file and line.

use std::path::Path;

/// Source folders or files, and the modules they may not use.
const LAYERS: &[(&str, &[&str])] = &[
    // The rules of the games and what they are built from.
    (
        "src/game",
        &["search", "runtime", "protocol", "referee", "bench"],
    ),
    (
        "src/games",
        &["search", "runtime", "protocol", "referee", "bench"],
    ),
    (
        "src/notation.rs",
        &["search", "runtime", "protocol", "referee", "bench"],
    ),
    // The search sees games through their trait, never the protocol.
    ("src/search", &["runtime", "protocol", "referee", "bench"]),
    // The run-time face joins rules and search, below every user of it.
    ("src/runtime", &["protocol", "referee", "bench"]),
    ("src/bench.rs", &["protocol", "referee"]),
    ("src/protocol", &["referee"]),
];

fn rust_files(path: &Path, found: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            rust_files(&entry.unwrap().path(), found);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        found.push(path.to_path_buf());
    }
}

/// `crate::<module>` uses outside comments.
fn uses(text: &str, module: &str) -> Vec<usize> {
    let needle = format!("crate::{module}");
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or("");
            code.match_indices(&needle).any(|(at, _)| {
                // `crate::search` but not `crate::searching`.
                !code[at + needle.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        })
        .map(|(n, _)| n + 1)
        .collect()
}

#[test]
fn no_layer_imports_one_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    for (place, forbidden) in LAYERS {
        let mut files = Vec::new();
        rust_files(&root.join(place), &mut files);
        assert!(!files.is_empty(), "{place} holds no Rust files");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for module in *forbidden {
                for line in uses(&text, module) {
                    broken.push(format!(
                        "{}:{line} uses crate::{module}",
                        file.strip_prefix(root).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports across layers:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_and_ignores_comments() {
    let text = "use crate::search::Limits;\n// crate::search in a comment\nuse crate::searching;\n";
    assert_eq!(uses(text, "search"), [1]);
}
