//! Perfect play from a solved table: win fastest, lose slowest, or keep the
//! draw (choosing among drawing moves by the evaluation, to give the
//! opponent chances to go wrong).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::game_solver::{self, built_solution_for, solution_for, Clocked, Solution, Value};
use super::{Info, Reporter, Score, SearchResult};
use menagerie_rules::game::session::{status_of, Session};
use menagerie_rules::game::{Game, Outcome, Status};

/// The value of the position and of each legal move (for the side to move).
pub struct Analysis<M> {
    pub value: Value,
    pub moves: Vec<(M, Value)>,
}

/// Why a position has no analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsolved {
    /// The game has too many positions to solve.
    NotSolvable,
    /// Stopped while the table was still being built.
    Stopped,
}

/// Solves the session's position under the full rules (its clock
/// included), or `None` if the game is not solvable.
pub fn analyse<G: Game>(session: &Session<G>) -> Option<Analysis<G::Move>> {
    analyse_until(session, &AtomicBool::new(false)).ok()
}

/// [`analyse`], waiting for the table (built in the background) only
/// until `stop` is set.
pub fn analyse_until<G: Game>(
    session: &Session<G>,
    stop: &AtomicBool,
) -> Result<Analysis<G::Move>, Unsolved> {
    if session.position().solver_key().is_none() {
        return Err(Unsolved::NotSolvable);
    }
    if !wait_until_built(session, || stop.load(Ordering::Relaxed)) {
        return Err(Unsolved::Stopped);
    }
    let table = table_for(session).ok_or(Unsolved::NotSolvable)?;
    let mut clocked = Clocked::new(&table);
    let position = session.position();
    let value = clocked.value(position).ok_or(Unsolved::NotSolvable)?;
    let mut moves = Vec::new();
    position.generate(&mut moves);
    let moves = moves
        .into_iter()
        .map(|mv| {
            let mut child = position.clone();
            child.play(mv);
            let value = clocked
                .value(&child)
                .expect("a solution holds every position it reaches");
            (mv, value.for_mover())
        })
        .collect();
    Ok(Analysis { value, moves })
}

