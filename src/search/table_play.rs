//! Playing from endgame tables: at the root, the move the tables say is
//! best (a win kept with the fastest capture, a loss delayed, a draw
//! kept); inside the search, a position the tables hold is a leaf with
//! its exact value.

use std::sync::Arc;

use menagerie_rules::game::session::Session;
use menagerie_rules::game::Game;
use menagerie_tables::file::Expected;
use menagerie_tables::{probe, Probe, Tables, Wdl};

use super::{Info, Reporter, Score, SearchResult, Settings};

/// A won position the tables prove, in the search's scores: above any
/// evaluation, below the scores of a win seen to the end (as Stockfish
/// keeps its tablebase wins below its mates). Sooner captures score
/// higher.
pub const TABLE_WIN: i32 = 20_000;

/// The tables that hold positions of the session's game and ruleset, if
/// the settings use tables and any are built. Files left out since they
/// were last reported (when opened, or after failing a check) are named
/// through `reporter`.
pub fn tables_for<G: Game>(
    session: &Session<G>,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> Option<Arc<Tables>> {
    if !settings.tables {
        return None;
    }
    let expected = Expected::of::<G>(session.rules())?;
    let tables = probe::shared(&probe::directory(), &expected);
    report_problems(&tables, reporter);
    (!tables.is_empty()).then_some(tables)
}

/// Names each table file left out that has not been named yet.
pub fn report_problems(tables: &Tables, reporter: &mut dyn Reporter) {
    for problem in probe::news(tables) {
        reporter.text(&format!(
            "table file left out: {problem}; the search goes on without it ('tables build' replaces it)"
        ));
    }
}

/// Opens the game's tables and readies the numbering of their slices, so
/// that the first search on a clock pays for neither; `newgame` calls it.
pub fn prepare<G: Game>(session: &Session<G>, settings: &Settings, reporter: &mut dyn Reporter) {
    let (Some(tables), Some(endgame)) = (tables_for(session, settings, reporter), G::endgame())
    else {
        return;
    };
    for slice in tables.slices() {
        (endgame.slice_size)(slice);
    }
}

/// The search's score of a value from the tables.
pub fn score(value: Probe) -> i32 {
    let plies = value.plies.min(1000) as i32;
    match value.wdl {
        Wdl::Win => TABLE_WIN - plies,
        Wdl::Loss => -(TABLE_WIN - plies),
        Wdl::Draw => 0,
    }
}

/// The value of a position reached by a move, for the side to move there:
/// decided by the rules or read from the tables.
fn value_after<G: Game>(tables: &Tables, child: &G) -> Option<Probe> {
    match child.outcome() {
        Some(outcome) => Some(Probe {
            wdl: Wdl::of_outcome(outcome, child),
            plies: 0,
        }),
        None => tables.probe(child),
    }
}

/// A position's value and each legal move's, for the side to move.
pub type Analysis<M> = (Probe, Vec<(M, Probe)>);

/// The tables' value of the session's position and of each legal move
/// (for the side to move), or `None` if the tables do not hold them all.
pub fn analyse<G: Game>(session: &Session<G>, tables: &Tables) -> Option<Analysis<G::Move>> {
    let position = session.position();
    let root = tables.probe(position)?;
    let mut moves = Vec::new();
    session.legal(&mut moves);
    let values = moves
        .into_iter()
        .map(|mv| {
            let mut child = position.clone();
            child.play(mv);
            Some((mv, value_after(tables, &child)?.for_mover()))
        })
        .collect::<Option<Vec<_>>>()?;
    Some((root, values))
}

/// The move the tables choose, reported as a one-ply search; `None` when
/// the tables do not hold the position.
pub fn play<G: Game>(
    session: &Session<G>,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> Option<SearchResult<G::Move>> {
    let tables = tables_for(session, settings, reporter)?;
    let Some((root, moves)) = analyse(session, &tables) else {
        report_problems(&tables, reporter);
        return None;
    };
    // The tables know nothing of the game's history: a move that repeats
    // a position for the third time ends the game in a draw, whatever
    // they say of it (a lost side takes it; a winning side never needs
    // to, as its moves only shorten the way to the next capture).
    let history = session.history();
    let moves: Vec<(G::Move, Probe)> = moves
        .into_iter()
        .map(|(mv, value)| {
            let mut child = session.position().clone();
            child.play(mv);
            let seen = history.iter().filter(|&&h| h == child.hash()).count();
            let draw = Probe {
                wdl: Wdl::Draw,
                plies: 0,
            };
            (mv, if seen >= 2 { draw } else { value })
        })
        .collect();
    let (best, value) = moves.iter().copied().reduce(|best, next| {
        if next.1.better_than(best.1) {
            next
        } else {
            best
        }
    })?;
    let slice = session.position().table_key().map(|k| k.slice.to_string());
    reporter.text(&format!(
        "tables: {} table, {root}{}",
        slice.unwrap_or_default(),
        if root.wdl == Wdl::Draw {
            ""
        } else {
            " (moves to the capture that settles it)"
        }
    ));
    let score = Score::Cp(score(value));
    reporter.info(&Info {
        depth: 1,
        seldepth: 1,
        score,
        nodes: moves.len() as u64,
        time_ms: 0,
        hashfull: 0,
        pv: vec![&best],
    });
    Some(SearchResult {
        best: Some(best),
        score,
        nodes: moves.len() as u64,
    })
}
