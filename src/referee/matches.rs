//! A match, in steps, as fastchess splits it: open the record file
//! (locked, repaired, this match's games counted), schedule the games it
//! lacks, start the engines, hand the games to workers, count each
//! finished game (record, scoreboard, report, SPRT), and finish. The
//! match ends early when the SPRT decides, a record cannot be written, or
//! the user interrupts.

use std::collections::VecDeque;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::checksum::Fingerprint;
use super::config::{MatchConfig, Seating};
use super::load::{self, MachineLoad};
use super::outcome::{Ending, Score, UpkeepCounts};
use super::process::EngineProcess;
use super::record::{read_file_past_a_cut, Read, Record, RecordError, RecordFile, RecordFileError};
use super::report;
use super::schedule::{self, fingerprint};
use super::scoreboard::{Grouping, Scoreboard};
use super::workers::{being_stopped, start_engine, worker, Counted, Done, EngineFailure};

/// A match that could not start.
#[derive(Debug)]
pub enum MatchError {
    /// An engine did not start, or refused its options.
    Engine(EngineFailure),
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
        theirs: Fingerprint,
        ours: Fingerprint,
    },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MatchError::Engine(failure) => write!(f, "{failure}"),
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
    pub fingerprint: Fingerprint,
    pub board: Scoreboard,
    pub finish: Finish,
    /// Milliseconds the referee spent between engine replies, and the
    /// engine moves, for its overhead.
    pub referee_ms: f64,
    pub engine_moves: u64,
    /// Engine restarts and ignored replies in this run.
    pub upkeep: UpkeepCounts,
    /// How busy the machine was, for a match on a clock.
    pub load: Option<MachineLoad>,
}

/// A match under way: its settings, its record file, what it has counted.
pub struct Match<'a> {
    config: &'a MatchConfig,
    out: &'a mut dyn Write,
    interrupt: &'a AtomicBool,
    fingerprint: Fingerprint,
    board: Scoreboard,
    record_file: Option<RecordFile>,
    finish: Finish,
    /// Set when the match must end: workers take no new game.
    stop: Arc<AtomicBool>,
    referee_ms: f64,
    engine_moves: u64,
    upkeep: UpkeepCounts,
    load: Option<MachineLoad>,
    /// Games counted in this run, and how many it set out to play.
    finished_here: u32,
    to_play: u32,
}

/// Plays the match (or, with `--shard`, its slice; with `--resume`, what
/// its record file lacks). `interrupt` (Ctrl-C) ends it early.
pub fn run(
    config: &MatchConfig,
    out: &mut dyn Write,
    interrupt: &AtomicBool,
) -> Result<MatchOutcome, MatchError> {
    let mut game = Match::open(config, out, interrupt)?;
    let queue = game.schedule();
    if interrupt.load(Ordering::Relaxed) {
        return Ok(game.finish_as(Finish::Interrupted));
    }
    let Some(first) = game.start_engines()? else {
        return Ok(game.finish_as(Finish::Interrupted));
    };
    if config.dry_run {
        let _ = writeln!(
            game.out,
            "Dry run: the settings, records and engines are usable; no game played."
        );
        return Ok(game.finish_as(Finish::Completed));
    }
    game.play(queue, first);
    Ok(game.finish())
}

