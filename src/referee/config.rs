//! The settings of one match, and the checks that refuse bad ones before
//! any game. What decides how each game is played is kept in one struct,
//! [`PlaySettings`], which the games read and the fingerprint covers
//! whole; how this run plays its part (how many games, which shard, where
//! records go) is the rest of [`MatchConfig`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::checksum::Fingerprint;
use super::spec::{EngineSpec, Limit, SpecError, TcError};
use super::stats::Sprt;
use menagerie_os::bundled::BundledError;
use menagerie_rules::catalogue::{GameEntry, GameError};
use menagerie_rules::game::ruleset::{Ruleset, RulesetError};
use menagerie_rules::game::session::DynSession;
use menagerie_rules::game::session::PositionError;

/// How the two engines share the seats of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seating {
    /// The engines take the seats in turn order, alternately; the second
    /// game of each pair swaps them. With two seats, each engine has one.
    Alternate,
    /// The first engine alone in one seat, the second in every other; the
    /// games of a set give the first engine each seat once, on one start
    /// and one set of dice (free-for-all strength). With two seats it is
    /// the same as alternating.
    Lone,
}

impl Seating {
    pub fn word(self) -> &'static str {
        match self {
            Seating::Alternate => "alternate",
            Seating::Lone => "lone",
        }
    }

    pub fn from_word(word: &str) -> Option<Seating> {
        match word {
            "alternate" => Some(Seating::Alternate),
            "lone" => Some(Seating::Lone),
            _ => None,
        }
    }
}

impl fmt::Display for Seating {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Everything that decides how each game of a match is played: records
/// carry a fingerprint of all of it, so records of different matches are
/// never added up, and a game of any shard or wave is the game the whole
/// match plays.
pub struct PlaySettings {
    pub entry: &'static GameEntry,
    pub rules: MatchRules,
    pub engines: [EngineSpec; 2],
    /// The limit of engines that set none of their own.
    pub limit: Limit,
    /// Start notations, used in turn, one per pair.
    pub openings: Vec<String>,
    /// Random plies from the start when there is no opening file.
    pub random_openings: u32,
    pub seed: u64,
    pub max_plies: Option<u32>,
    /// Time over its limit forgiven before a time loss.
    pub margin_ms: u64,
    pub seating: Seating,
    /// A checksum of each engine's program file ([`program_checksum`]):
    /// an engine rebuilt between the waves or shards of a match makes
    /// another match.
    pub programs: [u64; 2],
}

impl PlaySettings {
    pub fn limit_of(&self, engine: usize) -> Limit {
        self.engines[engine].limit.unwrap_or(self.limit)
    }

    pub fn names(&self) -> [&str; 2] {
        [&self.engines[0].name, &self.engines[1].name]
    }

    /// A short name of these settings: a checksum of every field. The
    /// number of games is not among them: pair `p` is the same game in a
    /// match of any length, so a match can grow in waves.
    pub fn fingerprint(&self) -> Fingerprint {
        // Every field, by name: a field added to the struct must be added
        // here, or this does not compile.
        let PlaySettings {
            entry,
            rules,
            engines,
            limit,
            openings,
            random_openings,
            seed,
            max_plies,
            margin_ms,
            seating,
            programs,
        } = self;
        let mut text = format!(
            "{} {} | limit {limit} | openings {} | random {random_openings} | seed {seed} | max-plies {max_plies:?} | margin {margin_ms}",
            entry.id,
            rules.given.join(" "),
            openings.join(";"),
        );
        // Matches of alternate seating keep the fingerprints they had
        // before seatings were chosen.
        if *seating != Seating::Alternate {
            text.push_str(&format!(" | seating {seating}"));
        }
        for (engine, program) in engines.iter().zip(programs) {
            text.push_str(&format!(
                " | engine {} {:?} {:?} {:?} program {program:016x}",
                engine.name, engine.command, engine.options, engine.limit
            ));
        }
        Fingerprint::of(&text)
    }
}

/// The ruleset of a match, checked once where the command line is read.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRules {
    pub ruleset: Ruleset,
    /// The words as given: sent to the engines with `newgame`, and part
    /// of the fingerprint (as they have always been, so that a match's
    /// records resume).
    pub given: Vec<String>,
}

