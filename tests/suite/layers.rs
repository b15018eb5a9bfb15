//! The layers are crates, and the crate graph keeps them apart: the rules
//! know nothing above them, the wire (the protocol's types) knows only
//! the rules, the search knows the rules, the referee and the board speak
//! the wire to engine processes and never reach the search or the engine,
//! and only the board carries an HTTP stack. Cargo's own resolution of
//! the workspace is read here, so a dependency that breaks a layer fails
//! this test naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each package and the packages its normal (not dev) dependencies
/// resolve to, by name.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    // This machine's platform only: the crates of others are not fetched.
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(String::from))
        .expect("rustc names its host");
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
            &host,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut graph = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().unwrap() {
        let name = names[node["id"].as_str().unwrap()].to_string();
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null())
            })
            .map(|d| names[d["pkg"].as_str().unwrap()].to_string())
            .collect();
        graph.insert(name, deps);
    }
    graph
}

/// Every package `name` depends on, directly or not.
fn closure(graph: &BTreeMap<String, BTreeSet<String>>, name: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![name.to_string()];
    while let Some(next) = stack.pop() {
        for dep in graph.get(&next).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                stack.push(dep.clone());
            }
        }
    }
    seen
}

/// The workspace's own crates each crate may use directly.
const LAYERS: &[(&str, &[&str])] = &[
    ("menagerie-rules", &[]),
    ("menagerie-os", &[]),
    ("menagerie-wire", &[]),
    // Endgame tables: the rules' positions, built and probed; no search.
    ("menagerie-tables", &["menagerie-rules", "menagerie-os"]),
    // The learned evaluation: the rules' inputs through a network (its
    // file opened the one way, os's); no search.
    ("menagerie-nnue", &["menagerie-rules", "menagerie-os"]),
    (
        "menagerie-search",
        &[
            "menagerie-rules",
            "menagerie-tables",
            "menagerie-nnue",
            "menagerie-os",
        ],
    ),
    (
        "menagerie-engine",
        &[
            "menagerie-rules",
            "menagerie-wire",
            "menagerie-search",
            "menagerie-tables",
            "menagerie-nnue",
            "menagerie-os",
        ],
    ),
    (
        "menagerie-referee",
        &["menagerie-rules", "menagerie-wire", "menagerie-os"],
    ),
    (
        "menagerie-board",
        &["menagerie-rules", "menagerie-wire", "menagerie-os"],
    ),
    (
        "menagerie",
        &["menagerie-engine", "menagerie-referee", "menagerie-rules"],
    ),
    // The Python package: the rules' sessions with the engine's search
    // attached, as the engine program has them; no wire (no protocol text).
    (
        "menagerie-python",
        &[
            "menagerie-rules",
            "menagerie-search",
            "menagerie-engine",
            "menagerie-tables",
            "menagerie-nnue",
        ],
    ),
    // The test-only game: a game is rules alone.
    ("menagerie-takeaway", &["menagerie-rules"]),
];

#[test]
fn each_crate_uses_only_the_layers_below_it() {
    let graph = graph();
    let mut broken = Vec::new();
    for (name, allowed) in LAYERS {
        let deps = graph
            .get(*name)
            .unwrap_or_else(|| panic!("no crate {name}"));
        for dep in deps.iter().filter(|d| d.starts_with("menagerie")) {
            if !allowed.contains(&dep.as_str()) {
                broken.push(format!("{name} depends on {dep}"));
            }
        }
    }
    let ours: BTreeSet<&str> = LAYERS.iter().map(|(n, _)| *n).collect();
    for name in graph.keys().filter(|n| n.starts_with("menagerie")) {
        assert!(
            ours.contains(name.as_str()),
            "crate {name} has no layer here"
        );
    }
    assert!(broken.is_empty(), "layers broken:\n{}", broken.join("\n"));
}

#[test]
fn the_referee_and_the_board_never_reach_the_search() {
    let graph = graph();
    for user in ["menagerie-referee", "menagerie-board"] {
        let reached = closure(&graph, user);
        for forbidden in ["menagerie-search", "menagerie-engine"] {
            assert!(!reached.contains(forbidden), "{user} reaches {forbidden}");
        }
    }
}

