//! The match's workers: each owns one process of each engine, takes the
//! next game from the queue, plays it, and hands the result to the match,
//! waiting until it is counted.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Sender, SyncSender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::config::MatchConfig;
use super::game::{play, Finished, GameSpec};
use super::outcome::{Ending, Forfeit};
use super::process::{EngineProcess, StartError};
use super::schedule::{self, dice_seed, seating, set_start};
use menagerie_rules::game::{Seat, MAX_SEATS};

/// Tells a worker, when dropped, that its game has been counted.
pub struct Counted(pub SyncSender<()>);

impl Drop for Counted {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// One finished game from a worker.
pub struct Done {
    /// Answered once the result is counted, so that no new game starts
    /// after a decision that this game made.
    pub counted: SyncSender<()>,
    pub index: u32,
    pub start: String,
    pub engine_of_seat: [usize; MAX_SEATS],
    pub order: Vec<Seat>,
    pub finished: Finished,
    /// Other threads runnable when the game ended, for a match on a
    /// clock ([`super::load`]).
    pub load_reading: Option<f64>,
}

/// An engine that did not start, or refused its options.
#[derive(Debug)]
pub struct EngineFailure {
    pub name: String,
    pub why: StartError,
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "engine {}: {}", self.name, self.why)
    }
}

impl std::error::Error for EngineFailure {}

/// Starts engine `e` for the match and sets its options.
pub fn start_engine(config: &MatchConfig, e: usize) -> Result<EngineProcess, EngineFailure> {
    let spec = &config.play.engines[e];
    let fail = |why| EngineFailure {
        name: spec.name.clone(),
        why,
    };
    let mut process =
        EngineProcess::start(&spec.command, &spec.name, config.startup).map_err(fail)?;
    process
        .configure(&spec.options, config.stall)
        .map_err(fail)?;
    Ok(process)
}

/// How long after an engine's death a signal to the referee may still
/// arrive when both come from one source: a scheduler cancelling a job
/// signals all of its processes in one sweep, a terminal its foreground
/// group, in whatever order the processes then run.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Whether the referee is being stopped, or is told to stop within
/// [`SHUTDOWN_GRACE`]: asked when an engine died or failed, before that
/// counts against it.
pub fn being_stopped(interrupt: &AtomicBool) -> bool {
    let deadline = Instant::now() + SHUTDOWN_GRACE;
    loop {
        if interrupt.load(Ordering::Relaxed) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A worker's life: games from `queue` until it is empty or `stop`.
pub fn worker(
    config: &MatchConfig,
    engines: &mut [Option<EngineProcess>; 2],
    queue: &Mutex<VecDeque<u32>>,
    stop: &AtomicBool,
    interrupt: &AtomicBool,
    sender: Sender<Done>,
) {
    let (counted, was_counted) = sync_channel::<()>(1);
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let Some(index) = queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front() else {
            return;
        };
        let set = schedule::set_of(config, index);
        let start = set_start(config, set);
        let (engine_of_seat, order) = seating(config, &start, index);
        // A game in progress runs to its end when the SPRT decides (it
        // then counts for the score) and is abandoned only on Ctrl-C.
        let Some(finished) = play_one(config, engines, &start, engine_of_seat, set, interrupt)
        else {
            return;
        };
        if let Ending::Forfeit { forfeit, .. } = &finished.ending {
            if forfeit.may_be_a_signal() && being_stopped(interrupt) {
                return;
            }
        }
        let load_reading = super::load::timed(config)
            .then(|| super::load::reading_at_game_end(config))
            .flatten();
        let done = Done {
            counted: counted.clone(),
            index,
            start,
            engine_of_seat,
            order,
            finished,
            load_reading,
        };
        if sender.send(done).is_err() || was_counted.recv().is_err() {
            return;
        }
    }
}

/// Plays one game on this worker's engines, starting any that are not
/// running and killing any that the game left unusable.
fn play_one(
    config: &MatchConfig,
    engines: &mut [Option<EngineProcess>; 2],
    start: &str,
    engine_of_seat: [usize; MAX_SEATS],
    set: u32,
    interrupt: &AtomicBool,
) -> Option<Finished> {
    for e in 0..2 {
        if engines[e].as_mut().is_some_and(|p| !p.alive()) {
            engines[e] = None;
        }
        if engines[e].is_none() {
            match start_engine(config, e) {
                Ok(p) => engines[e] = Some(p),
                Err(why) => {
                    log::warn!("{why}");
                    let mut points = [1.0; 2];
                    points[e] = 0.0;
                    return Some(Finished {
                        ending: Ending::Forfeit {
                            engine: e,
                            forfeit: Forfeit::NoStart(why.to_string()),
                            said: None,
                        },
                        points,
                        moves: Vec::new(),
                        thoughts: Vec::new(),
                        winning_seat: None,
                        referee_ms: 0.0,
                        upkeep: Default::default(),
                    });
                }
            }
        }
    }
    let spec = GameSpec {
        play: &config.play,
        stall: config.stall,
        start,
        engine_of_seat,
        dice_seed: dice_seed(config, set),
    };
    let [a, b] = engines;
    let mut pair_of_processes = [
        a.take().expect("started above"),
        b.take().expect("started above"),
    ];
    let finished = play(&spec, &mut pair_of_processes, interrupt);
    let [a2, b2] = pair_of_processes;
    *a = Some(a2);
    *b = Some(b2);
    if let Some(finished) = &finished {
        for (e, restart) in finished.upkeep.restart.iter().enumerate() {
            if restart.is_some() {
                // The whole process group goes; the next game starts afresh.
                if let Some(mut process) = engines[e].take() {
                    process.kill();
                }
            }
        }
    }
    finished
}
