//! The score of a match, added up from its records: the same sums for a
//! live match, a resumed one and a merge of shards.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::game::{ForfeitKind, Reason};
use super::record::Record;
use super::stats::{Pentanomial, Sprt, Tally, Verdict};

/// Where the SPRT stands; once decided, the verdict and its numbers are
/// frozen, and games that finish later count for the score but not for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtState {
    pub sprt: Sprt,
    pub llr: f64,
    pub verdict: Verdict,
    /// Games and pairs counted when it decided.
    pub decided_at: Option<(u32, u32)>,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// The first engine's wins, losses and draws.
    pub tally: Tally,
    /// Complete pairs, from the first engine's view.
    pub pentanomial: Pentanomial,
    /// The first game's points of each pair still waiting for its second.
    half_pairs: HashMap<u32, f64>,
    /// Each engine's results by the seats it held (`t`, or `sn` with more
    /// seats), from its own view.
    pub per_seat: BTreeMap<(usize, String), Tally>,
    /// How games ended, and how many.
    pub endings: BTreeMap<Reason, u32>,
    /// Forfeits by engine and kind, and how many.
    pub forfeits: BTreeMap<(usize, ForfeitKind), u32>,
    /// Engine error lines that forfeits quoted, with counts.
    pub sayings: BTreeMap<String, u32>,
    pub sprt: Option<SprtState>,
    /// Games that repeated an earlier one move for move (same start and
    /// seats).
    pub repeats: u32,
    seen_games: HashSet<u64>,
    indices: HashSet<u32>,
    pub engines: [String; 2],
}

impl Scoreboard {
    pub fn new(engines: [String; 2], sprt: Option<Sprt>) -> Scoreboard {
        Scoreboard {
            engines,
            sprt: sprt.map(|sprt| SprtState {
                sprt,
                llr: 0.0,
                verdict: Verdict::Continue,
                decided_at: None,
            }),
            ..Scoreboard::default()
        }
    }

    pub fn games(&self) -> u32 {
        self.tally.games()
    }

    /// Whether a game of this index is counted already.
    pub fn has(&self, index: u32) -> bool {
        self.indices.contains(&index)
    }

    /// How games ended, by reason word (as reports and JSON list them).
    pub fn endings_by_word(&self) -> BTreeMap<String, u32> {
        self.endings
            .iter()
            .map(|(reason, n)| (reason.to_string(), *n))
            .collect()
    }

    /// Counts one record (its first engine is this board's first engine);
    /// true when it decided the SPRT.
    pub fn add(&mut self, record: &Record) -> bool {
        let first = if record.engines[0] == self.engines[0] {
            0
        } else {
            1
        };
        let points = if first == 0 {
            record.points()
        } else {
            1.0 - record.points()
        };
        self.indices.insert(record.index);
        self.tally.add(points);
        for e in 0..2 {
            let seats: String = record
                .seats
                .iter()
                .filter(|(_, name)| *name == self.engines[e])
                .map(|(seat, _)| *seat)
                .collect();
            let mine = if e == 0 { points } else { 1.0 - points };
            self.per_seat.entry((e, seats)).or_default().add(mine);
        }
        *self.endings.entry(record.reason.clone()).or_default() += 1;
        if let (Some(by), Reason::Forfeit(kind)) = (&record.by, &record.reason) {
            let e = usize::from(*by != self.engines[0]);
            *self.forfeits.entry((e, *kind)).or_default() += 1;
        }
        if let Some(detail) = &record.detail {
            if let Some((_, said)) = detail.split_once("; it said: ") {
                *self.sayings.entry(said.to_string()).or_default() += 1;
            }
        }
        let fingerprint = super::record::checksum(&format!(
            "{} {:?} {}",
            record.start,
            record.seats,
            record.moves.join(" ")
        ));
        if !self.seen_games.insert(fingerprint) {
            self.repeats += 1;
        }
        let mut decided = false;
        if let Some(other) = self.half_pairs.remove(&record.pair) {
            self.pentanomial.add(other + points);
            if let Some(state) = &mut self.sprt {
                if state.decided_at.is_none() {
                    state.llr = state.sprt.llr_pentanomial(&self.pentanomial);
                    state.verdict = state.sprt.verdict(state.llr);
                    if state.verdict != Verdict::Continue {
                        state.decided_at = Some((self.tally.games(), self.pentanomial.pairs()));
                        decided = true;
                    }
                }
            }
        } else {
            self.half_pairs.insert(record.pair, points);
        }
        decided
    }

    /// Pairs with one game counted.
    pub fn half_pairs(&self) -> impl Iterator<Item = u32> + '_ {
        self.half_pairs.keys().copied()
    }
}
