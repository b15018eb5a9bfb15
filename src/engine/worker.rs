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
use crate::session::{EngineSession, Entry, Solved, Unsolved};
use menagerie_search::{Limits, Settings, Shared};
use menagerie_tables::Source;
use menagerie_wire::reply::Reply;
use menagerie_wire::BenchKind;

/// Long work handed to the worker.
pub enum Job {
    Search {
        session: Box<dyn EngineSession>,
        limits: Limits,
        shared: Arc<Shared>,
        settings: Settings,
    },
    Perft {
        session: Box<dyn EngineSession>,
        depth: u32,
        stop: Arc<AtomicBool>,
    },
    Bench {
        kind: BenchKind,
        games: &'static [Entry],
        stop: Arc<AtomicBool>,
    },
    Solve {
        session: Box<dyn EngineSession>,
        stop: Arc<AtomicBool>,
        request: crate::session::SolveRequest,
    },
    SelfPlay {
        session: Box<dyn EngineSession>,
        job: crate::selfplay::SelfPlayJob,
        stop: Arc<AtomicBool>,
    },
    Dataset {
        job: crate::dataset::DatasetJob,
        stop: Arc<AtomicBool>,
    },
    Tables {
        session: Box<dyn EngineSession>,
        job: crate::tables_command::TablesJob,
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
        } => return search(session.as_ref(), &limits, &shared, &settings, out),
        Job::Perft {
            session,
            depth,
            stop,
        } => {
            let mut counted = 0;
            let total = session.perft_divide(depth, &stop, &mut |mv, nodes| {
                counted += 1;
                out.reply(&Reply::PerftMove {
                    mv: mv.to_string(),
                    nodes,
                });
            });
            match total {
                Some(total) => {
                    out.reply(&Reply::Line(String::new()));
                    out.reply(&Reply::NodesSearched(total));
                }
                None => out.reply(&Reply::Remark(format!(
                    "perft stopped: {counted} of {} root moves counted",
                    session.legal_moves().len()
                ))),
            }
        }
        Job::Bench { kind, games, stop } => {
            crate::bench::run(kind, games, &stop, &mut |reply| out.reply(&reply))
        }
        Job::Solve {
            session,
            stop,
            request,
        } => match session.solve(&stop, &request, &mut InfoWriter { out: out.clone() }) {
            Err(Unsolved::Checkpoint(e)) => out.error("solve", &e),
            Err(Unsolved::NotSolvable) => out.error(
                "solve",
                &crate::error::EngineError::NotSolvable(session.game_id()),
            ),
            Err(Unsolved::Stopped) => out.reply(&Reply::Remark(
                "solve stopped before the solved table was built".to_string(),
            )),
            Ok(Solved::Known(analysis)) => {
                if let Source::Table(slice) = analysis.source {
                    out.reply(&Reply::Remark(format!(
                        "solve: from the endgame tables ({slice}); N counts moves to the capture that settles the game"
                    )));
                }
                if request.certificate.is_some() {
                    out.reply(&Reply::Remark(
                        "solve: no certificate written: the value is known without a proof search (tables verify checks the tables; the solved game is checked by its tests)"
                            .to_string(),
                    ));
                }
                for (mv, value) in analysis.moves {
                    out.reply(&Reply::Solved {
                        mv: Some(mv),
                        value: value.to_string(),
                    });
                }
                out.reply(&Reply::Line(String::new()));
                out.reply(&Reply::Solved {
                    mv: None,
                    value: analysis.value.to_string(),
                });
            }
            Ok(Solved::Proved(report)) => {
                let open = |(pn, dn): (u32, u32)| {
                    if (pn, dn) == (0, 0) {
                        "settled".to_string()
                    } else {
                        format!("proof number {pn}, disproof number {dn}")
                    }
                };
                out.reply(&Reply::Remark(format!(
                    "solve: proof-number search: {} after {} nodes, {} positions stored, {} table leaves, {:.1} s; side to move wins: {}; other side wins: {}",
                    report.value,
                    report.nodes,
                    report.stored,
                    report.table_hits,
                    report.seconds,
                    open(report.open[0]),
                    open(report.open[1])
                )));
                if let Some(most) = report.memory_bound {
                    let bound = match request.memory_mib {
                        Some(mib) => format!("the memory given ({mib} MiB)"),
                        None => "the memory this process may use".to_string(),
                    };
                    out.reply(&Reply::Remark(format!(
                        "solve: stopped at {bound} ({most} positions stored, {} bytes each); the value is a bound",
                        menagerie_tables::proof::BYTES_PER_STORED
                    )));
                }
                if let Some((kept, before)) = report.resumed {
                    out.reply(&Reply::Remark(format!(
                        "solve: resumed from the checkpoint: {kept} settled positions, {before} nodes before this run"
                    )));
                }
                if report.repairs > 0 {
                    out.reply(&Reply::Remark(format!(
                        "solve: {} time(s) a result of the search with clock keys did not hold when its proof was walked under the full rules; the position where it failed was then kept by history and the search went on",
                        report.repairs
                    )));
                }
                if report.collections > 0 {
                    out.reply(&Reply::Remark(format!(
                        "solve: the memory bound was reached {} times; open positions were dropped, settled ones kept",
                        report.collections
                    )));
                }
                match &report.certificate {
                    Some(Ok(written)) => {
                        for (claim, positions, leaves) in &written.claims {
                            out.reply(&Reply::Remark(format!(
                                "solve: certificate: {claim}: {positions} positions, {leaves} leaves"
                            )));
                        }
                    }
                    Some(Err(e)) => out.error("solve", e),
                    None => {}
                }
                if let Some(tree) = &report.proof {
                    out.reply(&Reply::Remark(format!(
                        "solve: the proof: {} positions searched and {} leaves decided by the rules or the tables",
                        tree.positions, tree.leaves
                    )));
                }
                out.reply(&Reply::Solved {
                    mv: None,
                    value: report.value.to_string(),
                });
            }
        },
        Job::SelfPlay { session, job, stop } => {
            if let Err(e) = session.selfplay(&job, &stop, &mut |reply| out.reply(&reply)) {
                out.error("selfplay", &e);
            }
        }
        Job::Dataset { job, stop } => {
            if let Err(e) = dataset(&job, &stop, &mut |reply| out.reply(&reply)) {
                out.error("dataset", &e);
            }
        }
        Job::Tables { session, job, stop } => {
            match session.tables(&job, &stop, &mut |reply| out.reply(&reply)) {
                Err(e) if e.is_refusal() => out.refuse("tables", &e),
                Err(e) => out.error("tables", &e),
                Ok(()) => {}
            }
        }
        Job::Setup {
            session,
            settings,
            shared,
        } => {
            shared.tt.clear();
            if let Some(session) = session {
                session.prepare_search(&settings, &mut InfoWriter { out: out.clone() });
            }
        }
    }
    false
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

/// `dataset`: reads the job's self-play file and writes its positions, on
/// a session of the game and ruleset the file names.
fn dataset(
    job: &crate::dataset::DatasetJob,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Reply),
) -> Result<(), crate::dataset::DatasetError> {
    use crate::dataset::{game_of, DatasetError};
    // Where the positions go must take a file before the input is read.
    menagerie_os::files::write_target(&job.out).map_err(DatasetError::Out)?;
    let data = crate::selfplay_file::read(&job.input)
        .map_err(|e| DatasetError::SelfPlay(job.input.clone(), e))?;
    let (game, rules) =
        game_of(&data.settings).ok_or_else(|| DatasetError::Settings(data.settings.clone()))?;
    let session =
        menagerie_rules::catalogue::new_session_named(&crate::session::GAMES, &game, &rules)
            .map_err(|_| DatasetError::Settings(data.settings.clone()))?;
    session.dataset(job, &data, stop, say)
}
