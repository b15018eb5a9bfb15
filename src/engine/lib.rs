//! The engine: the protocol of protocol.md spoken on stdin and stdout,
//! over any game of the catalogue, with the search attached.
//!
//! - [`driver`]: the engine loop: input lines become typed commands,
//!   executed in order, answered with typed replies.
//! - [`session`]: a session of any game with the search joined to it, and
//!   the engine's catalogue of games.
//! - [`output`]: the one writer of replies; the search reports through it.
//! - [`task`]: long work as tasks; each long command is one module that
//!   owns its arguments, its run and its replies: [`perft`], [`bench`]
//!   (speed measured on fixed work), [`solve`], [`tables_command`]
//!   (`tables build|verify|status|bench|plan`), [`selfplay`] (training data
//!   from games of the engine against itself, with [`selfplay_file`], its
//!   file format) and [`dataset`].
//! - `channel` (the events the loop hears), `error` (its errors), `input`
//!   (the input thread), `worker` (the thread of long work), `options`,
//!   `answers` (the answers of read-only commands).

mod answers;
pub mod bench;
mod channel;
pub mod cli;
pub mod dataset;
pub mod driver;
mod error;
mod input;
mod options;
pub mod output;
pub mod perft;
pub mod progress;
pub mod selfplay;
pub mod selfplay_file;
pub mod session;
pub mod solve;
pub mod tables_command;
pub mod task;
mod worker;

pub use driver::{run, run_with, Input, RunOptions};
pub use input::command_lines;
/// The engine's ranges for a search's threads and hash, which the Python
/// package keeps too.
pub use options::{Spin, HASH, THREADS};
pub use output::Output;
