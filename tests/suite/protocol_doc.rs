//! Runs every ```session example of protocol.md through the engine binary.

use crate::common;

/// One example: lines to send, and the expected reply lines (`...` matches
/// any number of lines).
struct Example {
    line: usize,
    input: Vec<String>,
    expected: Vec<String>,
}

fn examples(markdown: &str) -> Vec<Example> {
    let mut examples = Vec::new();
    let mut current: Option<Example> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```session") => {
                current = Some(Example {
                    line: i + 1,
                    input: Vec::new(),
                    expected: Vec::new(),
                })
            }
            (Some(_), "```") => examples.push(current.take().unwrap()),
            (Some(example), text) => match text.strip_prefix("> ") {
                Some(command) => example.input.push(command.to_string()),
                None => example.expected.push(text.to_string()),
            },
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "unterminated session block");
    examples
}

/// Whether `actual` lines match `expected`, where `...` matches any run.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            // `prefix ...` stands for any line that starts with `prefix `.
            let same = match first.strip_suffix(" ...") {
                Some(prefix) => actual
                    .first()
                    .is_some_and(|line| line.starts_with(&format!("{prefix} "))),
                None => actual.first() == Some(&first.as_str()),
            };
            same && matches(rest, &actual[1..])
        }
    }
}

#[test]
fn every_protocol_example_runs_as_documented() {
    let markdown =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md")).unwrap();
    let examples = examples(&markdown);
    assert!(
        examples.len() >= 10,
        "only {} examples found",
        examples.len()
    );
    for example in examples {
        let input: Vec<&str> = example.input.iter().map(String::as_str).collect();
        let output = common::engine(&input);
        let actual: Vec<&str> = output.lines().collect();
        assert!(
            matches(&example.expected, &actual),
            "protocol.md example at line {} does not match.\nexpected:\n{}\nactual:\n{}",
            example.line,
            example.expected.join("\n"),
            output
        );
    }
}
