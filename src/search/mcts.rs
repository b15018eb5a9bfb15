//! Monte Carlo tree search with max^n backups, for more than two seats
//! (Nijssen and Winands found max^n backups the best of the multi-player
//! MCTS variants): each iteration walks the tree from the root, choosing at
//! a player node the child best for the seat to move by UCB1 over that
//! seat's own share of wins and at a chance node an outcome drawn with its
//! probability, adds one node, plays the game out with every seat playing
//! its greedy move (the move best for its own evaluation) on random rolls,
//! and adds the result (1 to the winner, 1/N to each in a draw) to every
//! node of the walk, for every seat.
//!
//! Nodes counted: every node walked and every ply of a playout. The move
//! played is the root child visited most.

use crate::greedy::greedy_move;
use crate::tree::{walk_until_done, TreeSearch};
use crate::vocabulary::{
    threads, Budget, Info, Limits, Reporter, Score, SearchResult, Settings, Shared,
};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, Seat, MAX_SEATS};
use menagerie_rules::rng::Rng;
use std::sync::atomic::Ordering;

/// Exploration constant of UCB1, for rewards in [0, 1].
const EXPLORATION: f32 = 0.7;
/// Most nodes the tree keeps (about 32 bytes each); past it, iterations
/// play out from the leaves without adding nodes.
const MAX_NODES: usize = 1 << 20;
/// Plies after which a playout stops and counts as a draw (the games'
/// no-progress rules end them far sooner).
const MAX_PLAYOUT: usize = 1_000;

struct Node<M> {
    mv: Option<M>,
    first_child: u32,
    children: u16,
    expanded: bool,
    visits: u32,
    /// Sum of each seat's rewards over the visits.
    rewards: [f32; MAX_SEATS],
}

pub fn search<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult<G::Move> {
    threads(
        session,
        limits,
        shared,
        settings,
        reporter,
        |budget, reporter| {
            // One tree: the helper threads of Lazy SMP have nothing to share.
            match reporter {
                Some(reporter) => Tree::new(session, budget, settings.seed).run(reporter),
                None => SearchResult::none(),
            }
        },
    )
}

struct Tree<'a, G: Game> {
    root: G,
    seat: Seat,
    budget: Budget<'a>,
    nodes: Vec<Node<G::Move>>,
    rng: Rng,
    scratch: Vec<G::Move>,
    path: Vec<u32>,
    deepest: usize,
}

impl<'a, G: Game> TreeSearch<'a> for Tree<'a, G> {
    fn budget(&mut self) -> &mut Budget<'a> {
        &mut self.budget
    }

    fn walk(&mut self) {
        let mut position = self.root.clone();
        self.iterate(&mut position);
    }

    fn deepest(&self) -> usize {
        self.deepest
    }

    fn report(&mut self, reporter: &mut dyn Reporter) {
        Tree::report(self, reporter)
    }
}

impl<'a, G: Game> Tree<'a, G> {
    fn new(session: &Session<G>, budget: Budget<'a>, seed: u64) -> Self {
        let root = session.position().clone();
        let mut tree = Tree {
            seat: root.side(),
            rng: Rng::new(seed ^ root.hash() ^ session.history().len() as u64),
            root,
            budget,
            nodes: Vec::with_capacity(1024),
            scratch: Vec::with_capacity(64),
            path: Vec::with_capacity(64),
            deepest: 0,
        };
        tree.nodes.push(Node {
            mv: None,
            first_child: 0,
            children: 0,
            expanded: false,
            visits: 0,
            rewards: [0.0; MAX_SEATS],
        });
        tree
    }

    fn run(&mut self, reporter: &mut dyn Reporter) -> SearchResult<G::Move> {
        walk_until_done(self, reporter, 256);
        let best = self.best_child();
        SearchResult {
            best: best.map(|(mv, _)| mv),
            score: best.map_or(Score::Cp(0), |(_, share)| self.score(share)),
            nodes: 0,
        }
    }

    /// A share of wins as a centipawn-like score: 1000 per unit above par.
    fn score(&self, share: f32) -> Score {
        let par = 1.0 / self.root.seats().len() as f32;
        Score::Cp(((share - par) * 1000.0).round() as i32)
    }

    /// The root child visited most, with its share of wins for the root.
    fn best_child(&self) -> Option<(G::Move, f32)> {
        let root = &self.nodes[0];
        (root.first_child..root.first_child + root.children as u32)
            .map(|i| &self.nodes[i as usize])
            .filter(|n| n.visits > 0)
            .max_by_key(|n| n.visits)
            .map(|n| {
                let mv = n.mv.expect("a child has a move");
                (mv, n.rewards[self.seat as usize] / n.visits as f32)
            })
    }

