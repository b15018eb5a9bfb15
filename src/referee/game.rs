//! One game between engine processes, refereed move by move with the shared
//! rules code. Every way a game can end has its own path: the rules, the
//! ply limit, or a forfeit (illegal move, time loss, crash, stall, garbage,
//! flood).
//!
//! Liveness: a move with a time limit must come by its deadline (time
//! loss). A move without one (depth, nodes) may take as long as it takes,
//! as long as the engine answers an `isready` ping every `stall` interval
//! (fastchess's check); one that does not is stalled.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::clock::{Clocks, Overrun};
use super::config::PlaySettings;
use super::outcome::{Ending, Forfeit, Restart, Thought, Upkeep};
use super::process::{describe, EngineProcess, Heard};
use super::spec::Limit;
use menagerie_rules::game::session::DynSession;
use menagerie_rules::game::{Outcome, Seat, Status, MAX_SEATS};
use menagerie_rules::rng::Rng;
use menagerie_wire::command::Command;
use menagerie_wire::reply::Reply;

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub ending: Ending,
    /// Points of each engine.
    pub points: [f64; 2],
    /// Every move, rolls included.
    pub moves: Vec<String>,
    /// One per engine move, in order.
    pub thoughts: Vec<Thought>,
    /// The winning seat's letter, when one seat won (by the rules, or by a
    /// forfeit in a two-seat game).
    pub winning_seat: Option<char>,
    /// Milliseconds the referee spent between engine replies.
    pub referee_ms: f64,
    /// Restarts and ignored replies this game needed.
    pub upkeep: Upkeep,
}

/// Everything one game needs: the match's settings, read where they are
/// kept, and what is this game's own.
pub struct GameSpec<'a> {
    pub play: &'a PlaySettings,
    /// How long an engine may take to answer `isready`.
    pub stall: Duration,
    /// Notation of the position the game starts from.
    pub start: &'a str,
    /// Engine index of each seat.
    pub engine_of_seat: [usize; MAX_SEATS],
    /// Seeds the game's dice: both games of a pair get the same rolls.
    pub dice_seed: u64,
}

/// What one engine turn produced.
enum Turn {
    Move(String),
    Failed(Forfeit),
    Aborted,
}

/// How long an abandoned game (Ctrl-C) waits for a stopped search's
/// `bestmove`, at most: the engine is told to quit right after.
const ABANDONED_STOP_WAIT: Duration = Duration::from_millis(500);

/// Plays one game on engines already started; `None` if `abort` was set
/// (the game counts for nothing). Whenever the game ends while an engine
/// still thinks (its time loss, Ctrl-C), that engine is told to `stop`
/// and read up to that search's `bestmove`, so that nothing of it is
/// taken for a later request; one that does not answer by the stall
/// deadline, or that forfeited in a way that leaves it unusable, is
/// marked in [`Finished::upkeep`] for the caller to restart.
pub fn play(
    spec: &GameSpec,
    engines: &mut [EngineProcess; 2],
    abort: &AtomicBool,
) -> Option<Finished> {
    let strays_before = [engines[0].strays(), engines[1].strays()];
    let finished = play_moves(spec, engines, abort);
    let wait = match finished {
        Some(_) => spec.stall,
        None => spec.stall.min(ABANDONED_STOP_WAIT),
    };
    let mut upkeep = Upkeep::default();
    for (e, engine) in engines.iter_mut().enumerate() {
        let unusable = match &finished {
            Some(Finished {
                ending: Ending::Forfeit {
                    engine, forfeit, ..
                },
                ..
            }) if *engine == e && forfeit.needs_restart() => Some(forfeit.kind()),
            _ => None,
        };
        upkeep.restart[e] = match unusable {
            Some(kind) => Some(Restart::Forfeit(kind)),
            None => engine
                .settle(Instant::now() + wait)
                .err()
                .map(|why| Restart::NoAnswerToStop(why.to_string())),
        };
        if let Some(why) = &upkeep.restart[e] {
            log::warn!("engine {}: restarted ({why})", engine.name);
        }
        upkeep.strays[e] = engine.strays() - strays_before[e];
    }
    finished.map(|finished| Finished { upkeep, ..finished })
}

