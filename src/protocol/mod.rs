//! The engine's text protocol: [`command`] parses lines into typed commands,
//! [`engine`] executes them. This layer alone writes to stdout.

pub mod command;
pub mod engine;
pub mod output;
pub mod reply;

pub use engine::{run, Input};
pub use output::Output;
