//! menagerie: an engine and a referee for four small traditional board games.
//!
//! - [`game`]: the shared game trait, sessions, perft and the registry.
//! - [`games`]: one module per game.
//! - [`notation`]: shared parsing of position and move notations.
//! - [`protocol`]: the engine's text protocol.

pub mod bench;
pub mod bits;
pub mod game;
pub mod games;
pub mod memory;
pub mod notation;
pub mod protocol;
pub mod referee;
pub mod rng;
pub mod search;
pub mod text;
pub mod tune;
