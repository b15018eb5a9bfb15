//! Ruleset options: the `key=value` words given to `newgame`.

use std::fmt;

use crate::text::Clipped;

/// One option a game accepts, with its allowed values; the first value is
/// the default.
#[derive(Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub key: &'static str,
    pub values: &'static [&'static str],
}

/// A full choice of every option of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruleset {
    specs: &'static [OptionSpec],
    choices: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesetError {
    /// A word that is not `key=value`.
    Malformed(String),
    UnknownKey {
        key: String,
        known: String,
    },
    UnknownValue {
        key: String,
        value: String,
        allowed: String,
    },
    Repeated(String),
}

impl fmt::Display for RulesetError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RulesetError::Malformed(word) => {
                write!(
                    f,
                    "ruleset option '{}' is not of the form key=value",
                    Clipped(word)
                )
            }
            RulesetError::UnknownKey { key, known } if known.is_empty() => {
                write!(
                    f,
                    "unknown ruleset option '{}': this game has no options",
                    Clipped(key)
                )
            }
            RulesetError::UnknownKey { key, known } => {
                write!(
                    f,
                    "unknown ruleset option '{}' (known: {known})",
                    Clipped(key)
                )
            }
            RulesetError::UnknownValue {
                key,
                value,
                allowed,
            } => write!(
                f,
                "unknown value '{}' for option '{key}' (allowed: {allowed})",
                Clipped(value)
            ),
            RulesetError::Repeated(key) => write!(f, "ruleset option '{key}' given twice"),
        }
    }
}

impl std::error::Error for RulesetError {}

impl Ruleset {
    /// Every option at its default.
    pub fn defaults(specs: &'static [OptionSpec]) -> Ruleset {
        Ruleset {
            specs,
            choices: vec![0; specs.len()],
        }
    }

    /// Applies `key=value` words over the defaults.
    pub fn parse<S: AsRef<str>>(
        specs: &'static [OptionSpec],
        words: &[S],
    ) -> Result<Ruleset, RulesetError> {
        let mut ruleset = Ruleset::defaults(specs);
        let mut seen = vec![false; specs.len()];
        for word in words {
            let word = word.as_ref();
            let (key, value) = word
                .split_once('=')
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .ok_or_else(|| RulesetError::Malformed(word.to_string()))?;
            let key_lower = key.to_ascii_lowercase();
            let index = specs
                .iter()
                .position(|s| s.key == key_lower)
                .ok_or_else(|| RulesetError::UnknownKey {
                    key: key.to_string(),
                    known: specs.iter().map(|s| s.key).collect::<Vec<_>>().join(", "),
                })?;
            if seen[index] {
                return Err(RulesetError::Repeated(specs[index].key.to_string()));
            }
            seen[index] = true;
            let spec = &specs[index];
            let value_lower = value.to_ascii_lowercase();
            let choice = spec
                .values
                .iter()
                .position(|v| *v == value_lower)
                .ok_or_else(|| RulesetError::UnknownValue {
                    key: spec.key.to_string(),
                    value: value.to_string(),
                    allowed: spec.values.join("|"),
                })?;
            ruleset.choices[index] = choice as u8;
        }
        Ok(ruleset)
    }

    /// The chosen value of option `key`.
    ///
    /// # Panics
    /// When the game asks for a key it did not declare: a programming error.
    pub fn value(&self, key: &str) -> &'static str {
        let index = self
            .specs
            .iter()
            .position(|s| s.key == key)
            .unwrap_or_else(|| panic!("ruleset has no option '{key}'"));
        self.specs[index].values[self.choices[index] as usize]
    }

    /// The same ruleset with option number `option` (in the game's
    /// declared order) at its value number `choice`.
    ///
    /// # Panics
    /// When either is out of the declared range: a programming error.
    pub fn with_choice(&self, option: usize, choice: usize) -> Ruleset {
        assert!(choice < self.specs[option].values.len(), "a declared value");
        let mut changed = self.clone();
        changed.choices[option] = choice as u8;
        changed
    }

    pub fn specs(&self) -> &'static [OptionSpec] {
        self.specs
    }
}

impl fmt::Display for Ruleset {
    /// All options as `key=value` words, defaults included.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, (spec, &choice)) in self.specs.iter().zip(&self.choices).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}={}", spec.key, spec.values[choice as usize])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[OptionSpec] = &[
        OptionSpec {
            key: "start",
            values: &["ludovici", "apex"],
        },
        OptionSpec {
            key: "board",
            values: &["small", "large"],
        },
    ];

    #[test]
    fn defaults_and_choices_print_back() {
        let r = Ruleset::parse(SPECS, &["board=LARGE"]).unwrap();
        assert_eq!(r.value("board"), "large");
        assert_eq!(r.value("start"), "ludovici");
        assert_eq!(r.to_string(), "start=ludovici board=large");
        let again = Ruleset::parse(SPECS, &r.to_string().split(' ').collect::<Vec<_>>()).unwrap();
        assert_eq!(again, r);
    }

    #[test]
    fn errors_name_the_problem() {
        let e = Ruleset::parse(SPECS, &["size=3"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown ruleset option 'size' (known: start, board)"
        );
        let e = Ruleset::parse(SPECS, &["board=huge"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown value 'huge' for option 'board' (allowed: small|large)"
        );
        assert!(matches!(
            Ruleset::parse(SPECS, &["board"]),
            Err(RulesetError::Malformed(_))
        ));
        assert!(matches!(
            Ruleset::parse(SPECS, &["board=small", "board=large"]),
            Err(RulesetError::Repeated(_))
        ));
    }
}