impl MatchRules {
    /// The ruleset of `entry` that `words` give, checked.
    pub fn of(entry: &GameEntry, words: &[String]) -> Result<MatchRules, RulesetError> {
        Ok(MatchRules {
            ruleset: entry.ruleset(words)?,
            given: words.to_vec(),
        })
    }

    /// A session of `entry` at the start of this ruleset.
    pub fn session(&self, entry: &GameEntry) -> Box<dyn DynSession> {
        entry.session_of(&self.ruleset)
    }
}

/// A checksum of the file an engine command runs: its first word, as a
/// path if it holds a `/`, else looked up in `PATH` as the shell does. 0
/// when there is no such file (the engine then fails to start anyway). A
/// Most bytes of an engine program read for its checksum.
const MAX_PROGRAM_BYTES: u64 = 1 << 30;

/// wrapper script is checksummed, not what it runs.
pub fn program_checksum(command: &[String]) -> u64 {
    let Some(program) = command.first() else {
        return 0;
    };
    let file = if program.contains('/') {
        Some(PathBuf::from(program))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .find(|candidate| candidate.is_file())
        })
    };
    // A regular file, read without blocking and at most a GiB (engine
    // programs are megabytes; a larger one is fingerprinted as none).
    match file.and_then(|f| menagerie_os::files::read_bounded(&f, MAX_PROGRAM_BYTES).ok()) {
        Some(bytes) => super::checksum::checksum_bytes(&bytes),
        None => 0,
    }
}

/// A match: how its games are played, and how this run plays its part.
pub struct MatchConfig {
    pub play: PlaySettings,
    /// Games of the whole match (of every shard together).
    pub games: u32,
    pub concurrency: usize,
    pub record: Option<PathBuf>,
    /// Continue the match of `record`: play only what it lacks.
    pub resume: bool,
    /// `(i, n)`: play only the i-th of n interleaved slices of the pairs.
    pub shard: Option<(u32, u32)>,
    pub sprt: Option<Sprt>,
    pub quiet: bool,
    /// Check everything (settings, records, engines and their options),
    /// print what would be played, and play nothing.
    pub dry_run: bool,
    /// How long an engine may take to start and answer its handshake.
    pub startup: Duration,
    /// How long an engine may take to answer `isready`.
    pub stall: Duration,
    /// Games between the Elo and SPRT reports of a long match.
    pub rating_interval: u32,
    /// Where to write the results as JSON at the end.
    pub json: Option<PathBuf>,
}

/// A limit's number that cannot work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitError {
    MoveTimeZero,
    DepthZero,
    NodesZero,
    BaseTimeZero,
    /// A time over [`MAX_LIMIT_MS`]: no game waits that long for a move,
    /// and deadlines must not overflow.
    TooLong(u64),
}

/// The longest time a limit may give a move or a clock: one week.
pub const MAX_LIMIT_MS: u64 = 7 * 24 * 3600 * 1000;

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if let LimitError::TooLong(ms) = self {
            return write!(
                f,
                "{ms} ms is over the longest time a move or a clock may have, {MAX_LIMIT_MS} ms (a week)"
            );
        }
        f.write_str(match self {
            LimitError::TooLong(_) => unreachable!("written above"),
            LimitError::MoveTimeZero => "a move time must be at least 1 ms",
            LimitError::DepthZero => "a depth must be at least 1",
            LimitError::NodesZero => "a node count must be at least 1",
            LimitError::BaseTimeZero => "the clock's base time must be more than 0",
        })
    }
}

impl std::error::Error for LimitError {}

