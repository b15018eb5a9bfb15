//! The engine options of `uci`, `ugi` and `setoption`: the search's
//! numbers, and the game and ruleset (`UCI_Variant` and one option per
//! ruleset option, `<game>.<key>`, as Fairy-Stockfish chooses variants), so
//! that GUIs and match runners that know only UCI or UGI can pick a game.

use std::fmt;

use crate::session::Entry;
use menagerie_rules::catalogue;
use menagerie_search::{MultiSeat, Settings};
use menagerie_wire::reply::{OptionKind, OptionLine};
use menagerie_wire::text::Clipped;

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

/// The option that chooses how a search over more than two seats models
/// the other seats.
pub const MULTI_SEAT: &str = "MultiSeat";

/// The folder of the endgame tables, as Stockfish's `SyzygyPath`.
pub const TABLE_PATH: &str = "TablePath";
/// `TablePath`'s value for the default folder, which differs by machine
/// and user (see `menagerie_tables::probe::default_directory`).
pub const DEFAULT_TABLE_PATH: &str = "<cache>";
/// Whether the search plays from endgame tables where it has them.
pub const USE_TABLES: &str = "UseTables";

/// The network file of the current game, as Stockfish's `EvalFile`.
pub const EVAL_FILE: &str = "EvalFile";
/// `EvalFile`'s value for the game's built-in network.
pub const DEFAULT_EVAL_FILE: &str = "<default>";
/// Whether the search uses the learned evaluation where the game has one
/// (false: the hand-written one, which the greedy player always uses).
pub const USE_NETWORK: &str = "UseNetwork";

/// The option that chooses the game, named as Fairy-Stockfish names it.
pub const VARIANT: &str = "UCI_Variant";

/// Whether a game can be played over UGI: two seats and no dice.
pub fn in_ugi(game: &Entry) -> bool {
    !game.has_chance && game.seat_letters.len() == 2
}

