//! Walks over the proof a search stored: to count it, to write it as a
//! certificate, and to check, position by position with each one's own
//! history, that it holds under the full rules.

use std::collections::HashMap;

use menagerie_rules::game::Game;

use super::search::{clock_key, key, mix, next_stretch, Goal, Stretch};
use super::ProofTree;
use crate::certificate::{CertificateError, Node, Visit};

/// Counts the proof the search stored of a win.
pub(super) fn proof_tree<G: Game>(goal: &Goal, root: &G, since: &[u64]) -> ProofTree {
    let (mut positions, mut leaves) = (0, 0);
    walk_proof(goal, root, since, true, &mut |_, node| {
        match node {
            Node::Leaf(_) => leaves += 1,
            _ => positions += 1,
        }
        Ok(())
    })
    .expect("a goal the search proved has its proof stored");
    ProofTree { positions, leaves }
}

/// Walks the proof of a settled goal (`holds`: the attacker wins, or
/// cannot win) that the search stored, calling `visit` once per position
/// with its id (the root's is 0): where the side the goal favours moves,
/// the first move settled the goal's way; where the other side moves,
/// every move; down to leaves. Each position carries the boards since
/// the last capture, to know its stretch.
pub(super) fn walk_proof<G: Game>(
    goal: &Goal,
    root: &G,
    since: &[u64],
    holds: bool,
    visit: &mut Visit<'_>,
) -> Result<(), CertificateError> {
    walk_traced(
        goal,
        root,
        since,
        holds,
        visit,
        usize::MAX,
        &mut Failures::up_to(1),
    )
}

/// Where a walk of a proof failed: per failure, the positions from the
/// one where the proof does not hold back to the root, as `(stored key,
/// clock key)`. The walk goes on past a failure to find more, up to
/// `most`; a walk that stopped at its limit of positions is `too_large`.
#[derive(Debug, Default)]
pub(super) struct Failures {
    pub most: usize,
    pub traces: Vec<Vec<(u64, u64)>>,
    pub too_large: bool,
    /// Positions the walk reached.
    pub walked: usize,
}

impl Failures {
    pub fn up_to(most: usize) -> Failures {
        Failures {
            most: most.max(1),
            ..Failures::default()
        }
    }
}

/// [`walk_proof`] of at most `limit` positions, noting where it fails in
/// `failures` (the walk stops at the limit, or once it has found
/// `failures.most`).
pub(super) fn walk_traced<G: Game>(
    goal: &Goal,
    root: &G,
    since: &[u64],
    holds: bool,
    visit: &mut Visit<'_>,
    limit: usize,
    failures: &mut Failures,
) -> Result<(), CertificateError> {
    let count = |boards: &[u64], h: u64| boards.iter().filter(|&&b| b == h).count() as u8;
    let root_stretch = Stretch {
        sum: since.iter().fold(0u64, |s, &h| s.wrapping_add(mix(h))),
        repeats: count(since, root.hash()) + 1,
    };
    let mut ids: HashMap<u64, u32> = HashMap::new();
    ids.insert(key(root, root_stretch), 0);
    // Per id: its stored key, its clock key, and the id that reached it
    // first.
    let mut reached = vec![(goal.stored_key(root, root_stretch), clock_key(root), 0u32)];
    let trace_of = |reached: &[(u64, u64, u32)], mut id: u32| {
        let mut trace = Vec::new();
        loop {
            let (stored, clocked, parent) = reached[id as usize];
            trace.push((stored, clocked));
            if id == 0 {
                break;
            }
            id = parent;
        }
        trace
    };
    let mut stack = vec![(root.clone(), root_stretch, since.to_vec(), 0u32)];
    let mut moves = Vec::new();
    let mut children: Vec<(String, u32)> = Vec::new();
    let result = 'walk: {
        while let Some((position, stretch, before, id)) = stack.pop() {
            if let Some((_, table)) = goal.decided(&position, stretch) {
                visit(id, Node::Leaf(table))?;
                continue;
            }
            moves.clear();
            position.generate(&mut moves);
            let chooser = (position.side() == goal.attacker) == holds;
            let mut line = before.clone();
            line.push(position.hash());
            children.clear();
            let mut failed = false;
            for &mv in &moves {
                let mut child = position.clone();
                child.play(mv);
                let child_stretch =
                    next_stretch(&position, stretch, &child, count(&line, child.hash()));
                let settled = goal.settled(&child, child_stretch);
                if settled != Some(holds) {
                    if chooser {
                        continue;
                    }
                    failed = true;
                    break;
                }
                if ids.len() >= limit {
                    failures.too_large = true;
                    break 'walk Err(CertificateError::Incomplete);
                }
                let next = ids.len() as u32;
                let child_id = *ids.entry(key(&child, child_stretch)).or_insert(next);
                if child_id == next {
                    let stored = goal.stored_key(&child, child_stretch);
                    reached.push((stored, clock_key(&child), id));
                    let child_line = if child.clock() == 0 {
                        Vec::new()
                    } else {
                        line.clone()
                    };
                    stack.push((child, child_stretch, child_line, child_id));
                }
                children.push((mv.to_string(), child_id));
                if chooser {
                    break;
                }
            }
            if failed || (chooser && children.is_empty()) {
                // The positions below this one that are already waiting
                // are walked all the same: their failures are found too.
                failures.traces.push(trace_of(&reached, id));
                if failures.traces.len() >= failures.most {
                    break 'walk Err(CertificateError::Incomplete);
                }
                continue;
            }
            match (chooser, children.first()) {
                (true, Some((mv, child))) => visit(id, Node::One(mv.clone(), *child))?,
                _ => visit(id, Node::All(&children))?,
            }
        }
        if failures.traces.is_empty() {
            Ok(())
        } else {
            Err(CertificateError::Incomplete)
        }
    };
    failures.walked = ids.len();
    result
}
