//! Depth-first proof-number search (df-pn, Nagai 2002) for two-seat
//! deterministic games, with the endgame tables and the rules as leaves.
//!
//! A goal is "this side wins". Proof and disproof numbers say how many
//! leaves must still be shown to prove or disprove it; the search always
//! expands the most-proving position, under thresholds that let it stay
//! deep without walking back to the root. Positions are stored by hash
//! and clock: every move either captures (fewer men) or advances the
//! no-progress clock, so with the clock in the key the graph has no
//! cycles. Like the tables, it leaves out the threefold repetition rule.
//! Two goals (the side to move wins; the other side wins) give a value or
//! a bound.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use menagerie_rules::game::{Game, Outcome, Seat};
use menagerie_tables::{Tables, Wdl};

const INFINITE: u32 = u32::MAX / 4;

/// What a proof search established about the side to move's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    Win,
    Loss,
    Draw,
    /// The other side cannot win; whether the side to move can is open.
    AtLeastDraw,
    /// The side to move cannot win; whether it can hold the draw is open.
    AtMostDraw,
    Unknown,
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Proven::Win => "win",
            Proven::Loss => "loss",
            Proven::Draw => "draw",
            Proven::AtLeastDraw => "at least draw",
            Proven::AtMostDraw => "at most draw",
            Proven::Unknown => "unknown",
        })
    }
}

/// The outcome of a proof search, with its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ProofReport {
    pub value: Proven,
    /// Positions expanded, over both goals.
    pub nodes: u64,
    /// Positions stored with their numbers: the proof tree so far.
    pub stored: usize,
    /// Leaves the tables decided.
    pub table_hits: u64,
    pub seconds: f64,
    /// Proof and disproof numbers left at the root for each goal (side to
    /// move wins, other side wins); 0 and 0 for a goal settled.
    pub open: [(u32, u32); 2],
}

struct Search<'a, G: Game> {
    attacker: Seat,
    tables: Option<&'a Tables>,
    table: HashMap<u64, (u32, u32)>,
    nodes: u64,
    max_nodes: u64,
    table_hits: u64,
    stop: &'a AtomicBool,
    aborted: bool,
    lists: Vec<Vec<G::Move>>,
}

