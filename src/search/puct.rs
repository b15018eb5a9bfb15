//! PUCT tree search for any number of seats and dice: AlphaZero's search
//! with a value per seat. Every node holds each seat's chance to win; a
//! player node's child is chosen by PUCT on the mover's own chance (max^n
//! backups, as in [`super::mcts`]), a chance node's outcome so that its
//! visits follow the outcomes' probabilities (its mean is then their
//! expectation, with no sampling noise). A leaf is not played out: when
//! it grows, each child is evaluated once (the network's chances where the
//! settings carry one) and the leaf backs up its mover's best child (the
//! children's mean at a chance node).
//!
//! The priors: the network's policy head where it has one (the softmax
//! of the node's moves' logits, docs/network.md); otherwise the softmax
//! of the children's values for the mover, which the growth computes
//! anyway. With a policy the children need no evaluation to be ranked,
//! so, as in AlphaZero, a node grows without evaluating them: a child is
//! evaluated when a walk first reaches it, and that walk backs up its
//! value; until then PUCT sees it at its parent's mean for the mover
//! (first-play urgency).
//!
//! Nodes counted: every position evaluated. The move played is the root
//! child visited most (its value breaks ties); with `MultiSeat gumbel`
//! the root's walks and the move played are Gumbel's ([`crate::gumbel`]).

use crate::gumbel::{GumbelRoot, RootMove, PLAY_SCALE};
use crate::tree::{walk_until_done, TreeSearch};
use crate::vocabulary::{
    threads, Budget, Evaluation, Info, Limits, MultiSeat, Reporter, Score, SearchResult, Settings,
    Shared,
};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Outcome, MAX_SEATS};
use menagerie_rules::rng::Rng;
use std::sync::atomic::Ordering;

/// PUCT's exploration constant, for values in [0, 1].
const EXPLORATION: f32 = 3.0;
/// Most nodes the tree keeps (about 48 bytes each); past it, iterations
/// back up the leaf's own value without growing.
const MAX_NODES: usize = 1 << 20;
/// The hand-written evaluation's units per unit of logit, for searches
/// without a network (about a pawn's worth of odds).
const HAND_SCALE: f32 = 400.0;

type Chances = [f32; MAX_SEATS];

struct Node<M> {
    mv: Option<M>,
    first_child: u32,
    children: u16,
    expanded: bool,
    /// The game is over here (no children ever).
    terminal: bool,
    /// Every line below ends in a finished game within the tree: walking
    /// it again can teach nothing.
    exhausted: bool,
    /// `first` holds the node's evaluation (a child grown by a policy
    /// waits for its first walk).
    evaluated: bool,
    visits: u32,
    prior: f32,
    /// Each seat's chance as first evaluated; it counts as one visit.
    first: Chances,
    /// Sum of each seat's backed-up chances over the visits.
    sum: Chances,
}

impl<M> Node<M> {
    fn new(mv: Option<M>, first: Chances, terminal: bool) -> Node<M> {
        Node {
            mv,
            first_child: 0,
            children: 0,
            expanded: false,
            terminal,
            exhausted: terminal,
            evaluated: true,
            visits: 0,
            prior: 0.0,
            first,
            sum: [0.0; MAX_SEATS],
        }
    }

    /// Each seat's mean chance, the first evaluation included.
    fn mean(&self, seat: usize) -> f32 {
        (self.first[seat] + self.sum[seat]) / (self.visits + 1) as f32
    }

    fn range(&self) -> std::ops::Range<usize> {
        self.first_child as usize..self.first_child as usize + self.children as usize
    }
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
        |budget, reporter| match reporter {
            // One tree: the helper threads of Lazy SMP have nothing to share.
            Some(reporter) => {
                let eval = Evaluation::new::<G>(settings.network.as_ref());
                let mut tree = Tree::new(session, budget, eval);
                if settings.multi_seat == MultiSeat::Gumbel {
                    tree.gumbel = Root::Due(Rng::new(settings.seed ^ session.position().hash()));
                }
                tree.run(reporter)
            }
            None => SearchResult::none(),
        },
    )
}