/// Checks the numbers of a limit.
pub fn check_limit(limit: &Limit) -> Result<(), LimitError> {
    match *limit {
        Limit::MoveTime(0) => Err(LimitError::MoveTimeZero),
        Limit::Depth(0) => Err(LimitError::DepthZero),
        Limit::Nodes(0) => Err(LimitError::NodesZero),
        Limit::Clock { base_ms: 0, .. } => Err(LimitError::BaseTimeZero),
        Limit::MoveTime(ms) if ms > MAX_LIMIT_MS => Err(LimitError::TooLong(ms)),
        Limit::Clock { base_ms, inc_ms } if base_ms.max(inc_ms) > MAX_LIMIT_MS => {
            Err(LimitError::TooLong(base_ms.max(inc_ms)))
        }
        _ => Ok(()),
    }
}

/// Longest line of an openings file: a notation and a long move list fit
/// many times over.
pub const MAX_OPENING_LINE: usize = 64 << 10;
/// Most bytes of an openings file read (also from a pipe or a device).
pub const MAX_OPENINGS_BYTES: u64 = 256 << 20;
/// Most openings a file may hold.
pub const MAX_OPENINGS: usize = 1_000_000;

/// Why an openings file cannot be used.
#[derive(Debug)]
pub enum OpeningsError {
    Unreadable(PathBuf, String),
    /// A line that is neither a notation nor a move list.
    BadLine {
        path: PathBuf,
        line: usize,
        as_notation: Option<PositionError>,
        as_moves: PositionError,
    },
    /// A line whose position is already decided.
    Over {
        path: PathBuf,
        line: usize,
    },
    Empty(PathBuf),
    /// A line longer than the limit.
    LongLine {
        path: PathBuf,
        line: usize,
        bytes: usize,
    },
    /// More bytes than the limit.
    TooLarge(PathBuf),
    /// More openings than the limit.
    TooMany(PathBuf),
}

impl fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            OpeningsError::Unreadable(path, e) => {
                write!(f, "openings file {}: {e}", path.display())
            }
            OpeningsError::BadLine {
                path,
                line,
                as_notation: Some(notation),
                as_moves,
            } => write!(
                f,
                "openings file {} line {line}: not a notation ({notation}) nor a move list ({as_moves})",
                path.display()
            ),
            OpeningsError::BadLine {
                path,
                line,
                as_notation: None,
                as_moves,
            } => write!(f, "openings file {} line {line}: {as_moves}", path.display()),
            OpeningsError::Over { path, line } => write!(
                f,
                "openings file {} line {line}: the game is already over",
                path.display()
            ),
            OpeningsError::Empty(path) => {
                write!(f, "openings file {} has no openings", path.display())
            }
            OpeningsError::LongLine { path, line, bytes } => write!(
                f,
                "openings file {} line {line}: {bytes} bytes, longer than the limit of {} bytes",
                path.display(),
                MAX_OPENING_LINE
            ),
            OpeningsError::TooLarge(path) => write!(
                f,
                "openings file {} is larger than the limit of {} MiB",
                path.display(),
                MAX_OPENINGS_BYTES >> 20
            ),
            OpeningsError::TooMany(path) => write!(
                f,
                "openings file {} holds more than the limit of {} openings",
                path.display(),
                MAX_OPENINGS
            ),
        }
    }
}

impl std::error::Error for OpeningsError {}

