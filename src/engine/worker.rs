//! The worker thread: everything that may take long runs here, one job at
//! a time, so that the input thread keeps answering `isready`, `stop` and
//! `quit`. Each job prints its own replies and, for a search, always
//! exactly one `bestmove`.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::Arc;

use crate::channel::Event;
use crate::output::{InfoWriter, Output};
use crate::session::EngineSession;
use crate::task::Task;
use menagerie_search::{Limits, Settings, Shared};
use menagerie_wire::reply::Reply;

/// Long work handed to the worker.
pub enum Job {
    Search {
        session: Box<dyn EngineSession>,
        limits: Limits,
        shared: Arc<Shared>,
        settings: Settings,
    },
    /// A long command's task (`perft`, `bench`, `solve`, `tables`,
    /// `selfplay`, `dataset`), stopped by `stop`.
    Task {
        task: Box<dyn Task>,
        stop: Arc<AtomicBool>,
    },
    /// What `newgame` and `ucinewgame` do before `isready` may answer:
    /// empty the table and start building what the game's search wants.
    Setup {
        session: Option<Box<dyn EngineSession>>,
        settings: Settings,
        shared: Arc<Shared>,
    },
}

/// Runs jobs until the engine drops its sender. After each, `done` hears
/// whether it panicked (a bug, reported in the exit status) and the input
/// loop gets [`Event::JobDone`].
pub fn run(jobs: Receiver<(Job, Sender<bool>)>, out: Output, events: SyncSender<Event>) {
    for (job, done) in jobs {
        let bug = std::panic::catch_unwind(AssertUnwindSafe(|| execute(job, &out))).unwrap_or(true);
        let _ = done.send(bug);
        if events.send(Event::JobDone).is_err() {
            return;
        }
    }
}

/// Runs one job; true when a bug showed (a search that panicked but whose
/// `go` was still answered).
fn execute(job: Job, out: &Output) -> bool {
    match job {
        Job::Search {
            session,
            limits,
            shared,
            settings,
        } => search(session.as_ref(), &limits, &shared, &settings, out),
        Job::Task { task, stop } => task.run(out, &stop),
        Job::Setup {
            session,
            settings,
            shared,
        } => {
            shared.tt.clear();
            if let Some(session) = session {
                session.prepare_search(&settings, &mut InfoWriter { out: out.clone() });
            }
            false
        }
    }
}

/// Searches and prints one `bestmove`. A search that panics (a bug) or
/// finds nothing although moves exist must not cost the move: the first
/// legal move is played, and the bug shows in the exit status (the
/// return value).
fn search(
    session: &dyn EngineSession,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    out: &Output,
) -> bool {
    let mut reporter = InfoWriter { out: out.clone() };
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        session.search(limits, shared, settings, &mut reporter)
    }));
    let (best, bug) = match result {
        Ok(result) => (result.best, false),
        Err(_) => {
            out.error(
                "go",
                &"the search failed (a bug); playing the first legal move",
            );
            (None, true)
        }
    };
    let best = best.or_else(|| session.legal_moves().into_iter().next());
    // `go infinite` answers only once stopped, even after a failure.
    if limits.infinite {
        while !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    out.reply(&Reply::BestMove(best));
    bug
}
