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
    let mut history = Repetitions::default();
    for game in 0..games {
        if game % 64 == 0 && stop.load(Ordering::Relaxed) {
            break;
        }
        let mut position = start.clone();
        history.clear();
        history.push(position.hash());
        let outcome = loop {
            // The draw rules first, drawing no number when they end the
            // game; the game's own result still takes precedence (it is
            // decided exactly when there are no moves).
            let by_draw_rule = if position.clock() >= G::NO_PROGRESS_LIMIT {
                Some(position.no_progress_outcome())
            } else if !G::HAS_CHANCE && history.last_occurs_thrice() {
                Some(Outcome::Draw)
            } else {
                None
            };
            if let Some(draw) = by_draw_rule {
                break position.outcome().unwrap_or(draw);
            }
            if !position.play_random(&mut rng, &mut moves) {
                break position
                    .outcome()
                    .expect("no moves means the game is decided");
            }
            if !G::HAS_CHANCE {
                if position.clock() == 0 {
                    // Progress makes every earlier position unreachable again.
                    history.clear();
                }
                history.push(position.hash());
            }
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

/// The positions since the last progress (hashes), with how many fall in
/// each of 1024 buckets: a position can only have occurred three times if
/// its bucket holds three, so the history is scanned rarely rather than at
/// every move.
struct Repetitions {
    history: Vec<u64>,
    buckets: Box<[u32; 1024]>,
}

impl Default for Repetitions {
    fn default() -> Self {
        Repetitions {
            history: Vec::with_capacity(512),
            buckets: Box::new([0; 1024]),
        }
    }
}

impl Repetitions {
    fn bucket(hash: u64) -> usize {
        hash as usize % 1024
    }

    fn push(&mut self, hash: u64) {
        self.buckets[Self::bucket(hash)] += 1;
        self.history.push(hash);
    }

    fn clear(&mut self) {
        for hash in self.history.drain(..) {
            self.buckets[Self::bucket(hash)] -= 1;
        }
    }

    /// Whether the last position occurs three times. A third occurrence
    /// needs at least eight plies since the last progress.
    fn last_occurs_thrice(&self) -> bool {
        let Some(&last) = self.history.last() else {
            return false;
        };
        self.history.len() > 8
            && self.buckets[Self::bucket(last)] >= 3
            && self.history.iter().filter(|&&h| h == last).count() >= 3
    }
}