struct Tree<'a, G: Game> {
    root: G,
    budget: Budget<'a>,
    eval: Evaluation,
    nodes: Vec<Node<G::Move>>,
    scratch: Vec<G::Move>,
    path: Vec<u32>,
    deepest: usize,
    /// The policy's logits and priors of the node being grown.
    policy_sums: Vec<i64>,
    policy: Vec<f64>,
    /// Children wait for their first walk to be evaluated (the network
    /// has a policy).
    lazy: bool,
    gumbel: Root,
    /// The root's moves as Gumbel sees them, refilled for each walk (a
    /// reused list: the walk allocates nothing).
    root_moves: Vec<RootMove>,
}

/// How the root picks its walks' moves.
enum Root {
    /// By PUCT, as every node.
    Puct,
    /// By Gumbel, once the root has grown (the draws' generator).
    Due(Rng),
    Gumbel(GumbelRoot),
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

    fn complete(&self) -> bool {
        self.nodes[0].exhausted
    }

    fn report(&mut self, reporter: &mut dyn Reporter) {
        Tree::report(self, reporter)
    }
}

impl<'a, G: Game> Tree<'a, G> {
    fn new(session: &Session<G>, budget: Budget<'a>, eval: Evaluation) -> Self {
        let root = session.position().clone();
        let mut tree = Tree {
            root,
            budget,
            eval,
            nodes: Vec::with_capacity(4096),
            scratch: Vec::with_capacity(64),
            path: Vec::with_capacity(64),
            deepest: 0,
            policy_sums: Vec::with_capacity(64),
            policy: Vec::with_capacity(64),
            lazy: false,
            gumbel: Root::Puct,
            root_moves: Vec::new(),
        };
        tree.lazy = matches!(&tree.eval, Evaluation::Learned(e) if e.has_policy());
        let root = tree.root.clone();
        let (first, terminal) = tree.evaluate(&root);
        tree.nodes.push(Node::new(None, first, terminal));
        tree
    }

    fn run(&mut self, reporter: &mut dyn Reporter) -> SearchResult<G::Move> {
        walk_until_done(self, reporter, 64);
        let best = self.best_child(0);
        SearchResult {
            best: best.map(|i| self.nodes[i].mv.expect("a child has a move")),
            score: self.score(best),
            nodes: 0,
        }
    }

    /// A share of wins as a centipawn-like score: 1000 per unit above par.
    fn score(&self, child: Option<usize>) -> Score {
        let seat = self.root.side() as usize;
        if let Some(i) = child {
            let n = &self.nodes[i];
            if n.terminal && n.first[seat] == 1.0 {
                return Score::Win(1);
            }
        }
        let share = child.map_or(self.nodes[0].mean(seat), |i| self.nodes[i].mean(seat));
        let par = 1.0 / self.root.seats().len() as f32;
        Score::Cp(((share - par) * 1000.0).round() as i32)
    }

    /// The child of a player node visited most; its mean for the mover
    /// breaks ties (at small budgets many children have one visit).
    fn best_child(&self, node: usize) -> Option<usize> {
        let n = &self.nodes[node];
        if !n.expanded || n.children == 0 {
            return None;
        }
        let mover = self.root.side() as usize;
        if let (0, Root::Gumbel(gumbel)) = (node, &self.gumbel) {
            let fallback = n.mean(mover);
            let mut moves = Vec::new();
            self.fill_root_moves(mover, &mut moves);
            return Some(n.first_child as usize + gumbel.best(&moves, fallback));
        }
        n.range().max_by(|&a, &b| {
            let (a, b) = (&self.nodes[a], &self.nodes[b]);
            a.visits
                .cmp(&b.visits)
                .then(a.mean(mover).total_cmp(&b.mean(mover)))
        })
    }

    fn report(&mut self, reporter: &mut dyn Reporter) {
        self.budget.flush();
        let mut pv = Vec::new();
        let mut node = 0usize;
        let mut position = self.root.clone();
        while let Some(best) = self.best_child_at(node, &position) {
            let mv = self.nodes[best].mv.expect("a child has a move");
            pv.push(mv);
            position.play(mv);
            node = best;
        }
        let watch = self.budget.watch;
        let best = self.best_child(0);
        reporter.info(&Info {
            depth: self.deepest as u32,
            seldepth: self.deepest as u32,
            score: self.score(best),
            nodes: watch.nodes.load(Ordering::Relaxed),
            time_ms: watch.elapsed_ms(),
            hashfull: (self.nodes.len() * 1000 / MAX_NODES) as u32,
            pv: crate::vocabulary::line(&pv),
        });
    }

