//! The rules of menagerie's games, and nothing above them: no search, no
//! protocol, no processes.
//!
//! - [`game`]: the shared game trait, sessions (the draw rules), perft,
//!   random playouts and the invariant self-check.
//! - [`games`]: one module per game.
//! - [`catalogue`]: the games this build knows, and sessions of them.
//! - [`notation`]: shared parsing of position and move notations.
//! - [`rng`], [`bits`], [`text`], [`tune`]: what the games are built from.

pub mod bits;
pub mod catalogue;
pub mod game;
pub mod games;
pub mod notation;
pub mod rng;
pub mod text;
pub mod tune;
