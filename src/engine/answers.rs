//! The commands that only read the position and answer: `d`, `legal`,
//! `query`, `games` and `help`, as typed replies.

use std::fmt;
use std::sync::Arc;

use crate::session::EngineSession;
use crate::session::Entry;
use menagerie_nnue::Network;
use menagerie_rules::game::{Outcome, Status};
use menagerie_wire::command::Query;
use menagerie_wire::reply::{FieldKey, GameFact, GameResult, Reply};

/// A question `query` cannot answer for this game.
#[derive(Debug)]
pub struct QueryError {
    question: &'static str,
    seats: usize,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} is for two-seat games and this one has {} seats (ask side or status)",
            self.question, self.seats
        )
    }
}

impl std::error::Error for QueryError {}

/// The result and reason of a finished game, as replies write them.
pub fn result_of(session: &dyn EngineSession, outcome: Outcome) -> GameResult {
    match outcome {
        Outcome::Win(seat) => GameResult::Win(session.seat_letter_of(seat)),
        Outcome::Draw => GameResult::Draw,
    }
}

/// `info string game over: <result> (<reason>)` if the game is over.
pub fn game_over(session: &dyn EngineSession) -> Option<Reply> {
    match session.status() {
        Status::Ongoing => None,
        Status::Over(outcome, reason) => Some(Reply::GameOver {
            result: result_of(session, outcome),
            reason: reason.to_string(),
        }),
    }
}

/// `ongoing`, `win <seat> (<reason>)` or `draw (<reason>)`.
fn status_text(session: &dyn EngineSession, parens: bool) -> String {
    match session.status() {
        Status::Ongoing => "ongoing".to_string(),
        Status::Over(outcome, reason) if parens => {
            format!("{} ({reason})", result_of(session, outcome))
        }
        Status::Over(outcome, reason) => format!("{} {reason}", result_of(session, outcome)),
    }
}

/// `d`: the board drawing, then the game, notation, side and status.
pub fn display(session: &dyn EngineSession) -> Vec<Reply> {
    let mut replies: Vec<Reply> = session
        .draw()
        .lines()
        .map(|l| Reply::Line(l.to_string()))
        .collect();
    let ruleset = session.ruleset().to_string();
    let game = if ruleset.is_empty() {
        session.game_id().to_string()
    } else {
        format!("{} {ruleset}", session.game_id())
    };
    for (key, value) in [
        (FieldKey::Game, game),
        (FieldKey::Notation, session.notation()),
        (FieldKey::Side, session.side_letter().to_string()),
        (FieldKey::Status, status_text(session, true)),
    ] {
        replies.push(Reply::Field { key, value });
    }
    replies
}

/// The evaluation searches use, in one remark: the network (`describe`)
/// or the hand-written one and why.
pub fn evaluation_in_use(net: Option<&Network>, use_network: bool) -> String {
    match net {
        Some(net) => format!("evaluation network {}", net.describe()),
        None if !use_network => "evaluation hand-written (UseNetwork is false)".to_string(),
        None => "evaluation hand-written (no network for this game and ruleset)".to_string(),
    }
}

/// `eval`: the evaluation in use, then each seat's value by it (with a
/// network, each seat's chance too: its expected score with one head,
/// its chance to win with one head a seat).
pub fn eval(
    session: &dyn EngineSession,
    net: Option<&Arc<Network>>,
    use_network: bool,
) -> Vec<Reply> {
    let mut replies = vec![Reply::Line(evaluation_in_use(
        net.map(|n| &**n),
        use_network,
    ))];
    match net {
        Some(net) => {
            for (seat, chance, value) in session.network_view(net) {
                replies.push(Reply::Line(format!(
                    "seat {} chance {chance:.4} value {value}",
                    session.seat_letter_of(seat)
                )));
            }
        }
        None => {
            for (seat, value) in session.hand_values() {
                replies.push(Reply::Line(format!(
                    "seat {} value {value}",
                    session.seat_letter_of(seat)
                )));
            }
        }
    }
    replies
}

pub fn legal(session: &dyn EngineSession) -> Reply {
    Reply::Legal(session.legal_moves())
}