    fn report(&mut self, reporter: &mut dyn Reporter) {
        self.budget.flush();
        let mut pv = Vec::new();
        let mut node = 0usize;
        loop {
            let n = &self.nodes[node];
            if !n.expanded || n.children == 0 {
                break;
            }
            let range = n.first_child as usize..n.first_child as usize + n.children as usize;
            let Some(best) = range.max_by_key(|&i| self.nodes[i].visits) else {
                break;
            };
            if self.nodes[best].visits == 0 {
                break;
            }
            pv.push(self.nodes[best].mv.expect("a child has a move"));
            node = best;
        }
        let watch = self.budget.watch;
        let share = self.best_child().map_or(0.0, |(_, s)| s);
        reporter.info(&Info {
            depth: self.deepest as u32,
            seldepth: self.deepest as u32,
            score: self.score(share),
            nodes: watch.nodes.load(Ordering::Relaxed),
            time_ms: watch.elapsed_ms(),
            hashfull: (self.nodes.len() * 1000 / MAX_NODES) as u32,
            pv: crate::vocabulary::line(&pv),
        });
    }

    /// One walk, expansion, playout and backup.
    fn iterate(&mut self, position: &mut G) {
        self.path.clear();
        self.path.push(0);
        let mut node = 0usize;
        let mut moves = 0;
        let rewards = loop {
            if self.budget.tick() {
                return;
            }
            if let Some(rewards) = self.finished(position) {
                break rewards;
            }
            // A leaf is played out on its first visit and grows on its
            // second (the root at once).
            let fresh = node != 0 && self.nodes[node].visits == 0;
            if !self.nodes[node].expanded && (fresh || !self.expand(node, position)) {
                break self.playout(position);
            }
            node = self.select(node, position);
            let mv = self.nodes[node].mv.expect("a child has a move");
            if !position.is_chance() {
                moves += 1;
            }
            position.play(mv);
            self.path.push(node as u32);
        };
        self.deepest = self.deepest.max(moves);
        if self.budget.aborted {
            return;
        }
        for &i in &self.path {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            for (sum, r) in n.rewards.iter_mut().zip(rewards) {
                *sum += r;
            }
        }
    }

    /// The rewards of a finished game, or `None` while it goes on.
    fn finished(&self, position: &G) -> Option<[f32; MAX_SEATS]> {
        let outcome = match position.outcome() {
            Some(outcome) => outcome,
            None if position.clock() >= G::NO_PROGRESS_LIMIT => position.no_progress_outcome(),
            None => return None,
        };
        let mut rewards = [0.0; MAX_SEATS];
        match outcome {
            Outcome::Win(winner) => rewards[winner as usize] = 1.0,
            Outcome::Draw => {
                let seats = position.seats();
                for &seat in seats {
                    rewards[seat as usize] = 1.0 / seats.len() as f32;
                }
            }
        }
        Some(rewards)
    }

    /// Adds the children of `node`; false when the tree is full.
    fn expand(&mut self, node: usize, position: &G) -> bool {
        self.scratch.clear();
        position.generate(&mut self.scratch);
        if self.nodes.len() + self.scratch.len() > MAX_NODES {
            return false;
        }
        let first = self.nodes.len() as u32;
        for &mv in &self.scratch {
            self.nodes.push(Node {
                mv: Some(mv),
                first_child: 0,
                children: 0,
                expanded: false,
                visits: 0,
                rewards: [0.0; MAX_SEATS],
            });
        }
        let n = &mut self.nodes[node];
        n.first_child = first;
        n.children = self.scratch.len() as u16;
        n.expanded = true;
        true
    }

    /// A chance node's outcome as drawn; a player node's child by UCB1 on
    /// the mover's rewards (an unvisited child first).
    fn select(&mut self, node: usize, position: &G) -> usize {
        let n = &self.nodes[node];
        let range = n.first_child as usize..n.first_child as usize + n.children as usize;
        if position.is_chance() {
            let outcome = position
                .sample_chance(&mut self.rng, &mut self.scratch)
                .expect("a chance node has outcomes");
            return range
                .clone()
                .find(|&i| self.nodes[i].mv == Some(outcome))
                .unwrap_or(range.start);
        }
        let mover = position.side() as usize;
        let log_visits = (n.visits.max(1) as f32).ln();
        let mut best = (f32::NEG_INFINITY, range.start);
        for i in range {
            let child = &self.nodes[i];
            let value = if child.visits == 0 {
                f32::INFINITY
            } else {
                let visits = child.visits as f32;
                child.rewards[mover] / visits + EXPLORATION * (log_visits / visits).sqrt()
            };
            if value > best.0 {
                best = (value, i);
            }
        }
        best.1
    }

    /// Plays the game out: rolls drawn, every seat's greedy move.
    fn playout(&mut self, position: &mut G) -> [f32; MAX_SEATS] {
        for _ in 0..MAX_PLAYOUT {
            if let Some(rewards) = self.finished(position) {
                return rewards;
            }
            if self.budget.tick() {
                break;
            }
            let mv = if position.is_chance() {
                position.sample_chance(&mut self.rng, &mut self.scratch)
            } else {
                greedy_move(position, &mut self.scratch)
            };
            match mv {
                Some(mv) => {
                    position.play(mv);
                }
                None => break,
            }
        }
        let seats = position.seats();
        let mut rewards = [0.0; MAX_SEATS];
        for &seat in seats {
            rewards[seat as usize] = 1.0 / seats.len() as f32;
        }
        rewards
    }
}