    /// The principal variation's next node: the most visited child for
    /// the seat to move at `position` (a roll at a chance node).
    fn best_child_at(&self, node: usize, position: &G) -> Option<usize> {
        let n = &self.nodes[node];
        if !n.expanded {
            return None;
        }
        let mover = position.side() as usize;
        n.range()
            .filter(|&i| self.nodes[i].visits > 0)
            .max_by(|&a, &b| {
                let (a, b) = (&self.nodes[a], &self.nodes[b]);
                a.visits
                    .cmp(&b.visits)
                    .then(a.mean(mover).total_cmp(&b.mean(mover)))
            })
    }

    /// Each seat's chance at `position` and whether the game is over.
    fn evaluate(&mut self, position: &G) -> (Chances, bool) {
        if let Some(chances) = finished(position) {
            return (chances, true);
        }
        let chances = match &mut self.eval {
            Evaluation::Learned(e) => e.chances(position).map(|c| c as f32),
            Evaluation::Hand => hand_chances(position),
        };
        (chances, false)
    }

    /// One walk down the tree, one growth and one backup.
    fn iterate(&mut self, position: &mut G) {
        self.path.clear();
        self.path.push(0);
        let mut node = 0usize;
        let mut moves = 0;
        let value = loop {
            if self.nodes[node].terminal {
                // A visit to a finished game is a node too, so that a
                // node limit ends a search that keeps finding it.
                if self.budget.tick() {
                    return;
                }
                break self.nodes[node].first;
            }
            let n = &self.nodes[node];
            if !n.expanded {
                let grown = if self.lazy {
                    self.expand_by_policy(node, position)
                } else {
                    self.expand(node, position).map(Some)
                };
                match grown {
                    Some(None) => {}
                    Some(Some(value)) => {
                        self.start_gumbel(node, position);
                        break value;
                    }
                    None if self.budget.aborted => return,
                    None => break self.nodes[node].first,
                }
                self.start_gumbel(node, position);
            }
            node = if position.is_chance() {
                self.select_outcome(node)
            } else {
                moves += 1;
                self.select_move(node, position.side() as usize)
            };
            position.play(self.nodes[node].mv.expect("a child has a move"));
            self.path.push(node as u32);
            if !self.nodes[node].evaluated {
                // A child's first walk: its evaluation is the leaf's value.
                if self.budget.tick() {
                    return;
                }
                let (first, terminal) = self.evaluate(position);
                let n = &mut self.nodes[node];
                (n.first, n.terminal, n.exhausted, n.evaluated) = (first, terminal, terminal, true);
                break first;
            }
        };
        self.deepest = self.deepest.max(moves);
        for &i in &self.path {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            for (sum, v) in n.sum.iter_mut().zip(value) {
                *sum += v;
            }
        }
        self.mark_exhausted();
    }

    /// Marks the walk's nodes, from its end up, whose lines all end.
    fn mark_exhausted(&mut self) {
        for k in (0..self.path.len()).rev() {
            let i = self.path[k] as usize;
            let n = &self.nodes[i];
            let exhausted =
                n.terminal || (n.expanded && n.range().all(|c| self.nodes[c].exhausted));
            if !exhausted {
                break;
            }
            self.nodes[i].exhausted = true;
        }
    }

    /// Grows `node` without a policy: evaluates each child, sets the priors from their values, and returns
    /// the value to back up (the mover's best child, or the outcomes'
    /// mean at a chance node); `None` when the tree is full or the search
    /// must stop.
    fn expand(&mut self, node: usize, position: &mut G) -> Option<Chances> {
        let moves = self.moves_to_grow(position)?;
        let chance = position.is_chance();
        let mover = position.side() as usize;
        let first = self.nodes.len();
        for &mv in &moves {
            if self.budget.tick() {
                self.nodes.truncate(first);
                self.scratch = moves;
                return None;
            }
            let undo = position.play(mv);
            let (chances, terminal) = self.evaluate(position);
            position.undo(mv, undo);
            self.nodes.push(Node::new(Some(mv), chances, terminal));
        }
        self.scratch = moves;
        let children = &mut self.nodes[first..];
        let count = children.len() as f32;
        let mut value = [0.0; MAX_SEATS];
        if chance {
            for child in children.iter_mut() {
                child.prior = 1.0 / count;
                for (v, c) in value.iter_mut().zip(child.first) {
                    *v += c / count;
                }
            }
        } else {
            priors_from_values(children, mover);
            // The first of equals, as the order of the moves gives them.
            let best = children
                .iter()
                .reduce(|a, b| {
                    if b.first[mover] > a.first[mover] {
                        b
                    } else {
                        a
                    }
                })
                .expect("a grown node has children");
            value = best.first;
        }
        let n = &mut self.nodes[node];
        n.first_child = first as u32;
        n.children = count as u16;
        n.expanded = true;
        Some(value)
    }

