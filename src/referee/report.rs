//! Everything the referee prints: a header when a match starts, a line
//! per finished game, an Elo and SPRT block every few games, and the
//! summary at the end (also of a match cut short, and of a merge).

use std::io::Write;

use super::config::MatchConfig;
use super::config::Seating;
use super::record::Record;
use super::scoreboard::Scoreboard;
use super::stats::{elo_of_score, elo_of_share, los, SetCounts, Tally, Verdict};

/// What is being played, before the first game.
pub fn header(config: &MatchConfig, games_to_play: u32, out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "Match: {} vs {}, {}{}{}",
        config.play.engines[0].name,
        config.play.engines[1].name,
        config.play.entry.id,
        if config.play.rules.given.is_empty() {
            ""
        } else {
            " "
        },
        config.play.rules.given.join(" ")
    );
    for (i, engine) in config.play.engines.iter().enumerate() {
        let options: Vec<String> = engine
            .options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(
            out,
            "  engine {}: {} | {} | {}",
            i + 1,
            engine.name,
            engine.command.join(" "),
            if options.is_empty() {
                "default options".to_string()
            } else {
                options.join(" ")
            }
        );
    }
    let limits = if config.play.limit_of(0) == config.play.limit_of(1) {
        config.play.limit_of(0).to_string()
    } else {
        format!("{} / {}", config.play.limit_of(0), config.play.limit_of(1))
    };
    let openings = if !config.play.openings.is_empty() {
        format!("{} from a file", config.play.openings.len())
    } else if config.play.random_openings > 0 {
        format!("{} random plies per pair", config.play.random_openings)
    } else {
        "none (every pair starts from the start position)".to_string()
    };
    let _ = writeln!(
        out,
        "  {limits}, {} games{}, concurrency {}, openings: {openings}, seed {}",
        config.games,
        match config.shard {
            Some((i, n)) => format!(" (shard {i}/{n}: {games_to_play} of them)"),
            None if games_to_play < config.games => format!(" ({games_to_play} still to play)"),
            None => String::new(),
        },
        config.concurrency,
        config.play.seed
    );
    if config.play.seating == Seating::Lone {
        let _ = writeln!(
            out,
            "  seating: {} alone in one seat, {} in every other; each set gives {} every seat once",
            config.play.engines[0].name, config.play.engines[1].name, config.play.engines[0].name
        );
    }
    if let Some(sprt) = &config.sprt {
        let _ = writeln!(out, "  SPRT: {sprt}");
    }
    if let Some(path) = &config.record {
        let _ = writeln!(out, "  records: {}", path.display());
    }
}

/// One finished game.
pub fn game_line(record: &Record, total: u32, board: &Scoreboard, out: &mut dyn Write) {
    let ending = match (record.winner(), record.seat) {
        (Some(w), Some(seat)) => format!("{w} wins as {seat} by {}", record.reason),
        (Some(w), None) => format!("{w} wins by {}", record.reason),
        (None, _) => format!("draw by {}", record.reason),
    };
    let detail = match (record.by(), &record.detail) {
        (Some(by), Some(detail)) => format!(" [{detail} by {by}]"),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "Finished game {} of {total} ({} vs {}): {} {{{ending}}}{detail}",
        record.index + 1,
        record.engines[0],
        record.engines[1],
        record.result,
    );
    let _ = writeln!(out, "{}", score_line(&board.tally, &board.engines));
}

fn score_line(t: &Tally, names: &[String; 2]) -> String {
    format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        names[0],
        names[1],
        t.wins,
        t.losses,
        t.draws,
        t.score(),
        t.games()
    )
}

/// The Elo line: from the pairs when there are some (their variance knows
/// the pairing), else from single games.
fn elo_line(board: &Scoreboard) -> String {
    let t = &board.tally;
    let score = t.score();
    let elo = if t.games() == 0 {
        "Elo difference: n/a".to_string()
    } else if score >= 1.0 {
        "Elo difference: +inf".to_string()
    } else if score <= 0.0 {
        "Elo difference: -inf".to_string()
    } else {
        let (elo, margin) = if board.pentanomial.pairs() >= 2 {
            let (_, margin) = board.pentanomial.elo_interval();
            (elo_of_score(score), margin)
        } else {
            super::stats::elo_interval(t)
        };
        format!("Elo difference: {elo:.1} +/- {margin:.1}")
    };
    format!(
        "{elo}, LOS: {:.1} %, DrawRatio: {:.1} %",
        100.0 * los(t),
        100.0 * t.draw_ratio()
    )
}

/// The lone engine's share of wins against par, and its Elo against each
/// of the others (the Bradley-Terry model of the SPRT).
fn share_line(board: &Scoreboard, sets: &SetCounts) -> String {
    let (share, margin) = sets.share_interval();
    let seats = sets.seats;
    let elo = if sets.sets() == 0 {
        "n/a".to_string()
    } else if share <= 0.0 || share >= 1.0 {
        "n/a (no game won or none lost)".to_string()
    } else {
        let low = elo_of_share((share - margin).max(1e-6), seats);
        let high = elo_of_share((share + margin).min(1.0 - 1e-6), seats);
        format!(
            "{:.1} +/- {:.1}",
            elo_of_share(share, seats),
            (high - low) / 2.0
        )
    };
    format!(
        "Share of wins of {} alone: {share:.3} +/- {margin:.3} (par {:.3}, {} sets), Elo against each other seat: {elo}, DrawRatio: {:.1} %",
        board.engines[0],
        sets.par(),
        sets.sets(),
        100.0 * board.tally.draw_ratio()
    )
}

