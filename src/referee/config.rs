//! The settings of one match, and the checks that refuse bad ones before
//! any game.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::spec::{EngineSpec, Limit};
use super::stats::Sprt;
use menagerie_rules::catalogue::GameEntry;

pub struct MatchConfig {
    pub engines: [EngineSpec; 2],
    pub entry: &'static GameEntry,
    pub rules: Vec<String>,
    /// Games of the whole match (of every shard together).
    pub games: u32,
    /// The limit of engines that set none of their own.
    pub limit: Limit,
    pub concurrency: usize,
    pub seed: u64,
    /// Start notations, used in turn, one per pair.
    pub openings: Vec<String>,
    /// Random plies from the start when there is no opening file.
    pub random_openings: u32,
    pub record: Option<PathBuf>,
    /// Continue the match of `record`: play only what it lacks.
    pub resume: bool,
    /// `(i, n)`: play only the i-th of n interleaved slices of the pairs.
    pub shard: Option<(u32, u32)>,
    pub max_plies: Option<u32>,
    pub sprt: Option<Sprt>,
    pub quiet: bool,
    /// Check everything (settings, records, engines and their options),
    /// print what would be played, and play nothing.
    pub dry_run: bool,
    /// How long an engine may take to start and answer its handshake.
    pub startup: Duration,
    /// How long an engine may take to answer `isready`.
    pub stall: Duration,
    pub margin_ms: u64,
    /// Games between the Elo and SPRT reports of a long match.
    pub rating_interval: u32,
    /// Where to write the results as JSON at the end.
    pub json: Option<PathBuf>,
}

impl MatchConfig {
    pub fn limit_of(&self, engine: usize) -> Limit {
        self.engines[engine].limit.unwrap_or(self.limit)
    }

    pub fn names(&self) -> [&str; 2] {
        [&self.engines[0].name, &self.engines[1].name]
    }
}

/// A setting the referee refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Checks the numbers of a limit, for messages naming `what`.
pub fn check_limit(limit: &Limit, what: &str) -> Result<(), ConfigError> {
    let bad = |why: &str| Err(ConfigError(format!("{what}: {why}")));
    match *limit {
        Limit::MoveTime(0) => bad("a move time must be at least 1 ms"),
        Limit::Depth(0) => bad("a depth must be at least 1"),
        Limit::Nodes(0) => bad("a node count must be at least 1"),
        Limit::Clock { base_ms: 0, .. } => bad("the clock's base time must be more than 0"),
        _ => Ok(()),
    }
}
