//! `solve [nodes N] [memory MIB] [keys history|clock] [checkpoint PATH]
//! [certificate PATH]`: the exact value of the position and of each
//! move where it is known (a solved game, the endgame tables), beyond
//! them a proof-number search; its words, its checks, its run and its
//! replies.

use std::path::{Path, PathBuf};

use crate::error::EngineError;
use crate::output::{InfoWriter, Output};
use crate::session::{EngineSession, SolveRequest, Solved, Unsolved, DEFAULT_PROOF_NODES};
use crate::task::{once, Context, Made, Refused};
use menagerie_tables::proof::{Keys, ReportLine};
use menagerie_tables::Source;
use menagerie_wire::{Reply, SolveArgs, SolveKeys};

/// Checks the paths (a certificate or checkpoint is written over a
/// regular file or nothing only, and a checkpoint is read), then solves
/// the current position.
pub fn task(args: SolveArgs, ctx: &Context) -> Made {
    let paths = [
        ("certificate", &args.certificate),
        ("checkpoint", &args.checkpoint),
    ];
    for (argument, path) in paths {
        let Some(path) = path else { continue };
        let path = Path::new(path);
        let checked = menagerie_os::files::write_target(path)
            .and_then(|_| menagerie_os::files::regular_exists(path).map(|_| ()));
        if let Err(e) = checked {
            return Err(Refused::error("solve", EngineError::Path(argument, e)));
        }
    }
    let request = SolveRequest {
        nodes: args.nodes.unwrap_or(DEFAULT_PROOF_NODES),
        memory_mib: args.memory,
        keys: match args.keys {
            Some(SolveKeys::History) => Keys::History,
            Some(SolveKeys::Clock) => Keys::Clock,
            None => Keys::default(),
        },
        threads: ctx.threads,
        checkpoint: args.checkpoint.map(PathBuf::from),
        certificate: args.certificate.map(PathBuf::from),
        tables: ctx.tables.clone(),
    };
    let session = ctx.session.boxed();
    Ok(once(move |out, stop| {
        let mut reporter = InfoWriter { out: out.clone() };
        let solved = session.solve(stop, &request, &mut reporter);
        answer(session.as_ref(), &request, solved, out);
        false
    }))
}

/// The replies of a solve: per move its value, then the position's.
fn answer(
    session: &dyn EngineSession,
    request: &SolveRequest,
    solved: Result<Solved<String>, Unsolved>,
    out: &Output,
) {
    let remark = |text: &str| out.reply(&Reply::Remark(text.to_string()));
    match solved {
        Err(Unsolved::Checkpoint(e)) => out.error("solve", &e),
        Err(Unsolved::NotSolvable) => {
            out.error("solve", &EngineError::NotSolvable(session.game_id()))
        }
        Err(Unsolved::Stopped) => remark("solve stopped before the solved table was built"),
        Ok(Solved::Known(analysis)) => {
            if let Source::Table(slice) = analysis.source {
                remark(&format!(
                    "solve: from the endgame tables ({slice}); N counts moves to the capture or the end that settles the game"
                ));
            }
            if request.certificate.is_some() {
                remark("solve: no certificate written: the value is known without a proof search (tables verify checks the tables; the solved game is checked by its tests)");
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
            for line in report.lines(request.memory_mib) {
                match line {
                    ReportLine::Said(text) => remark(&text),
                    ReportLine::Failed(text) => out.error("solve", &text),
                }
            }
            out.reply(&Reply::Solved {
                mv: None,
                value: report.value.to_string(),
            });
        }
    }
}
