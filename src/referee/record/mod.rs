//! Game records: one line per finished game, tab-separated `key=value`
//! fields in a fixed order, ending with a checksum of the rest, so that a
//! truncated or mangled line is found, not misread.
//!
//! ```text
//! v=3  match=<fingerprint>  game=safari-dual  rules=  start=<notation>
//! seed=7  set=0  index=0  games=40  engines=full,greedy  seats=r:full,a:greedy
//! seating=alternate  result=1-0  winner=full  seat=r  reason=lion-captured
//! by=-  detail=-  moves=c1d2 c5b4 ...  thought=12:5:cp9 14:6:cp-3 ...
//! sum=<16 hex digits>
//! ```
//!
//! - `set` is the set of games sharing the start and the dice (a pair,
//!   with `seating=alternate`; one game per seat with `seating=lone`).
//!   Version 2 records, read still, have `pair` there and no `seating`.
//! - `result` is the first engine's (`engines` order), `winner` the engine
//!   that won (or `-`), `seat` the seat that won (or `-`: a draw, or a
//!   forfeit in a game of more than two seats), `reason` the game's reason
//!   word, `max-plies` or a forfeit's word, `by` the engine that forfeited
//!   and `detail` what happened.
//! - `thought` has one `<ms>:<depth>:<score>` per engine move (rolls have
//!   none), and one more for the move an engine forfeited on (a time loss,
//!   a crash while thinking): the time it took and the last depth and
//!   score it reported
//!   (`-` when none; scores `cp12`, `w3` win in 3, `l2` loss in 2, `m-3`).
//! - `match` identifies the match settings (see `schedule::fingerprint`).

use std::fmt;

mod file;
mod replay;

pub use file::{
    read_file, read_file_past_a_cut, CutLine, FileLine, FileLines, Read, RecordFile,
    RecordFileError, MAX_RECORD_LINE,
};
pub use replay::{replay, Replayed};

use crate::checksum::{checksum, Fingerprint};
use crate::config::Seating;
use crate::outcome::{Reason, Score, Thought};
use menagerie_rules::game::session::PositionError;
use menagerie_wire::reply::ScoreText;
use menagerie_wire::text::clip;

/// The format's version, the first field.
pub const VERSION: &str = "3";

/// One game as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The fingerprint of the match's settings.
    pub fingerprint: Fingerprint,
    pub game: String,
    pub rules: Vec<String>,
    pub start: String,
    pub seed: u64,
    /// The set of games sharing this game's start and dice.
    pub set: u32,
    pub index: u32,
    /// Games of the whole match (all shards together).
    pub games: u32,
    /// The two engines of the match, in the order `result` counts them.
    pub engines: [String; 2],
    /// Seat letter and engine name, in seat order.
    pub seats: Vec<(char, String)>,
    /// How the engines shared the seats.
    pub seating: Seating,
    /// The result for the first engine.
    pub result: Score,
    /// The seat that won, if one did.
    pub seat: Option<char>,
    pub reason: Reason,
    pub detail: Option<String>,
    pub moves: Vec<String>,
    pub thoughts: Vec<Thought>,
}

/// The fields of a record of the version this referee writes, in order.
const KEYS: [&str; 21] = [
    "v", "match", "game", "rules", "start", "seed", "set", "index", "games", "engines", "seats",
    "seating", "result", "winner", "seat", "reason", "by", "detail", "moves", "thought", "sum",
];

/// The fields of a version 2 record (before seatings), which are read
/// still.
const KEYS_V2: [&str; 20] = [
    "v", "match", "game", "rules", "start", "seed", "pair", "index", "games", "engines", "seats",
    "result", "winner", "seat", "reason", "by", "detail", "moves", "thought", "sum",
];

fn optional(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("-")
}

fn score_word(score: ScoreText) -> String {
    match score {
        ScoreText::Cp(n) => format!("cp{n}"),
        ScoreText::Win(n) => format!("w{n}"),
        ScoreText::Loss(n) => format!("l{n}"),
        ScoreText::Mate(n) => format!("m{n}"),
    }
}

