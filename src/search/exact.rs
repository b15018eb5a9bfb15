//! The search's side of exact knowledge (the tables crate's
//! [`Exact`] layer): playing from it at the root, its values as scores at
//! the leaves, and naming the table files it left out.

use std::time::Instant;

use menagerie_rules::game::session::Session;
use menagerie_rules::game::Game;
use menagerie_tables::exact::Source;
use menagerie_tables::{Exact, Value};

use crate::vocabulary::{Info, Limits, Reporter, Score, SearchResult, Settings, Shared};

/// A won position an endgame table proves, in the search's scores: above
/// any evaluation, below the scores of a win seen to the end (as
/// Stockfish keeps its tablebase wins below its mates). Sooner captures
/// score higher.
pub const TABLE_WIN: i32 = 20_000;

/// The longest principal variation reported from exact knowledge.
const MOST_PV: usize = 64;

/// The layer for the session, if the settings use it and it knows
/// anything; waits for a solvable game's table until `give_up` says so.
/// Files left out since they were last named are named through
/// `reporter`.
pub fn open<G: Game>(
    session: &Session<G>,
    settings: &Settings,
    reporter: &mut dyn Reporter,
    give_up: impl Fn() -> bool,
) -> Option<Exact<G>> {
    if !settings.exact {
        return None;
    }
    let exact = Exact::open(session, &settings.tables, give_up);
    report_problems(&exact, reporter);
    (!exact.is_empty()).then_some(exact)
}

/// Names each table file left out that has not been named yet.
pub fn report_problems<G: Game>(exact: &Exact<G>, reporter: &mut dyn Reporter) {
    for problem in exact.problems() {
        report_problems_of(&problem, reporter);
    }
}

/// Names one table file left out.
pub fn report_problems_of(problem: &dyn std::fmt::Display, reporter: &mut dyn Reporter) {
    reporter.text(&format!(
        "table file left out: {problem}; the search goes on without it ('tables build' replaces it)"
    ));
}

/// Starts what exact knowledge needs before a clock runs; `newgame`
/// calls it.
pub fn prepare<G: Game>(session: &Session<G>, settings: &Settings, reporter: &mut dyn Reporter) {
    if settings.exact {
        for problem in Exact::prepare(session, &settings.tables) {
            report_problems_of(&problem, reporter);
        }
    }
}

/// The search's score of an exact value met below the root.
pub fn score(value: Value) -> i32 {
    let plies = value.plies().min(1000) as i32;
    match value {
        Value::Win(_) => TABLE_WIN - plies,
        Value::Loss(_) => -(TABLE_WIN - plies),
        Value::Draw => 0,
    }
}

/// The move exact knowledge chooses, with the line that follows, or
/// `None` where it does not hold the position. A search of fixed work
/// (depth, nodes, none) waits for a solvable game's table, which
/// `newgame` started, so that its answer never depends on the machine's
/// speed; `stop` still ends the wait. A search on a time limit does not
/// wait: it searches, and plays perfectly once the table is built.
pub fn play<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> Option<SearchResult<G::Move>> {
    let start = Instant::now();
    let timed = limits.hard_ms.is_some();
    let mut exact = open(session, settings, reporter, || timed || shared.stopped())?;
    let position = session.position();
    let Some((best, value)) = exact.best_move(position, Some(session.history())) else {
        // A file that failed a check on the way was left out at once.
        report_problems(&exact, reporter);
        return None;
    };
    let pv = exact.line(position, best, MOST_PV);
    let source = exact.source(position)?;
    // Said before the score, so that a program showing the score knows it
    // is exact when it shows it.
    let (score, nodes) = match source {
        // No move to play: the search says the game is over.
        Source::Rules => return None,
        Source::Solved { positions } => {
            reporter.text(&format!("solved: {positions} positions in the table"));
            let score = match value {
                Value::Win(_) => Score::Win(value.moves().unwrap_or(1)),
                Value::Loss(_) => Score::Loss(value.moves().unwrap_or(0)),
                Value::Draw => Score::Cp(0),
            };
            // Nodes are the positions of the line this answer walked, as
            // from the endgame tables; the table's size is said above.
            (score, pv.len() as u64)
        }
        Source::Table(slice) => {
            let settles = |value: Value| {
                if value == Value::Draw {
                    ""
                } else {
                    " (moves to the capture or the end that settles it)"
                }
            };
            match exact.value(position) {
                Some(root) => {
                    reporter.text(&format!("tables: {slice} table, {root}{}", settles(root)))
                }
                None => {
                    // The position's own file is left out (missing or
                    // failed a check): the value is the best move's, from
                    // the table after it.
                    let mut child = position.clone();
                    child.play(best);
                    let after = match child.table_slice() {
                        Some(slice) => format!("{slice} table after {best}"),
                        None => format!("the rules after {best}"),
                    };
                    reporter.text(&format!(
                        "tables: {after} (the position's own file is left out), {value}{}",
                        settles(value)
                    ));
                }
            }
            (Score::Cp(score(value)), pv.len() as u64)
        }
    };
    reporter.info(&Info {
        depth: pv.len() as u32,
        seldepth: pv.len() as u32,
        score,
        nodes,
        time_ms: start.elapsed().as_millis() as u64,
        hashfull: 0,
        pv: crate::vocabulary::line(&pv),
    });
    Some(SearchResult {
        best: Some(best),
        score,
        nodes,
    })
}
