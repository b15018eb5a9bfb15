//! What the command line says about each engine: how to start it, its name,
//! the options to set, and its own limits.

use std::fmt;

/// How long an engine may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A clock: base and increment in milliseconds.
    Clock {
        base_ms: u64,
        inc_ms: u64,
    },
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Limit::Clock { base_ms, inc_ms } => {
                write!(
                    f,
                    "tc {}+{}",
                    *base_ms as f64 / 1000.0,
                    *inc_ms as f64 / 1000.0
                )
            }
            Limit::MoveTime(ms) => write!(f, "movetime {ms} ms"),
            Limit::Depth(d) => write!(f, "depth {d}"),
            Limit::Nodes(n) => write!(f, "nodes {n}"),
        }
    }
}

/// One `--engine` argument, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    pub name: String,
    /// `setoption` pairs, in order.
    pub options: Vec<(String, String)>,
    /// The engine's own limit, overriding the match's.
    pub limit: Option<Limit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecError {
    EmptyCommand,
    UnbalancedQuote(String),
    UnknownSetting(String),
    BadValue {
        key: String,
        value: String,
        expected: String,
    },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SpecError::EmptyCommand => write!(f, "--engine needs a command line"),
            SpecError::UnbalancedQuote(cmd) => write!(f, "unbalanced quote in engine command '{cmd}'"),
            SpecError::UnknownSetting(s) => write!(
                f,
                "unknown engine setting '{s}' (known: name=, option.<Name>=, tc=, movetime=, depth=, nodes=)"
            ),
            SpecError::BadValue { key, value, expected } => {
                write!(f, "engine setting {key}={value}: expected {expected}")
            }
        }
    }
}

impl std::error::Error for SpecError {}

/// Splits a command line into words, honouring single and double quotes.
pub fn split_command(line: &str) -> Result<Vec<String>, SpecError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(SpecError::UnbalancedQuote(line.to_string()));
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SpecError::EmptyCommand);
    }
    Ok(words)
}

/// Longest base time or increment a time control may have, in seconds
/// (about 11.5 days: beyond it a typo is likelier than a plan).
pub const MAX_TC_SECONDS: f64 = 1_000_000.0;

/// What is wrong with a time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcError {
    /// Which part (`base time`, `increment`) and its text.
    NotSeconds(&'static str, String),
    TooLong(&'static str, String),
    BaseZero,
}

impl fmt::Display for TcError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TcError::NotSeconds(what, text) => {
                write!(f, "the {what} '{text}' is not a number of seconds")
            }
            TcError::TooLong(what, text) => {
                write!(f, "the {what} {text} s is longer than {MAX_TC_SECONDS} s")
            }
            TcError::BaseZero => f.write_str("the base time must be at least 1 ms"),
        }
    }
}

impl std::error::Error for TcError {}

/// Parses `<base>+<inc>` in seconds (`10+0.1`, `60`), or says what is wrong.
pub fn parse_tc(text: &str) -> Result<Limit, TcError> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |s: &str, what: &'static str| -> Result<f64, TcError> {
        let v: f64 = s
            .parse()
            .map_err(|_| TcError::NotSeconds(what, s.to_string()))?;
        if !v.is_finite() || v < 0.0 {
            return Err(TcError::NotSeconds(what, s.to_string()));
        }
        if v > MAX_TC_SECONDS {
            return Err(TcError::TooLong(what, s.to_string()));
        }
        Ok(v)
    };
    let (base, inc) = (seconds(base, "base time")?, seconds(inc, "increment")?);
    let base_ms = (base * 1000.0).round() as u64;
    if base_ms == 0 {
        return Err(TcError::BaseZero);
    }
    Ok(Limit::Clock {
        base_ms,
        inc_ms: (inc * 1000.0).round() as u64,
    })
}

