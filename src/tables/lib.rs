//! Endgame tables: exact values of every position with few men, for games
//! whose captures only remove men (see [`menagerie_rules::game::endgame`]).
//!
//! - [`value`]: what a table keeps of a position (two thresholds of the
//!   no-progress clock) and what they mean.
//! - [`retrograde`]: retrograde analysis, a slice and its mirror at a time.
//! - [`file`]: the slice files (a header with a checksum, then the entries).
//! - [`probe`]: tables of one ruleset, memory-mapped, looked up by position.
//! - [`verify`]: re-derives every stored value from its successors.
//!
//! Nothing here knows a game by name: the game numbers its positions.

pub mod file;
pub mod probe;
pub mod retrograde;
pub mod value;
pub mod verify;

pub use probe::Tables;
pub use value::{Entry, Probe, Wdl};

#[cfg(test)]
mod tests;