fn sprt_line(board: &Scoreboard) -> Option<String> {
    let state = board.sprt?;
    let (low, high) = state.sprt.bounds();
    let units = if board.sets.is_some() {
        "sets"
    } else {
        "pairs"
    };
    Some(match state.decided_at {
        Some((games, pairs)) => format!(
            "SPRT ({}): llr {:.2} ({:.1}%), lbound {low:.2}, ubound {high:.2} - {} after {games} games ({pairs} {units})",
            state.sprt,
            state.llr,
            100.0 * state.llr / high,
            state.verdict
        ),
        None => format!(
            "SPRT ({}): llr {:.2} ({:.1}%), lbound {low:.2}, ubound {high:.2} - {}",
            state.sprt,
            state.llr,
            100.0 * state.llr / high,
            Verdict::Continue
        ),
    })
}

/// The Elo and SPRT block, printed every few games and at the end.
/// (The score line comes before it: in the game line or the summary.)
pub fn block(board: &Scoreboard, out: &mut dyn Write) {
    match &board.sets {
        None => {
            let _ = writeln!(out, "{}", elo_line(board));
            let _ = writeln!(out, "Ptnml(0-2): {}", board.pentanomial);
        }
        Some(sets) => {
            let _ = writeln!(out, "{}", share_line(board, sets));
            let counts: Vec<String> = sets.counts.iter().map(u32::to_string).collect();
            let _ = writeln!(
                out,
                "Sets by share (0..{n}/{n}): [{}]",
                counts.join(", "),
                n = sets.seats * sets.seats
            );
        }
    }
    if let Some(line) = sprt_line(board) {
        let _ = writeln!(out, "{line}");
    }
}

/// The end of a match (or of a merge): the block, then each engine by
/// seat, how games ended, forfeits, and warnings.
/// The final summary; `separated` puts a blank line before it, after
/// progress lines (`--quiet` output starts with the summary itself).
pub fn summary(board: &Scoreboard, separated: bool, out: &mut dyn Write) {
    if separated {
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "{}", score_line(&board.tally, &board.engines));
    block(board, out);
    for ((e, seats), t) in &board.per_seat {
        if t.games() == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "  {} as {}: {} - {} - {}  [{:.3}] {}",
            board.engines[*e],
            if seats.is_empty() { "-" } else { seats },
            t.wins,
            t.losses,
            t.draws,
            t.score(),
            t.games()
        );
    }
    let endings: Vec<String> = board
        .endings_by_word()
        .iter()
        .map(|(word, n)| format!("{word} {n}"))
        .collect();
    let _ = writeln!(out, "Endings: {}", endings.join(", "));
    if board.forfeits.is_empty() {
        let _ = writeln!(out, "Forfeits: none");
    } else {
        let mut list: Vec<(usize, &str, u32)> = board
            .forfeits
            .iter()
            .map(|((e, kind), n)| (*e, kind.word(), *n))
            .collect();
        list.sort();
        let list: Vec<String> = list
            .iter()
            .map(|(e, kind, n)| format!("{}: {kind} {n}", board.engines[*e]))
            .collect();
        let _ = writeln!(out, "Forfeits: {}", list.join(", "));
        for (said, n) in &board.sayings {
            let _ = writeln!(out, "  engine said ({n}x): {said}");
        }
    }
    if board.repeats > 0 {
        let _ = writeln!(
            out,
            "Warning: {} of {} games repeated an earlier game move for move (same start, same seats); the results count them twice. Vary the starts: --random-openings N or --openings FILE.",
            board.repeats,
            board.games()
        );
    }
}

/// How the engine processes were kept in step: restarts with their
/// reasons, and replies that answered no request. Nothing when neither
/// happened.
pub fn upkeep(names: &[String; 2], upkeep: &super::outcome::UpkeepCounts, out: &mut dyn Write) {
    let restarts: Vec<String> = (0..2)
        .filter(|&e| upkeep.restarts_of(e) > 0)
        .map(|e| {
            let why: Vec<String> = upkeep.restarts[e]
                .iter()
                .map(|(why, n)| format!("{n} {why}"))
                .collect();
            format!(
                "{} {} ({})",
                names[e],
                upkeep.restarts_of(e),
                why.join("; ")
            )
        })
        .collect();
    if !restarts.is_empty() {
        let _ = writeln!(out, "Engine restarts: {}", restarts.join(", "));
    }
    let strays: Vec<String> = (0..2)
        .filter(|&e| upkeep.strays[e] > 0)
        .map(|e| format!("{} {}", names[e], upkeep.strays[e]))
        .collect();
    if !strays.is_empty() {
        let _ = writeln!(
            out,
            "Replies to no request (a bestmove after its search was given up, or a second one; ignored): {}",
            strays.join(", ")
        );
    }
}

/// The machine's load over a match on a clock, and the warning when it
/// was busier than its cores.
pub fn machine(load: &super::load::MachineLoad, out: &mut dyn Write) {
    let _ = writeln!(out, "Machine: {load}");
    if load.busy() {
        let _ = writeln!(out, "{}", super::load::WARNING);
    }
}
