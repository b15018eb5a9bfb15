//! Gumbel root selection for the PUCT search (`MultiSeat gumbel`), after
//! Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by
//! planning with Gumbel" (ICLR 2022): a small budget is spent where it
//! can change the move, and the move played improves on the priors.
//!
//! At the root each move gets `g + logit`, a Gumbel draw (times a scale)
//! plus the log of its prior, so that at scale 1 the best `g + logit` is a
//! sample of the priors; the [`CONSIDERED`] moves with the highest are the
//! only ones searched. The engine plays at scale [`PLAY_SCALE`], 0: the
//! draws explore, which self-play for training wants and a game does not
//! (as mctx lets evaluation turn them off). Measured through the referee
//! (Kilkenny Cats, 3 seats, alone against greedy players, 800 nodes, 600
//! games): 0.385 with the draws, 0.423 without (a network with a policy);
//! 0.205 and 0.485 with the built-in network, whose few walks the draws
//! swamp (docs/network.md). With
//! a known number of walks (a node limit), sequential halving shares
//! them out: every considered move is visited alike, then the better half
//! by `g + logit + sigma(q)` goes on, and so on, so that the budget goes
//! to the few moves that can still be chosen. Without one (a clock), each
//! walk goes to the move whose improved-policy share most exceeds its
//! share of the visits (the paper's deterministic rule, there used below
//! the root). The move played is, among the considered moves visited
//! most, the best by `g + logit + sigma(q)`: never worse in expectation
//! than the prior's own sample.
//!
//! The tree knows nothing of this module but two calls; the module knows
//! nothing of the tree but each root child's visits and mean.

use menagerie_rules::rng::Rng;

/// The Gumbel draws' scale in play (see above).
pub const PLAY_SCALE: f32 = 0.0;
/// Moves searched at the root at most (the paper's m = 16).
pub const CONSIDERED: usize = 16;
/// sigma(q) = (C_VISIT + most visits of a root move) * C_SCALE * q, for
/// q a chance in [0, 1] (the paper's constants).
const C_VISIT: f32 = 50.0;
const C_SCALE: f32 = 1.0;

/// What the root knows of one move: its visits and its mean chance for
/// the mover (`None` while unevaluated).
#[derive(Clone, Copy, Debug)]
pub struct RootMove {
    pub visits: u32,
    pub mean: Option<f32>,
}

pub struct GumbelRoot {
    /// `g + logit` of each root move; negative infinity for a move not
    /// considered.
    score: Vec<f32>,
    /// The visits the considered moves have reached when walk `k` picks
    /// one (sequential halving); empty without a known budget.
    schedule: Vec<u32>,
}

impl GumbelRoot {
    /// The root's moves with their priors (summing to 1), drawn with
    /// `rng` at `scale`, for `walks` walks if the budget is known.
    pub fn new(priors: &[f32], rng: &mut Rng, scale: f32, walks: Option<u64>) -> GumbelRoot {
        let mut score: Vec<f32> = priors
            .iter()
            .map(|&p| {
                // A uniform draw in (0, 1), never 0 or 1.
                let u = ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                let gumbel = -(-u.ln()).ln() as f32;
                scale * gumbel + p.max(1e-9).ln()
            })
            .collect();
        let considered = CONSIDERED.min(score.len());
        let mut order: Vec<usize> = (0..score.len()).collect();
        order.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
        for &i in &order[considered..] {
            score[i] = f32::NEG_INFINITY;
        }
        let schedule = walks.map_or(Vec::new(), |n| halving_schedule(considered, n));
        GumbelRoot { score, schedule }
    }

    fn sigma(most_visits: u32, q: f32) -> f32 {
        (C_VISIT + most_visits as f32) * C_SCALE * q
    }

    /// The move walk number `walk` takes at the root; `fallback` is the
    /// root's own mean, the value of a move not yet evaluated.
    pub fn select(&self, moves: &[RootMove], fallback: f32, walk: u64) -> usize {
        let most = moves.iter().map(|m| m.visits).max().unwrap_or(0);
        let value = |i: usize| self.score[i] + Self::sigma(most, moves[i].mean.unwrap_or(fallback));
        let considered = || (0..moves.len()).filter(|&i| self.score[i].is_finite());
        if let Some(&due) = self.schedule.get(walk as usize) {
            // The moves still in the halving have been visited `due`
            // times; of those, the best goes next. (Moves a line that
            // ended cannot take visits from are caught by the fewest.)
            let fewest = considered().map(|i| moves[i].visits).min().unwrap_or(0);
            let wanted = if considered().any(|i| moves[i].visits == due) {
                due
            } else {
                fewest
            };
            return considered()
                .filter(|&i| moves[i].visits == wanted)
                .max_by(|&a, &b| value(a).total_cmp(&value(b)))
                .expect("a considered move has the visits wanted");
        }
        // Past the schedule or without one: the improved policy
        // softmax(logit + sigma(q)) against the share of visits.
        let total: u32 = considered().map(|i| moves[i].visits).sum();
        let top = considered().map(value).fold(f32::NEG_INFINITY, f32::max);
        let weight: f32 = considered().map(|i| (value(i) - top).exp()).sum();
        let gap = |i: usize| {
            (value(i) - top).exp() / weight - moves[i].visits as f32 / (1 + total) as f32
        };
        considered()
            .max_by(|&a, &b| gap(a).total_cmp(&gap(b)))
            .expect("the root has a considered move")
    }

