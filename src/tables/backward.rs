//! The retrograde walk: what each position is before it (its [`Class`]),
//! then, breadth first by plies left on the no-progress clock, when each
//! side has a result. The steps back from a level's positions are found
//! on every thread; their counters and thresholds are then set on one, in
//! the order of the level, so a table is the same on any number of
//! threads.

use std::sync::atomic::{AtomicBool, Ordering};

use menagerie_rules::game::endgame::{Endgame, Slice};
use menagerie_rules::game::Game;

use crate::value::{Wdl, NEVER};

/// What a pair's build did, counted as it went: to set its speed against
/// the machine's memory (docs/tables.md, "Build speed").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Seconds classifying (on every thread), then walking.
    pub classify_seconds: f64,
    pub walk_seconds: f64,
    /// Captures classified, each a probe of a smaller table.
    pub probes: u64,
    /// Positions the walks took from their queues, and the distinct
    /// positions one step before them that they touched (a threshold and
    /// a counter each, anywhere in the pair's arrays).
    pub walked: u64,
    pub touches: u64,
    /// Result levels walked (win, and draw where the clock's end decides).
    pub levels: u64,
}

impl Work {
    /// Bytes between memory and the cores, at most: every touch and probe
    /// a cache line missed (touches two, each read and written back), and
    /// the arrays' sequential passes (classes written then read once per
    /// level, thresholds and counters set up, entries written, and 8
    /// bytes in and out of a queue per position walked).
    pub fn traffic(&self, positions: u64) -> u64 {
        let levels = self.levels;
        const LINE: u64 = 64;
        let random = self.touches * 2 * 2 * LINE + self.probes * LINE;
        let sequential = positions * (2 + levels * (2 + 2 * 2) + 2) + self.walked * 16;
        random + sequential
    }
}

/// Why a walk stopped short.
#[derive(Debug)]
pub(crate) enum Halt {
    Stopped,
    /// An array of `needed` bytes could not be had.
    Memory {
        needed: u64,
    },
}

/// `len` copies of `value`, or how much memory was missing instead of an
/// abort.
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, Halt> {
    let mut v = Vec::new();
    if v.try_reserve_exact(len).is_err() {
        return Err(Halt::Memory {
            needed: (len * std::mem::size_of::<T>()) as u64,
        });
    }
    v.resize(len, value);
    Ok(v)
}

/// What the rules and the smaller tables say of a position before any
/// walk: packed in 16 bits.
#[derive(Clone, Copy)]
pub(crate) struct Class(u16);

impl Class {
    pub(crate) const INVALID: Class = Class(0);

    /// Decided by the rules: the result for the side to move.
    pub(crate) fn decided(wdl: Wdl) -> Class {
        Class(1 << 14 | u16::from(wdl.code()) << 8)
    }

    /// Playable: the best result of its captures (if any) for the side to
    /// move, and how many distinct positions its other moves reach.
    pub(crate) fn playable(best_capture: Option<Wdl>, successors: usize) -> Class {
        let capture = best_capture.map_or(0, |w| u16::from(w.code()) + 1);
        Class(2 << 14 | capture << 8 | successors.min(255) as u16)
    }

    pub(crate) fn is_valid(self) -> bool {
        self.0 >> 14 != 0
    }

    pub(crate) fn decided_value(self) -> Option<Wdl> {
        (self.0 >> 14 == 1).then(|| Wdl::from_code((self.0 >> 8 & 3) as u8).expect("a stored code"))
    }

    pub(crate) fn best_capture(self) -> Option<Wdl> {
        match self.0 >> 8 & 3 {
            0 => None,
            code => Wdl::from_code(code as u8 - 1),
        }
    }

    pub(crate) fn successors(self) -> u8 {
        self.0 as u8
    }
}

/// A node of the walk: slice `k` of the pair (0 or 1), role `rho` (0: the
/// side whose result is asked is to move, 1: the other side), position
/// number.
fn node(k: usize, rho: usize, index: u64) -> u64 {
    (k as u64) << 63 | (rho as u64) << 62 | index
}

fn unnode(n: u64) -> (usize, usize, u64) {
    (
        (n >> 63) as usize,
        (n >> 62 & 1) as usize,
        n & ((1 << 62) - 1),
    )
}

/// Thresholds of "the asked side reaches at least the level", per slice
/// of the pair and role (empty for roles not walked).
pub(crate) type Thresholds = [[Vec<u8>; 2]; 2];

