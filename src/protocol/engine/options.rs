//! The engine options of `uci` and `setoption`.

use std::fmt;

use crate::search::Settings;

/// A numeric engine option as `uci` lists it.
pub struct Spin {
    pub name: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

pub const HASH: Spin = Spin {
    name: "Hash",
    default: 16,
    min: 1,
    max: 65536,
};
pub const THREADS: Spin = Spin {
    name: "Threads",
    default: 1,
    min: 1,
    max: 256,
};
pub const SKILL: Spin = Spin {
    name: "Skill",
    default: 20,
    min: 0,
    max: 20,
};
pub const SEED: Spin = Spin {
    name: "Seed",
    default: 0,
    min: 0,
    max: i64::MAX as u64,
};
/// Milliseconds kept back from every time budget for getting the move to
/// the other side (pipes, the GUI or referee, a busy machine).
pub const MOVE_OVERHEAD: Spin = Spin {
    name: "Move Overhead",
    default: 10,
    min: 0,
    max: 5000,
};
pub const SPINS: [&Spin; 5] = [&HASH, &THREADS, &SKILL, &SEED, &MOVE_OVERHEAD];

/// A `setoption` that cannot be carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    Unknown(String),
    Value {
        name: &'static str,
        value: String,
        min: u64,
        max: u64,
    },
    NeedsValue(&'static str),
    /// The table size the machine cannot give, and why.
    NoMemory(crate::search::tt::TableError),
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        use crate::text::Clipped;
        match self {
            OptionError::Unknown(name) => write!(
                f,
                "unknown option '{}' (known: {})",
                Clipped(name),
                SPINS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
            OptionError::Value {
                name,
                value,
                min,
                max,
            } => write!(
                f,
                "option {name} needs a whole number from {min} to {max}, not '{}'",
                Clipped(value)
            ),
            OptionError::NeedsValue(name) => write!(f, "option {name} needs 'value <number>'"),
            OptionError::NoMemory(e) => write!(f, "option Hash: {e}; the table keeps its size"),
        }
    }
}

/// A checked option value, to be applied by the engine.
pub enum Setting {
    Hash(usize),
    Threads(usize),
    Skill(u8),
    Seed(u64),
    MoveOverhead(u64),
    /// A tuning weight, already set (they are process-wide).
    Tuned,
}

/// Checks `setoption name <name> value <value>`.
pub fn parse(name: &str, value: Option<&str>) -> Result<Setting, OptionError> {
    if let Some(param) = name
        .get(..5)
        .filter(|prefix| prefix.eq_ignore_ascii_case("tune."))
        .and_then(|_| crate::tune::find(&name[5..]))
    {
        let text = value.ok_or(OptionError::NeedsValue(param.name))?;
        let (min, max) = crate::tune::bounds(param);
        let bad = || OptionError::Value {
            name: param.name,
            value: text.to_string(),
            min: min as u64,
            max: max as u64,
        };
        let number: i32 = text.parse().map_err(|_| bad())?;
        crate::tune::set(param, number).map_err(|_| bad())?;
        return Ok(Setting::Tuned);
    }
    let spin = SPINS
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| OptionError::Unknown(name.to_string()))?;
    let text = value.ok_or(OptionError::NeedsValue(spin.name))?;
    let number = text
        .parse::<u64>()
        .ok()
        .filter(|n| (spin.min..=spin.max).contains(n))
        .ok_or_else(|| OptionError::Value {
            name: spin.name,
            value: text.to_string(),
            min: spin.min,
            max: spin.max,
        })?;
    Ok(match spin.name {
        "Hash" => Setting::Hash(number as usize),
        "Threads" => Setting::Threads(number as usize),
        "Skill" => Setting::Skill(number as u8),
        "Seed" => Setting::Seed(number),
        "Move Overhead" => Setting::MoveOverhead(number),
        other => unreachable!("option {other} is listed but not handled"),
    })
}

/// Settings of a new engine, by the options' defaults.
pub fn default_settings() -> Settings {
    Settings {
        threads: THREADS.default as usize,
        skill: SKILL.default as u8,
        seed: SEED.default,
        ..Settings::default()
    }
}