fn key<G: Game>(position: &G) -> u64 {
    position.hash() ^ u64::from(position.clock()).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl<'a, G: Game> Search<'a, G> {
    /// Whether the goal holds at a position decided without search.
    fn leaf(&mut self, position: &G) -> Option<bool> {
        if let Some(outcome) = position.outcome() {
            return Some(outcome == Outcome::Win(self.attacker));
        }
        if position.clock() >= G::NO_PROGRESS_LIMIT {
            return Some(position.no_progress_outcome() == Outcome::Win(self.attacker));
        }
        let value = self.tables?.probe(position)?;
        self.table_hits += 1;
        let mover_is_attacker = position.side() == self.attacker;
        Some(match value.wdl {
            Wdl::Win => mover_is_attacker,
            Wdl::Loss => !mover_is_attacker,
            Wdl::Draw => false,
        })
    }

    fn numbers(&mut self, position: &G) -> (u32, u32) {
        match self.leaf(position) {
            Some(true) => (0, INFINITE),
            Some(false) => (INFINITE, 0),
            None => self.table.get(&key(position)).copied().unwrap_or((1, 1)),
        }
    }

    /// Expands `position` until its numbers reach the thresholds.
    fn mid(&mut self, position: &mut G, ply: usize, pn_limit: u32, dn_limit: u32) -> (u32, u32) {
        self.nodes += 1;
        if self.nodes >= self.max_nodes
            || (self.nodes % 4096 == 0 && self.stop.load(Ordering::Relaxed))
        {
            self.aborted = true;
        }
        if self.lists.len() <= ply {
            self.lists.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        position.generate(&mut moves);
        let or_node = position.side() == self.attacker;
        let mut children: Vec<(u32, u32)> = Vec::with_capacity(moves.len());
        for &mv in &moves {
            let undo = position.play(mv);
            children.push(self.numbers(position));
            position.undo(mv, undo);
        }
        let result = loop {
            let (pn, dn) = combine(or_node, &children);
            if pn >= pn_limit || dn >= dn_limit || self.aborted {
                break (pn, dn);
            }
            // The most-proving child, and the second best's number.
            let number = |c: &(u32, u32)| if or_node { c.0 } else { c.1 };
            let (mut best, mut second) = (0, INFINITE);
            for i in 1..children.len() {
                if number(&children[i]) < number(&children[best]) {
                    second = number(&children[best]);
                    best = i;
                } else {
                    second = second.min(number(&children[i]));
                }
            }
            let (cpn, cdn) = children[best];
            let (child_pn, child_dn) = if or_node {
                (
                    pn_limit.min(second.saturating_add(1)),
                    add(dn_limit - dn.min(dn_limit), cdn),
                )
            } else {
                (
                    add(pn_limit - pn.min(pn_limit), cpn),
                    dn_limit.min(second.saturating_add(1)),
                )
            };
            let mv = moves[best];
            let undo = position.play(mv);
            let numbers = self.mid(position, ply + 1, child_pn, child_dn);
            self.table.insert(key(position), numbers);
            position.undo(mv, undo);
            children[best] = numbers;
        };
        self.lists[ply] = moves;
        result
    }
}

fn add(a: u32, b: u32) -> u32 {
    a.saturating_add(b).min(INFINITE)
}

/// Numbers of a position from its children's: at the attacker's turn one
/// proved child proves it and every child must be disproved; at the
/// defender's the other way round.
fn combine(or_node: bool, children: &[(u32, u32)]) -> (u32, u32) {
    let min_pn = children.iter().map(|c| c.0).min().unwrap_or(INFINITE);
    let min_dn = children.iter().map(|c| c.1).min().unwrap_or(INFINITE);
    let sum_pn = children.iter().fold(0, |s, c| add(s, c.0));
    let sum_dn = children.iter().fold(0, |s, c| add(s, c.1));
    if children.is_empty() {
        return (INFINITE, 0);
    }
    if or_node {
        (min_pn, sum_dn)
    } else {
        (sum_pn, min_dn)
    }
}

/// Tries to prove the value of `position` within `max_nodes` expansions
/// or until `stop`. The two goals take turns with budgets that double, so
/// that the easier one is settled first and the other gets the rest; each
/// keeps its stored numbers between turns.
pub fn prove<G: Game>(
    position: &G,
    tables: Option<&Tables>,
    max_nodes: u64,
    stop: &AtomicBool,
) -> ProofReport {
    let started = Instant::now();
    let mover = position.side();
    let other = position
        .seats()
        .iter()
        .copied()
        .find(|&s| s != mover)
        .unwrap_or(mover);
    let mut searches = [mover, other].map(|attacker| Search::<G> {
        attacker,
        tables,
        table: HashMap::new(),
        nodes: 0,
        max_nodes: 0,
        table_hits: 0,
        stop,
        aborted: false,
        lists: Vec::new(),
    });
    let mut numbers = [(1, 1); 2];
    let mut settled: [Option<bool>; 2] = [None; 2];
    let spent = |searches: &[Search<G>; 2]| searches.iter().map(|s| s.nodes).sum::<u64>();
    let mut turn = 1024;
    'rounds: loop {
        for goal in 0..2 {
            if settled[goal].is_some() {
                continue;
            }
            let left = max_nodes.saturating_sub(spent(&searches));
            if left == 0 || stop.load(Ordering::Relaxed) {
                break 'rounds;
            }
            let search = &mut searches[goal];
            search.aborted = false;
            search.max_nodes = search.nodes + turn.min(left);
            let mut root = position.clone();
            numbers[goal] = match search.leaf(&root) {
                Some(true) => (0, INFINITE),
                Some(false) => (INFINITE, 0),
                None => search.mid(&mut root, 0, INFINITE, INFINITE),
            };
            settled[goal] = match numbers[goal] {
                (0, _) => Some(true),
                (_, 0) => Some(false),
                _ => None,
            };
        }
        // A win for either side settles both goals.
        if settled.contains(&Some(true)) || settled.iter().all(Option::is_some) {
            break;
        }
        turn = turn.saturating_mul(2);
    }
    let value = match settled {
        [Some(true), _] => Proven::Win,
        [_, Some(true)] => Proven::Loss,
        [Some(false), Some(false)] => Proven::Draw,
        [None, Some(false)] => Proven::AtLeastDraw,
        [Some(false), None] => Proven::AtMostDraw,
        _ => Proven::Unknown,
    };
    let open = [0, 1].map(|g| {
        if settled[g].is_some() {
            (0, 0)
        } else {
            numbers[g]
        }
    });
    ProofReport {
        value,
        nodes: spent(&searches),
        stored: searches.iter().map(|s| s.table.len()).sum(),
        table_hits: searches.iter().map(|s| s.table_hits).sum(),
        seconds: started.elapsed().as_secs_f64(),
        open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_rules::game::endgame::Slice;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    use menagerie_rules::rng::Rng;
    use menagerie_tables::retrograde::{build, Request};

    /// Proofs agree with the tables: with no tables at all (the rules
    /// decide every leaf) and with the tables of fewer men as leaves.
    #[test]
    fn proofs_agree_with_the_tables() {
        let dir = std::env::temp_dir().join(format!("menagerie-proof-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for count in [false, true] {
            let rules = AwRules {
                lined: true,
                straight: false,
                count,
            };
            let request = |men| Request {
                dir: &dir,
                men,
                only: None,
                threads: 2,
            };
            let stop = AtomicBool::new(false);
            build::<Awithlaknannai>(&rules, &request(3), &stop, &mut |_| {}).unwrap();
            let variant = (Awithlaknannai::endgame().unwrap().variant)(&rules);
            let (smaller, _) = Tables::open(&dir, Awithlaknannai::ID, variant);
            build::<Awithlaknannai>(&rules, &request(4), &stop, &mut |_| {}).unwrap();
            let (all, _) = Tables::open(&dir, Awithlaknannai::ID, variant);
            let endgame = Awithlaknannai::endgame().unwrap();
            let mut rng = Rng::new(11);
            let (mut settled, mut seen) = (0, std::collections::HashSet::new());
            for slice in [Slice::new(2, 2), Slice::new(3, 1), Slice::new(1, 3)] {
                let size = (endgame.slice_size)(slice);
                let mut tried = 0;
                while tried < 30 {
                    let Some(mut p) = (endgame.position)(&rules, slice, rng.below(size)) else {
                        continue;
                    };
                    tried += 1;
                    p.set_clock(36 + rng.below(15) as u32);
                    let truth = all.probe(&p).unwrap().wdl;
                    for leaves in [None, Some(&smaller)] {
                        let report = prove(&p, leaves, 400_000, &stop);
                        let expected = match truth {
                            Wdl::Win => Proven::Win,
                            Wdl::Loss => Proven::Loss,
                            Wdl::Draw => Proven::Draw,
                        };
                        let bound_holds = match report.value {
                            Proven::AtLeastDraw => truth != Wdl::Loss,
                            Proven::AtMostDraw => truth != Wdl::Win,
                            Proven::Unknown => true,
                            v => v == expected,
                        };
                        assert!(
                            bound_holds,
                            "{p}: proved {} but the table says {truth:?}",
                            report.value
                        );
                        if report.value == expected {
                            settled += 1;
                            seen.insert(truth);
                        }
                    }
                }
            }
            assert!(settled >= 150, "only {settled} of 180 proofs settled");
            assert_eq!(seen.len(), 3, "wins, draws and losses all proved");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
