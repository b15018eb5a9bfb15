//! The referee: matches between two engine processes speaking the protocol.
//!
//! - [`spec`]: engine command lines, settings and time controls.
//! - [`engine`]: a process with deadlines on every read, killed by pid.
//! - [`play`]: one game, with one outcome path per way of ending.
//! - [`tournament`]: pairs, openings, dice, concurrency, records, summary.
//! - [`record`]: the game-record format and replay against the rules.
//! - [`stats`]: Elo, LOS, pentanomial counts, SPRT.

pub mod engine;
pub mod play;
pub mod record;
pub mod spec;
pub mod stats;
pub mod tournament;