impl<'a> Match<'a> {
    /// Opens and repairs the record file (locked first: nothing is read
    /// or repaired while another referee may be writing) and counts the
    /// games of this match it holds.
    fn open(
        config: &'a MatchConfig,
        out: &'a mut dyn Write,
        interrupt: &'a AtomicBool,
    ) -> Result<Match<'a>, MatchError> {
        let names = config.play.names();
        let grouping = Grouping::of(config.play.seating, schedule::set_size(&config.play));
        let mut board = Scoreboard::new(
            [names[0].to_string(), names[1].to_string()],
            config.sprt,
            grouping,
        );
        let fingerprint = fingerprint(config);
        let record_file = match &config.record {
            Some(path) => {
                let mut file = RecordFile::open(path).map_err(MatchError::RecordFile)?;
                let read = existing(path, fingerprint, config.resume)?;
                if !config.resume && !read.records.is_empty() {
                    return Err(MatchError::AlreadyPlayed {
                        path: path.to_path_buf(),
                        games: read.records.len(),
                    });
                }
                if let Some(cut) = &read.cut {
                    // A write cut short (a crash, a full disk): that game
                    // was never finished on record and is played again.
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
        Ok(Match {
            config,
            out,
            interrupt,
            fingerprint,
            board,
            record_file,
            finish: Finish::Completed,
            stop: Arc::new(AtomicBool::new(false)),
            referee_ms: 0.0,
            engine_moves: 0,
            upkeep: UpkeepCounts::default(),
            load: None,
            finished_here: 0,
            to_play: 0,
        })
    }

    /// The games this run plays (those the records lack), and the header.
    fn schedule(&mut self) -> VecDeque<u32> {
        let config = self.config;
        let queue: VecDeque<u32> = schedule::sets_to_play(config)
            .into_iter()
            .flat_map(|set| schedule::games_of_set(config, set))
            .filter(|&index| !self.board.has(index))
            .collect();
        self.to_play = queue.len() as u32;
        if load::timed(config) && !config.dry_run && !queue.is_empty() {
            self.load = Some(MachineLoad::at_start(config));
        }
        if !config.quiet {
            report::header(config, self.to_play, self.out);
            warn_if_games_repeat(config, self.out);
            if let Some(machine) = self.load.as_ref().filter(|l| l.busy()) {
                report::machine(machine, self.out);
            }
        }
        queue
    }

    /// The first worker's engines, started here: a match whose engines do
    /// not start, or refuse an option, stops before any game. `None` when
    /// the referee is being stopped (a scheduler signals every process of
    /// a job: an engine killed by that signal is not at fault).
    fn start_engines(&self) -> Result<Option<[EngineProcess; 2]>, MatchError> {
        match (start_engine(self.config, 0), start_engine(self.config, 1)) {
            (Ok(a), Ok(b)) => Ok(Some([a, b])),
            (Err(_), _) | (_, Err(_)) if being_stopped(self.interrupt) => Ok(None),
            (Err(failure), _) | (_, Err(failure)) => Err(MatchError::Engine(failure)),
        }
    }

    /// Hands the games to workers and counts each as it finishes, until
    /// all are played or the match must end.
    fn play(&mut self, queue: VecDeque<u32>, first: [EngineProcess; 2]) {
        let config = self.config;
        let interrupt = self.interrupt;
        let queue = Mutex::new(queue);
        let (sender, results) = channel::<Done>();
        let started = Instant::now();
        let workers = config.concurrency.max(1).min(self.to_play.max(1) as usize);
        let stop = Arc::clone(&self.stop);
        std::thread::scope(|scope| {
            let mut first = Some(first);
            for _ in 0..workers {
                let engines = first.take().map(|[a, b]| [Some(a), Some(b)]);
                let sender = sender.clone();
                let (queue, stop) = (&queue, &*stop);
                scope.spawn(move || {
                    let mut engines = engines.unwrap_or([None, None]);
                    worker(config, &mut engines, queue, stop, interrupt, sender)
                });
            }
            drop(sender);
            loop {
                match results.recv_timeout(Duration::from_millis(100)) {
                    Ok(done) => self.on_finished(done),
                    Err(RecvTimeoutError::Timeout) => self.check_interrupt(),
                    Err(RecvTimeoutError::Disconnected) => {
                        // Workers also end on Ctrl-C, abandoning their games.
                        if interrupt.load(Ordering::Relaxed) {
                            self.end(Finish::Interrupted);
                        }
                        break;
                    }
                }
            }
        });
        if !config.quiet {
            let _ = writeln!(
                self.out,
                "Played {} games in {:.1} s",
                self.finished_here,
                started.elapsed().as_secs_f64()
            );
        }
    }

    /// Ends the match with `finish`, unless it has already ended: workers
    /// take no new game.
    fn end(&mut self, finish: Finish) {
        if matches!(self.finish, Finish::Completed) {
            self.finish = finish;
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    fn check_interrupt(&mut self) {
        if self.interrupt.load(Ordering::Relaxed) {
            self.end(Finish::Interrupted);
        }
    }

    /// A finished game: recorded, counted, reported; the SPRT may decide.
    /// The worker waits until this returns, so that no new game starts
    /// after a decision this game made.
    fn on_finished(&mut self, done: Done) {
        let _counted = Counted(done.counted.clone());
        // Finished while the referee is being stopped: it may have been
        // cut by the same signal; --resume plays it again.
        self.check_interrupt();
        if !matches!(self.finish, Finish::Completed | Finish::Decided) {
            return;
        }
        self.referee_ms += done.finished.referee_ms;
        self.engine_moves += done.finished.thoughts.len() as u64;
        self.upkeep.add(&done.finished.upkeep);
        if let (Some(machine), Some(reading)) = (self.load.as_mut(), done.load_reading) {
            machine.add(reading);
        }
        let record = self.record_of(&done);
        if let Some(file) = self.record_file.as_mut() {
            if let Err(why) = file.append(&record) {
                self.finish = Finish::RecordFailed(why);
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
        }
        self.finished_here += 1;
        let decided = self.board.add(&record);
        if !self.config.quiet {
            report::game_line(&record, self.config.games, &self.board, self.out);
            // The last game's block would only repeat the summary.
            let last = self.finished_here == self.to_play;
            let interval = self.config.rating_interval;
            if interval > 0 && self.finished_here % interval == 0 && !last {
                report::block(&self.board, self.out);
            }
        }
        if decided {
            self.finish = Finish::Decided;
            self.stop.store(true, Ordering::Relaxed);
            if let (false, Some(state)) = (self.config.quiet, &self.board.sprt) {
                let _ = writeln!(
                    self.out,
                    "SPRT: {} after {} games; stopping",
                    state.verdict,
                    self.board.games()
                );
            }
        }
    }

    /// The end, as it came.
    fn finish(self) -> MatchOutcome {
        MatchOutcome {
            fingerprint: self.fingerprint,
            board: self.board,
            finish: self.finish,
            referee_ms: self.referee_ms,
            engine_moves: self.engine_moves,
            upkeep: self.upkeep,
            load: self.load,
        }
    }

    /// Ends before any game, as `finish` says.
    fn finish_as(mut self, finish: Finish) -> MatchOutcome {
        self.finish = finish;
        self.finish()
    }

    /// The record of a finished game.
    fn record_of(&self, done: &Done) -> Record {
        let config = self.config;
        let fingerprint = &self.fingerprint;
        let names = config.play.names();
        let entry = config.play.entry;
        let finished = &done.finished;
        // The winner and the engine that forfeited follow from the result.
        let detail = match &finished.ending {
            Ending::Forfeit { forfeit, said, .. } => Some(match said {
                Some(said) => format!("{forfeit}; it said: {said}"),
                None => forfeit.to_string(),
            }),
            _ => None,
        };
        Record {
            fingerprint: *fingerprint,
            game: config.play.entry.id.to_string(),
            rules: config
                .play
                .rules
                .ruleset
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
                        entry.seat_letter(s),
                        names[done.engine_of_seat[s as usize]].to_string(),
                    )
                })
                .collect(),
            seating: config.play.seating,
            result: Score::of_points(finished.points),
            seat: finished.winning_seat,
            reason: finished.ending.reason(),
            detail: detail.map(|d| d.replace(['\t', '\n'], " ")),
            moves: finished.moves.clone(),
            thoughts: finished.thoughts.clone(),
        }
    }
}

/// The records of this match already in `path` (none if it does not
/// exist); records of another match are an error, so that results of
/// different settings are never added up.
/// The records of this match in the record file (a cut last line left
/// out). Resuming, a game of another match is an error; otherwise other
/// matches' games are left alone and only this match's are returned.
fn existing(
    path: &std::path::Path,
    fingerprint: Fingerprint,
    resume: bool,
) -> Result<Read, MatchError> {
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
            theirs: other.fingerprint,
            ours: fingerprint,
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