fn parse_score(word: &str) -> Option<ScoreText> {
    let number = |s: &str| s.parse::<i64>().ok();
    if let Some(n) = word.strip_prefix("cp") {
        return number(n).map(|n| ScoreText::Cp(n as i32));
    }
    if let Some(n) = word.strip_prefix('w') {
        return n.parse().ok().map(ScoreText::Win);
    }
    if let Some(n) = word.strip_prefix('l') {
        return n.parse().ok().map(ScoreText::Loss);
    }
    if let Some(n) = word.strip_prefix('m') {
        return number(n).map(|n| ScoreText::Mate(n as i32));
    }
    None
}

impl fmt::Display for Thought {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let depth = self.depth.map_or("-".to_string(), |d| d.to_string());
        let score = self.score.map_or("-".to_string(), score_word);
        write!(f, "{}:{depth}:{score}", self.ms)
    }
}

impl Record {
    /// The engine that won, if one did: what `result` says.
    pub fn winner(&self) -> Option<&str> {
        match self.result {
            Score::FirstWins => Some(&self.engines[0]),
            Score::SecondWins => Some(&self.engines[1]),
            Score::Draw => None,
        }
    }

    /// The engine that forfeited, if one did: the loser of a forfeit.
    pub fn by(&self) -> Option<&str> {
        match (&self.reason, self.result) {
            (Reason::Forfeit(_), Score::FirstWins) => Some(&self.engines[1]),
            (Reason::Forfeit(_), Score::SecondWins) => Some(&self.engines[0]),
            _ => None,
        }
    }

    /// The line without its checksum field.
    fn body(&self) -> String {
        let seats: Vec<String> = self.seats.iter().map(|(s, n)| format!("{s}:{n}")).collect();
        let thoughts: Vec<String> = self.thoughts.iter().map(Thought::to_string).collect();
        let values = [
            VERSION.to_string(),
            self.fingerprint.to_string(),
            self.game.clone(),
            self.rules.join(" "),
            self.start.clone(),
            self.seed.to_string(),
            self.set.to_string(),
            self.index.to_string(),
            self.games.to_string(),
            self.engines.join(","),
            seats.join(","),
            self.seating.to_string(),
            self.result.to_string(),
            self.winner().unwrap_or("-").to_string(),
            self.seat.map_or("-".to_string(), |c| c.to_string()),
            self.reason.to_string(),
            self.by().unwrap_or("-").to_string(),
            optional(&self.detail).to_string(),
            self.moves.join(" "),
            thoughts.join(" "),
        ];
        KEYS.iter()
            .zip(values)
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\t")
    }

    /// Whether the game ended by a forfeit.
    pub fn is_forfeit(&self) -> bool {
        self.reason.is_forfeit()
    }

    /// Points of the first engine.
    pub fn points(&self) -> f64 {
        self.result.points()
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let body = self.body();
        write!(f, "{body}\tsum={:016x}", checksum(&body))
    }
}

