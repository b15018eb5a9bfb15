//! Searching for a move, generic over [`Game`]: which algorithm runs is
//! chosen from what the game declares (chance or not, two seats or more),
//! never from its name.
//!
//! The search never prints. It reports through [`Reporter`], which the
//! protocol layer implements (Stockfish's split between search and UCI).
//!
//! - [`alphabeta`]: deterministic two-seat games.
//! - [`expectimax`]: dice, and more than two seats with the others taken
//!   as one opponent (paranoid, Best-Reply Search, BRS+).
//! - [`maxn`], [`mcts`], [`puct`]: more than two seats, each for itself.
//! - [`deepening`]: the iterative deepening they share; [`skill`]: weaker
//!   play; [`time`]: the clock; [`tt`]: the transposition table.
//! - [`exact`]: plays from exact knowledge (a solved game, endgame tables:
//!   one layer, in the tables crate) and scores its values at the leaves.

pub mod alphabeta;
pub mod deepening;
mod dispatch;
pub mod exact;
pub mod expectimax;
pub mod greedy;
mod gumbel;
pub mod maxn;
pub mod mcts;
pub mod puct;
pub mod skill;
pub mod time;
mod tree;
pub mod tt;
pub mod value;
pub mod vocabulary;

pub use dispatch::{prepare, run};
pub use vocabulary::*;
