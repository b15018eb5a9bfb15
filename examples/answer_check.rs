//! Checks that every move of a match's records was its engine's answer to
//! that very position, by the engines' own logs:
//!
//!     answer_check RECORDS LOG...
//!
//! A log is named `<engine name>.<anything>.log` (one per engine process)
//! and is either the engine's `RUST_LOG=debug` log, where the n-th
//! `bestmove` out answers the n-th `go` in (whose position is the last
//! `position` line in before it), or `fake_engine --log`'s lines
//! (`position` line, a tab, `bestmove` line). Prints what it checked;
//! exit status 1 at the first move that answers no request of its
//! position, 2 for unreadable input.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::process::ExitCode;

use menagerie_referee::record::{read_file, Record};
use menagerie_rules::catalogue::{self, GAMES};
use menagerie_wire::command::Command;

/// (`position` line, move) pairs an engine answered.
type Answers = HashSet<(String, String)>;

fn answers_in(log: &Path) -> Result<Answers, String> {
    let text = std::fs::read_to_string(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut answers = Answers::new();
    let mut position = String::new();
    let mut asked = VecDeque::new();
    for line in text.lines() {
        if let Some((position, reply)) = line.split_once('\t') {
            if let Some(mv) = reply.strip_prefix("bestmove ") {
                answers.insert((position.to_string(), mv.to_string()));
            }
        } else if let Some((_, input)) = line.split_once("] in: ") {
            if input.starts_with("position ") {
                position = input.to_string();
            } else if input.starts_with("go") {
                asked.push_back(position.clone());
            }
        } else if let Some((_, mv)) = line.split_once("] out: bestmove ") {
            let asked_for = asked
                .pop_front()
                .ok_or_else(|| format!("{}: a bestmove with no go before it", log.display()))?;
            answers.insert((asked_for, mv.to_string()));
        }
    }
    Ok(answers)
}

/// The engine moves of `record`, each with the `position` line that asked
/// for it and the engine that played it.
fn engine_moves(record: &Record) -> Result<Vec<(String, String, String)>, String> {
    let mut session = catalogue::new_session_named(&GAMES, &record.game, &record.rules)
        .map_err(|e| e.to_string())?;
    session
        .set_position(Some(&record.start), &[])
        .map_err(|e| e.to_string())?;
    let mut moves = Vec::new();
    for (ply, mv) in record.moves.iter().enumerate() {
        if !session.awaiting_chance() {
            let letter = session.side_letter();
            let engine = record
                .seats
                .iter()
                .find(|(l, _)| *l == letter)
                .map(|(_, name)| name.clone())
                .ok_or_else(|| format!("game {}: no engine in seat {letter}", record.index + 1))?;
            let position = Command::Position {
                notation: Some(record.start.clone()),
                moves: record.moves[..ply].to_vec(),
            }
            .to_string();
            moves.push((engine, position, mv.clone()));
        }
        session
            .play_moves(std::slice::from_ref(mv))
            .map_err(|e| format!("game {}: {e}", record.index + 1))?;
    }
    Ok(moves)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((records, logs)) = args.split_first() else {
        eprintln!("usage: answer_check RECORDS LOG...");
        return ExitCode::from(2);
    };
    let records = match read_file(Path::new(records)) {
        Ok(records) => records,
        Err(e) => {
            eprintln!("answer_check: {e}");
            return ExitCode::from(2);
        }
    };
    let mut answers: HashMap<String, Answers> = HashMap::new();
    for log in logs {
        let path = Path::new(log);
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        let engine = file.split('.').next().unwrap_or_default().to_string();
        match answers_in(path) {
            Ok(found) => answers.entry(engine).or_default().extend(found),
            Err(e) => {
                eprintln!("answer_check: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut checked = 0usize;
    for record in &records {
        let moves = match engine_moves(record) {
            Ok(moves) => moves,
            Err(e) => {
                eprintln!("answer_check: {e}");
                return ExitCode::from(2);
            }
        };
        for (engine, position, mv) in moves {
            let answered = answers
                .get(&engine)
                .is_some_and(|a| a.contains(&(position.clone(), mv.clone())));
            if !answered {
                println!(
                    "game {}: {engine}'s move {mv} answers no request of its position ({position})",
                    record.index + 1
                );
                return ExitCode::from(1);
            }
            checked += 1;
        }
    }
    println!(
        "{checked} engine moves of {} games checked against {} logs: each is its engine's answer to its own position",
        records.len(),
        logs.len()
    );
    ExitCode::SUCCESS
}
