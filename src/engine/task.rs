//! Long work other than a search, as tasks: each long command (`perft`,
//! `bench`, `solve`, `tables`, `selfplay`, `dataset`) is one module that
//! reads its typed arguments, checks what it can at once, and makes a
//! [`Task`] that the worker runs and that prints its own replies. A new
//! long command is one module and one command variant: the engine loop
//! hands the task to the worker without knowing what it does.
//!
//! A command that needs the game's own type (a table build, a self-play
//! run) attaches its work to the engine's [`Catalogue`] the way the engine
//! attaches the search: an [`menagerie_rules::catalogue::Attach`] of its
//! own turns a session of any game into its work.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::output::Output;
use crate::session::{EngineSession, Entry};
use menagerie_nnue::Network;
use menagerie_wire::Reply;

pub use menagerie_rules::catalogue::Catalogue;

/// Long work the worker runs.
pub trait Task: Send {
    /// Runs until done or `stop`, printing its replies; true when a bug
    /// showed (reported in the exit status).
    fn run(self: Box<Self>, out: &Output, stop: &Arc<AtomicBool>) -> bool;
}

/// What a long command may read of the engine when it makes its task.
pub struct Context<'a> {
    /// The position the engine is at.
    pub session: &'a dyn EngineSession,
    /// The engine's games, with the search attached.
    pub games: &'static [Entry],
    /// The `Threads` option.
    pub threads: usize,
    /// Where endgame tables are kept and looked for (`TablePath`).
    pub tables: PathBuf,
    /// The networks chosen by `EvalFile`, by game id.
    pub networks: &'a HashMap<&'static str, Arc<Network>>,
}

/// A command refused before any work: the lines that answer it (its
/// error, and for a refused `go` its `bestmove (none)`).
pub struct Refused(pub Vec<Reply>);

impl Refused {
    /// One error line for `command`.
    pub fn error(command: &str, message: impl std::fmt::Display) -> Refused {
        Refused(vec![Reply::error(command, message)])
    }
}

/// A task's making: the task, or the lines that refuse it.
pub type Made = Result<Box<dyn Task>, Refused>;

/// A task that is one closure (most long commands need nothing more).
pub struct Once<F>(pub F);

impl<F: FnOnce(&Output, &Arc<AtomicBool>) -> bool + Send> Task for Once<F> {
    fn run(self: Box<Self>, out: &Output, stop: &Arc<AtomicBool>) -> bool {
        (self.0)(out, stop)
    }
}

/// A [`Once`] task, boxed.
pub fn once(
    work: impl FnOnce(&Output, &Arc<AtomicBool>) -> bool + Send + 'static,
) -> Box<dyn Task> {
    Box::new(Once(work))
}
