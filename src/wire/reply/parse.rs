//! Reading an engine's line: each known form into its [`Reply`], or
//! nothing (the caller keeps the line as it came).

use super::*;

pub(super) fn parse(line: &str) -> Option<Reply> {
    if let Some(rest) = line.strip_prefix(ERROR_PREFIX) {
        let (command, message) = rest.split_once(": ")?;
        return Some(Reply::Error {
            command: command.to_string(),
            message: message.to_string(),
        });
    }
    if let Some(rest) = line.strip_prefix(GAME_OVER_PREFIX) {
        let (result, reason) = rest.split_once(" (")?;
        let reason = reason.strip_suffix(')')?;
        return Some(Reply::GameOver {
            result: parse_result(result)?,
            reason: reason.to_string(),
        });
    }
    if let Some(rest) = line.strip_prefix("info string ") {
        if let Some(measured) = parse_measurement(rest) {
            return Some(Reply::Measured(measured));
        }
        return Some(Reply::Remark(rest.to_string()));
    }
    for field in TotalField::ALL {
        if let Some(n) = line.strip_prefix(field.label()) {
            return Some(Reply::BenchTotal {
                field,
                value: number(n)?,
            });
        }
    }
    let words: Vec<&str> = line.split(' ').collect();
    // Only lines in the canonical spacing have a type, so that printing
    // gives the same line back (the text of an `info string` is free).
    if words.iter().any(|w| w.is_empty()) && !line.is_empty() {
        return None;
    }
    match words.as_slice() {
        ["uciok"] => return Some(Reply::UciOk),
        ["ugiok"] => return Some(Reply::UgiOk),
        ["readyok"] => return Some(Reply::ReadyOk),
        ["gamesok"] => return Some(Reply::GamesOk),
        ["rolled", mv] => return Some(Reply::Rolled(mv.to_string())),
        ["bestmove", "(none)"] => return Some(Reply::BestMove(None)),
        ["bestmove", mv] => return Some(Reply::BestMove(Some(mv.to_string()))),
        ["legal", moves @ ..] => {
            return Some(Reply::Legal(moves.iter().map(|m| m.to_string()).collect()))
        }
        ["id", "name", ..] => {
            return Some(Reply::Id {
                field: IdField::Name,
                value: line["id name ".len()..].to_string(),
            })
        }
        ["id", "author", ..] => {
            return Some(Reply::Id {
                field: IdField::Author,
                value: line["id author ".len()..].to_string(),
            })
        }
        ["option", "name", ..] => return parse_option(line).map(Reply::Option),
        ["info", rest @ ..] if !rest.is_empty() => return parse_info(rest).map(Reply::Info),
        ["game", game, rest @ ..] => {
            return parse_fact(rest).map(|fact| Reply::Catalogue {
                game: game.to_string(),
                fact,
            })
        }
        _ => {}
    }
    if let Some(rest) = line.strip_prefix("response") {
        return match rest {
            "" => Some(Reply::Response(String::new())),
            _ => rest
                .strip_prefix(' ')
                .map(|answer| Reply::Response(answer.to_string())),
        };
    }
    if let Some(n) = line.strip_prefix("Nodes searched: ") {
        return Some(Reply::NodesSearched(number(n)?));
    }
    if let Some(value) = line.strip_prefix("Value: ") {
        return is_value(value).then(|| Reply::Solved {
            mv: None,
            value: value.to_string(),
        });
    }
    for key in FieldKey::ALL {
        if let Some(value) = line
            .strip_prefix(key.word())
            .and_then(|r| r.strip_prefix(": "))
        {
            return Some(Reply::Field {
                key,
                value: value.to_string(),
            });
        }
    }
    // `<move>: <count>` (perft) or `<move>: <value>` (solve).
    let (mv, rest) = line.split_once(": ")?;
    if mv.is_empty() || mv.contains(' ') {
        return None;
    }
    if let Some(nodes) = number(rest) {
        return Some(Reply::PerftMove {
            mv: mv.to_string(),
            nodes,
        });
    }
    is_value(rest).then(|| Reply::Solved {
        mv: Some(mv.to_string()),
        value: rest.to_string(),
    })
}

/// A decimal number written the canonical way (no sign, no leading zero).
fn number<T: std::str::FromStr + ToString>(text: &str) -> Option<T> {
    let n: T = text.parse().ok()?;
    (n.to_string() == text).then_some(n)
}

/// `win N`, `loss N` or `draw`.
fn is_value(text: &str) -> bool {
    // What a proof search establishes without a distance.
    const PROVEN: [&str; 6] = [
        "win",
        "loss",
        "draw",
        "at least draw",
        "at most draw",
        "unknown",
    ];
    if PROVEN.contains(&text) {
        return true;
    }
    match text.split_once(' ') {
        None => false,
        Some((kind, n)) => matches!(kind, "win" | "loss") && number::<u32>(n).is_some(),
    }
}

fn parse_result(text: &str) -> Option<GameResult> {
    match text.split_once(' ') {
        None if text == "draw" => Some(GameResult::Draw),
        Some(("win", seat)) if seat.chars().count() == 1 => {
            seat.chars().next().map(GameResult::Win)
        }
        _ => None,
    }
}

