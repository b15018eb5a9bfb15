//! `perft N` and `go perft N`: the leaves of the move tree N plies deep,
//! split by root move, in Stockfish's format.

use crate::error::EngineError;
use crate::task::{once, Context, Made, Refused};
use menagerie_rules::game::perft::MAX_DEPTH;
use menagerie_wire::Reply;

/// Counts from the current position; a depth over [`MAX_DEPTH`] is
/// refused (a refused `go perft` ends with `bestmove (none)`, as every
/// refused `go` does).
pub fn task(depth: u32, via_go: bool, ctx: &Context) -> Made {
    if depth > MAX_DEPTH {
        let command = if via_go { "go" } else { "perft" };
        let mut replies = vec![Reply::error(command, EngineError::PerftTooDeep(depth))];
        if via_go {
            replies.push(Reply::BestMove(None));
        }
        return Err(Refused(replies));
    }
    let session = ctx.session.boxed();
    Ok(once(move |out, stop| {
        let mut counted = 0;
        let total = session.perft_divide(depth, stop, &mut |mv, nodes| {
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
        false
    }))
}