    /// The moves of `position` (in the reused list) when its node can
    /// grow: `None` when it has none or the tree has no room for them.
    fn moves_to_grow(&mut self, position: &G) -> Option<Vec<G::Move>> {
        let mut moves = std::mem::take(&mut self.scratch);
        moves.clear();
        position.generate(&mut moves);
        if moves.is_empty() || self.nodes.len() + moves.len() > MAX_NODES {
            self.scratch = moves;
            return None;
        }
        Some(moves)
    }

    /// Grows `node` by the policy (a player node) or the dice (a chance
    /// node) without evaluating its children; `Some(None)` when grown,
    /// `None` when the tree is full or the node has no moves.
    fn expand_by_policy(&mut self, node: usize, position: &mut G) -> Option<Option<Chances>> {
        let moves = self.moves_to_grow(position)?;
        self.policy.clear();
        if let Evaluation::Learned(e) = &mut self.eval {
            e.priors(&*position, &moves, &mut self.policy_sums, &mut self.policy);
        }
        let first = self.nodes.len();
        let uniform = 1.0 / moves.len() as f32;
        for (i, &mv) in moves.iter().enumerate() {
            // A move that ends the game is known at once (no network
            // needed), so a win the policy ranks low is still seen.
            let undo = position.play(mv);
            let ended = finished(position);
            position.undo(mv, undo);
            let mut child = Node::new(Some(mv), ended.unwrap_or([0.0; MAX_SEATS]), ended.is_some());
            child.evaluated = ended.is_some();
            child.prior = self.policy.get(i).map_or(uniform, |&p| p as f32);
            self.nodes.push(child);
        }
        self.scratch = moves;
        let children = (self.nodes.len() - first) as u16;
        let n = &mut self.nodes[node];
        n.first_child = first as u32;
        n.children = children;
        n.expanded = true;
        Some(None)
    }

    /// The outcome whose visits lag its probability most.
    fn select_outcome(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let range = n.range();
        let start = range.start;
        start
            + most_lagging(
                n.visits,
                self.nodes[range].iter().map(|c| (c.prior, c.visits)),
            )
    }

    /// Gumbel's draws for the root's moves, once the root has grown as a
    /// player node (`MultiSeat gumbel`); the walks a node limit allows
    /// are about one a node with a policy, else one per growth of a
    /// node as wide as the root.
    fn start_gumbel(&mut self, node: usize, position: &G) {
        let Root::Due(rng) = &mut self.gumbel else {
            return;
        };
        if node != 0 || position.is_chance() || !self.nodes[0].expanded {
            return;
        }
        let n = &self.nodes[0];
        let priors: Vec<f32> = self.nodes[n.range()].iter().map(|c| c.prior).collect();
        let per_walk = if self.lazy {
            1
        } else {
            1 + priors.len() as u64
        };
        let walks = self
            .budget
            .watch
            .limits
            .nodes
            .map(|nodes| (nodes / per_walk).max(1));
        self.gumbel = Root::Gumbel(GumbelRoot::new(&priors, rng, PLAY_SCALE, walks));
    }

    /// The root's moves as Gumbel's selection sees them, into `moves`.
    fn fill_root_moves(&self, mover: usize, moves: &mut Vec<RootMove>) {
        let n = &self.nodes[0];
        moves.clear();
        moves.extend(self.nodes[n.range()].iter().map(|c| RootMove {
            visits: c.visits,
            mean: c.evaluated.then(|| c.mean(mover)),
        }));
    }

