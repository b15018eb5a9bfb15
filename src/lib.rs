//! menagerie: an engine and a referee for four small traditional board games.
//!
//! - [`game`]: the shared game trait, sessions, perft and the registry.
//! - [`games`]: one module per game.
//! - [`notation`]: shared parsing of position and move notations.
//! - [`search`]: the searches, generic over [`game::Game`].
//! - [`runtime`]: a session of any game joined to the search, and the
//!   registry of games.
//! - [`protocol`]: the engine's text protocol.
//! - [`referee`]: matches between engine processes.

pub mod bench;
pub mod bits;
pub mod game;
pub mod games;
pub mod memory;
pub mod notation;
pub mod protocol;
pub mod referee;
pub mod rng;
pub mod runtime;
pub mod search;
pub mod text;
pub mod tune;
