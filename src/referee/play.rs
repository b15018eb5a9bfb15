//! One game between engine processes, refereed move by move with the shared
//! rules code. Every way a game can end has its own path: the rules, the
//! ply limit, or a forfeit (illegal move, time loss, crash, stall, garbage).

use std::fmt;
use std::time::{Duration, Instant};

use super::engine::{EngineProcess, Reply};
use super::spec::Limit;
use crate::game::session::DynSession;
use crate::game::{EndReason, Outcome, Seat, Status, MAX_SEATS};
use crate::rng::Rng;
use crate::runtime::registry::GameEntry;

/// Why an engine lost by forfeit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    IllegalMove(String),
    TimeLoss,
    Crash,
    /// No reply within the stall limit.
    Stall,
    /// A line that is not part of the protocol.
    Garbage(String),
}

impl Forfeit {
    /// A short name for counts in the summary.
    pub fn kind(&self) -> &'static str {
        match self {
            Forfeit::IllegalMove(_) => "illegal move",
            Forfeit::TimeLoss => "time loss",
            Forfeit::Crash => "crash",
            Forfeit::Stall => "stall",
            Forfeit::Garbage(_) => "garbage output",
        }
    }

    /// Whether the process should be killed and started again.
    pub fn needs_restart(&self) -> bool {
        matches!(self, Forfeit::Crash | Forfeit::Stall | Forfeit::Garbage(_))
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Rules {
        outcome: Outcome,
        reason: EndReason,
    },
    /// Adjudicated a draw at the ply limit.
    MaxPlies,
    Forfeit {
        engine: usize,
        forfeit: Forfeit,
    },
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub ending: Ending,
    /// Points of each engine.
    pub points: [f64; 2],
    /// Every move, rolls included.
    pub moves: Vec<String>,
    /// The winning seat's letter, if a seat won by the rules.
    pub winner: Option<char>,
    /// Milliseconds the referee spent between engine replies, and moves.
    pub referee_ms: f64,
    pub engine_moves: u32,
}

/// Everything one game needs.
pub struct GameSpec<'a> {
    pub entry: &'static GameEntry,
    pub rules: &'a [String],
    /// Notation of the position the game starts from.
    pub start: &'a str,
    /// Engine index of each seat.
    pub engine_of_seat: [usize; MAX_SEATS],
    pub limits: [Limit; 2],
    /// Seeds the game's dice: both games of a pair get the same rolls.
    pub dice_seed: u64,
    pub max_plies: Option<u32>,
    pub stall: Duration,
    /// Time over the clock forgiven before a time loss.
    pub margin_ms: u64,
    pub names: [&'a str; 2],
}

impl Ending {
    /// The reason as written in records and progress lines.
    pub fn describe(&self, names: [&str; 2]) -> String {
        match self {
            Ending::Rules { reason, .. } => reason.to_string(),
            Ending::MaxPlies => "max-plies".to_string(),
            Ending::Forfeit { engine, forfeit } => {
                let name = names[*engine];
                match forfeit {
                    Forfeit::IllegalMove(mv) => format!("illegal move {mv} by {name}"),
                    Forfeit::TimeLoss => format!("time loss by {name}"),
                    Forfeit::Crash => format!("crash of {name}"),
                    Forfeit::Stall => format!("stall of {name}"),
                    Forfeit::Garbage(_) => format!("garbage output from {name}"),
                }
            }
        }
    }
}

/// What one engine turn produced.
enum Turn {
    Move(String),
    Failed(Forfeit),
}

impl fmt::Display for Finished {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(result_text(self.points))
    }
}

/// `1-0`, `0-1` or `1/2-1/2` from the first engine's view.
pub fn result_text(points: [f64; 2]) -> &'static str {
    if points[0] > points[1] {
        "1-0"
    } else if points[0] < points[1] {
        "0-1"
    } else {
        "1/2-1/2"
    }
}

