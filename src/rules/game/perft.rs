//! Perft: counting move-tree leaves, the standard check of move generators.
//!
//! Draw rules are ignored and decided positions have no moves (RULES.md).
//! At a chance node the sum runs over all outcomes without spending depth,
//! so for dice games perft counts player moves only.

use std::sync::atomic::{AtomicBool, Ordering};

use super::Game;

/// The deepest perft the engine runs. No game here has a tree that could
/// be counted anywhere near this deep (the counts grow exponentially), so
/// the limit only keeps a mistyped depth from costing stack and memory;
/// below it, move lists are allocated as the walk reaches each ply.
pub const MAX_DEPTH: u32 = 1000;

/// Leaves of the move tree `depth` player moves deep.
pub fn perft<G: Game>(position: &G, depth: u32) -> u64 {
    let never = AtomicBool::new(false);
    perft_until(position, depth, &never).expect("never stopped")
}

/// [`perft`], or `None` once `stop` is set.
pub fn perft_until<G: Game>(position: &G, depth: u32, stop: &AtomicBool) -> Option<u64> {
    // A chance level never follows a chance level, so each player ply needs
    // at most two list slots. An empty list allocates nothing: a slot's
    // buffer is only made when the walk first gets that deep.
    let slots = 2 * depth.min(MAX_DEPTH) as usize + 2;
    let mut lists: Vec<Vec<G::Move>> = (0..slots).map(|_| Vec::new()).collect();
    let mut position = position.clone();
    let total = count(&mut position, depth, &mut lists, stop);
    (!stop.load(Ordering::Relaxed)).then_some(total)
}

fn count<G: Game>(
    position: &mut G,
    depth: u32,
    lists: &mut [Vec<G::Move>],
    stop: &AtomicBool,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Looked at only where a subtree is big enough for the load to vanish
    // in it; the caller sees the flag and drops the count.
    if depth >= 3 && stop.load(Ordering::Relaxed) {
        return 0;
    }
    let (list, rest) = lists
        .split_first_mut()
        .expect("perft has two list slots per ply");
    if depth <= 2 {
        if let Some(n) = position.perft_bulk(depth) {
            return n;
        }
    }
    if depth == 1 && !position.is_chance() {
        // Bulk counting: the last ply needs the number of moves only.
        return position.count_moves(list) as u64;
    }
    list.clear();
    position.generate(list);
    let child_depth = child_depth(position, depth);
    let mut total = 0;
    for &mv in list.iter() {
        let undo = position.play(mv);
        total += count(position, child_depth, rest, stop);
        position.undo(mv, undo);
    }
    total
}

/// The depth left below `position`: a chance outcome spends none.
fn child_depth<G: Game>(position: &G, depth: u32) -> u32 {
    if position.is_chance() {
        depth
    } else {
        depth - 1
    }
}

/// Perft by playing every move, without the game's shortcuts (bulk
/// counting, [`Game::perft_bulk`]): the reference the random-play check
/// holds those shortcuts to.
pub fn walked<G: Game>(position: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    position.generate(&mut moves);
    let child_depth = child_depth(position, depth);
    moves
        .iter()
        .map(|&mv| {
            let mut child = position.clone();
            child.play(mv);
            walked(&child, child_depth)
        })
        .sum()
}

/// Perft split by the moves at the root: `each` gets every root move and
/// its count as soon as it is known. Returns the total, or `None` if
/// `stop` was set first (the moves given to `each` so far are exact).
pub fn divide<G: Game>(
    position: &G,
    depth: u32,
    stop: &AtomicBool,
    each: &mut dyn FnMut(&str, u64),
) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    let mut moves = Vec::new();
    position.generate(&mut moves);
    let child_depth = child_depth(position, depth);
    let mut total = 0;
    for mv in moves {
        let mut child = position.clone();
        child.play(mv);
        let n = perft_until(&child, child_depth, stop)?;
        total += n;
        each(&mv.to_string(), n);
    }
    Some(total)
}
