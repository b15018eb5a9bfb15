//! The loop the tree searches ([`crate::mcts`], [`crate::puct`]) share:
//! one walk after another until the budget, the depth or the soft time
//! says stop, an `info` line at doubling counts of walks.

use crate::vocabulary::{Budget, Reporter};

pub(crate) trait TreeSearch<'a> {
    fn budget(&mut self) -> &mut Budget<'a>;
    /// One walk from the root: selection, growth, backup.
    fn walk(&mut self);
    /// Player moves on the deepest walk so far.
    fn deepest(&self) -> usize;
    /// Whether walking again can teach nothing (the whole tree is known).
    fn complete(&self) -> bool {
        false
    }
    fn report(&mut self, reporter: &mut dyn Reporter);
}

/// Walks until a limit ends the search, reporting after `first_report`
/// walks and at each doubling; then flushes the node count and reports.
pub(crate) fn walk_until_done<'a>(
    search: &mut impl TreeSearch<'a>,
    reporter: &mut dyn Reporter,
    first_report: u64,
) {
    let limits = search.budget().watch.limits;
    let mut walks: u64 = 0;
    let mut next_report = first_report;
    loop {
        search.walk();
        walks += 1;
        // One finished walk (the root grown) is an answer; the limits may
        // cut now.
        search.budget().may_abort = true;
        if search.budget().aborted || search.budget().finished() {
            break;
        }
        // A tree that holds every line to its end is the answer: no depth
        // limit would ever be reached (`go infinite` then waits for
        // `stop` in the engine).
        if search.complete() {
            break;
        }
        if limits.depth.is_some_and(|d| search.deepest() as u32 >= d) {
            break;
        }
        if walks >= next_report {
            next_report *= 2;
            search.report(reporter);
        }
        if let Some(soft) = limits.soft_ms {
            if !limits.infinite && search.budget().watch.elapsed_ms() >= soft {
                break;
            }
        }
    }
    search.budget().flush();
    search.report(reporter);
}