/// Why a record line was refused, or a replay failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A line of the format before v=2, which has no checksum.
    OldFormat,
    NotKeyValue(String),
    Twice {
        key: String,
        expected: &'static str,
    },
    Misplaced {
        key: String,
        expected: &'static str,
    },
    AfterChecksum(String),
    Truncated {
        fields: usize,
        last: &'static str,
    },
    Version(String),
    ChecksumNotHex,
    /// The checksum does not match: the line was changed or cut.
    ChecksumMismatch,
    NotANumber(&'static str),
    Engines,
    SeatEntry(String),
    SeatLetter(String),
    WinningSeat(String),
    Thought(String),
    Result(String),
    Reason(String),
    Seating(String),
    /// A `match` field that is not 16 hexadecimal digits.
    Fingerprint(String),
    /// A field that must say what the others do, and does not (`winner`
    /// follows `result`, `by` the result of a forfeit).
    Contradicts {
        field: &'static str,
        found: String,
        expected: String,
    },
    /// A file that cannot be read, and why.
    Unreadable {
        path: std::path::PathBuf,
        why: String,
    },
    /// A line longer than [`MAX_RECORD_LINE`].
    LongLine,
    /// A line with bytes that are not UTF-8.
    NotText,
    /// A bad line of a file.
    AtLine {
        path: std::path::PathBuf,
        line: usize,
        error: Box<RecordError>,
    },
    UnknownGame(String),
    Ruleset(String),
    Start(PositionError),
    Move {
        number: usize,
        mv: String,
        error: PositionError,
    },
    /// The rules end the game otherwise than the record says.
    RulesDisagree {
        rules: String,
        record: String,
        result: Score,
    },
    /// The record says the rules ended a game that goes on.
    GoesOn(Reason),
    /// The rules ended the game before the record's ending.
    EndedBefore {
        rules: String,
        record: Reason,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RecordError::OldFormat => {
                f.write_str("a record of the older format (before v=2): no checksum to trust")
            }
            RecordError::NotKeyValue(field) => {
                write!(f, "field '{}' is not key=value", clip(field))
            }
            RecordError::Twice { key, expected } => {
                write!(f, "field '{key}' twice (expected '{expected}')")
            }
            RecordError::Misplaced { key, expected } => {
                write!(f, "field '{key}' where '{expected}' belongs")
            }
            RecordError::AfterChecksum(key) => write!(f, "field '{key}' after the checksum"),
            RecordError::Truncated { fields, last } => write!(
                f,
                "truncated: {fields} of {} fields, the last '{last}'",
                KEYS.len()
            ),
            RecordError::Version(v) => {
                write!(f, "format version {v} (this referee writes {VERSION})")
            }
            RecordError::ChecksumNotHex => f.write_str("the checksum is not hexadecimal"),
            RecordError::ChecksumMismatch => {
                f.write_str("the checksum does not match: the line was changed or cut")
            }
            RecordError::NotANumber(key) => write!(f, "field '{key}' is not a number"),
            RecordError::Engines => f.write_str("field 'engines' does not name two engines"),
            RecordError::SeatEntry(entry) => write!(f, "bad seat entry '{entry}'"),
            RecordError::SeatLetter(seat) => write!(f, "bad seat letter '{seat}'"),
            RecordError::WinningSeat(seat) => write!(f, "bad winning seat '{seat}'"),
            RecordError::Thought(t) => write!(f, "bad thought '{t}'"),
            RecordError::Result(r) => write!(f, "bad result '{r}'"),
            RecordError::Reason(r) => write!(f, "bad reason '{}'", clip(r)),
            RecordError::Seating(s) => write!(f, "bad seating '{}'", clip(s)),
            RecordError::Fingerprint(s) => write!(f, "bad match fingerprint '{}'", clip(s)),
            RecordError::Contradicts {
                field,
                found,
                expected,
            } => write!(
                f,
                "{field} is '{}' where the result says '{}'",
                clip(found),
                clip(expected)
            ),
            RecordError::LongLine => write!(
                f,
                "a line longer than {MAX_RECORD_LINE} bytes: no record (nothing after it is read)"
            ),
            RecordError::NotText => f.write_str("bytes that are not UTF-8"),
            RecordError::Unreadable { path, why } => {
                write!(f, "cannot read {}: {why}", path.display())
            }
            RecordError::AtLine { path, line, error } => {
                write!(f, "{} line {line}: {error}", path.display())
            }
            RecordError::UnknownGame(game) => write!(f, "unknown game '{}'", clip(game)),
            RecordError::Ruleset(why) => f.write_str(why),
            RecordError::Start(e) => write!(f, "start: {e}"),
            RecordError::Move { number, mv, error } => write!(f, "move {number} ({mv}): {error}"),
            RecordError::RulesDisagree {
                rules,
                record,
                result,
            } => write!(
                f,
                "the rules say {rules}, the record says {record} ({result})"
            ),
            RecordError::GoesOn(reason) => write!(
                f,
                "the record says {reason}, but by the rules the game goes on"
            ),
            RecordError::EndedBefore { rules, record } => write!(
                f,
                "the rules ended the game ({rules}) before the record's {record}"
            ),
        }
    }
}

impl std::error::Error for RecordError {}

