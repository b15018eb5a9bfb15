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

use crate::alphabeta;
use crate::expectimax;
use crate::greedy::{rng_at, root_scores, tie_broken};
use crate::vocabulary::{
    Info, Limits, Reporter, Score, Scored, SearchResult, Settings, Shared, Watch,
};
use menagerie_rules::game::session::Session;
use menagerie_rules::game::Game;
use menagerie_rules::rng::Rng;

pub use crate::vocabulary::FULL_STRENGTH;

fn rng_for<G: Game>(session: &Session<G>, seed: u64) -> Rng {
    rng_at(seed, session.position().hash(), session.history().len())
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
    let greedy = root_scores(session, &moves);
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