fn parse_option(line: &str) -> Option<OptionLine> {
    let rest = line.strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ")?;
    let mut words = rest.split(' ');
    let kind = match words.next()? {
        "spin" => {
            let mut spin = (None, None, None);
            while let Some(key) = words.next() {
                let value = number::<i64>(words.next()?)?;
                match key {
                    "default" if spin.0.is_none() => spin.0 = Some(value),
                    "min" if spin.1.is_none() => spin.1 = Some(value),
                    "max" if spin.2.is_none() => spin.2 = Some(value),
                    _ => return None,
                }
            }
            OptionKind::Spin {
                default: spin.0?,
                min: spin.1?,
                max: spin.2?,
            }
        }
        "combo" => {
            if words.next()? != "default" {
                return None;
            }
            let default = words.next()?.to_string();
            let mut values = Vec::new();
            while let Some(var) = words.next() {
                if var != "var" {
                    return None;
                }
                values.push(words.next()?.to_string());
            }
            OptionKind::Combo { default, values }
        }
        "check" => match (words.next()?, words.next()?, words.next()) {
            ("default", "true", None) => OptionKind::Check { default: true },
            ("default", "false", None) => OptionKind::Check { default: false },
            _ => return None,
        },
        "string" => {
            let rest = rest.strip_prefix("string default")?;
            OptionKind::String {
                default: rest.strip_prefix(' ').unwrap_or(rest).to_string(),
            }
        }
        "button" if words.next().is_none() => OptionKind::Button,
        _ => return None,
    };
    Some(OptionLine {
        name: name.to_string(),
        kind,
    })
}

fn parse_info(words: &[&str]) -> Option<InfoLine> {
    let mut items = Vec::new();
    let mut i = 0;
    let next = |i: usize| words.get(i + 1).copied();
    while i < words.len() {
        let (item, used) = match words[i] {
            "depth" => (InfoItem::Depth(number(next(i)?)?), 2),
            "seldepth" => (InfoItem::SelDepth(number(next(i)?)?), 2),
            "nodes" => (InfoItem::Nodes(number(next(i)?)?), 2),
            "nps" => (InfoItem::Nps(number(next(i)?)?), 2),
            "time" => (InfoItem::Time(number(next(i)?)?), 2),
            "hashfull" => (InfoItem::HashFull(number(next(i)?)?), 2),
            "score" => {
                let value = words.get(i + 2).copied()?;
                let score = match next(i)? {
                    "cp" => ScoreText::Cp(signed(value)?),
                    "win" => ScoreText::Win(number(value)?),
                    "loss" => ScoreText::Loss(number(value)?),
                    "mate" => ScoreText::Mate(signed(value)?),
                    _ => return None,
                };
                (InfoItem::Score(score), 3)
            }
            "pv" => (
                InfoItem::Pv(words[i + 1..].iter().map(|m| m.to_string()).collect()),
                words.len() - i,
            ),
            // `info string` is a remark, not progress.
            "string" if i == 0 => return None,
            other => (InfoItem::Other(other.to_string()), 1),
        };
        items.push(item);
        i += used;
    }
    Some(InfoLine { items })
}

fn signed(text: &str) -> Option<i32> {
    number(text)
}

/// `<kind> <subject> | <name> <value> | ...` of a bench line.
fn parse_measurement(text: &str) -> Option<Measurement> {
    let (word, rest) = text.split_once(' ')?;
    let kind = *MeasureKind::ALL.iter().find(|k| k.word() == word)?;
    let parts: Vec<&str> = rest.split(" | ").collect();
    let subject_parts = kind.subject_parts(parts[0]);
    if parts.len() <= subject_parts {
        return None;
    }
    let values = parts[subject_parts..]
        .iter()
        .map(|part| {
            let (name, value) = part.rsplit_once(' ')?;
            (!name.is_empty() && !value.is_empty()).then(|| (name.to_string(), value.to_string()))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Measurement {
        kind,
        subject: parts[..subject_parts]
            .iter()
            .map(|p| p.to_string())
            .collect(),
        values,
    })
}

fn parse_fact(words: &[&str]) -> Option<GameFact> {
    let text = |from: usize| words.get(from..).map(|w| w.join(" "));
    Some(match words {
        ["name", _, ..] => GameFact::Name(text(1)?),
        ["aliases", aliases @ ..] => {
            GameFact::Aliases(aliases.iter().map(|a| a.to_string()).collect())
        }
        ["chance", "yes"] => GameFact::Chance(true),
        ["chance", "no"] => GameFact::Chance(false),
        ["seat", letter, name] if letter.chars().count() == 1 => GameFact::Seat {
            letter: letter.chars().next()?,
            name: name.to_string(),
        },
        ["option", key, "default", default, "values", values @ ..] => GameFact::Option {
            key: key.to_string(),
            default: default.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        },
        ["moves", _, ..] => GameFact::Moves(text(1)?),
        ["end", reason, _, ..] => GameFact::End {
            reason: reason.to_string(),
            meaning: text(2)?,
        },
        _ => return None,
    })
}