/// The answer to `query`.
pub fn query(session: &dyn EngineSession, question: Query) -> Result<Reply, QueryError> {
    let seats = session.seats_in_play();
    let two_seats = || {
        if seats.len() == 2 {
            Ok(())
        } else {
            Err(QueryError {
                question: question.word(),
                seats: seats.len(),
            })
        }
    };
    let answer = match question {
        Query::GameOver => (session.status() != Status::Ongoing).to_string(),
        Query::P1Turn => {
            two_seats()?;
            (session.side() == seats[0]).to_string()
        }
        Query::Result => {
            two_seats()?;
            match session.status() {
                Status::Ongoing => "none".to_string(),
                Status::Over(Outcome::Draw, _) => "draw".to_string(),
                Status::Over(Outcome::Win(seat), _) if seat == seats[0] => "p1win".to_string(),
                Status::Over(Outcome::Win(_), _) => "p2win".to_string(),
            }
        }
        Query::Side => session.side_letter().to_string(),
        Query::Status => status_text(session, false),
        Query::Legal => session.legal_moves().join(" "),
        Query::Chance => session.awaiting_chance().to_string(),
        Query::Seats => session
            .seat_letters()
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" "),
    };
    Ok(Reply::Response(answer))
}

/// `games`: every fact of every game, then `gamesok`.
pub fn catalogue(games: &[Entry]) -> Vec<Reply> {
    let mut replies = Vec::new();
    for game in games {
        let mut facts = vec![
            GameFact::Name(game.name.to_string()),
            GameFact::Aliases(game.aliases.iter().map(|a| a.to_string()).collect()),
            GameFact::Chance(game.has_chance),
        ];
        for (letter, name) in game.seat_letters.iter().zip(game.seat_names) {
            facts.push(GameFact::Seat {
                letter: *letter,
                name: name.to_string(),
            });
        }
        for option in game.options {
            facts.push(GameFact::Option {
                key: option.key.to_string(),
                default: option.values[0].to_string(),
                values: option.values.iter().map(|v| v.to_string()).collect(),
            });
        }
        facts.push(GameFact::Moves(game.move_syntax.to_string()));
        for (reason, meaning) in game.all_end_reasons() {
            facts.push(GameFact::End {
                reason: reason.to_string(),
                meaning: meaning.to_string(),
            });
        }
        replies.extend(facts.into_iter().map(|fact| Reply::Catalogue {
            game: game.id.to_string(),
            fact,
        }));
    }
    replies.push(Reply::GamesOk);
    replies
}

pub fn help(games: &[Entry]) -> Vec<Reply> {
    let mut replies: Vec<Reply> = HELP.lines().map(|l| Reply::Line(l.to_string())).collect();
    replies.push(Reply::Line("Games:".into()));
    for game in games {
        let mut line = format!("  {}", game.id);
        if !game.aliases.is_empty() {
            line.push_str(&format!(" (also {})", game.aliases.join(", ")));
        }
        if !game.options.is_empty() {
            line.push_str(&format!(": {}", game.options_summary()));
        }
        replies.push(Reply::Line(line));
    }
    replies
}

const HELP: &str = "\
Commands (see protocol.md):
  uci | ugi | isready | ucinewgame | uginewgame | quit | stop
  setoption name <option> value <v>  Hash, Threads, Skill, Seed, Move Overhead,
                                     MultiSeat, TablePath, UseTables, EvalFile,
                                     UseNetwork, UCI_Variant, <game>.<ruleset option>,
                                     <game>.EvalFile
  newgame <game> [key=value ...]     select a game and ruleset, start position
  position startpos|fen <notation> [moves <m> ...]
  move <m> [<m> ...]                 play moves on the current position
  go [depth n] [nodes n] [movetime ms] [wtime ms] [btime ms] [winc ms] [binc ms]
     [time ms] [inc ms] [movestogo n] [infinite]
  go perft <n> | perft <n>           count leaf nodes, split by root move
  legal                              list the legal moves
  query <question>                   gameover, p1turn, result, side, status, legal, seats, chance
  games                              the games, their options, seats and moves
  solve [nodes n] [memory mib] [keys history|clock] [checkpoint path] [certificate path]
                                     exact value of the position and each move (solved games,
                                     endgame tables), else a proof search of n nodes
  tables build|verify|status|bench|plan <game> [key=value ...] [men=n] [dir=path] [slice=MvO]
                                     endgame tables (Awithlaknannai Mosona)
  selfplay <game> [key=value ...] games=n out=path [nodes=n] [openings=p] [seed=s] [shard=i/n]
                                     self-play games written as training data (resumable)
  roll                               play a chance outcome (a die roll) drawn by the engine
  dataset <selfplay file> out=path   the games' positions as a network's training data
  d                                  draw the board, notation, side and status
  eval                               the evaluation in use and each seat's value by it
  bench [search|perft|eval|playouts [n]|threads [n]]
                                     speed measurements
  help";
