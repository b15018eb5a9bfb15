//! The score of a match, added up from its records: the same sums for a
//! live match, a resumed one and a merge of shards.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::outcome::{ForfeitKind, Reason, Score};
use super::record::Record;
use super::stats::{Pentanomial, SetCounts, Sprt, Tally, Verdict};

/// Where the SPRT stands; once decided, the verdict and its numbers are
/// frozen, and games that finish later count for the score but not for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtState {
    pub sprt: Sprt,
    pub llr: f64,
    pub verdict: Verdict,
    /// Games and pairs (or sets) counted when it decided.
    pub decided_at: Option<(u32, u32)>,
}

impl Grouping {
    /// The grouping of a seating in a game of `seats` seats: a lone seating
    /// in a two-seat game is the same as alternating.
    pub fn of(seating: super::config::Seating, seats: u32) -> Grouping {
        match seating {
            super::config::Seating::Lone if seats > 2 => Grouping::Sets(seats),
            _ => Grouping::Pairs,
        }
    }

    /// Games per unit.
    pub fn size(self) -> u32 {
        match self {
            Grouping::Pairs => 2,
            Grouping::Sets(seats) => seats,
        }
    }
}

/// How the games of a match group into the units its statistics count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Grouping {
    /// Pairs with the seats swapped (alternating seating, or any seating
    /// of a two-seat game): pentanomial counts, Elo from the score.
    #[default]
    Pairs,
    /// Sets of a lone seating in a game of this many seats: the first
    /// engine's share of wins against par.
    Sets(u32),
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// The first engine's wins, losses and draws.
    pub tally: Tally,
    /// Complete pairs, from the first engine's view.
    pub pentanomial: Pentanomial,
    /// The first game's points of each pair still waiting for its second.
    half_pairs: HashMap<u32, f64>,
    pub grouping: Grouping,
    /// Complete sets of a lone seating.
    pub sets: Option<SetCounts>,
    /// Games, wins and draws of the first engine in each set still
    /// waiting for games.
    partial_sets: HashMap<u32, (u32, u32, u32)>,
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
    pub fn new(engines: [String; 2], sprt: Option<Sprt>, grouping: Grouping) -> Scoreboard {
        Scoreboard {
            engines,
            grouping,
            sets: match grouping {
                Grouping::Pairs => None,
                Grouping::Sets(seats) => Some(SetCounts::new(seats)),
            },
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
        if let (Some(by), Reason::Forfeit(kind)) = (record.by(), &record.reason) {
            let e = usize::from(by != self.engines[0]);
            *self.forfeits.entry((e, *kind)).or_default() += 1;
        }
        if let Some(detail) = &record.detail {
            if let Some((_, said)) = detail.split_once("; it said: ") {
                *self.sayings.entry(said.to_string()).or_default() += 1;
            }
        }
        let fingerprint = super::checksum::checksum(&format!(
            "{} {:?} {}",
            record.start,
            record.seats,
            record.moves.join(" ")
        ));
        if !self.seen_games.insert(fingerprint) {
            self.repeats += 1;
        }
        let completed = match self.grouping {
            Grouping::Pairs => self.add_to_pair(record.set, points),
            Grouping::Sets(seats) => self.add_to_set(record.set, seats, first, record.result),
        };
        completed && self.update_sprt()
    }

    /// Counts a game of a pair; true when it completed the pair.
    fn add_to_pair(&mut self, pair: u32, points: f64) -> bool {
        match self.half_pairs.remove(&pair) {
            Some(other) => {
                self.pentanomial.add(other + points);
                true
            }
            None => {
                self.half_pairs.insert(pair, points);
                false
            }
        }
    }

    /// Counts a game of a lone seating's set; true when it completed the
    /// set.
    fn add_to_set(&mut self, set: u32, seats: u32, first: usize, result: Score) -> bool {
        let entry = self.partial_sets.entry(set).or_default();
        entry.0 += 1;
        match (result, first) {
            (Score::Draw, _) => entry.2 += 1,
            (Score::FirstWins, 0) | (Score::SecondWins, 1) => entry.1 += 1,
            _ => {}
        }
        if entry.0 < seats {
            return false;
        }
        let (_, wins, draws) = self.partial_sets.remove(&set).expect("just counted");
        self.sets
            .as_mut()
            .expect("a lone seating counts sets")
            .add(wins, draws);
        true
    }

    /// Updates the SPRT after a pair or set was completed; true when it
    /// decided now.
    fn update_sprt(&mut self) -> bool {
        let units = self.units();
        let games = self.tally.games();
        let Some(state) = &mut self.sprt else {
            return false;
        };
        if state.decided_at.is_some() {
            return false;
        }
        state.llr = match &self.sets {
            Some(sets) => state.sprt.llr_sets(sets),
            None => state.sprt.llr_pentanomial(&self.pentanomial),
        };
        state.verdict = state.sprt.verdict(state.llr);
        if state.verdict == Verdict::Continue {
            return false;
        }
        state.decided_at = Some((games, units));
        true
    }

    /// Complete pairs, or sets.
    pub fn units(&self) -> u32 {
        match &self.sets {
            Some(sets) => sets.sets(),
            None => self.pentanomial.pairs(),
        }
    }
}