/// What is wrong with `--sprt`.
#[derive(Clone, Debug, PartialEq)]
pub enum SprtError {
    NotKeyValue(String),
    UnknownKey(String),
    NotANumber { key: &'static str, value: String },
    Twice(&'static str),
    Missing(Vec<&'static str>),
    ErrorRate { key: &'static str, value: f64 },
    Order { elo0: f64, elo1: f64 },
    TooLarge,
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SprtError::NotKeyValue(word) => write!(f, "--sprt '{word}' is not key=value"),
            SprtError::UnknownKey(key) => {
                write!(f, "--sprt: unknown key '{key}' (known: elo0, elo1, alpha, beta)")
            }
            SprtError::NotANumber { key, value } => {
                write!(f, "--sprt {key}: '{value}' is not a number")
            }
            SprtError::Twice(key) => write!(f, "--sprt: {key} given twice"),
            SprtError::Missing(keys) => write!(
                f,
                "--sprt needs elo0, elo1, alpha and beta; missing {} (e.g. --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05)",
                keys.join(", ")
            ),
            SprtError::ErrorRate { key, value } => {
                write!(f, "--sprt {key} must be between 0 and 0.5, not {value}")
            }
            SprtError::Order { elo0, elo1 } => write!(
                f,
                "--sprt needs elo1 greater than elo0 ({elo0} and {elo1})"
            ),
            SprtError::TooLarge => f.write_str("--sprt Elo bounds must be within +/-1000"),
        }
    }
}

impl std::error::Error for SprtError {}

/// A setting the referee refuses, before any game.
#[derive(Debug)]
pub enum ConfigError {
    /// Not two `--engine`s (the count given).
    EngineCount(usize),
    Engine(SpecError),
    /// Both engines have this name.
    SameNames(String),
    BadName(String),
    /// An engine's own limit.
    /// The match's own limit (--movetime, --tc) is out of range.
    Limit(LimitError),
    EngineLimit {
        engine: String,
        error: LimitError,
    },
    NoGame,
    Game(GameError),
    Ruleset {
        game: String,
        error: GameError,
    },
    /// A count that must be at least 1: the option.
    Zero(&'static str),
    Tc {
        text: String,
        error: TcError,
    },
    RoundsTooLarge,
    Openings(Box<OpeningsError>),
    Sprt(SprtError),
    Shard(String),
    /// `--shard` or `--resume` without `--seed`.
    NeedsSeed(&'static str),
    SprtWithShard,
    /// The demo's engine is missing.
    Bundled(BundledError),
    /// `--json` names a path that takes no file.
    Json(menagerie_os::files::PathError),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ConfigError::EngineCount(n) => {
                write!(f, "a match needs two engines (--engine twice), got {n}")
            }
            ConfigError::Engine(e) => e.fmt(f),
            ConfigError::SameNames(name) => write!(
                f,
                "both engines are named '{name}'; give one a name= setting"
            ),
            ConfigError::BadName(name) => write!(
                f,
                "engine name '{name}' may not be '-' or contain blanks, ',', ':' or '='"
            ),
            ConfigError::EngineLimit { engine, error } => write!(f, "engine {engine}: {error}"),
            ConfigError::Limit(error) => write!(f, "the match's limit: {error}"),
            ConfigError::NoGame => f.write_str("--game needs a game id"),
            ConfigError::Game(e) => e.fmt(f),
            ConfigError::Ruleset { game, error } => write!(f, "--game {game}: {error}"),
            ConfigError::Zero(option) => write!(f, "{option} must be at least 1"),
            ConfigError::Tc { text, error } => write!(f, "--tc '{text}': {error}"),
            ConfigError::RoundsTooLarge => f.write_str("--rounds is too large"),
            ConfigError::Openings(e) => e.fmt(f),
            ConfigError::Sprt(e) => e.fmt(f),
            ConfigError::Shard(text) => write!(
                f,
                "--shard '{text}': expected I/N with 1 <= I <= N, e.g. 3/8"
            ),
            ConfigError::NeedsSeed(option) => write!(
                f,
                "{option} needs --seed: every part of a match must play the same games"
            ),
            ConfigError::SprtWithShard => f.write_str(
                "--sprt with --shard: a shard cannot decide alone; merge the shards with --sprt (see docs/cluster.md)",
            ),
            ConfigError::Bundled(e) => write!(f, "no engine given and {e}"),
            ConfigError::Json(e) => write!(f, "--json {e}"),
        }
    }
}

impl std::error::Error for ConfigError {}
