//! Exact knowledge: the values of positions known for certain, as one
//! layer ([`exact`]) over its sources.
//!
//! - [`value`]: the one value type, and what an endgame table keeps of a
//!   position (two thresholds of the no-progress clock).
//! - [`solved`]: whole small games solved by retrograde analysis.
//! - [`retrograde`]: endgame tables by retrograde analysis, for games whose
//!   captures only remove men, a slice and its mirror at a time, by the
//!   walk backwards of `backward`.
//! - [`file`]: the slice files (a header with a checksum, then the entries).
//! - [`probe`]: tables of one ruleset, looked up by position.
//! - [`verify`]: re-derives every stored value from its successors;
//!   [`audit`] does so for a whole folder, keeping records to resume from.
//! - [`speed`]: what a probe costs, against a move generation.
//! - [`proof`]: proof-number search beyond the tables, with bounded
//!   memory and [`checkpoint`]s to resume from, writing [`certificate`]s
//!   that programs sharing nothing with it can check.
//! - [`cache`]: the process's one store of solved games and open tables.
//!
//! Nothing here knows a game by name: the game numbers its positions.

pub mod audit;
mod backward;
pub mod cache;
pub mod certificate;
pub mod checkpoint;
pub mod exact;
pub mod file;
pub mod probe;
pub mod proof;
pub mod retrograde;
pub mod solved;
pub mod speed;
pub mod value;
pub mod verify;

pub use exact::{Exact, Source};
pub use probe::Tables;
pub use value::{Entry, Value, Wdl};

#[cfg(test)]
mod tests;