/// The breadth-first walk by plies left for one result level.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk<G: Game>(
    endgame: &Endgame<G>,
    rules: &G::Rules,
    pair: Slice,
    sizes: &[u64],
    classes: &[Vec<Class>],
    level: Wdl,
    active: [[bool; 2]; 2],
    threads: usize,
    stop: &AtomicBool,
    work: &mut Work,
    report: &mut dyn FnMut(u32),
) -> Result<Thresholds, Halt> {
    let slices = pair.members();
    let limit = G::NO_PROGRESS_LIMIT;
    let mut thresholds: [[Vec<u8>; 2]; 2] = Default::default();
    let mut counters: [[Vec<u8>; 2]; 2] = Default::default();
    const DEAD: u8 = u8::MAX;
    let mut now: Vec<u64> = Vec::new();
    let mut next: Vec<u64> = Vec::new();
    for k in 0..slices.len() {
        for rho in 0..2 {
            if !active[k][rho] {
                continue;
            }
            let size = sizes[k] as usize;
            let mut t = filled(size, NEVER)?;
            let mut counter = filled(size, 0u8)?;
            for i in 0..size {
                let class = classes[k][i];
                if !class.is_valid() {
                    continue;
                }
                // The result for the asked side, from the mover's.
                let asked = |w: Wdl| if rho == 0 { w } else { w.flipped() };
                if let Some(v) = class.decided_value() {
                    if asked(v) >= level {
                        t[i] = 0;
                        now.push(node(k, rho, i as u64));
                    }
                    continue;
                }
                let capture_ok = class.best_capture().map(|w| asked(w) >= level);
                let steps = class.successors();
                if rho == 0 {
                    // The asked side moves: one good capture is enough.
                    if capture_ok == Some(true) {
                        t[i] = 1;
                        next.push(node(k, rho, i as u64));
                    }
                } else if capture_ok == Some(false) {
                    // The other side has a capture bad for the asked side.
                    counter[i] = DEAD;
                } else if steps == 0 {
                    t[i] = 1;
                    next.push(node(k, rho, i as u64));
                } else {
                    counter[i] = steps;
                }
            }
            thresholds[k][rho] = t;
            counters[k][rho] = counter;
        }
    }
    let walker = Walker {
        endgame,
        rules,
        slices: &slices,
        active,
    };
    let threads = threads.max(1);
    let mut parts: Vec<Vec<u64>> = vec![Vec::new(); threads];
    for r in 0..limit {
        if stop.load(Ordering::Relaxed) {
            return Err(Halt::Stopped);
        }
        report(r);
        for batch in now.chunks(BATCH * threads) {
            walker.steps_back(batch, &mut parts);
            work.walked += batch.len() as u64;
            for &m in parts.iter().flatten() {
                work.touches += 1;
                let (k2, rho2, j) = unnode(m);
                let j = j as usize;
                let t = &mut thresholds[k2][rho2][j];
                if *t != NEVER {
                    continue;
                }
                if rho2 == 0 {
                    *t = (r + 1) as u8;
                    next.push(m);
                } else {
                    let c = &mut counters[k2][rho2][j];
                    if *c == DEAD || *c == 0 {
                        continue;
                    }
                    *c -= 1;
                    if *c == 0 {
                        *t = (r + 1) as u8;
                        next.push(m);
                    }
                }
            }
        }
        std::mem::swap(&mut now, &mut next);
        next.clear();
    }
    Ok(thresholds)
}

/// Positions a walk's thread takes at a time: enough that starting the
/// threads costs little, few enough that their steps back stay small.
const BATCH: usize = 1 << 14;

/// What every thread of a walk reads.
struct Walker<'a, G: Game> {
    endgame: &'a Endgame<G>,
    rules: &'a G::Rules,
    slices: &'a [Slice],
    active: [[bool; 2]; 2],
}

impl<G: Game> Walker<'_, G> {
    /// The nodes one step before each node of `batch`, distinct per node
    /// and only of walked roles, into `parts` (a part a thread, in the
    /// batch's order, so the walk is the same on any number of threads).
    fn steps_back(&self, batch: &[u64], parts: &mut [Vec<u64>]) {
        let chunk = batch.len().div_ceil(parts.len()).max(1);
        for part in parts.iter_mut() {
            part.clear();
        }
        if parts.len() == 1 || batch.len() <= chunk {
            self.steps_back_of(batch, &mut parts[0]);
            return;
        }
        std::thread::scope(|scope| {
            for (nodes, part) in batch.chunks(chunk).zip(parts.iter_mut()) {
                scope.spawn(move || self.steps_back_of(nodes, part));
            }
        });
    }

    fn steps_back_of(&self, nodes: &[u64], out: &mut Vec<u64>) {
        let mut before: Vec<G> = Vec::new();
        let mut keys: Vec<u64> = Vec::new();
        for &n in nodes {
            let (k, rho, index) = unnode(n);
            let after = (self.endgame.position)(self.rules, self.slices[k], index)
                .expect("a walked number is valid");
            before.clear();
            (self.endgame.unmoves)(&after, &mut before);
            let rho2 = 1 - rho;
            keys.clear();
            for b in &before {
                let key = b
                    .table_key()
                    .expect("a position before a step is in a slice");
                let k2 = usize::from(key.slice != self.slices[0]);
                if self.active[k2][rho2] {
                    keys.push(node(k2, rho2, key.index));
                }
            }
            keys.sort_unstable();
            keys.dedup();
            out.extend_from_slice(&keys);
        }
    }
}