    /// The move to play: among the considered moves visited most, the
    /// best by `g + logit + sigma(q)`.
    pub fn best(&self, moves: &[RootMove], fallback: f32) -> usize {
        let considered: Vec<usize> = (0..moves.len())
            .filter(|&i| self.score[i].is_finite())
            .collect();
        let most = considered
            .iter()
            .map(|&i| moves[i].visits)
            .max()
            .unwrap_or(0);
        let value = |i: usize| self.score[i] + Self::sigma(most, moves[i].mean.unwrap_or(fallback));
        considered
            .into_iter()
            .filter(|&i| moves[i].visits == most)
            .max_by(|&a, &b| value(a).total_cmp(&value(b)))
            .expect("the root has a considered move")
    }
}

/// Sequential halving as a list: for each of `walks` walks, the visits
/// the moves still in play have when it picks one. `considered` moves
/// start; each round gives every move left an equal share of the budget
/// (at least one visit), then half of them (at least two) go on.
fn halving_schedule(considered: usize, walks: u64) -> Vec<u32> {
    if considered <= 1 {
        return (0..walks.min(u32::MAX as u64) as u32).collect();
    }
    let walks = walks.min(1 << 24) as usize;
    let rounds = (considered as f64).log2().ceil() as usize;
    let mut schedule = Vec::with_capacity(walks);
    let mut visits = vec![0u32; considered];
    let mut left = considered;
    while schedule.len() < walks {
        let each = (walks / (rounds * left)).max(1);
        for _ in 0..each {
            schedule.extend_from_slice(&visits[..left]);
            for v in &mut visits[..left] {
                *v += 1;
            }
        }
        left = (left / 2).max(2);
    }
    schedule.truncate(walks);
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_draws_the_considered_moves_are_the_priors_first() {
        let mut rng = Rng::new(5);
        let priors: Vec<f32> = (1..=20).map(|k| k as f32 / 210.0).collect();
        let root = GumbelRoot::new(&priors, &mut rng, 0.0, None);
        let considered: Vec<usize> = (0..20).filter(|&i| root.score[i].is_finite()).collect();
        assert_eq!(considered, (4..20).collect::<Vec<_>>());
        // With the draws, some of the weaker moves come in.
        let drawn = GumbelRoot::new(&priors, &mut rng, 1.0, None);
        assert!((0..4).any(|i| drawn.score[i].is_finite()));
    }

    #[test]
    fn halving_visits_every_move_alike_then_the_better_half() {
        // 4 moves, 16 walks: two rounds of 16 / (2 * 4) = 2 visits each
        // for all 4, then 16 / (2 * 2) = 4 each for the 2 left.
        let s = halving_schedule(4, 16);
        assert_eq!(s, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        assert_eq!(halving_schedule(1, 3), vec![0, 1, 2]);
    }

    #[test]
    fn the_walks_follow_the_schedule_and_the_best_is_chosen_by_value() {
        let mut rng = Rng::new(7);
        let priors = [0.25f32; 4];
        let root = GumbelRoot::new(&priors, &mut rng, 1.0, Some(16));
        let mut moves = [RootMove {
            visits: 0,
            mean: None,
        }; 4];
        // Move 2 is the one that wins; the others lose.
        let chance = [0.1, 0.2, 0.9, 0.3];
        for walk in 0..16 {
            let i = root.select(&moves, 0.5, walk);
            moves[i].visits += 1;
            moves[i].mean = Some(chance[i]);
        }
        // Every move had its first two visits; the halving kept the best.
        assert!(moves.iter().all(|m| m.visits >= 2), "{moves:?}");
        assert!(moves[2].visits >= 6, "{moves:?}");
        assert_eq!(root.best(&moves, 0.5), 2);
    }

    #[test]
    fn only_the_considered_moves_are_walked() {
        let mut rng = Rng::new(3);
        let priors = vec![1.0 / 40.0; 40];
        let root = GumbelRoot::new(&priors, &mut rng, 1.0, None);
        let mut moves = vec![
            RootMove {
                visits: 0,
                mean: None
            };
            40
        ];
        for walk in 0..400 {
            let i = root.select(&moves, 0.5, walk);
            moves[i].visits += 1;
            moves[i].mean = Some(0.5);
        }
        let walked = moves.iter().filter(|m| m.visits > 0).count();
        assert_eq!(walked, CONSIDERED);
    }
}
