//! How fast the tables answer, against generating the same positions'
//! moves: a ratio measured in one run, which no machine's speed changes
//! much.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use menagerie_rules::game::Game;
use menagerie_rules::rng::Rng;

use crate::probe::Tables;

/// Probes against move generations, per second, over the same positions.
#[derive(Clone, Copy, Debug)]
pub struct ProbeSpeed {
    pub positions: usize,
    pub probes_per_second: f64,
    pub generations_per_second: f64,
}

impl ProbeSpeed {
    /// How many move generations one probe costs.
    pub fn ratio(&self) -> f64 {
        self.generations_per_second / self.probes_per_second.max(1.0)
    }
}

const PER_SLICE: usize = 20_000;
const ROUNDS: usize = 5;

/// Probes random positions of every slice present, and generates the same
/// positions' moves, in alternating rounds, so that a busy machine slows
/// both alike. `None` when the game has no tables.
pub fn probe_speed<G: Game>(
    rules: &G::Rules,
    tables: &Tables,
    stop: &AtomicBool,
) -> Option<ProbeSpeed> {
    let endgame = G::endgame()?;
    let mut rng = Rng::new(1);
    let mut positions = Vec::new();
    for (i, slice) in tables.slices().into_iter().enumerate() {
        let size = (endgame.slice_size)(slice);
        while positions.len() < (i + 1) * PER_SLICE {
            if let Some(mut p) = (endgame.position)(rules, slice, rng.below(size)) {
                p.set_clock(rng.below(u64::from(G::NO_PROGRESS_LIMIT)) as u32);
                positions.push(p);
            }
        }
    }
    let (mut probing, mut generating) = (0.0, 0.0);
    let mut moves = Vec::new();
    let mut checksum = 0u64;
    for _ in 0..ROUNDS {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t = Instant::now();
        for p in &positions {
            checksum += tables.probe(p).map_or(0, |v| u64::from(v.plies()));
        }
        probing += t.elapsed().as_secs_f64();
        let t = Instant::now();
        for p in &positions {
            moves.clear();
            p.generate(&mut moves);
            checksum += moves.len() as u64;
        }
        generating += t.elapsed().as_secs_f64();
    }
    std::hint::black_box(checksum);
    let n = (ROUNDS * positions.len()) as f64;
    Some(ProbeSpeed {
        positions: positions.len(),
        probes_per_second: n / probing.max(1e-9),
        generations_per_second: n / generating.max(1e-9),
    })
}
