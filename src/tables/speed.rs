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

/// The memory of this machine as one core sees it, for setting a build's
/// traffic against: a streaming copy, and independent updates of random
/// bytes of an array as large as a build's (what the walk does).
#[derive(Clone, Copy, Debug)]
pub struct MemorySpeed {
    /// Bytes read plus bytes written per second, as STREAM counts a copy.
    pub copy_bytes_per_second: f64,
    pub updates_per_second: f64,
    /// The updated array's size.
    pub bytes: usize,
}

/// Measures [`MemorySpeed`] on one thread, for about a second each, the
/// copy over two 256 MiB buffers (far past any cache) and the updates over
/// `bytes`.
pub fn memory_speed(bytes: usize, stop: &AtomicBool) -> MemorySpeed {
    const COPY_WORDS: usize = 32 << 20;
    const SECONDS: f64 = 1.0;
    let source: Vec<u64> = (0..COPY_WORDS as u64).collect();
    let mut target = vec![0u64; COPY_WORDS];
    let (mut copied, t) = (0usize, Instant::now());
    while t.elapsed().as_secs_f64() < SECONDS && !stop.load(Ordering::Relaxed) {
        target.copy_from_slice(&source);
        std::hint::black_box(&mut target);
        copied += 2 * COPY_WORDS * 8;
    }
    let copy_bytes_per_second = copied as f64 / t.elapsed().as_secs_f64();
    drop((source, target));
    let bytes = bytes.max(1 << 20);
    let mut array = vec![0u8; bytes];
    let mut rng = Rng::new(2);
    let (mut updates, t) = (0usize, Instant::now());
    const ROUND: usize = 1 << 20;
    while t.elapsed().as_secs_f64() < SECONDS && !stop.load(Ordering::Relaxed) {
        for _ in 0..ROUND {
            let i = rng.below(bytes as u64) as usize;
            array[i] = array[i].wrapping_add(1);
        }
        updates += ROUND;
    }
    std::hint::black_box(&array);
    MemorySpeed {
        copy_bytes_per_second,
        updates_per_second: updates as f64 / t.elapsed().as_secs_f64(),
        bytes,
    }
}