/// A record line's fields, checked for layout: every key once, in the
/// order its version gives.
struct Fields<'a> {
    keys: &'static [&'static str],
    values: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    fn split(line: &'a str) -> Result<Fields<'a>, RecordError> {
        let fields: Vec<&str> = line.split('\t').collect();
        // The version, first, says which fields follow.
        let keys: &'static [&'static str] = match fields[0] {
            "v=2" => &KEYS_V2,
            _ => &KEYS,
        };
        let mut values = Vec::with_capacity(keys.len());
        for (i, field) in fields.iter().enumerate() {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| RecordError::NotKeyValue(field.to_string()))?;
            let Some(&expected) = keys.get(i) else {
                return Err(RecordError::AfterChecksum(key.to_string()));
            };
            if expected == key {
                values.push(value);
                continue;
            }
            let seen = fields[..i]
                .iter()
                .any(|f| f.starts_with(&format!("{key}=")));
            let key = key.to_string();
            return Err(if keys.contains(&key.as_str()) && seen {
                RecordError::Twice { key, expected }
            } else {
                RecordError::Misplaced { key, expected }
            });
        }
        if values.len() < keys.len() {
            return Err(RecordError::Truncated {
                fields: values.len(),
                last: keys[values.len().saturating_sub(1)],
            });
        }
        if values[0] != VERSION && values[0] != "2" {
            return Err(RecordError::Version(values[0].to_string()));
        }
        Ok(Fields { keys, values })
    }

    fn get(&self, key: &str) -> &'a str {
        self.keys
            .iter()
            .position(|k| *k == key)
            .map_or("", |i| self.values[i])
    }

    fn number(&self, key: &'static str) -> Result<u64, RecordError> {
        self.get(key)
            .parse()
            .map_err(|_| RecordError::NotANumber(key))
    }

    /// Version 2, the first of this layout, paired games and alternated.
    fn is_v2(&self) -> bool {
        self.values[0] == "2"
    }
}

fn parse_seats(text: &str) -> Result<Vec<(char, String)>, RecordError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (seat, name) = s
                .split_once(':')
                .ok_or_else(|| RecordError::SeatEntry(s.to_string()))?;
            let mut letters = seat.chars();
            match (letters.next(), letters.next()) {
                (Some(c), None) => Ok((c, name.to_string())),
                _ => Err(RecordError::SeatLetter(seat.to_string())),
            }
        })
        .collect()
}

fn parse_thought(t: &str) -> Result<Thought, RecordError> {
    let bad = || RecordError::Thought(t.to_string());
    let parts: Vec<&str> = t.split(':').collect();
    let [ms, depth, score] = parts[..] else {
        return Err(bad());
    };
    Ok(Thought {
        ms: ms.parse().map_err(|_| bad())?,
        depth: (depth != "-")
            .then(|| depth.parse())
            .transpose()
            .map_err(|_| bad())?,
        score: match score {
            "-" => None,
            s => Some(parse_score(s).ok_or_else(bad)?),
        },
    })
}

impl std::str::FromStr for Record {
    type Err = RecordError;

    /// Strict: every field once, in order, and a matching checksum.
    fn from_str(line: &str) -> Result<Record, RecordError> {
        if line.starts_with("game=") {
            return Err(RecordError::OldFormat);
        }
        let fields = Fields::split(line)?;
        let get = |key: &str| fields.get(key);
        let body_end = line.rfind("\tsum=").expect("the sum field is there");
        let sum = u64::from_str_radix(get("sum"), 16).map_err(|_| RecordError::ChecksumNotHex)?;
        if checksum(&line[..body_end]) != sum {
            return Err(RecordError::ChecksumMismatch);
        }
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let engines: Vec<&str> = get("engines").split(',').collect();
        let [first, second] = engines[..] else {
            return Err(RecordError::Engines);
        };
        let seat = match get("seat") {
            "-" => None,
            s if s.chars().count() == 1 => s.chars().next(),
            s => return Err(RecordError::WinningSeat(s.to_string())),
        };
        let seating = match fields.is_v2() {
            true => Seating::Alternate,
            false => Seating::from_word(get("seating"))
                .ok_or_else(|| RecordError::Seating(get("seating").into()))?,
        };
        let record = Record {
            fingerprint: get("match")
                .parse()
                .map_err(|_| RecordError::Fingerprint(get("match").into()))?,
            game: get("game").to_string(),
            rules: words(get("rules")),
            start: get("start").to_string(),
            seed: fields.number("seed")?,
            set: fields.number(if fields.is_v2() { "pair" } else { "set" })? as u32,
            index: fields.number("index")? as u32,
            games: fields.number("games")? as u32,
            engines: [first.to_string(), second.to_string()],
            seats: parse_seats(get("seats"))?,
            seating,
            result: Score::from_text(get("result"))
                .ok_or_else(|| RecordError::Result(get("result").into()))?,
            seat,
            reason: Reason::from_word(get("reason"))
                .ok_or_else(|| RecordError::Reason(get("reason").into()))?,
            detail: (get("detail") != "-").then(|| get("detail").to_string()),
            moves: words(get("moves")),
            thoughts: get("thought")
                .split_whitespace()
                .map(parse_thought)
                .collect::<Result<_, _>>()?,
        };
        record.agrees_with(get("winner"), get("by"))?;
        Ok(record)
    }
}