    /// PUCT on the mover's own chance (Gumbel's choice at the root).
    fn select_move(&mut self, node: usize, mover: usize) -> usize {
        if node == 0 {
            let mut moves = std::mem::take(&mut self.root_moves);
            let chosen = match &self.gumbel {
                Root::Gumbel(gumbel) => {
                    self.fill_root_moves(mover, &mut moves);
                    let n = &self.nodes[0];
                    Some(
                        n.first_child as usize
                            + gumbel.select(&moves, n.mean(mover), u64::from(n.visits)),
                    )
                }
                _ => None,
            };
            self.root_moves = moves;
            if let Some(child) = chosen {
                return child;
            }
        }
        let n = &self.nodes[node];
        let root_visits = ((n.visits + 1) as f32).sqrt();
        let urgency = n.mean(mover);
        let puct = |i: usize| {
            let child = &self.nodes[i];
            let mean = if child.evaluated {
                child.mean(mover)
            } else {
                urgency
            };
            mean + EXPLORATION * child.prior * root_visits / (child.visits + 1) as f32
        };
        n.range()
            .max_by(|&a, &b| puct(a).total_cmp(&puct(b)))
            .expect("a grown player node has moves")
    }
}

/// Each seat's share where the game is over at `position` (a draw shared
/// out), `None` where it goes on.
fn finished<G: Game>(position: &G) -> Option<Chances> {
    let outcome = match position.outcome() {
        Some(outcome) => outcome,
        None if position.clock() >= G::NO_PROGRESS_LIMIT => position.no_progress_outcome(),
        None => return None,
    };
    let seats = position.seats();
    let mut chances = [0.0; MAX_SEATS];
    match outcome {
        Outcome::Win(winner) => chances[winner as usize] = 1.0,
        Outcome::Draw => {
            for &seat in seats {
                chances[seat as usize] = 1.0 / seats.len() as f32;
            }
        }
    }
    Some(chances)
}

/// Priors without a policy: the softmax of the children's logits for
/// the mover.
fn priors_from_values<M>(children: &mut [Node<M>], mover: usize) {
    let logit = |p: f32| {
        let p = p.clamp(1e-4, 1.0 - 1e-4);
        (p / (1.0 - p)).ln()
    };
    let top = children
        .iter()
        .map(|c| logit(c.first[mover]))
        .fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for child in children.iter_mut() {
        child.prior = (logit(child.first[mover]) - top).exp();
        total += child.prior;
    }
    for child in children.iter_mut() {
        child.prior /= total;
    }
}

/// Of outcomes given as (probability, visits), under a node visited
/// `visits` times, the index of the one whose visits lag its probability
/// most: the visits then follow the probabilities within one, so the
/// node's mean is their expectation without sampling noise.
fn most_lagging(visits: u32, outcomes: impl Iterator<Item = (f32, u32)>) -> usize {
    let total = (visits + 1) as f32;
    let mut best = (f32::NEG_INFINITY, 0);
    for (i, (probability, seen)) in outcomes.enumerate() {
        let lag = probability * total - seen as f32;
        if lag > best.0 {
            best = (lag, i);
        }
    }
    best.1
}

/// Each seat's chance from the hand-written evaluation: the softmax of
/// the seats' values, a logit per `HAND_SCALE`.
fn hand_chances<G: Game>(position: &G) -> Chances {
    let seats = position.seats();
    let mut logits = [f32::NEG_INFINITY; MAX_SEATS];
    for &seat in seats {
        logits[seat as usize] = position.evaluate_for(seat) as f32 / HAND_SCALE;
    }
    let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut chances = [0.0; MAX_SEATS];
    let mut total = 0.0;
    for &seat in seats {
        let e = (logits[seat as usize] - top).exp();
        chances[seat as usize] = e;
        total += e;
    }
    chances.map(|c| c / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chance_visits_follow_the_probabilities_within_one() {
        for probabilities in [vec![1.0 / 6.0; 6], vec![0.5, 0.25, 0.125, 0.125]] {
            let mut seen = vec![0u32; probabilities.len()];
            for visits in 0..600u32 {
                let i = most_lagging(
                    visits,
                    probabilities.iter().copied().zip(seen.iter().copied()),
                );
                seen[i] += 1;
                for (p, &s) in probabilities.iter().zip(&seen) {
                    let expected = p * (visits + 1) as f32;
                    assert!(
                        (s as f32 - expected).abs() <= 1.0,
                        "after {} visits: {seen:?} for {probabilities:?}",
                        visits + 1
                    );
                }
            }
        }
    }
}
