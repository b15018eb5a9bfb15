//! Game records: one line per finished game, tab-separated `key=value`
//! fields, so a record can be read back and replayed against the rules.
//!
//! ```text
//! game=safari-dual  rules=  start=<notation>  seed=7  pair=0  index=0
//! seats=r:full,a:greedy  result=1-0  winner=r  reason=rules  moves=c1d2 c5b4 ...
//! ```

use std::fmt;

use crate::game::Status;
use crate::runtime::registry;

/// One game as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub game: String,
    pub rules: Vec<String>,
    pub start: String,
    pub seed: u64,
    pub pair: u32,
    pub index: u32,
    /// Seat letter and engine name, in seat order.
    pub seats: Vec<(char, String)>,
    /// `1-0`, `0-1` or `1/2-1/2` for the first engine.
    pub result: String,
    /// The winning seat's letter, or `-`.
    pub winner: String,
    pub reason: String,
    pub moves: Vec<String>,
}

const FIELDS: [&str; 11] = [
    "game", "rules", "start", "seed", "pair", "index", "seats", "result", "winner", "reason",
    "moves",
];

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let seats: Vec<String> = self.seats.iter().map(|(s, n)| format!("{s}:{n}")).collect();
        write!(
            f,
            "game={}\trules={}\tstart={}\tseed={}\tpair={}\tindex={}\tseats={}\tresult={}\twinner={}\treason={}\tmoves={}",
            self.game,
            self.rules.join(" "),
            self.start,
            self.seed,
            self.pair,
            self.index,
            seats.join(","),
            self.result,
            self.winner,
            self.reason,
            self.moves.join(" ")
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError(pub String);

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Record {
    type Err = RecordError;

    fn from_str(line: &str) -> Result<Record, RecordError> {
        let mut values: Vec<Option<&str>> = vec![None; FIELDS.len()];
        for field in line.split('\t') {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| RecordError(format!("field '{field}' is not key=value")))?;
            let i = FIELDS
                .iter()
                .position(|&k| k == key)
                .ok_or_else(|| RecordError(format!("unknown field '{key}'")))?;
            values[i] = Some(value);
        }
        let get = |i: usize| {
            values[i].ok_or_else(|| RecordError(format!("missing field '{}'", FIELDS[i])))
        };
        let number = |i: usize| -> Result<u64, RecordError> {
            get(i)?
                .parse()
                .map_err(|_| RecordError(format!("field '{}' is not a number", FIELDS[i])))
        };
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let seats = get(6)?
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| {
                let (seat, name) = s
                    .split_once(':')
                    .ok_or_else(|| RecordError(format!("bad seat entry '{s}'")))?;
                let mut letters = seat.chars();
                match (letters.next(), letters.next()) {
                    (Some(c), None) => Ok((c, name.to_string())),
                    _ => Err(RecordError(format!("bad seat letter '{seat}'"))),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Record {
            game: get(0)?.to_string(),
            rules: words(get(1)?),
            start: get(2)?.to_string(),
            seed: number(3)?,
            pair: number(4)? as u32,
            index: number(5)? as u32,
            seats,
            result: get(7)?.to_string(),
            winner: get(8)?.to_string(),
            reason: get(9)?.to_string(),
            moves: words(get(10)?),
        })
    }
}

/// What replaying a record found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub final_notation: String,
    pub status: String,
}

/// Plays a record's moves from its start with the rules and checks that the
/// recorded result is what the rules say (or, for a forfeit or the ply
/// limit, that the rules had not ended the game).
pub fn replay(record: &Record) -> Result<Replayed, RecordError> {
    let entry = registry::find(&record.game)
        .ok_or_else(|| RecordError(format!("unknown game '{}'", record.game)))?;
    let mut session = entry
        .session(&record.rules)
        .map_err(|e| RecordError(e.to_string()))?;
    session
        .set_position(Some(&record.start), &[])
        .map_err(|e| RecordError(format!("start: {e}")))?;
    for (i, mv) in record.moves.iter().enumerate() {
        session
            .play_moves(std::slice::from_ref(mv))
            .map_err(|e| RecordError(format!("move {} ({mv}): {e}", i + 1)))?;
    }
    let status = session.status();
    let described = match status {
        Status::Ongoing => "ongoing".to_string(),
        Status::Over(crate::game::Outcome::Draw, reason) => format!("draw ({reason})"),
        Status::Over(crate::game::Outcome::Win(seat), reason) => {
            format!("win {} ({reason})", session.seat_letter_of(seat))
        }
    };
    let by_rules = entry.is_end_reason(&record.reason);
    match status {
        Status::Over(outcome, reason) if by_rules => {
            let winner = match outcome {
                crate::game::Outcome::Win(seat) => session.seat_letter_of(seat).to_string(),
                crate::game::Outcome::Draw => "-".to_string(),
            };
            if reason.to_string() != record.reason || winner != record.winner {
                return Err(RecordError(format!(
                    "the rules say {described}, the record says {} ({})",
                    record.winner, record.reason
                )));
            }
        }
        Status::Ongoing if !by_rules => {}
        _ => {
            return Err(RecordError(format!(
                "the rules say {described}, the record says {}",
                record.reason
            )))
        }
    }
    Ok(Replayed {
        final_notation: session.notation(),
        status: described,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Record {
        Record {
            game: "hat-diviyan-keliya".into(),
            rules: vec!["start=apex".into(), "board=small".into()],
            start: "T/3/3/3 l 0 7 0".into(),
            seed: 42,
            pair: 3,
            index: 7,
            seats: vec![('t', "a".into()), ('l', "b".into())],
            result: "0-1".into(),
            winner: "-".into(),
            reason: "crash of a".into(),
            moves: vec!["@b2".into(), "b1a2".into()],
        }
    }

    #[test]
    fn records_print_and_parse_back() {
        let r = sample();
        let line = r.to_string();
        assert_eq!(line.parse::<Record>().unwrap(), r);
        assert!(line.parse::<Record>().is_ok());
        assert!("game=x".parse::<Record>().is_err());
        assert!("nonsense".parse::<Record>().is_err());
    }

    #[test]
    fn replay_checks_moves_and_result() {
        let r = sample();
        let replayed = replay(&r).unwrap();
        assert_eq!(replayed.final_notation, "1/TL1/3/3 l 0 6 1");
        let mut bad = sample();
        bad.moves.push("zz".into());
        assert!(replay(&bad).is_err());
        let mut wrong = sample();
        wrong.reason = "tiger-trapped".into();
        wrong.winner = "t".into();
        assert!(replay(&wrong).is_err(), "the game is not over by the rules");
    }
}
