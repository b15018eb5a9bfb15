//! The referee: matches between two engine processes speaking the protocol,
//! split by responsibility as fastchess is:
//!
//! - [`process`]: an engine process in its own process group, typed
//!   commands out, typed replies in through a bounded buffer.
//! - [`clock`]: the clocks of a game and the time each move may take.
//! - [`game`]: one game, with one ending path per way of ending, liveness
//!   by `isready` pings.
//! - [`outcome`]: the result vocabulary: endings, forfeits, scores, what
//!   an engine said of a move.
//! - [`schedule`]: pairs, openings, dice, seats, shards, the fingerprint.
//! - [`scoreboard`]: results added up from records.
//! - [`stats`]: Elo, LOS, pentanomial counts, the generalised SPRT.
//! - [`report`]: header, progress, Elo/SPRT blocks, summary.
//! - [`record`]: the game-record format, its file and replay;
//!   [`checksum`]: the checksum of its lines and of the settings.
//! - [`matches`]: a match in steps (records, schedule, engines, counting
//!   each game, early ends); [`workers`]: the threads that play its games.
//! - [`config`], [`spec`]: the settings of a match and of each engine.
//! - [`merge`]: adding up a match played in parts; JSON results.
//! - [`cli`]: the command line, which builds a match's configuration.
//!
//! It knows the games through the rules' catalogue and speaks to engines
//! through the wire's types; it never sees the search.

pub mod checksum;
pub mod cli;
pub mod clock;
pub mod config;
pub mod game;
pub mod load;
pub mod matches;
pub mod merge;
pub mod outcome;
pub mod process;
pub mod record;
pub mod report;
pub mod schedule;
pub mod scoreboard;
pub mod spec;
pub mod stats;
pub mod workers;
