//! The static value the searches use at their horizon: the learned
//! evaluation when the settings carry a network for the game, the
//! game's hand-written one otherwise. The greedy player (Skill 1) and the
//! playouts that imitate it keep the hand-written one: it defines them.

use std::sync::Arc;

use menagerie_nnue::{Evaluator, Network};
use menagerie_rules::game::{Game, Seat, MAX_SEATS};

/// One search thread's evaluation.
pub enum Evaluation {
    Hand,
    Learned(Box<Evaluator>),
}

impl Evaluation {
    /// The evaluation `network` asks for: learned when there is one and
    /// it reads `G`'s input set, hand-written otherwise.
    pub fn new<G: Game>(network: Option<&Arc<Network>>) -> Evaluation {
        match (network, G::INPUT_SET) {
            (Some(net), Some(set)) if net.game == G::ID && net.input_set == set.name => {
                Evaluation::Learned(Box::new(Evaluator::new(net.clone())))
            }
            _ => Evaluation::Hand,
        }
    }

    /// The value of `position` for `seat` ([`Game::evaluate_for`]'s units).
    #[inline]
    pub fn value_for<G: Game>(&mut self, position: &G, seat: Seat) -> i32 {
        match self {
            Evaluation::Hand => position.evaluate_for(seat),
            Evaluation::Learned(e) => e.value_for(position, seat),
        }
    }

    /// The value for the side to move ([`Game::evaluate`]'s units).
    #[inline]
    pub fn value<G: Game>(&mut self, position: &G) -> i32 {
        match self {
            Evaluation::Hand => position.evaluate(),
            Evaluation::Learned(e) => e.value_for(position, position.side()),
        }
    }

    /// The policy head's logit of each of `moves` (all of `position`'s)
    /// times the network's fixed scale, into `out`; empty without one
    /// (the hand-written evaluation, a network without a policy, a roll).
    pub fn move_logits<G: Game>(&mut self, position: &G, moves: &[G::Move], out: &mut Vec<i64>) {
        match self {
            Evaluation::Hand => out.clear(),
            Evaluation::Learned(e) => e.move_sums(position, moves, out),
        }
    }

    /// The values of every seat in play, indexed by seat (one network pass).
    pub fn values<G: Game>(&mut self, position: &G) -> [i32; MAX_SEATS] {
        match self {
            Evaluation::Hand => {
                let mut out = [0; MAX_SEATS];
                for &seat in position.seats() {
                    out[seat as usize] = position.evaluate_for(seat);
                }
                out
            }
            Evaluation::Learned(e) => e.values(position),
        }
    }
}
