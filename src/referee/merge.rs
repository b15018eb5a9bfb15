//! Adding up a match played in parts (shards, retries, resumed runs): the
//! records of one match, duplicates dropped, only complete pairs counted,
//! the missing pairs named; and the results as JSON whose counts add up
//! across shards.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::checksum::Fingerprint;
use super::record::Record;
use super::report;
use super::scoreboard::{Grouping, Scoreboard};
use super::stats::{elo_of_score, los, Sprt};

/// The records of one match, added up.
pub struct Merged {
    pub board: Scoreboard,
    pub fingerprint: Fingerprint,
    /// Games of the whole match.
    pub games: u32,
    /// Records dropped because a record of the same game came first.
    pub duplicates: u32,
    /// Games left out because the other game of their pair is missing.
    pub unpaired: Vec<u32>,
    /// Pairs with no game at all, or only one.
    pub missing_pairs: Vec<u32>,
    /// Games of pairs after the one where the SPRT decided: a match played
    /// in one run stops there, so they are not counted.
    pub after_decision: u32,
}

/// Why records cannot be added up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    NoRecords,
    /// Records of several matches: the first one's fingerprint, the others.
    Mixed {
        first: Fingerprint,
        others: Vec<Fingerprint>,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MergeError::NoRecords => f.write_str("no records to merge"),
            MergeError::Mixed { first, others } => write!(
                f,
                "the records come from {} different matches (settings {first} and {}); merge the shards of one match only",
                others.len() + 1,
                others.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

impl std::error::Error for MergeError {}

/// Why the JSON results could not be written.
#[derive(Debug)]
pub struct JsonError(pub menagerie_os::files::PathError);

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "cannot write {}", self.0)
    }
}

impl std::error::Error for JsonError {}

/// Adds up `records` (in the order given: for a game recorded twice, the
/// first record counts). Records of different matches are an error.
pub fn merge(records: Vec<Record>, sprt: Option<Sprt>) -> Result<Merged, MergeError> {
    let Some(first) = records.first() else {
        return Err(MergeError::NoRecords);
    };
    let fingerprint = first.fingerprint;
    let engines = first.engines.clone();
    // Records of one match share their seating and seats.
    let (first_seating, first_seats) = (first.seating, first.seats.len() as u32);
    // Waves of one match differ only in their length: the longest counts.
    let games = records.iter().map(|r| r.games).max().unwrap_or(0);
    let mut others = BTreeSet::new();
    for record in &records {
        if record.fingerprint != fingerprint {
            others.insert(record.fingerprint);
        }
    }
    if !others.is_empty() {
        return Err(MergeError::Mixed {
            first: fingerprint,
            others: others.into_iter().collect(),
        });
    }
    let mut by_index: BTreeMap<u32, Record> = BTreeMap::new();
    let mut duplicates = 0;
    for record in records {
        // The first record of a game wins: a retried shard's repeat of a
        // game is not counted twice.
        match by_index.entry(record.index) {
            std::collections::btree_map::Entry::Occupied(_) => duplicates += 1,
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(record);
            }
        }
    }
    let grouping = Grouping::of(first_seating, first_seats);
    let size = grouping.size();
    let units = games.div_ceil(size);
    let games_of = |unit: u32| (size * unit..size * unit + size).filter(move |&i| i < games);
    let mut board = Scoreboard::new(engines, sprt, grouping);
    let mut unpaired = Vec::new();
    let mut missing_pairs = Vec::new();
    let mut after_decision = 0;
    // In pair (set) order, as the waves of a sharded SPRT are.
    for pair in 0..units {
        let indices: Vec<u32> = games_of(pair).collect();
        let present: Vec<&Record> = indices.iter().filter_map(|i| by_index.get(i)).collect();
        if board.sprt.as_ref().is_some_and(|s| s.decided_at.is_some()) {
            after_decision += present.len() as u32;
        } else if present.len() == indices.len() {
            for record in present {
                board.add(record);
            }
        } else {
            missing_pairs.push(pair);
            unpaired.extend(present.iter().map(|r| r.index));
        }
    }
    Ok(Merged {
        board,
        fingerprint,
        games,
        duplicates,
        unpaired,
        missing_pairs,
        after_decision,
    })
}

/// The report of a merge: what was counted, then the summary of a match.
pub fn print(merged: &Merged, out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "Merged {} of {} games (match {}): {} duplicate record(s) dropped, {} game(s) of incomplete pairs left out",
        merged.board.games(),
        merged.games,
        merged.fingerprint,
        merged.duplicates,
        merged.unpaired.len()
    );
    if merged.after_decision > 0 {
        let _ = writeln!(
            out,
            "The SPRT decided before the last {} game(s): they are not counted, as a match played in one run stops at its decision",
            merged.after_decision
        );
    }
    if !merged.missing_pairs.is_empty() {
        let shown: Vec<String> = merged
            .missing_pairs
            .iter()
            .take(20)
            .map(|p| p.to_string())
            .collect();
        // Numbered from 0, as records' `set=` numbers them.
        let what = match merged.board.grouping {
            Grouping::Pairs => "pairs",
            Grouping::Sets(_) => "sets",
        };
        let _ = writeln!(
            out,
            "Missing {what} ({}, numbered as in the records): {}{}",
            merged.missing_pairs.len(),
            shown.join(" "),
            if merged.missing_pairs.len() > 20 {
                " ..."
            } else {
                ""
            }
        );
    }
    report::summary(&merged.board, true, out);
}