/// The moves of one game, until it ends or `abort`.
fn play_moves(
    spec: &GameSpec,
    engines: &mut [EngineProcess; 2],
    abort: &AtomicBool,
) -> Option<Finished> {
    let mut session = spec.play.rules.session(spec.play.entry);
    session
        .set_position(Some(spec.start), &[])
        .expect("the start notation was checked before the match");
    let order = session.seats_in_play();
    let mut seat_limits = [Limit::Depth(1); MAX_SEATS];
    for &seat in &order {
        seat_limits[seat as usize] = spec.play.limit_of(spec.engine_of_seat[seat as usize]);
    }
    let mut clocks = Clocks::new(seat_limits, &order, spec.play.margin_ms);
    let mut game = Game {
        spec,
        moves: Vec::new(),
        thoughts: Vec::new(),
        referee: Duration::ZERO,
    };
    let mut in_play: Vec<usize> = order
        .iter()
        .map(|&s| spec.engine_of_seat[s as usize])
        .collect();
    in_play.sort_unstable();
    in_play.dedup();
    for &e in &in_play {
        engines[e].take_errors();
        if let Err(forfeit) = new_game(&mut engines[e], spec) {
            return Some(game.forfeit(e, forfeit, &mut engines[e], session.as_ref()));
        }
    }

    let mut dice = Rng::new(spec.dice_seed);
    let mut plies = 0u32;
    let mut mark = Instant::now();
    loop {
        if let Status::Over(outcome, reason) = session.status() {
            game.referee += mark.elapsed();
            return Some(game.finish(Ending::Rules { outcome, reason }, session.as_ref()));
        }
        // Chance moves as the game's own chance device draws them.
        if let Some(outcome) = session.play_chance(&mut dice) {
            game.moves.push(outcome);
            continue;
        }
        if spec.play.max_plies.is_some_and(|max| plies >= max) {
            game.referee += mark.elapsed();
            return Some(game.finish(Ending::MaxPlies, session.as_ref()));
        }
        let seat = session.side();
        let e = spec.engine_of_seat[seat as usize];
        game.referee += mark.elapsed();
        let mut thought = Thought::default();
        let asked = Instant::now();
        let turn = ask_move(
            &mut engines[e],
            spec,
            &game.moves,
            &clocks,
            seat,
            abort,
            &mut thought,
        );
        mark = Instant::now();
        // The forfeited move's time, depth and score are kept too: they
        // say what went wrong.
        if matches!(turn, Turn::Failed(_)) {
            thought.ms = asked.elapsed().as_millis() as u64;
        }
        game.thoughts.push(thought);
        let mv = match turn {
            Turn::Move(mv) => mv,
            Turn::Failed(forfeit) => {
                return Some(game.forfeit(e, forfeit, &mut engines[e], session.as_ref()))
            }
            Turn::Aborted => return None,
        };
        if let Err(overrun) = clocks.charge(seat, thought.ms) {
            let forfeit = Forfeit::TimeLoss(overrun);
            return Some(game.forfeit(e, forfeit, &mut engines[e], session.as_ref()));
        }
        if session.play_moves(std::slice::from_ref(&mv)).is_err() {
            let forfeit = Forfeit::IllegalMove(mv);
            return Some(game.forfeit(e, forfeit, &mut engines[e], session.as_ref()));
        }
        game.moves.push(mv);
        plies += 1;
    }
}

struct Game<'a> {
    spec: &'a GameSpec<'a>,
    moves: Vec<String>,
    thoughts: Vec<Thought>,
    referee: Duration,
}

impl Game<'_> {
    fn forfeit(
        self,
        engine: usize,
        forfeit: Forfeit,
        process: &mut EngineProcess,
        session: &dyn DynSession,
    ) -> Finished {
        let said = process.take_errors().pop();
        self.finish(
            Ending::Forfeit {
                engine,
                forfeit,
                said,
            },
            session,
        )
    }

    fn finish(self, ending: Ending, session: &dyn DynSession) -> Finished {
        let spec = self.spec;
        let (points, winning_seat) = match &ending {
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
                // With two seats the other seat wins; with more, only the
                // other engine does.
                let seats = session.seats_in_play();
                let winner = (seats.len() == 2)
                    .then(|| {
                        seats
                            .iter()
                            .find(|&&s| spec.engine_of_seat[s as usize] != *engine)
                    })
                    .flatten()
                    .map(|&s| session.seat_letter_of(s));
                (points, winner)
            }
        };
        Finished {
            ending,
            points,
            moves: self.moves,
            thoughts: self.thoughts,
            winning_seat,
            referee_ms: self.referee.as_secs_f64() * 1000.0,
            upkeep: Upkeep::default(),
        }
    }
}

/// Tells an engine which game comes, and waits until it is ready.
fn new_game(engine: &mut EngineProcess, spec: &GameSpec) -> Result<(), Forfeit> {
    let newgame = Command::NewGame {
        game: spec.play.entry.id.to_string(),
        options: spec.play.rules.given.clone(),
    };
    engine.send(&newgame).map_err(|_| gone(engine))?;
    sync(engine, spec.stall)
}

