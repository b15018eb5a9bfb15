//! A match: games handed to worker threads that each own one process of
//! each engine, results recorded and added up as they finish, reports as
//! it goes, and an early end when the SPRT decides, a record cannot be
//! written, or the user interrupts.

use std::collections::VecDeque;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, RecvTimeoutError, Sender, SyncSender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::config::{MatchConfig, Seating};
use super::game::{play, Ending, Finished, Forfeit, GameSpec, Score};
use super::process::{EngineProcess, StartError};
use super::record::{read_file_past_a_cut, Read, Record, RecordError, RecordFile, RecordFileError};
use super::report;
use super::schedule::{self, dice_seed, fingerprint, seating, set_start};
use super::scoreboard::{Grouping, Scoreboard};
use menagerie_rules::game::{Seat, MAX_SEATS};

/// A match that could not start.
#[derive(Debug)]
pub enum MatchError {
    /// An engine did not start, or refused its options.
    Engine { name: String, why: StartError },
    /// The record file cannot be opened or locked.
    RecordFile(RecordFileError),
    /// The record file cannot be read back.
    Records(RecordError),
    /// Without `--resume`, the record file already holds games of this
    /// very match: playing it again would add them twice.
    AlreadyPlayed {
        path: std::path::PathBuf,
        games: usize,
    },
    /// The record file holds a game of another match: its number and
    /// that match's fingerprint.
    OtherMatch {
        path: std::path::PathBuf,
        game: u32,
        theirs: String,
        ours: String,
    },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MatchError::Engine { name, why } => write!(f, "engine {name}: {why}"),
            MatchError::RecordFile(e) => write!(f, "record file {e}"),
            MatchError::Records(e) => write!(f, "record file {e}"),
            MatchError::AlreadyPlayed { path, games } => write!(
                f,
                "record file {} already holds {games} game(s) of this match; add --resume to play only the games it lacks, or record to another file",
                path.display()
            ),
            MatchError::OtherMatch {
                path,
                game,
                theirs,
                ours,
            } => write!(
                f,
                "record file {} holds game {game} of another match (settings {theirs}, this match {ours}); resume with the same settings, --seed and engine programs (an engine rebuilt since makes a new match: record it to another file)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for MatchError {}

/// How a match that started came to its end.
#[derive(Debug)]
pub enum Finish {
    /// Every game was played.
    Completed,
    /// The SPRT decided.
    Decided,
    /// Ctrl-C.
    Interrupted,
    /// A record could not be written; the match stopped.
    RecordFailed(RecordFileError),
}

/// The end of a match.
pub struct MatchOutcome {
    /// The fingerprint of the match's settings.
    pub fingerprint: String,
    pub board: Scoreboard,
    pub finish: Finish,
    /// Milliseconds the referee spent between engine replies, and the
    /// engine moves, for its overhead.
    pub referee_ms: f64,
    pub engine_moves: u64,
}

/// Tells a worker, when dropped, that its game has been counted.
struct Counted(SyncSender<()>);

impl Drop for Counted {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// One finished game from a worker.
struct Done {
    /// Answered once the result is counted, so that no new game starts
    /// after a decision that this game made.
    counted: SyncSender<()>,
    index: u32,
    start: String,
    engine_of_seat: [usize; MAX_SEATS],
    order: Vec<Seat>,
    finished: Finished,
}

/// Plays the match (or, with `--shard`, its slice; with `--resume`, what
/// its record file lacks). `stop` (Ctrl-C) ends it early.
pub fn run(
    config: &MatchConfig,
    out: &mut dyn Write,
    interrupt: &AtomicBool,
) -> Result<MatchOutcome, MatchError> {
    let names = config.play.names();
    let grouping = Grouping::of(config.play.seating, schedule::set_size(&config.play));
    let mut board = Scoreboard::new(
        [names[0].to_string(), names[1].to_string()],
        config.sprt,
        grouping,
    );
    let fingerprint = fingerprint(config);
    let mut record_file = match &config.record {
        Some(path) => {
            // Locked first: nothing is read or repaired while another
            // referee may be writing.
            let mut file = RecordFile::open(path).map_err(MatchError::RecordFile)?;
            let read = existing(path, &fingerprint, config.resume)?;
            if !config.resume && !read.records.is_empty() {
                return Err(MatchError::AlreadyPlayed {
                    path: path.to_path_buf(),
                    games: read.records.len(),
                });
            }
            if let Some(cut) = &read.cut {
                // A write cut short (a crash, a full disk): that game was
                // never finished on record and is played again.
                file.truncate(cut.whole_bytes)
                    .map_err(MatchError::RecordFile)?;
                let _ = writeln!(
                    out,
                    "Record file {}: line {} was cut short and is removed; its game is played again",
                    path.display(),
                    cut.line
                );
            }
            for record in read.records {
                if !board.has(record.index) {
                    board.add(&record);
                }
            }
            Some(file)
        }
        None => None,
    };
    let queue: VecDeque<u32> = schedule::sets_to_play(config)
        .into_iter()
        .flat_map(|set| schedule::games_of_set(config, set))
        .filter(|&index| !board.has(index))
        .collect();
    let to_play = queue.len() as u32;
    if !config.quiet {
        report::header(config, to_play, out);
        warn_if_games_repeat(config, out);
    }
    // The first worker's engines start here: a match whose engines do not
    // start, or refuse an option, stops before any game (each is started
    // once; these play the first games).
    let stopped_before_a_game = |fingerprint, board| {
        Ok(MatchOutcome {
            fingerprint,
            board,
            finish: Finish::Interrupted,
            referee_ms: 0.0,
            engine_moves: 0,
        })
    };
    if interrupt.load(Ordering::Relaxed) {
        return stopped_before_a_game(fingerprint, board);
    }
    let first = match (start_engine(config, 0), start_engine(config, 1)) {
        (Ok(a), Ok(b)) => [a, b],
        (Err(why), _) | (_, Err(why)) => {
            // Killed by the signal that is stopping the referee (a
            // scheduler signals every process of a job): not the engine's
            // fault, and nothing was played.
            if being_stopped(interrupt) {
                return stopped_before_a_game(fingerprint, board);
            }
            return Err(why);
        }
    };
    if config.dry_run {
        let _ = writeln!(
            out,
            "Dry run: the settings, records and engines are usable; no game played."
        );
        return Ok(MatchOutcome {
            fingerprint,
            board,
            finish: Finish::Completed,
            referee_ms: 0.0,
            engine_moves: 0,
        });
    }
    let queue = Mutex::new(queue);
    let stop = AtomicBool::new(false);
    let (sender, results) = channel::<Done>();
    let mut finish = Finish::Completed;
    let mut referee_ms = 0.0;
    let mut engine_moves = 0u64;
    let mut finished_here = 0u32;
    let started = Instant::now();
    std::thread::scope(|scope| {
        let mut first = Some(first);
        for _ in 0..config.concurrency.max(1).min(to_play.max(1) as usize) {
            let engines = first.take().map(|[a, b]| [Some(a), Some(b)]);
            let sender = sender.clone();
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || {
                let mut engines = engines.unwrap_or([None, None]);
                worker(config, &mut engines, queue, stop, interrupt, sender)
            });
        }
        drop(sender);
        loop {
            let done = match results.recv_timeout(Duration::from_millis(100)) {
                Ok(done) => done,
                Err(RecvTimeoutError::Timeout) => {
                    if interrupt.load(Ordering::Relaxed) && matches!(finish, Finish::Completed) {
                        finish = Finish::Interrupted;
                        stop.store(true, Ordering::Relaxed);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Workers also end on Ctrl-C, abandoning their games.
                    if interrupt.load(Ordering::Relaxed) && matches!(finish, Finish::Completed) {
                        finish = Finish::Interrupted;
                    }
                    break;
                }
            };
            // The worker waits for this until the result is counted.
            let _counted = Counted(done.counted.clone());
            if interrupt.load(Ordering::Relaxed) && matches!(finish, Finish::Completed) {
                // Finished while the referee is being stopped: it may have
                // been cut by the same signal; --resume plays it again.
                finish = Finish::Interrupted;
                stop.store(true, Ordering::Relaxed);
            }
            if !matches!(finish, Finish::Completed | Finish::Decided) {
                continue;
            }
            referee_ms += done.finished.referee_ms;
            engine_moves += done.finished.thoughts.len() as u64;
            let record = to_record(config, &fingerprint, &done);
            if let Some(file) = record_file.as_mut() {
                if let Err(why) = file.append(&record) {
                    finish = Finish::RecordFailed(why);
                    stop.store(true, Ordering::Relaxed);
                    continue;
                }
            }
            finished_here += 1;
            let decided = board.add(&record);
            if !config.quiet {
                report::game_line(&record, config.games, &board, out);
                // The last game's block would only repeat the summary.
                let last = finished_here == to_play;
                if config.rating_interval > 0
                    && finished_here % config.rating_interval == 0
                    && !last
                {
                    report::block(&board, out);
                }
            }
            if decided {
                finish = Finish::Decided;
                stop.store(true, Ordering::Relaxed);
                if !config.quiet {
                    if let Some(state) = &board.sprt {
                        let _ = writeln!(
                            out,
                            "SPRT: {} after {} games; stopping",
                            state.verdict,
                            board.games()
                        );
                    }
                }
            }
        }
    });
    if !config.quiet {
        let _ = writeln!(
            out,
            "Played {finished_here} games in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(MatchOutcome {
        fingerprint,
        board,
        finish,
        referee_ms,
        engine_moves,
    })
}

/// The records of this match already in `path` (none if it does not
/// exist); records of another match are an error, so that results of
/// different settings are never added up.
/// The records of this match in the record file (a cut last line left
/// out). Resuming, a game of another match is an error; otherwise other
/// matches' games are left alone and only this match's are returned.
fn existing(path: &std::path::Path, fingerprint: &str, resume: bool) -> Result<Read, MatchError> {
    // A device or a pipe (/dev/full, a FIFO) holds no records to read.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(Read {
            records: Vec::new(),
            cut: None,
        });
    }
    // Without --resume the file is only appended to: its other lines,
    // whatever they are, are left alone.
    let mut read = read_file_past_a_cut(path, !resume).map_err(MatchError::Records)?;
    if !resume {
        read.records.retain(|r| r.fingerprint == fingerprint);
        return Ok(read);
    }
    if let Some(other) = read.records.iter().find(|r| r.fingerprint != fingerprint) {
        return Err(MatchError::OtherMatch {
            path: path.to_path_buf(),
            game: other.index + 1,
            theirs: other.fingerprint.clone(),
            ours: fingerprint.to_string(),
        });
    }
    Ok(read)
}