/// Plays one game. `engines` are started already; an engine that forfeits
/// in a way that leaves it unusable is left for the caller to restart.
pub fn play(spec: &GameSpec, engines: &mut [EngineProcess; 2]) -> Finished {
    let mut session = spec
        .entry
        .session(spec.rules)
        .expect("the ruleset was checked before the match");
    session
        .set_position(Some(spec.start), &[])
        .expect("the start notation was checked before the match");
    let seat_order = session.seats_in_play();
    let mut clocks = [0u64; MAX_SEATS];
    for &seat in &seat_order {
        if let Limit::Clock { base_ms, .. } = spec.limits[spec.engine_of_seat[seat as usize]] {
            clocks[seat as usize] = base_ms;
        }
    }
    let mut game = Game {
        spec,
        moves: Vec::new(),
        referee: Duration::ZERO,
        engine_moves: 0,
    };
    let seats_used: Vec<usize> = {
        let mut e: Vec<usize> = seat_order
            .iter()
            .map(|&s| spec.engine_of_seat[s as usize])
            .collect();
        e.sort_unstable();
        e.dedup();
        e
    };
    for &e in &seats_used {
        if let Err(forfeit) = start_game(&mut engines[e], spec) {
            return game.finish(Ending::Forfeit { engine: e, forfeit }, &*session);
        }
    }

    let mut dice = Rng::new(spec.dice_seed);
    let mut plies = 0u32;
    let mut mark = Instant::now();
    loop {
        if let Status::Over(outcome, reason) = session.status() {
            game.referee += mark.elapsed();
            return game.finish(Ending::Rules { outcome, reason }, &*session);
        }
        if session.awaiting_chance() {
            let roll = format!("r{}", dice.die());
            session
                .play_moves(std::slice::from_ref(&roll))
                .expect("every roll is legal at a chance node");
            game.moves.push(roll);
            continue;
        }
        if spec.max_plies.is_some_and(|max| plies >= max) {
            game.referee += mark.elapsed();
            return game.finish(Ending::MaxPlies, &*session);
        }
        let seat = session.side();
        let e = spec.engine_of_seat[seat as usize];
        game.referee += mark.elapsed();
        let started = Instant::now();
        let turn = ask_move(
            &mut engines[e],
            spec,
            &game.moves,
            &clocks,
            &seat_order,
            seat,
        );
        let elapsed = started.elapsed();
        mark = Instant::now();
        let mv = match turn {
            Turn::Move(mv) => mv,
            Turn::Failed(forfeit) => {
                return game.finish(Ending::Forfeit { engine: e, forfeit }, &*session)
            }
        };
        if let Limit::Clock { inc_ms, .. } = spec.limits[e] {
            let used = elapsed.as_millis() as u64;
            let left = clocks[seat as usize];
            if used > left + spec.margin_ms {
                return game.finish(
                    Ending::Forfeit {
                        engine: e,
                        forfeit: Forfeit::TimeLoss,
                    },
                    &*session,
                );
            }
            clocks[seat as usize] = left.saturating_sub(used) + inc_ms;
        }
        if let Limit::MoveTime(ms) = spec.limits[e] {
            if elapsed.as_millis() as u64 > ms + spec.margin_ms {
                return game.finish(
                    Ending::Forfeit {
                        engine: e,
                        forfeit: Forfeit::TimeLoss,
                    },
                    &*session,
                );
            }
        }
        if session.play_moves(std::slice::from_ref(&mv)).is_err() {
            return game.finish(
                Ending::Forfeit {
                    engine: e,
                    forfeit: Forfeit::IllegalMove(mv),
                },
                &*session,
            );
        }
        game.moves.push(mv);
        game.engine_moves += 1;
        plies += 1;
    }
}

struct Game<'a> {
    spec: &'a GameSpec<'a>,
    moves: Vec<String>,
    referee: Duration,
    engine_moves: u32,
}