#[test]
fn only_the_board_builds_an_http_stack() {
    let graph = graph();
    let http = ["axum", "hyper", "tokio"];
    for crate_name in ["menagerie-engine", "menagerie-referee", "menagerie"] {
        let reached = closure(&graph, crate_name);
        for stack in http {
            assert!(!reached.contains(stack), "{crate_name} builds {stack}");
        }
    }
    assert!(closure(&graph, "menagerie-board").contains("axum"));
}

/// The top-level modules of the crate in `dir` and, for each, the
/// top-level modules its code names (`crate::x`, or `super::x` from a
/// top-level file), comments and test modules left out.
fn module_uses(dir: &std::path::Path) -> BTreeMap<String, BTreeSet<String>> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    files(dir, &mut all);
    let top = |path: &std::path::Path| -> String {
        let rel = path.strip_prefix(dir).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let names: BTreeSet<String> = all.iter().map(|p| top(p)).collect();
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &all {
        let module = top(path);
        let nested = path.strip_prefix(dir).unwrap().components().count() > 1;
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let entry = uses.entry(module.clone()).or_default();
        // Comments out, lines joined, so that a group of imports over
        // several lines reads as one.
        let joined: Vec<&str> = code
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("//"))
            .collect();
        let joined = joined.join(" ");
        for (prefix, counts) in [("crate::", true), ("super::", !nested)] {
            for piece in joined.split(prefix).skip(1).filter(|_| counts) {
                for name in first_names(piece) {
                    if names.contains(&name) && name != module && name != "lib" {
                        entry.insert(name);
                    }
                }
            }
        }
    }
    uses
}

