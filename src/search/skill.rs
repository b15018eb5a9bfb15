//! Weaker play for humans and baselines (`setoption name Skill`).
//!
//! - 0: a uniformly random legal move.
//! - 1: greedy: the move whose resulting position evaluates best (one ply,
//!   no further search).
//! - 2..19: a shallow search (depth grows with the level) whose root scores
//!   get seeded random noise that shrinks as the level rises.
//! - 20: full strength (not handled here).
//!
//! Every level obeys the same limits as full strength (depth, nodes, time,
//! `stop`) and reports an `info` line per finished depth. The one-ply
//! scores come first and cost one evaluation per move; deeper iterations
//! may be cut off at any moment, and the choice then comes from the
//! deepest one that finished.
//!
//! Randomness comes from the `Seed` option mixed with the position, so the
//! same seed in the same position always gives the same move (at the same
//! depth), whatever else the engine has done.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::{
    alphabeta, expectimax, outcome_score, Info, Limits, Reporter, Score, SearchResult, Settings,
    Shared, Watch,
};
use menagerie_rules::game::session::{status_of, Session};
use menagerie_rules::game::{Game, Status};
use menagerie_rules::rng::Rng;

pub const FULL_STRENGTH: u8 = 20;

/// A root move with its score for the noise (engine units) and as reported.
type Scored<M> = (M, i32, Score);

fn rng_for<G: Game>(session: &Session<G>, seed: u64) -> Rng {
    rng_at(seed, session.position().hash(), session.history().len())
}

/// The randomness of a position with `hash`, reached after a history of
/// `history_len` positions, under `seed`.
fn rng_at(seed: u64, hash: u64, history_len: usize) -> Rng {
    Rng::new(seed ^ hash ^ (history_len as u64).rotate_left(32))
}

/// A score made comparable with ties broken at random: the score, then
/// two random bits.
fn tie_broken(score: i64, rng: &mut Rng) -> i64 {
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

/// Search depth of a skill level from 2 to 19.
pub fn depth_of(skill: u8) -> u32 {
    (skill as u32 / 2).clamp(1, 9)
}

pub fn play<G: Game>(
    session: &Session<G>,
    settings: &Settings,
    limits: &Limits,
    shared: &Shared,
    reporter: &mut dyn Reporter,
) -> SearchResult<G::Move> {
    let mut moves = Vec::new();
    session.legal(&mut moves);
    if moves.is_empty() {
        return SearchResult {
            best: None,
            score: Score::Cp(0),
            nodes: 0,
        };
    }
    let nodes = AtomicU64::new(moves.len() as u64);
    let watch = Watch {
        shared,
        limits,
        start: Instant::now(),
        nodes: &nodes,
    };
    let skill = settings.skill;
    let rng = rng_for(session, settings.seed);
    // One-ply scores: the choice of levels 0 and 1, and what the deeper
    // levels fall back on when the limits allow no search at all.
    let greedy = greedy(session, &moves);
    let mut chosen = if skill == 0 {
        let mut rng = rng.clone();
        greedy[rng.below(moves.len() as u64) as usize]
    } else {
        pick(&greedy, skill, rng.clone())
    };
    let mut depth = 0;
    if skill >= 2 {
        let deepest = depth_of(skill).min(limits.depth.unwrap_or(u32::MAX).max(1));
        while depth < deepest && !time_is_up(&watch) {
            let scores = if !G::HAS_CHANCE && session.position().seats().len() == 2 {
                alphabeta::root_scores(session, depth + 1, &watch)
            } else {
                expectimax::root_scores(session, depth + 1, &watch)
            };
            let Some(scores) = scores else { break };
            depth += 1;
            chosen = pick(&scores, skill, rng.clone());
            report(reporter, &watch, depth, chosen);
        }
    }
    if depth == 0 {
        depth = 1;
        report(reporter, &watch, depth, chosen);
    }
    reporter.text(&format!("skill {skill}: move chosen at depth {depth}"));
    SearchResult {
        best: Some(chosen.0),
        score: chosen.2,
        nodes: nodes.load(Ordering::Relaxed),
    }
}

/// Whether no further iteration should start.
fn time_is_up(watch: &Watch) -> bool {
    watch.must_stop()
        || watch
            .limits
            .soft_ms
            .is_some_and(|soft| watch.elapsed_ms() >= soft)
}

fn report<M: std::fmt::Display>(
    reporter: &mut dyn Reporter,
    watch: &Watch,
    depth: u32,
    (mv, _, score): Scored<M>,
) {
    reporter.info(&Info {
        depth,
        seldepth: depth,
        score,
        nodes: watch.nodes.load(Ordering::Relaxed),
        time_ms: watch.elapsed_ms(),
        hashfull: watch.shared.tt.hashfull(),
        pv: vec![&mv],
    });
}

/// The move with the best score plus noise; ties go to a random one of
/// the equals (the noise of level 1 is a fraction of a unit).
fn pick<M: Copy>(scored: &[Scored<M>], skill: u8, mut rng: Rng) -> Scored<M> {
    let noise = if skill <= 1 {
        0
    } else {
        (FULL_STRENGTH - skill.min(FULL_STRENGTH)) as i64 * 12
    };
    let mut best = scored[0];
    let mut best_value = i64::MIN;
    for &entry in scored {
        let jitter = if noise > 0 {
            rng.below(2 * noise as u64 + 1) as i64 - noise
        } else {
            0
        };
        let value = tie_broken(entry.1 as i64 + jitter, &mut rng);
        if value > best_value {
            best_value = value;
            best = entry;
        }
    }
    best
}

/// Each move scored by the evaluation of the position it leads to, from the
/// mover's point of view (decided positions by their result).
fn greedy<G: Game>(session: &Session<G>, moves: &[G::Move]) -> Vec<Scored<G::Move>> {
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
