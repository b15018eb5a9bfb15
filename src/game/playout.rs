//! Seeded uniformly random games, for `bench playouts` and tests.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Game, Outcome, MAX_SEATS};
use crate::rng::Rng;

/// Totals over a batch of random games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayoutStats {
    pub games: u64,
    /// Moves of every kind, chance outcomes included.
    pub moves: u64,
    /// Wins per seat index, then draws.
    pub wins: [u64; MAX_SEATS],
    pub draws: u64,
}

/// Plays `games` random games from `start`, every rule applied (draw rules
/// included), choosing uniformly among the legal moves; fewer once `stop`
/// is set (`games` in the result says how many).
pub fn playouts<G: Game>(start: &G, games: u64, seed: u64, stop: &AtomicBool) -> PlayoutStats {
    let mut rng = Rng::new(seed);
    let mut stats = PlayoutStats::default();
    let mut moves = Vec::with_capacity(64);
    let mut history: Vec<u64> = Vec::with_capacity(512);
    for game in 0..games {
        if game % 64 == 0 && stop.load(Ordering::Relaxed) {
            break;
        }
        let mut position = start.clone();
        history.clear();
        history.push(position.hash());
        let outcome = loop {
            moves.clear();
            position.generate(&mut moves);
            if moves.is_empty() {
                break position
                    .outcome()
                    .expect("no moves means the game is decided");
            }
            // Moves exist, so the game's own rules have not decided it (the
            // trait's invariant); only the draw rules remain. A third
            // occurrence needs at least eight plies since the last progress.
            if position.clock() >= G::NO_PROGRESS_LIMIT {
                break position.no_progress_outcome();
            }
            if !G::HAS_CHANCE && history.len() > 8 {
                let key = position.hash();
                if history.iter().filter(|&&h| h == key).count() >= 3 {
                    break Outcome::Draw;
                }
            }
            let mv = moves[rng.below(moves.len() as u64) as usize];
            position.play(mv);
            if position.clock() == 0 {
                // Progress makes every earlier position unreachable again.
                history.clear();
            }
            history.push(position.hash());
            stats.moves += 1;
        };
        stats.games += 1;
        match outcome {
            Outcome::Win(seat) => stats.wins[seat as usize] += 1,
            Outcome::Draw => stats.draws += 1,
        }
    }
    stats
}