impl Record {
    /// `winner=` and `by=` are written from the result; a line that says
    /// otherwise is not ours.
    fn agrees_with(&self, winner: &str, by: &str) -> Result<(), RecordError> {
        for (field, stored, derived) in [("winner", winner, self.winner()), ("by", by, self.by())] {
            let expected = derived.unwrap_or("-");
            if stored != expected {
                return Err(RecordError::Contradicts {
                    field,
                    found: stored.to_string(),
                    expected: expected.to_string(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::ForfeitKind;
    use menagerie_rules::catalogue::GAMES;

    fn sample() -> Record {
        Record {
            fingerprint: "0123456789abcdef".parse().unwrap(),
            game: "hat-diviyan-keliya".into(),
            rules: vec!["start=apex".into(), "board=small".into()],
            start: "T/3/3/3 l 0 7 0".into(),
            seed: 42,
            set: 3,
            index: 7,
            games: 10,
            engines: ["a".into(), "b".into()],
            seats: vec![('t', "a".into()), ('l', "b".into())],
            seating: Seating::Alternate,
            result: Score::SecondWins,
            seat: Some('l'),
            reason: Reason::Forfeit(ForfeitKind::Crash),
            detail: Some("crash (the engine exited with status 3)".into()),
            moves: vec!["@b2".into(), "b1a2".into()],
            thoughts: vec![Thought {
                ms: 12,
                depth: Some(3),
                score: Some(ScoreText::Cp(-40)),
            }],
        }
    }

    #[test]
    fn records_print_and_parse_back() {
        let r = sample();
        let line = r.to_string();
        assert_eq!(line.parse::<Record>().unwrap(), r);
        assert!(line.ends_with(&format!("\tsum={:016x}", checksum(&r.body()))));
    }

    #[test]
    fn the_parser_refuses_cut_changed_doubled_and_old_lines() {
        let line = sample().to_string();
        for cut in [10, line.len() / 2, line.len() - 20, line.len() - 1] {
            assert!(line[..cut].parse::<Record>().is_err(), "cut at {cut}");
        }
        let changed = line.replace("result=0-1", "result=1-0");
        let e = changed.parse::<Record>().unwrap_err();
        assert_eq!(e, RecordError::ChecksumMismatch);
        let doubled = line.replacen("\tgame=", "\tv=3\tgame=", 1);
        assert!(matches!(
            doubled.parse::<Record>().unwrap_err(),
            RecordError::Twice { .. }
        ));
        let old = "game=x\trules=\tstart=x";
        assert_eq!(old.parse::<Record>().unwrap_err(), RecordError::OldFormat);
        assert!("nonsense".parse::<Record>().is_err());
    }

    #[test]
    fn version_2_records_are_read_as_alternate_seating() {
        let r = sample();
        let body = r
            .body()
            .replace("v=3\t", "v=2\t")
            .replace("\tset=", "\tpair=")
            .replace("\tseating=alternate", "");
        let line = format!("{body}\tsum={:016x}", checksum(&body));
        assert_eq!(line.parse::<Record>().unwrap(), r);
        // But a v2 line with the fields of v3 is not one.
        let mixed = r.to_string().replace("v=3\t", "v=2\t");
        assert!(mixed.parse::<Record>().is_err());
    }

    #[test]
    fn replay_checks_moves_and_endings() {
        let replayed = replay(&sample(), &GAMES).unwrap();
        assert_eq!(replayed.final_notation, "1/TL1/3/3 l 0 6 1");
        assert_eq!(replayed.ending, "crash by a: b wins as l");
        let mut bad = sample();
        bad.moves.push("zz".into());
        assert!(replay(&bad, &GAMES).is_err());
        let mut wrong = sample();
        wrong.reason = Reason::Rules("tiger-trapped".into());
        assert!(
            replay(&wrong, &GAMES).is_err(),
            "the game is not over by the rules"
        );
    }
}
