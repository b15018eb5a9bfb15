//! A learned evaluation for the games that give inputs
//! ([`menagerie_rules::game::inputs`]): a small network of one hidden
//! layer over sparse binary inputs (the first layer a sum of the columns
//! of the inputs that are on, as NNUE's), one value head per seat.
//!
//! - [`file`]: the network file (docs/network.md): header, quantised
//!   weights, checksum; loading says what is wrong with a bad file.
//! - [`eval`]: integer inference for the search, the first layer updated
//!   by the difference between the inputs of the last position it saw and
//!   this one, with no allocation after it is built.
//! - [`builtin`]: the default network of each game, built into the binary.
//!
//! The trainer is tools/train (JAX); it writes this format, and
//! `dataset` (protocol.md) writes what it reads.

pub mod builtin;
pub mod eval;
pub mod file;

pub use eval::Evaluator;
pub use file::{Network, NetworkError};
