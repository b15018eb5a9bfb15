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
    ("menagerie-wire", &["menagerie-rules"]),
    // Endgame tables: the rules' positions, built and probed; no search.
    ("menagerie-tables", &["menagerie-rules", "menagerie-os"]),
    (
        "menagerie-search",
        &["menagerie-rules", "menagerie-tables", "menagerie-os"],
    ),
    (
        "menagerie-engine",
        &[
            "menagerie-rules",
            "menagerie-wire",
            "menagerie-search",
            "menagerie-tables",
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