/// The names a path starts with: `x::...` gives `x`; a group
/// `{a, b::c, d}` gives `a`, `b` and `d`.
fn first_names(piece: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = piece.strip_prefix('{') else {
        return vec![ident(piece)];
    };
    let (mut depth, mut items, mut start) = (0, Vec::new(), 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
        .into_iter()
        .map(ident)
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn imports_in_groups_are_read_whole() {
    assert_eq!(first_names("x::y;"), ["x"]);
    assert_eq!(
        first_names("{ alpha, beta::{c, d}, gamma as g } rest"),
        ["alpha", "beta", "gamma"]
    );
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    // Outside a game's own files (one module, `games`), the modules of
    // each crate form no circle: a reading of their `crate::` paths.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut circles = Vec::new();
    for dir in [
        "src/rules",
        "src/wire",
        "src/tables",
        "src/search",
        "src/os",
        "src/engine",
        "src/referee",
        "tools/board",
    ] {
        let uses = module_uses(&root.join(dir));
        for (module, used) in &uses {
            for other in used {
                // Does `other` reach back to `module`?
                let mut seen = BTreeSet::new();
                let mut stack = vec![other.clone()];
                while let Some(next) = stack.pop() {
                    if &next == module {
                        circles.push(format!("{dir}: {module} -> {other} -> ... -> {module}"));
                        break;
                    }
                    if seen.insert(next.clone()) {
                        stack.extend(uses.get(&next).into_iter().flatten().cloned());
                    }
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// The Rust files of the project's own code: tests, test modules' files
/// and the browser's packages left out.
fn code_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !["node_modules", "target", "tests", ".git"].contains(&name.as_str()) {
                code_files(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// Each function outside test modules, with its first line and length in
/// lines, read by its braces (string and character literals and comments
/// skipped).
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if line.starts_with("#[cfg(test)]") {
            break; // test modules come last in this project's files
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "fn");
        let header = at.is_some_and(|k| {
            words[..k]
                .iter()
                .all(|w| w.starts_with("pub") || ["const", "unsafe", "async", "extern"].contains(w))
        });
        if !header {
            i += 1;
            continue;
        }
        let name: String = words[at.unwrap() + 1]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut opened, mut j) = (0i32, false, i);
        'scan: while j < lines.len() {
            let mut chars = lines[j].chars().peekable();
            let mut in_string = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' if in_string => {
                        chars.next();
                    }
                    '"' => in_string = !in_string,
                    '/' if !in_string && chars.peek() == Some(&'/') => break,
                    '\'' if !in_string => {
                        // A character literal such as '{' (a lifetime
                        // has no closing quote two or three places on).
                        let ahead: String = chars.clone().take(3).collect();
                        if ahead.chars().nth(1) == Some('\'') {
                            chars.nth(1);
                        } else if ahead.starts_with('\\') && ahead.chars().nth(2) == Some('\'') {
                            chars.nth(2);
                        }
                    }
                    '{' if !in_string => {
                        depth += 1;
                        opened = true;
                    }
                    '}' if !in_string => depth -= 1,
                    ';' if !in_string && !opened => break 'scan,
                    _ => {}
                }
            }
            if opened && depth == 0 {
                break;
            }
            j += 1;
        }
        if opened {
            found.push((name, i + 1, j - i + 1));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    found
}

#[test]
fn no_function_outside_tests_is_longer_than_120_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "examples", "python", "tools"] {
        code_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "the project's files were found");
    let mut long = Vec::new();
    let mut longest = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for (name, line, length) in function_lengths(&text) {
            longest = longest.max(length);
            if length > 120 {
                let rel = path.strip_prefix(root).unwrap().display();
                long.push(format!("{rel}:{line} {name}: {length} lines"));
            }
        }
    }
    assert!(longest > 60, "functions were measured (longest {longest})");
    assert!(
        long.is_empty(),
        "functions over 120 lines:\n{}",
        long.join("\n")
    );
}

/// Lines before a file's test module (or all of them).
fn code_lines(text: &str) -> usize {
    text.lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .count()
}

/// Small modules: no file's code (its tests apart) over 800 lines. The
/// games are the exception by design, one file each with its rules,
/// notation and move generation (STYLE: adding a game is one file), and
/// they may go to 1,100.
#[test]
fn no_file_outside_tests_is_longer_than_800_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "examples", "python", "tools"] {
        code_files(&root.join(dir), &mut files);
    }
    let games = root.join("src/rules/games");
    let mut long = Vec::new();
    for path in &files {
        let lines = code_lines(&std::fs::read_to_string(path).unwrap());
        let limit = if path.starts_with(&games) { 1100 } else { 800 };
        if lines > limit {
            let rel = path.strip_prefix(root).unwrap().display();
            long.push(format!("{rel}: {lines} lines (limit {limit})"));
        }
    }
    assert!(
        long.is_empty(),
        "files over their limit:\n{}",
        long.join("\n")
    );
    assert_eq!(code_lines("fn a() {}\n#[cfg(test)]\nmod tests {}\n"), 1);
}

#[test]
fn function_lengths_are_read_by_their_braces() {
    let text = "fn a() {\n    let c = '{';\n    let s = \"}}\";\n    // }\n}\n\
                pub(crate) fn b<'x>(x: &'x str) -> usize {\n    x.len()\n}\n\
                fn declared();\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    assert_eq!(
        function_lengths(text),
        vec![("a".to_string(), 1, 5), ("b".to_string(), 6, 3)]
    );
}

#[test]
fn the_search_crate_root_only_names_its_modules() {
    // The vocabulary is a module of its own and the dispatcher another,
    // so no algorithm imports the crate root that chooses among them.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/search/lib.rs")).unwrap();
    let items: Vec<&str> = lib
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .filter(|l| {
            !l.starts_with("pub mod ") && !l.starts_with("mod ") && !l.starts_with("pub use ")
        })
        .collect();
    assert!(
        items.is_empty(),
        "src/search/lib.rs holds more than modules: {items:?}"
    );
    for file in std::fs::read_dir(root.join("src/search"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(file.path()).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        assert!(
            !code.contains("use super::{") && !code.contains("use crate::{Budget"),
            "{} imports from the crate root",
            file.path().display()
        );
    }
}
