//! Helpers shared by the integration tests: run the engine binary on lines.
#![allow(dead_code)]

use assert_cmd::Command;

/// Runs `menagerie` with `lines` on stdin and returns its stdout; asserts
/// exit code 0 and no panic message on stderr.
pub fn engine(lines: &[&str]) -> String {
    let mut input = lines.join("\n");
    input.push('\n');
    let output = Command::cargo_bin("menagerie")
        .expect("binary builds")
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("engine runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "engine panicked: {stderr}");
    assert_eq!(
        output.status.code(),
        Some(0),
        "exit status; stderr: {stderr}"
    );
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

/// Output lines that are errors.
pub fn errors(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| l.starts_with("info string error: "))
        .collect()
}

/// The value of the last `Notation:` line of `d`.
pub fn notation(output: &str) -> String {
    output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Notation: "))
        .expect("a d output")
        .to_string()
}

/// The value of the last line starting with `prefix`.
pub fn last_value<'a>(output: &'a str, prefix: &str) -> &'a str {
    output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line starting with '{prefix}' in:\n{output}"))
}

/// The list printed by `legal`.
pub fn legal(output: &str) -> Vec<String> {
    let line = output
        .lines()
        .rev()
        .find(|l| *l == "legal" || l.starts_with("legal "))
        .expect("a legal line");
    line.split_whitespace().skip(1).map(String::from).collect()
}

/// `Nodes searched` totals, in order.
pub fn perft_totals(output: &str) -> Vec<u64> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("Nodes searched: "))
        .map(|n| n.parse().expect("a count"))
        .collect()
}