/// The results as JSON: the first engine's counts, pair counts, each
/// engine by seat, endings and forfeits (all of which add up across
/// shards), then the Elo and SPRT figures computed from them.
#[derive(Serialize)]
struct Json<'a> {
    /// The fingerprint of the match's settings (as in its records).
    #[serde(rename = "match")]
    fingerprint: String,
    engines: &'a [String; 2],
    games: u32,
    wins: u32,
    losses: u32,
    draws: u32,
    /// Pairs scoring 0, 0.5, 1, 1.5 and 2 points for the first engine.
    pentanomial: [u32; 5],
    per_seat: Vec<SeatJson<'a>>,
    endings: BTreeMap<String, u32>,
    forfeits: Vec<ForfeitJson<'a>>,
    score: f64,
    elo: Option<f64>,
    elo_margin: Option<f64>,
    los: f64,
    sprt: Option<SprtJson>,
    /// `alternate`, or `lone`, which adds `lone`.
    seating: &'static str,
    lone: Option<LoneJson>,
}

/// The first engine alone against the second in every other seat.
#[derive(Serialize)]
struct LoneJson {
    seats: u32,
    /// Complete sets, by share: `sets[k]` scored k / seats² (k = seats x
    /// wins + draws).
    sets: Vec<u32>,
    /// Mean share of wins per game and the half-width of its 95% interval.
    share: f64,
    share_margin: f64,
    /// 1 / seats.
    par: f64,
    /// Against each other seat, in the model of the SPRT.
    elo: Option<f64>,
}

#[derive(Serialize)]
struct SeatJson<'a> {
    engine: &'a str,
    seats: &'a str,
    wins: u32,
    losses: u32,
    draws: u32,
}

#[derive(Serialize)]
struct ForfeitJson<'a> {
    engine: &'a str,
    reason: &'a str,
    count: u32,
}

#[derive(Serialize)]
struct SprtJson {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    llr: f64,
    lower_bound: f64,
    upper_bound: f64,
    verdict: String,
}

/// Writes `board` as JSON to `path`.
pub fn write_json(
    board: &Scoreboard,
    fingerprint: Fingerprint,
    path: &Path,
) -> Result<(), JsonError> {
    let t = &board.tally;
    let score = t.score();
    let (elo, margin) = if t.games() > 0 && score > 0.0 && score < 1.0 {
        let margin = if board.pentanomial.pairs() >= 2 {
            board.pentanomial.elo_interval().1
        } else {
            super::stats::elo_interval(t).1
        };
        (Some(elo_of_score(score)), Some(margin))
    } else {
        (None, None)
    };
    let json = Json {
        fingerprint: fingerprint.to_string(),
        engines: &board.engines,
        games: t.games(),
        wins: t.wins,
        losses: t.losses,
        draws: t.draws,
        pentanomial: board.pentanomial.0,
        per_seat: board
            .per_seat
            .iter()
            .map(|((e, seats), s)| SeatJson {
                engine: &board.engines[*e],
                seats,
                wins: s.wins,
                losses: s.losses,
                draws: s.draws,
            })
            .collect(),
        endings: board.endings_by_word(),
        forfeits: board
            .forfeits
            .iter()
            .map(|((e, kind), count)| ForfeitJson {
                engine: &board.engines[*e],
                reason: kind.word(),
                count: *count,
            })
            .collect(),
        score,
        elo,
        elo_margin: margin,
        los: los(t),
        seating: if board.sets.is_some() {
            "lone"
        } else {
            "alternate"
        },
        lone: board.sets.as_ref().map(|sets| {
            let (share, share_margin) = sets.share_interval();
            LoneJson {
                seats: sets.seats,
                sets: sets.counts.clone(),
                share,
                share_margin,
                par: sets.par(),
                elo: (sets.sets() > 0 && share > 0.0 && share < 1.0)
                    .then(|| super::stats::elo_of_share(share, sets.seats)),
            }
        }),
        sprt: board.sprt.map(|state| {
            let (lower_bound, upper_bound) = state.sprt.bounds();
            SprtJson {
                elo0: state.sprt.elo0,
                elo1: state.sprt.elo1,
                alpha: state.sprt.alpha,
                beta: state.sprt.beta,
                llr: state.llr,
                lower_bound,
                upper_bound,
                verdict: state.verdict.to_string(),
            }
        }),
    };
    let text = serde_json::to_string_pretty(&json).expect("the results serialize");
    // Whole or not at all, over a regular file or nothing (a link to a
    // file is followed): never a device or a FIFO.
    menagerie_os::files::write_replacing(path, |out| {
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")
    })
    .map_err(JsonError)
}
