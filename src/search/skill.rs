//! Weaker play for humans and baselines (`setoption name Skill`).
//!
//! - 0: a uniformly random legal move.
//! - 1: greedy: the move whose resulting position evaluates best (one ply,
//!   no further search).
//! - 2..19: a shallow search (depth grows with the level) whose root scores
//!   get seeded random noise that shrinks as the level rises.
//! - 20: full strength (not handled here).
//!
//! Randomness comes from the `Seed` option mixed with the position, so the
//! same seed in the same position always gives the same move, whatever
//! else the engine has done.

use super::{alphabeta, chance, outcome_score, Score, SearchResult, Shared};
use crate::game::session::{status_of, Session};
use crate::game::Game;
use crate::rng::Rng;

pub const FULL_STRENGTH: u8 = 20;

fn rng_for<G: Game>(session: &Session<G>, seed: u64) -> Rng {
    Rng::new(seed ^ session.position().hash() ^ (session.history().len() as u64).rotate_left(32))
}

fn result<G: Game>(mv: G::Move, score: Score) -> SearchResult {
    SearchResult {
        best: Some(mv.to_string()),
        score,
        nodes: 0,
    }
}

/// Search depth of a skill level from 2 to 19.
pub fn depth_of(skill: u8) -> u32 {
    (skill as u32 / 2).clamp(1, 9)
}

pub fn play<G: Game>(session: &Session<G>, skill: u8, seed: u64, shared: &Shared) -> SearchResult {
    let mut moves = Vec::new();
    session.legal(&mut moves);
    let mut rng = rng_for(session, seed);
    if moves.is_empty() {
        return SearchResult {
            best: None,
            score: Score::Cp(0),
            nodes: 0,
        };
    }
    if skill == 0 {
        let mv = moves[rng.below(moves.len() as u64) as usize];
        return result::<G>(mv, Score::Cp(0));
    }
    let scored: Vec<(G::Move, i32)> = if skill == 1 {
        greedy(session, &moves)
    } else if !G::HAS_CHANCE && session.position().seats().len() == 2 {
        alphabeta::root_scores(session, depth_of(skill), shared)
    } else {
        chance::root_scores(session, depth_of(skill), shared)
    };
    let noise = if skill == 1 {
        0
    } else {
        (FULL_STRENGTH - skill) as i64 * 12
    };
    let mut best = None;
    let mut best_value = i64::MIN;
    for (mv, score) in scored {
        // Ties go to a random one of the equals: the noise of level 1 is a
        // fraction of a unit.
        let jitter = if noise > 0 {
            rng.below(2 * noise as u64 + 1) as i64 - noise
        } else {
            0
        };
        let value = (score as i64) * 4 + jitter * 4 + rng.below(4) as i64;
        if value > best_value {
            best_value = value;
            best = Some((mv, score));
        }
    }
    let (mv, score) = best.expect("moves exist");
    result::<G>(mv, Score::Cp(score))
}

/// Each move scored by the evaluation of the position it leads to, from the
/// mover's point of view (decided positions by their result).
fn greedy<G: Game>(session: &Session<G>, moves: &[G::Move]) -> Vec<(G::Move, i32)> {
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
                crate::game::Status::Over(outcome, _) => outcome_score(outcome, me, 1),
                crate::game::Status::Ongoing => child.evaluate_for(me),
            };
            history.pop();
            (mv, score)
        })
        .collect()
}
