//! A record played again by the rules: its ending must be theirs.

use super::{Record, RecordError};
use crate::outcome::Reason;
use menagerie_rules::catalogue::{self, GameEntry};
use menagerie_rules::game::Status;

/// What replaying a record found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub final_notation: String,
    /// How the game ended, as people read it: by the rules, or the forfeit
    /// or adjudication and who won.
    pub ending: String,
}

/// Plays a record's moves from its start with the rules and checks that the
/// recorded ending agrees: a result by the rules must be what the rules
/// say; a forfeit or the ply limit must come while the rules had not ended
/// the game.
pub fn replay(record: &Record, games: &[GameEntry]) -> Result<Replayed, RecordError> {
    let entry = catalogue::find(games, &record.game)
        .ok_or_else(|| RecordError::UnknownGame(record.game.clone()))?;
    let mut session = entry
        .session(&record.rules)
        .map_err(|e| RecordError::Ruleset(e.to_string()))?;
    session
        .set_position(Some(&record.start), &[])
        .map_err(RecordError::Start)?;
    for (i, mv) in record.moves.iter().enumerate() {
        session
            .play_moves(std::slice::from_ref(mv))
            .map_err(|error| RecordError::Move {
                number: i + 1,
                mv: mv.clone(),
                error,
            })?;
    }
    let status = session.status();
    let winner = |seat| session.seat_letter_of(seat);
    let by_rules = match &record.reason {
        Reason::Rules(word) => entry.is_end_reason(word),
        _ => false,
    };
    let ending = match status {
        Status::Over(outcome, reason) if by_rules => {
            let seat = match outcome {
                menagerie_rules::game::Outcome::Win(seat) => Some(winner(seat)),
                menagerie_rules::game::Outcome::Draw => None,
            };
            if Reason::Rules(reason.to_string()) != record.reason || seat != record.seat {
                return Err(RecordError::RulesDisagree {
                    rules: describe_outcome(seat, &reason.to_string()),
                    record: describe_outcome(record.seat, &record.reason.to_string()),
                    result: record.result,
                });
            }
            describe_outcome(seat, &reason.to_string())
        }
        Status::Ongoing if !by_rules => {
            let winner = match (record.winner(), record.seat) {
                (Some(engine), Some(seat)) => format!("{engine} wins as {seat}"),
                (Some(engine), None) => format!("{engine} wins"),
                (None, _) => "draw".to_string(),
            };
            match record.by() {
                Some(by) => format!("{} by {by}: {winner}", record.reason),
                None => format!("{}: {winner}", record.reason),
            }
        }
        Status::Ongoing => return Err(RecordError::GoesOn(record.reason.clone())),
        Status::Over(outcome, reason) => {
            let seat = match outcome {
                menagerie_rules::game::Outcome::Win(seat) => Some(winner(seat)),
                menagerie_rules::game::Outcome::Draw => None,
            };
            return Err(RecordError::EndedBefore {
                rules: describe_outcome(seat, &reason.to_string()),
                record: record.reason.clone(),
            });
        }
    };
    Ok(Replayed {
        final_notation: session.notation(),
        ending,
    })
}

fn describe_outcome(seat: Option<char>, reason: &str) -> String {
    match seat {
        Some(seat) => format!("win {seat} ({reason})"),
        None => format!("draw ({reason})"),
    }
}
