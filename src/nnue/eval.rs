//! Integer inference for the search.
//!
//! The first layer is a sum of the weight columns of the inputs that are
//! on. Positions a search evaluates one after another are mostly a move
//! or two apart, so the evaluator keeps the sum of the last position it
//! saw and moves it to the next by the difference of the two sorted input
//! lists (a handful of columns), not by the whole list: the game needs
//! no hook in its play and undo for it. Where the difference is larger
//! than the list (another part of the tree), it sums afresh.

use std::sync::Arc;

use menagerie_rules::game::inputs::{Inputs, MoveKeys, NO_KEY};
use menagerie_rules::game::{Game, Seat, MAX_SEATS};

use crate::file::{Network, QA, QB};

/// A network with its running first layer; one per search thread.
pub struct Evaluator {
    net: Arc<Network>,
    /// The first layer's sums for `last`.
    sums: Vec<i32>,
    last: Inputs,
    /// Whether `sums` holds `last`'s sums.
    valid: bool,
    next: Inputs,
    /// First-layer updates by difference and by a fresh sum (for tests
    /// and the benchmark).
    pub updates: u64,
    pub refreshes: u64,
}

/// Largest magnitude of a value in search units: far from a decided score.
pub const MAX_VALUE: i32 = 30_000;

impl Evaluator {
    /// An evaluator of `net`; allocates its one buffer here.
    pub fn new(net: Arc<Network>) -> Evaluator {
        let hidden = net.hidden;
        Evaluator {
            net,
            sums: vec![0; hidden],
            last: Inputs::new(),
            valid: false,
            next: Inputs::new(),
            updates: 0,
            refreshes: 0,
        }
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    fn add(&mut self, input: u16, sign: i32) {
        let h = self.net.hidden;
        let column = &self.net.first[input as usize * h..(input as usize + 1) * h];
        for (s, &w) in self.sums.iter_mut().zip(column) {
            *s += sign * i32::from(w);
        }
    }

    /// Brings the first layer to `inputs` (ascending).
    fn set_inputs(&mut self, inputs: &Inputs) {
        let (old, new) = (self.last.as_slice(), inputs.as_slice());
        let changes = if self.valid {
            difference(old, new, |_, _| {})
        } else {
            usize::MAX
        };
        if changes <= new.len() {
            let last = self.last;
            difference(last.as_slice(), new, |input, sign| self.add(input, sign));
            self.updates += 1;
        } else {
            for (s, &b) in self.sums.iter_mut().zip(&self.net.first_bias) {
                *s = i32::from(b);
            }
            for &input in new {
                self.add(input, 1);
            }
            self.refreshes += 1;
        }
        self.last = *inputs;
        self.valid = true;
    }

    /// One row of second-layer weights times the clipped hidden units.
    fn clipped_dot(&self, weights: &[i16]) -> i64 {
        self.sums
            .iter()
            .zip(weights)
            .map(|(&s, &w)| i64::from(s.clamp(0, QA)) * i64::from(w))
            .sum()
    }

    /// Each head's logit times `QA * QB`, for the inputs `inputs`.
    pub fn head_sums(&mut self, inputs: &Inputs) -> [i64; MAX_SEATS] {
        self.set_inputs(inputs);
        let h = self.net.hidden;
        let mut out = [0i64; MAX_SEATS];
        for (k, o) in out.iter_mut().enumerate().take(self.net.heads) {
            *o = self.clipped_dot(&self.net.head[k * h..(k + 1) * h])
                + i64::from(self.net.head_bias[k]);
        }
        out
    }

    /// Each head's logit, as the trainer's float network would give it
    /// (up to the rounding of the weights).
    pub fn logits(&mut self, inputs: &Inputs) -> [f64; MAX_SEATS] {
        let sums = self.head_sums(inputs);
        sums.map(|s| s as f64 / f64::from(QA * QB))
    }

    /// What the network says of `position` for every seat: with one head,
    /// the side to move's expected score; with one head a seat, the chance
    /// that each seat in play wins (zero for the others). Indexed by seat.
    pub fn chances<G: Game>(&mut self, position: &G) -> [f64; MAX_SEATS] {
        position.inputs(&mut self.next);
        let next = self.next;
        let logits = self.logits(&next);
        let mut out = [0.0; MAX_SEATS];
        if self.net.heads == 1 {
            let p = 1.0 / (1.0 + (-logits[0]).exp());
            let me = position.side();
            for &seat in position.seats() {
                out[seat as usize] = if seat == me { p } else { 1.0 - p };
            }
            return out;
        }
        let seats: [Option<Seat>; MAX_SEATS] = std::array::from_fn(|k| position.head_seat(k));
        let top = (0..self.net.heads)
            .filter(|&k| seats[k].is_some())
            .map(|k| logits[k])
            .fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for k in 0..self.net.heads {
            if let Some(seat) = seats[k] {
                let e = (logits[k] - top).exp();
                out[seat as usize] = e;
                total += e;
            }
        }
        out.map(|e| e / total)
    }

    /// The network's value of `position` for every seat in search units:
    /// the logit of the seat's chance, times the network's scale. With
    /// one head the mover's value is the head's sum itself (in integers,
    /// the same on every machine) and the other seat's its negation.
    pub fn values<G: Game>(&mut self, position: &G) -> [i32; MAX_SEATS] {
        let mut out = [0; MAX_SEATS];
        if self.net.heads == 1 {
            position.inputs(&mut self.next);
            let next = self.next;
            let sum = self.head_sums(&next)[0];
            let v = (sum * i64::from(self.net.scale) / i64::from(QA * QB))
                .clamp(-i64::from(MAX_VALUE), i64::from(MAX_VALUE)) as i32;
            let me = position.side();
            for &seat in position.seats() {
                out[seat as usize] = if seat == me { v } else { -v };
            }
            return out;
        }
        let chances = self.chances(position);
        for &seat in position.seats() {
            let p = chances[seat as usize].clamp(1e-9, 1.0 - 1e-9);
            let v = (p / (1.0 - p)).ln() * f64::from(self.net.scale);
            out[seat as usize] = (v.round() as i32).clamp(-MAX_VALUE, MAX_VALUE);
        }
        out
    }

    /// Whether the network has a policy head.
    pub fn has_policy(&self) -> bool {
        self.net.moves > 0
    }

    /// The policy's logit of each of `moves` (moves of `position`) times
    /// `QA * QB`, into `out`: the sum of its keys' heads. Empty where the
    /// network has no policy or the position is a roll's.
    pub fn move_sums<G: Game>(&mut self, position: &G, moves: &[G::Move], out: &mut Vec<i64>) {
        out.clear();
        if !self.has_policy() || position.is_chance() {
            return;
        }
        position.inputs(&mut self.next);
        let next = self.next;
        let keys = moves.iter().map(|&mv| position.policy_keys(mv));
        self.policy_sums(&next, keys, out);
    }

    /// The policy's logit times `QA * QB` of each move given by its keys,
    /// for the position of `inputs`, into `out` (after what it holds).
    pub fn policy_sums(
        &mut self,
        inputs: &Inputs,
        moves: impl Iterator<Item = MoveKeys>,
        out: &mut Vec<i64>,
    ) {
        self.set_inputs(inputs);
        let h = self.net.hidden;
        for keys in moves {
            let mut total = 0i64;
            for key in keys {
                if key == NO_KEY || key as usize >= self.net.moves {
                    continue;
                }
                let k = key as usize;
                total += self.clipped_dot(&self.net.policy[k * h..(k + 1) * h])
                    + i64::from(self.net.policy_bias[k]);
            }
            out.push(total);
        }
    }

    /// The policy's prior of each of `moves` (all the moves of
    /// `position`), a softmax of their logits, into `out`; empty where
    /// [`Evaluator::move_sums`] is.
    pub fn priors<G: Game>(
        &mut self,
        position: &G,
        moves: &[G::Move],
        sums: &mut Vec<i64>,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        self.move_sums(position, moves, sums);
        let Some(&top) = sums.iter().max() else {
            return;
        };
        let unit = f64::from(QA * QB);
        out.extend(sums.iter().map(|&s| ((s - top) as f64 / unit).exp()));
        let total: f64 = out.iter().sum();
        for p in out.iter_mut() {
            *p /= total;
        }
    }

    /// [`Evaluator::values`] for one seat.
    pub fn value_for<G: Game>(&mut self, position: &G, seat: Seat) -> i32 {
        self.values(position)[seat as usize]
    }
}

/// Walks two ascending lists and calls `change(input, +1)` for each input
/// only in `new`, `change(input, -1)` for each only in `old`; returns how
/// many changes there were.
fn difference(old: &[u16], new: &[u16], mut change: impl FnMut(u16, i32)) -> usize {
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < old.len() || j < new.len() {
        if j == new.len() || (i < old.len() && old[i] < new[j]) {
            change(old[i], -1);
            i += 1;
            count += 1;
        } else if i == old.len() || new[j] < old[i] {
            change(new[j], 1);
            j += 1;
            count += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::tests::tiny;

    fn inputs(list: &[u16]) -> Inputs {
        let mut inputs = Inputs::new();
        for &i in list {
            inputs.push(i as usize);
        }
        inputs.finish();
        inputs
    }

    /// The first layer and heads computed the plain way.
    fn direct(net: &Network, list: &[u16]) -> [i64; MAX_SEATS] {
        let mut out = [0; MAX_SEATS];
        for (k, o) in out.iter_mut().enumerate().take(net.heads) {
            let mut total = i64::from(net.head_bias[k]);
            for j in 0..net.hidden {
                let mut s = i32::from(net.first_bias[j]);
                for &i in list {
                    s += i32::from(net.first[i as usize * net.hidden + j]);
                }
                total += i64::from(s.clamp(0, QA)) * i64::from(net.head[k * net.hidden + j]);
            }
            *o = total;
        }
        out
    }

    #[test]
    fn updates_by_difference_give_what_a_fresh_sum_gives() {
        let net = Arc::new(tiny());
        let mut evaluator = Evaluator::new(net.clone());
        let lists: [&[u16]; 6] = [&[0, 2], &[0, 3], &[1, 2, 3, 4], &[], &[4], &[0, 1, 2, 3, 4]];
        for list in lists.iter().cycle().take(30) {
            assert_eq!(
                evaluator.head_sums(&inputs(list)),
                direct(&net, list),
                "{list:?}"
            );
        }
        assert!(evaluator.updates > 10 && evaluator.refreshes >= 1);
    }

    #[test]
    fn the_difference_of_two_lists_names_each_change_once() {
        let mut seen = Vec::new();
        let n = difference(&[1, 3, 5, 9], &[2, 3, 9, 10], |i, s| seen.push((i, s)));
        assert_eq!(n, 4);
        seen.sort();
        assert_eq!(seen, vec![(1, -1), (2, 1), (5, -1), (10, 1)]);
    }
}