/// The options `uci` (every game of `catalogue`) or `ugi` (the games UGI
/// can play) lists.
pub fn listed(ugi: bool, catalogue: &[Entry]) -> Vec<OptionLine> {
    let mut lines: Vec<OptionLine> = SPINS
        .iter()
        .map(|spin| OptionLine {
            name: spin.name.to_string(),
            kind: OptionKind::Spin {
                default: spin.default as i64,
                min: spin.min as i64,
                max: spin.max as i64,
            },
        })
        .collect();
    let default = default_settings().multi_seat;
    lines.push(OptionLine {
        name: MULTI_SEAT.to_string(),
        kind: OptionKind::Combo {
            default: default.name().to_string(),
            values: MultiSeat::ALL
                .iter()
                .map(|m| m.name().to_string())
                .collect(),
        },
    });
    lines.push(OptionLine {
        name: TABLE_PATH.to_string(),
        kind: OptionKind::String {
            default: DEFAULT_TABLE_PATH.to_string(),
        },
    });
    lines.push(OptionLine {
        name: USE_TABLES.to_string(),
        kind: OptionKind::Check { default: true },
    });
    lines.push(OptionLine {
        name: EVAL_FILE.to_string(),
        kind: OptionKind::String {
            default: DEFAULT_EVAL_FILE.to_string(),
        },
    });
    lines.push(OptionLine {
        name: USE_NETWORK.to_string(),
        kind: OptionKind::Check { default: true },
    });
    let games: Vec<&Entry> = catalogue.iter().filter(|g| !ugi || in_ugi(g)).collect();
    lines.push(OptionLine {
        name: VARIANT.to_string(),
        kind: OptionKind::Combo {
            default: games[0].id.to_string(),
            values: games.iter().map(|g| g.id.to_string()).collect(),
        },
    });
    for game in games {
        for option in game.options {
            lines.push(OptionLine {
                name: format!("{}.{}", game.id, option.key),
                kind: OptionKind::Combo {
                    default: option.values[0].to_string(),
                    values: option.values.iter().map(|v| v.to_string()).collect(),
                },
            });
        }
    }
    lines
}

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
    /// A choice option without its value, and the values it has.
    NeedsChoice(&'static str, String),
    /// The table size the machine cannot give, and why.
    NoMemory(menagerie_search::tt::TableError),
    /// A network file that cannot serve the current game: the file and why.
    Network(String, menagerie_nnue::NetworkError),
    /// A table folder that is something else.
    TablePath(menagerie_os::files::PathError),
    /// Not a game id, or (`ugi`) a game UGI cannot play; the games that
    /// could be chosen.
    Variant {
        value: String,
        ugi: bool,
        known: Vec<&'static str>,
    },
    /// A ruleset option's value that the game does not have.
    RuleValue {
        option: String,
        value: String,
        allowed: String,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            OptionError::Unknown(name) => write!(
                f,
                "unknown option '{}' (known: {}, {MULTI_SEAT}, {TABLE_PATH}, {USE_TABLES}, {EVAL_FILE}, {USE_NETWORK}, {VARIANT}, <game>.<ruleset option>)",
                Clipped(name),
                SPINS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
            OptionError::Variant {
                value,
                ugi: false,
                known,
            } => write!(
                f,
                "option {VARIANT}: unknown game '{}' (known: {})",
                Clipped(value),
                known.join(", ")
            ),
            OptionError::Variant {
                value,
                ugi: true,
                known,
            } => write!(
                f,
                "option {VARIANT}: '{}' is not a game UGI can play (two seats, no dice: {}); use uci for every game",
                Clipped(value),
                known.join(", ")
            ),
            OptionError::RuleValue {
                option,
                value,
                allowed,
            } => write!(
                f,
                "option {option} needs one of {allowed}, not '{}'",
                Clipped(value)
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
            OptionError::NeedsChoice(name, allowed) => {
                write!(f, "option {name} needs 'value <{allowed}>'")
            }
            OptionError::NoMemory(e) => write!(f, "option Hash: {e}; the table keeps its size"),
            OptionError::Network(file, e) => write!(
                f,
                "option {EVAL_FILE}: {}: {e}; the engine keeps its network",
                menagerie_wire::text::clip_to(file, menagerie_wire::text::PATH_CHARS)
            ),
            OptionError::TablePath(e) => {
                write!(f, "option {TABLE_PATH}: {e}; the engine keeps its folder")
            }
        }
    }
}

impl std::error::Error for OptionError {}

/// A checked option value, to be applied by the engine.
pub enum Setting {
    Hash(usize),
    Threads(usize),
    Skill(u8),
    Seed(u64),
    MoveOverhead(u64),
    MultiSeat(MultiSeat),
    /// `None`: the default folder.
    TablePath(Option<std::path::PathBuf>),
    UseTables(bool),
    /// A network file (`None`: the built-in network) for `game` (from
    /// `<game>.EvalFile`), or for the game the file names (`EvalFile`;
    /// the current game for `<default>`).
    EvalFile {
        game: Option<&'static Entry>,
        path: Option<std::path::PathBuf>,
    },
    UseNetwork(bool),
    /// A tuning weight, already set (they are process-wide).
    Tuned,
    Variant(&'static Entry),
    /// A ruleset option of a game: the option's and its value's numbers
    /// in the game's declared lists.
    Rule {
        game: &'static Entry,
        option: usize,
        choice: usize,
    },
}

/// Checks `setoption name <name> value <value>` against the games of
/// `games`; in a UGI session the games are those UGI can play.
pub fn parse(
    name: &str,
    value: Option<&str>,
    ugi: bool,
    games: &'static [Entry],
) -> Result<Setting, OptionError> {
    if name.eq_ignore_ascii_case(VARIANT) {
        let text = value.ok_or_else(|| OptionError::NeedsChoice(VARIANT, "game id".to_string()))?;
        let game = catalogue::find(games, text)
            .filter(|g| !ugi || in_ugi(g))
            .ok_or_else(|| OptionError::Variant {
                value: text.to_string(),
                ugi,
                known: games
                    .iter()
                    .filter(|g| !ugi || in_ugi(g))
                    .map(|g| g.id)
                    .collect(),
            })?;
        return Ok(Setting::Variant(game));
    }
    if name.eq_ignore_ascii_case(MULTI_SEAT) {
        let allowed = MultiSeat::ALL.map(|m| m.name()).join("|");
        let text = value.ok_or_else(|| OptionError::NeedsChoice(MULTI_SEAT, allowed.clone()))?;
        return MultiSeat::from_name(text)
            .map(Setting::MultiSeat)
            .ok_or_else(|| OptionError::RuleValue {
                option: MULTI_SEAT.to_string(),
                value: text.to_string(),
                allowed,
            });
    }
    if name.eq_ignore_ascii_case(TABLE_PATH) {
        let text = value.ok_or_else(|| OptionError::NeedsChoice(TABLE_PATH, "folder".into()))?;
        return Ok(Setting::TablePath(
            (text != DEFAULT_TABLE_PATH).then(|| text.into()),
        ));
    }
    if name.eq_ignore_ascii_case(USE_TABLES) {
        return check(USE_TABLES, value).map(Setting::UseTables);
    }
    if name.eq_ignore_ascii_case(USE_NETWORK) {
        return check(USE_NETWORK, value).map(Setting::UseNetwork);
    }
    if name.eq_ignore_ascii_case(EVAL_FILE) {
        let text = value.ok_or_else(|| OptionError::NeedsChoice(EVAL_FILE, "file".into()))?;
        return Ok(Setting::EvalFile {
            game: None,
            path: (text != DEFAULT_EVAL_FILE).then(|| text.into()),
        });
    }
    if let Some(setting) = rule(name, value, games)? {
        return Ok(setting);
    }
    if let Some(param) = name
        .get(..5)
        .filter(|prefix| prefix.eq_ignore_ascii_case("tune."))
        .and_then(|_| menagerie_rules::tune::find(&name[5..]))
    {
        let text = value.ok_or(OptionError::NeedsValue(param.name))?;
        let (min, max) = menagerie_rules::tune::bounds(param);
        let bad = || OptionError::Value {
            name: param.name,
            value: text.to_string(),
            min: min as u64,
            max: max as u64,
        };
        let number: i32 = text.parse().map_err(|_| bad())?;
        menagerie_rules::tune::set(param, number).map_err(|_| bad())?;
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

/// The value of a check option `name`.
fn check(name: &'static str, value: Option<&str>) -> Result<bool, OptionError> {
    let text = value.ok_or_else(|| OptionError::NeedsChoice(name, "true|false".into()))?;
    match text.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(OptionError::RuleValue {
            option: name.to_string(),
            value: text.to_string(),
            allowed: "true|false".to_string(),
        }),
    }
}

/// `<game>.<key>` with a value the game's option has.
fn rule(
    name: &str,
    value: Option<&str>,
    games: &'static [Entry],
) -> Result<Option<Setting>, OptionError> {
    let Some((id, key)) = name.split_once('.') else {
        return Ok(None);
    };
    let Some(game) = games.iter().find(|g| g.id.eq_ignore_ascii_case(id)) else {
        return Ok(None);
    };
    if key.eq_ignore_ascii_case(EVAL_FILE) {
        let text = value.ok_or_else(|| OptionError::NeedsChoice(EVAL_FILE, "file".into()))?;
        return Ok(Some(Setting::EvalFile {
            game: Some(game),
            path: (text != DEFAULT_EVAL_FILE).then(|| text.into()),
        }));
    }
    let Some((index, option)) = game
        .options
        .iter()
        .enumerate()
        .find(|(_, o)| o.key.eq_ignore_ascii_case(key))
    else {
        return Ok(None);
    };
    let listed_name = format!("{}.{}", game.id, option.key);
    let text =
        value.ok_or_else(|| OptionError::NeedsChoice(option.key, option.values.join("|")))?;
    let choice = option
        .values
        .iter()
        .position(|v| v.eq_ignore_ascii_case(text))
        .ok_or_else(|| OptionError::RuleValue {
            option: listed_name,
            value: text.to_string(),
            allowed: option.values.join("|"),
        })?;
    Ok(Some(Setting::Rule {
        game,
        option: index,
        choice,
    }))
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
