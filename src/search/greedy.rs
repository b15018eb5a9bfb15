//! The greedy player: the move whose position evaluates best for the
//! mover. Skill 1 plays it, BRS+ and MCTS playouts play the other seats
//! with it, and the greedy model of the other seats (`MultiSeat`
//! `greedy`) predicts them by it.

use menagerie_rules::game::session::{status_of, Session};
use menagerie_rules::game::{Game, Status};
use menagerie_rules::rng::Rng;

use crate::vocabulary::{outcome_score, Score, Scored};

/// The greedy player's move: the one best for the mover's own evaluation
/// (the first of equals), as BRS+ and MCTS playouts play the other seats.
pub(crate) fn greedy_move<G: Game>(position: &mut G, moves: &mut Vec<G::Move>) -> Option<G::Move> {
    let seat = position.side();
    moves.clear();
    position.generate(moves);
    let mut best: Option<(i32, G::Move)> = None;
    for &mv in moves.iter() {
        let undo = position.play(mv);
        let v = position.evaluate_for(seat);
        position.undo(mv, undo);
        if best.map_or(true, |(b, _)| v > b) {
            best = Some((v, mv));
        }
    }
    best.map(|(_, mv)| mv)
}

/// The randomness of a position with `hash`, reached after a history of
/// `history_len` positions, under `seed`.
pub(crate) fn rng_at(seed: u64, hash: u64, history_len: usize) -> Rng {
    Rng::new(seed ^ hash ^ (history_len as u64).rotate_left(32))
}

/// A score made comparable with ties broken at random: the score, then
/// two random bits.
pub(crate) fn tie_broken(score: i64, rng: &mut Rng) -> i64 {
    score * 4 + rng.below(4) as i64
}

/// The move the greedy player (Skill 1 under `seed`) plays in `position`,
/// whose game's history (as a session keeps it: the set position, then one
/// position per move, this one last) is `history_len` long: the move whose
/// position evaluates best for the mover, a decided one by its result,
/// ties broken as Skill 1 breaks them. The one difference: a draw by
/// repetition is not seen, as the history's positions are not given.
/// `moves` is scratch. Searches that model the other seats as greedy
/// players (`MultiSeat` `greedy`) call it.
pub fn greedy_choice<G: Game>(
    position: &mut G,
    history_len: usize,
    seed: u64,
    moves: &mut Vec<G::Move>,
) -> Option<G::Move> {
    let me = position.side();
    let mut rng = rng_at(seed, position.hash(), history_len);
    moves.clear();
    position.generate(moves);
    let mut best: Option<(i64, G::Move)> = None;
    for &mv in moves.iter() {
        let undo = position.play(mv);
        let score = match position.outcome() {
            Some(outcome) => outcome_score(outcome, me, 1),
            None if position.clock() >= G::NO_PROGRESS_LIMIT => {
                outcome_score(position.no_progress_outcome(), me, 1)
            }
            None => position.evaluate_for(me),
        };
        position.undo(mv, undo);
        let value = tie_broken(i64::from(score), &mut rng);
        if best.map_or(true, |(b, _)| value > b) {
            best = Some((value, mv));
        }
    }
    best.map(|(_, mv)| mv)
}

/// Each move scored by the evaluation of the position it leads to, from the
/// mover's point of view (decided positions by their result).
pub(crate) fn root_scores<G: Game>(
    session: &Session<G>,
    moves: &[G::Move],
) -> Vec<Scored<G::Move>> {
    let root = session.position();
    let me = root.side();
    let mut history = session.history().to_vec();
    moves
        .iter()
        .map(|&mv| {
            let mut child = root.clone();
            child.play(mv);
            history.push(child.hash());
            let score = match status_of(&child, &history) {
                Status::Over(outcome, _) => outcome_score(outcome, me, 1),
                Status::Ongoing => child.evaluate_for(me),
            };
            history.pop();
            (mv, score, Score::from_internal(score))
        })
        .collect()
}
