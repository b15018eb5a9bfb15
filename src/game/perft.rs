//! Perft: counting move-tree leaves, the standard check of move generators.
//!
//! Draw rules are ignored and decided positions have no moves (RULES.md).
//! At a chance node the sum runs over all outcomes without spending depth,
//! so for dice games perft counts player moves only.

use super::Game;

/// Leaves of the move tree `depth` player moves deep.
pub fn perft<G: Game>(position: &G, depth: u32) -> u64 {
    // A chance level never follows a chance level, so each player ply needs
    // at most two list slots.
    let slots = 2 * depth as usize + 2;
    let mut lists: Vec<Vec<G::Move>> = (0..slots).map(|_| Vec::with_capacity(64)).collect();
    let mut position = position.clone();
    count(&mut position, depth, &mut lists)
}

fn count<G: Game>(position: &mut G, depth: u32, lists: &mut [Vec<G::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, rest) = lists
        .split_first_mut()
        .expect("perft allocates two list slots per ply");
    list.clear();
    position.generate(list);
    let chance = position.is_chance();
    if depth == 1 && !chance {
        return list.len() as u64;
    }
    let child_depth = if chance { depth } else { depth - 1 };
    let mut total = 0;
    for &mv in list.iter() {
        let undo = position.play(mv);
        total += count(position, child_depth, rest);
        position.undo(mv, undo);
    }
    total
}

/// Perft split by the moves at the root, and the total.
pub fn divide<G: Game>(position: &G, depth: u32) -> (Vec<(String, u64)>, u64) {
    if depth == 0 {
        return (Vec::new(), 1);
    }
    let mut moves = Vec::new();
    position.generate(&mut moves);
    let child_depth = if position.is_chance() {
        depth
    } else {
        depth - 1
    };
    let mut split = Vec::with_capacity(moves.len());
    let mut total = 0;
    for mv in moves {
        let mut child = position.clone();
        child.play(mv);
        let n = perft(&child, child_depth);
        total += n;
        split.push((mv.to_string(), n));
    }
    (split, total)
}