/// Parses the values of one `--engine`: the command line first, then
/// `key=value` settings. `index` names unnamed engines.
pub fn parse_engine(values: &[String], index: usize) -> Result<EngineSpec, SpecError> {
    let (command, settings) = values.split_first().ok_or(SpecError::EmptyCommand)?;
    let command = split_command(command)?;
    let mut spec = EngineSpec {
        name: default_name(&command, index),
        command,
        options: Vec::new(),
        limit: None,
    };
    for setting in settings {
        let (key, value) = setting
            .split_once('=')
            .ok_or_else(|| SpecError::UnknownSetting(setting.clone()))?;
        let bad = |expected: &str| SpecError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        };
        match key {
            "name" if !value.is_empty() => spec.name = value.to_string(),
            "name" => return Err(bad("a non-empty name")),
            "tc" => {
                spec.limit =
                    Some(parse_tc(value).map_err(|why| {
                        bad(&format!("<base>+<inc> in seconds, e.g. 10+0.1 ({why})"))
                    })?)
            }
            "movetime" => {
                spec.limit = Some(Limit::MoveTime(
                    positive(value).ok_or_else(|| bad("milliseconds, at least 1"))?,
                ))
            }
            "depth" => {
                spec.limit = Some(Limit::Depth(
                    positive(value).ok_or_else(|| bad("a depth, at least 1"))? as u32,
                ))
            }
            "nodes" => {
                spec.limit = Some(Limit::Nodes(
                    positive(value).ok_or_else(|| bad("a node count, at least 1"))?,
                ))
            }
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => {
                    spec.options.push((option.to_string(), value.to_string()))
                }
                _ => return Err(SpecError::UnknownSetting(setting.clone())),
            },
        }
    }
    Ok(spec)
}

/// A whole number of at least 1 (depths up to a u32).
fn positive(value: &str) -> Option<u64> {
    value
        .parse::<u64>()
        .ok()
        .filter(|&n| n >= 1 && n <= u32::MAX as u64 * 1024)
}

fn default_name(command: &[String], index: usize) -> String {
    let program = std::path::Path::new(&command[0])
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "engine".to_string());
    format!("{program}-{}", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command("python3 'my engine.py' --x \"a b\"").unwrap(),
            ["python3", "my engine.py", "--x", "a b"]
        );
        assert!(matches!(
            split_command("a 'b"),
            Err(SpecError::UnbalancedQuote(_))
        ));
        assert!(matches!(split_command("   "), Err(SpecError::EmptyCommand)));
    }

    #[test]
    fn settings_follow_the_command() {
        let spec = parse_engine(
            &strings(&[
                "./menagerie --x",
                "name=weak",
                "option.Skill=3",
                "tc=5+0.05",
            ]),
            0,
        )
        .unwrap();
        assert_eq!(spec.command, ["./menagerie", "--x"]);
        assert_eq!(spec.name, "weak");
        assert_eq!(spec.options, [("Skill".to_string(), "3".to_string())]);
        assert_eq!(
            spec.limit,
            Some(Limit::Clock {
                base_ms: 5000,
                inc_ms: 50
            })
        );
        assert_eq!(
            parse_engine(&strings(&["/x/y/eng"]), 1).unwrap().name,
            "eng-2"
        );
        assert!(matches!(
            parse_engine(&strings(&["e", "colour=red"]), 0),
            Err(SpecError::UnknownSetting(_))
        ));
        assert!(matches!(
            parse_engine(&strings(&["e", "tc=fast"]), 0),
            Err(SpecError::BadValue { .. })
        ));
    }

    #[test]
    fn time_controls() {
        assert_eq!(
            parse_tc("10+0.1"),
            Ok(Limit::Clock {
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(
            parse_tc("60"),
            Ok(Limit::Clock {
                base_ms: 60_000,
                inc_ms: 0
            })
        );
        assert_eq!(parse_tc("0+1"), Err(TcError::BaseZero));
        assert_eq!(
            parse_tc("x+1"),
            Err(TcError::NotSeconds("base time", "x".into()))
        );
        assert_eq!(
            parse_tc("-5"),
            Err(TcError::NotSeconds("base time", "-5".into()))
        );
        assert!(matches!(parse_tc("1e300+0"), Err(TcError::TooLong(..))));
        assert_eq!(
            parse_tc("1+inf"),
            Err(TcError::NotSeconds("increment", "inf".into()))
        );
        assert_eq!(
            parse_tc("x+1").unwrap_err().to_string(),
            "the base time 'x' is not a number of seconds"
        );
    }
}