/// Games with no dice from one start are alike for deterministic engines.
fn warn_if_games_repeat(config: &MatchConfig, out: &mut dyn Write) {
    let sets = schedule::sets(config);
    let starts = if !config.play.openings.is_empty() {
        config.play.openings.len() as u32
    } else if config.play.random_openings > 0 {
        sets
    } else {
        1
    };
    if !config.play.entry.has_chance && sets > starts {
        let what = match config.play.seating {
            Seating::Alternate => "pairs",
            Seating::Lone => "sets",
        };
        let _ = writeln!(
            out,
            "Warning: {sets} {what} from {starts} start(s): deterministic engines (a fixed depth, nodes, Skill 20) will repeat games. Use --random-openings N or a longer --openings file."
        );
    }
}

/// Starts engine `e` for the match and sets its options.
fn start_engine(config: &MatchConfig, e: usize) -> Result<EngineProcess, MatchError> {
    let spec = &config.play.engines[e];
    let fail = |why| MatchError::Engine {
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
fn being_stopped(interrupt: &AtomicBool) -> bool {
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

fn worker(
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
        let done = Done {
            counted: counted.clone(),
            index,
            start,
            engine_of_seat,
            order,
            finished,
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
    if let Some(Finished {
        ending: Ending::Forfeit {
            engine, forfeit, ..
        },
        ..
    }) = &finished
    {
        if forfeit.needs_restart() {
            // The whole process group goes; the next game starts afresh.
            if let Some(mut process) = engines[*engine].take() {
                process.kill();
            }
        }
    }
    finished
}

fn to_record(config: &MatchConfig, fingerprint: &str, done: &Done) -> Record {
    let names = config.play.names();
    let mut session = config
        .play
        .entry
        .session(&config.play.rules)
        .expect("the ruleset was checked");
    session
        .set_position(Some(&done.start), &[])
        .expect("checked");
    let finished = &done.finished;
    let winner = if finished.points[0] > finished.points[1] {
        Some(names[0].to_string())
    } else if finished.points[1] > finished.points[0] {
        Some(names[1].to_string())
    } else {
        None
    };
    let (by, detail) = match &finished.ending {
        Ending::Forfeit {
            engine,
            forfeit,
            said,
        } => (
            Some(names[*engine].to_string()),
            Some(match said {
                Some(said) => format!("{forfeit}; it said: {said}"),
                None => forfeit.to_string(),
            }),
        ),
        _ => (None, None),
    };
    Record {
        fingerprint: fingerprint.to_string(),
        game: config.play.entry.id.to_string(),
        rules: session
            .ruleset()
            .to_string()
            .split_whitespace()
            .map(String::from)
            .collect(),
        start: done.start.clone(),
        seed: config.play.seed,
        set: schedule::set_of(config, done.index),
        index: done.index,
        games: config.games,
        engines: [names[0].to_string(), names[1].to_string()],
        seats: done
            .order
            .iter()
            .map(|&s| {
                (
                    session.seat_letter_of(s),
                    names[done.engine_of_seat[s as usize]].to_string(),
                )
            })
            .collect(),
        seating: config.play.seating,
        result: Score::of_points(finished.points),
        winner,
        seat: finished.winning_seat,
        reason: finished.ending.reason(),
        by,
        detail: detail.map(|d| d.replace(['\t', '\n'], " ")),
        moves: finished.moves.clone(),
        thoughts: finished.thoughts.clone(),
    }
}