impl Game<'_> {
    fn finish(self, ending: Ending, session: &dyn DynSession) -> Finished {
        let spec = self.spec;
        let (points, winner) = match &ending {
            Ending::Rules {
                outcome: Outcome::Win(seat),
                ..
            } => {
                let e = spec.engine_of_seat[*seat as usize];
                let mut points = [0.0; 2];
                points[e] = 1.0;
                (points, Some(session.seat_letter_of(*seat)))
            }
            Ending::Rules { .. } | Ending::MaxPlies => ([0.5, 0.5], None),
            Ending::Forfeit { engine, .. } => {
                let mut points = [1.0; 2];
                points[*engine] = 0.0;
                (points, None)
            }
        };
        Finished {
            ending,
            points,
            moves: self.moves,
            winner,
            referee_ms: self.referee.as_secs_f64() * 1000.0,
            engine_moves: self.engine_moves,
        }
    }
}

/// Tells an engine which game comes, and waits until it is ready.
fn start_game(engine: &mut EngineProcess, spec: &GameSpec) -> Result<(), Forfeit> {
    let mut line = format!("newgame {}", spec.entry.id);
    for word in spec.rules {
        line.push(' ');
        line.push_str(word);
    }
    engine.send(&line).map_err(|_| Forfeit::Crash)?;
    engine.sync(spec.stall).map_err(|why| {
        if why.contains("exited") {
            Forfeit::Crash
        } else {
            Forfeit::Stall
        }
    })
}

/// The `go` line for the seat to move, and the time it is allowed.
fn go_line(
    spec: &GameSpec,
    clocks: &[u64; MAX_SEATS],
    seat_order: &[Seat],
    seat: Seat,
) -> (String, u64) {
    let increment = |s: Seat| match spec.limits[spec.engine_of_seat[s as usize]] {
        Limit::Clock { inc_ms, .. } => inc_ms,
        _ => 0,
    };
    let left = clocks[seat as usize];
    match spec.limits[spec.engine_of_seat[seat as usize]] {
        // Two seats: both clocks, as UCI does; the first seat is `w`.
        Limit::Clock { .. } if seat_order.len() == 2 => {
            let (w, b) = (seat_order[0], seat_order[1]);
            let line = format!(
                "go wtime {} btime {} winc {} binc {}",
                clocks[w as usize],
                clocks[b as usize],
                increment(w),
                increment(b)
            );
            (line, left)
        }
        Limit::Clock { inc_ms, .. } => (format!("go time {left} inc {inc_ms}"), left),
        Limit::MoveTime(ms) => (format!("go movetime {ms}"), ms),
        Limit::Depth(d) => (format!("go depth {d}"), 0),
        Limit::Nodes(n) => (format!("go nodes {n}"), 0),
    }
}

/// Sends the position and `go`, and waits for `bestmove`.
fn ask_move(
    engine: &mut EngineProcess,
    spec: &GameSpec,
    moves: &[String],
    clocks: &[u64; MAX_SEATS],
    seat_order: &[Seat],
    seat: Seat,
) -> Turn {
    let mut position = format!("position fen {}", spec.start);
    if !moves.is_empty() {
        position.push_str(" moves");
        for mv in moves {
            position.push(' ');
            position.push_str(mv);
        }
    }
    let (go, allowed_ms) = go_line(spec, clocks, seat_order, seat);
    if engine.send_lines(&[&position, &go]).is_err() {
        return Turn::Failed(Forfeit::Crash);
    }
    let deadline = Instant::now() + Duration::from_millis(allowed_ms + spec.margin_ms) + spec.stall;
    loop {
        match engine.read(deadline) {
            Reply::Line(text) => {
                let mut words = text.split_whitespace();
                match words.next() {
                    None | Some("info") => continue,
                    Some("bestmove") => {
                        return match words.next() {
                            Some(mv) => Turn::Move(mv.to_string()),
                            None => Turn::Failed(Forfeit::Garbage(text)),
                        }
                    }
                    Some(_) => return Turn::Failed(Forfeit::Garbage(text)),
                }
            }
            Reply::Garbled => {
                return Turn::Failed(Forfeit::Garbage("bytes that are not UTF-8".into()))
            }
            Reply::Closed => return Turn::Failed(Forfeit::Crash),
            Reply::Timeout => return Turn::Failed(Forfeit::Stall),
        }
    }
}