/// Starts the build of the session's table if needed and waits for it
/// until `stopped` says so; whether it is built.
pub fn wait_until_built<G: Game>(session: &Session<G>, stopped: impl Fn() -> bool) -> bool {
    if !is_built(session) {
        build_in_background(session);
        while !is_built(session) {
            if stopped() {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    true
}

fn table_for<G: Game>(session: &Session<G>) -> Option<Arc<Solution>> {
    let (ruleset, start) = ruleset_and_start(session);
    solution_for(&ruleset, &start, session.position())
}

/// What the solver's cache knows a session's tables by.
fn ruleset_and_start<G: Game>(session: &Session<G>) -> (String, G) {
    (format!("{:?}", session.rules()), G::start(session.rules()))
}

/// Whether the table for the session's position is built, so that a
/// search on the clock can use it at once.
pub fn is_built<G: Game>(session: &Session<G>) -> bool {
    let (ruleset, start) = ruleset_and_start(session);
    built_solution_for(&ruleset, &start, session.position()).is_some()
}

/// Starts building the table for the session's position without waiting.
pub fn build_in_background<G: Game>(session: &Session<G>) {
    let (ruleset, start) = ruleset_and_start(session);
    game_solver::build_in_background(ruleset, start, session.position().clone());
}

/// Starts building the table of the session's ruleset in the background
/// (on `newgame`, so that it is ready before a clock runs), if the game is
/// solvable and the table is not built yet.
pub fn prepare<G: Game>(session: &Session<G>) {
    if session.position().solver_key().is_some() && !is_built(session) {
        build_in_background(session);
    }
}

/// The practical order between moves of equal value, greatest best: the
/// game goes on, the share of gifts, minus times seen, minus the
/// opponent's evaluation.
type Taste = (bool, u32, i32, i32);

/// The best move of a solved position and its value: the fastest win, a
/// move that keeps the draw, or the slowest loss. Between moves of equal
/// value the choice is made for fallible opponents: the move after which
/// the largest share of the opponent's replies gives something away (a
/// drawn position turning into a win for us, a lost one into at least a
/// draw), then the position seen least often, then the evaluation.
///
/// The table knows nothing of the game's history; given the `history` of
/// the game (hashes, current position last), a move that ends the game in
/// a draw by repetition or no progress is valued as the draw it is: a lost
/// side takes it, a winning side avoids it, and a side that holds a draw
/// plays on with another drawing move if it has one.
fn best_move<G: Game>(
    position: &G,
    table: &mut Clocked<G>,
    history: Option<&[u64]>,
) -> Option<(G::Move, Value)> {
    let mut moves = Vec::new();
    position.generate(&mut moves);
    let mut best: Option<(G::Move, Value, Taste)> = None;
    let mut replies = Vec::new();
    let mut line = history.map(<[u64]>::to_vec).unwrap_or_default();
    for mv in moves {
        let mut child = position.clone();
        child.play(mv);
        let key = child.hash();
        let seen = line.iter().filter(|&&h| h == key).count() as i32;
        line.push(key);
        let ends_drawn =
            history.is_some() && matches!(status_of(&child, &line), Status::Over(Outcome::Draw, _));
        line.pop();
        let value = if ends_drawn {
            Value::Draw
        } else {
            table.value(&child)?.for_mover()
        };
        let taste = match value {
            _ if ends_drawn => (false, 0, 0, 0),
            Value::Win(_) => (false, 0, 0, 0),
            _ => (
                true,
                gift_share(&child, value, table, &mut replies),
                -seen,
                -child.evaluate(),
            ),
        };
        // Perfect play first (fastest win, draw, slowest loss); only
        // between moves of equal value, the practical choice.
        let better = match best {
            None => true,
            Some((_, v, t)) => value.better_than(v) || (value == v && taste > t),
        };
        if better {
            best = Some((mv, value, taste));
        }
    }
    best.map(|(mv, v, _)| (mv, v))
}

/// Per mille of the opponent's replies in `child` that leave us better off
/// than `value` (our value after the move that led to `child`).
fn gift_share<G: Game>(
    child: &G,
    value: Value,
    table: &mut Clocked<G>,
    replies: &mut Vec<G::Move>,
) -> u32 {
    replies.clear();
    child.generate(replies);
    if replies.is_empty() {
        return 0;
    }
    let gifts = replies
        .iter()
        .filter(|&&reply| {
            let mut grandchild = child.clone();
            grandchild.play(reply);
            // The value for us, who move in the grandchild.
            table.value(&grandchild).is_some_and(|v| {
                v.better_than(value) && !matches!((v, value), (Value::Loss(_), Value::Loss(_)))
            })
        })
        .count();
    (gifts * 1000 / replies.len()) as u32
}

pub fn search<G: Game>(session: &Session<G>, reporter: &mut dyn Reporter) -> SearchResult<G::Move> {
    let start = Instant::now();
    let Some(table) = table_for(session) else {
        return SearchResult {
            best: None,
            score: Score::Cp(0),
            nodes: 0,
        };
    };
    let mut clocked = Clocked::new(&table);
    let Some((mv, value)) = best_move(session.position(), &mut clocked, Some(session.history()))
    else {
        return SearchResult {
            best: None,
            score: Score::Cp(0),
            nodes: 0,
        };
    };
    // The principal variation: both sides keep playing their best move.
    let mut pv = vec![mv];
    let mut line = session.position().clone();
    line.play(mv);
    while pv.len() < 64 {
        match best_move(&line, &mut clocked, None) {
            Some((next, _)) if value != Value::Draw => {
                pv.push(next);
                line.play(next);
            }
            _ => break,
        }
    }
    let score = match value {
        Value::Win(_) => Score::Win(value.moves().unwrap_or(1)),
        Value::Loss(_) => Score::Loss(value.moves().unwrap_or(0)),
        Value::Draw => Score::Cp(0),
    };
    let nodes = table.len() as u64;
    // Said before the score, so that a program showing the score knows it
    // is exact when it shows it.
    reporter.text(&format!("solved: {} positions in the table", table.len()));
    reporter.info(&Info {
        depth: pv.len() as u32,
        seldepth: pv.len() as u32,
        score,
        nodes,
        time_ms: start.elapsed().as_millis() as u64,
        hashfull: 0,
        pv: super::line(&pv),
    });
    SearchResult {
        best: Some(mv),
        score,
        nodes,
    }
}