/// `isready` until `readyok` within `stall`.
fn sync(engine: &mut EngineProcess, stall: Duration) -> Result<(), Forfeit> {
    engine.send(&Command::IsReady).map_err(|_| gone(engine))?;
    let deadline = Instant::now() + stall;
    loop {
        match engine.hear(deadline) {
            Heard::Reply(Reply::ReadyOk) if engine.pings() == 0 => return Ok(()),
            Heard::Reply(_) => {}
            Heard::Timeout => return Err(Forfeit::Stall),
            other => return Err(failure(other)),
        }
    }
}

/// The forfeit for an engine that could not be written to.
fn gone(engine: &mut EngineProcess) -> Forfeit {
    match engine.hear(Instant::now() + Duration::from_millis(100)) {
        Heard::Exited(how) => Forfeit::Crash(how),
        _ => Forfeit::Crash("closed its input".to_string()),
    }
}

/// The forfeit for something heard that is not a move.
fn failure(heard: Heard) -> Forfeit {
    match heard {
        Heard::Exited(how) => Forfeit::Crash(how),
        Heard::Flood => Forfeit::Flood,
        Heard::Timeout => Forfeit::Stall,
        other => Forfeit::Garbage(describe(&other)),
    }
}

/// Most lines an engine may print for one move before it floods.
const MAX_LINES_PER_MOVE: u32 = 100_000;

/// Sends `isready`, the position and `go` in one write, and waits for
/// the `bestmove` that answers this `go`: lines before the `readyok` of
/// that `isready` belong to earlier requests (a late answer is skipped
/// by [`EngineProcess::hear`], its `info` lines here).
fn ask_move(
    engine: &mut EngineProcess,
    spec: &GameSpec,
    moves: &[String],
    clocks: &Clocks,
    seat: Seat,
    abort: &AtomicBool,
    thought: &mut Thought,
) -> Turn {
    let position = Command::Position {
        notation: Some(spec.start.to_string()),
        moves: moves.to_vec(),
    };
    let go = Command::Go(clocks.go(seat));
    let started = Instant::now();
    if engine.send_all(&[Command::IsReady, position, go]).is_err() {
        return Turn::Failed(gone(engine));
    }
    let deadline = clocks
        .deadline_ms(seat)
        .map(|ms| started + Duration::from_millis(ms));
    // Untimed moves: when the next ping is due, or when the pending one
    // must have been answered.
    let mut next_ping = started + spec.stall;
    let mut ping_pending = false;
    let mut lines = 0u32;
    loop {
        if abort.load(Ordering::Relaxed) {
            return Turn::Aborted;
        }
        // Wake at least every so often to see an abort.
        let wake = deadline
            .unwrap_or(next_ping)
            .min(Instant::now() + Duration::from_millis(100));
        match engine.hear(wake) {
            Heard::Reply(reply) => {
                lines += 1;
                if lines > MAX_LINES_PER_MOVE {
                    return Turn::Failed(Forfeit::Flood);
                }
                match reply {
                    Reply::BestMove(mv) => {
                        thought.ms = started.elapsed().as_millis() as u64;
                        return match mv {
                            Some(mv) => Turn::Move(mv),
                            None => Turn::Failed(Forfeit::IllegalMove("(none)".to_string())),
                        };
                    }
                    Reply::Info(_) if !engine.answering() => {}
                    Reply::Info(info) => {
                        thought.depth = info.depth().or(thought.depth);
                        thought.score = info.score().or(thought.score);
                    }
                    Reply::ReadyOk => {
                        if engine.pings() == 0 {
                            ping_pending = false;
                            next_ping = Instant::now() + spec.stall;
                        }
                    }
                    Reply::Error { .. } | Reply::Remark(_) | Reply::GameOver { .. } => {}
                    Reply::Line(text) if text.trim().is_empty() => {}
                    other => {
                        return Turn::Failed(Forfeit::Garbage(format!(
                            "'{}'",
                            menagerie_wire::text::clip(&other.to_string())
                        )))
                    }
                }
            }
            Heard::Timeout => {
                let now = Instant::now();
                if deadline.is_some_and(|d| now >= d) {
                    return Turn::Failed(Forfeit::TimeLoss(Overrun {
                        used_ms: started.elapsed().as_millis() as u64,
                        allowed_ms: clocks
                            .deadline_ms(seat)
                            .unwrap_or(0)
                            .saturating_sub(spec.play.margin_ms),
                    }));
                }
                if deadline.is_none() && now >= next_ping {
                    if ping_pending {
                        return Turn::Failed(Forfeit::Stall);
                    }
                    if engine.send(&Command::IsReady).is_err() {
                        return Turn::Failed(gone(engine));
                    }
                    ping_pending = true;
                    next_ping = now + spec.stall;
                }
            }
            other => return Turn::Failed(failure(other)),
        }
    }
}
