//! A match: games in pairs (same opening, same dice, seats swapped), played
//! by worker threads that each own one process of each engine, with results
//! recorded as they finish and summed into score, Elo, LOS, pentanomial
//! counts and an optional SPRT that may stop the match early.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

use super::engine::EngineProcess;
use super::play::{play, result_text, Ending, Finished, Forfeit, GameSpec};
use super::record::Record;
use super::spec::{EngineSpec, Limit};
use super::stats::{elo_interval, los, Pentanomial, Sprt, Tally, Verdict};
use crate::game::{Status, MAX_SEATS};
use crate::rng::Rng;
use crate::runtime::registry::GameEntry;

pub struct MatchConfig {
    pub engines: [EngineSpec; 2],
    pub entry: &'static GameEntry,
    pub rules: Vec<String>,
    pub games: u32,
    /// The limit of engines that set none of their own.
    pub limit: Limit,
    pub concurrency: usize,
    pub seed: u64,
    /// Start notations, used in turn, one per pair.
    pub openings: Vec<String>,
    /// Random plies from the start when there is no opening file.
    pub random_openings: u32,
    pub record: Option<PathBuf>,
    pub max_plies: Option<u32>,
    pub sprt: Option<Sprt>,
    pub quiet: bool,
    /// How long past its time an engine may stay silent before it forfeits.
    pub stall: Duration,
    pub margin_ms: u64,
}

#[derive(Debug)]
pub enum MatchError {
    Engine { name: String, why: String },
    Record { path: PathBuf, why: String },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MatchError::Engine { name, why } => write!(f, "engine {name}: {why}"),
            MatchError::Record { path, why } => write!(f, "record file {}: {why}", path.display()),
        }
    }
}

impl std::error::Error for MatchError {}

/// The outcome of a match.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub tally: Tally,
    pub pentanomial: Pentanomial,
    /// (engine, forfeit kind) -> count.
    pub forfeits: BTreeMap<(usize, &'static str), u32>,
    pub llr: Option<f64>,
    pub verdict: Option<Verdict>,
    /// Points of the first engine per game index.
    pub results: BTreeMap<u32, f64>,
    pub referee_ms: f64,
    pub engine_moves: u64,
}

/// 64 well-mixed bits from the match seed, a pair and a purpose.
fn derive(seed: u64, pair: u32, purpose: u64) -> u64 {
    Rng::new(seed ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ purpose).next_u64()
}

const DICE: u64 = 0xD1CE;
const OPENING: u64 = 0x0BE1;

/// The start of a pair: an opening from the list, a random opening, or the
/// ruleset's start.
fn pair_start(config: &MatchConfig, pair: u32) -> String {
    let mut session = config
        .entry
        .session(&config.rules)
        .expect("the ruleset was checked");
    if !config.openings.is_empty() {
        return config.openings[pair as usize % config.openings.len()].clone();
    }
    if config.random_openings == 0 {
        return session.notation();
    }
    let start = session.boxed();
    let mut rng = Rng::new(derive(config.seed, pair, OPENING));
    // A random opening that already ends the game is drawn again.
    for _ in 0..100 {
        session = start.boxed();
        let mut plies = 0;
        while plies < config.random_openings && session.status() == Status::Ongoing {
            let moves = session.legal_moves();
            let mv = moves[rng.below(moves.len() as u64) as usize].clone();
            if !session.awaiting_chance() {
                plies += 1;
            }
            session.play_moves(&[mv]).expect("a legal move plays");
        }
        if session.status() == Status::Ongoing {
            break;
        }
    }
    session.notation()
}

/// Which engine plays each seat in game `index` of the match.
fn seating(config: &MatchConfig, start: &str, index: u32) -> ([usize; MAX_SEATS], Vec<u8>) {
    let mut session = config
        .entry
        .session(&config.rules)
        .expect("the ruleset was checked");
    session
        .set_position(Some(start), &[])
        .expect("openings were checked");
    let order = session.seats_in_play();
    let mut engine_of_seat = [0; MAX_SEATS];
    for (i, &seat) in order.iter().enumerate() {
        engine_of_seat[seat as usize] = (i + index as usize % 2) % 2;
    }
    (engine_of_seat, order)
}

fn limit_of(config: &MatchConfig, e: usize) -> Limit {
    config.engines[e].limit.unwrap_or(config.limit)
}

/// A result line from a worker.
struct Done {
    index: u32,
    start: String,
    engine_of_seat: [usize; MAX_SEATS],
    order: Vec<u8>,
    finished: Finished,
}

/// Starts each engine once to check it speaks the protocol.
pub fn check_engines(config: &MatchConfig) -> Result<(), MatchError> {
    for spec in &config.engines {
        EngineProcess::start(spec, config.stall.max(Duration::from_secs(5))).map_err(|e| {
            MatchError::Engine {
                name: spec.name.clone(),
                why: e.to_string(),
            }
        })?;
    }
    Ok(())
}

pub fn run(config: &MatchConfig, out: &mut dyn Write) -> Result<Summary, MatchError> {
    check_engines(config)?;
    let mut record_file = match &config.record {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| MatchError::Record {
                    path: path.clone(),
                    why: e.to_string(),
                })?,
        ),
        None => None,
    };
    let names = [
        config.engines[0].name.as_str(),
        config.engines[1].name.as_str(),
    ];
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let (sender, results) = channel::<Done>();
    let mut summary = Summary::default();
    let mut pairs: HashMap<u32, f64> = HashMap::new();
    let mut finished_games = 0u32;

    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1) {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || worker(config, next, stop, sender));
        }
        drop(sender);
        for done in results {
            finished_games += 1;
            let index = done.index;
            let points = done.finished.points[0];
            summary.tally.add(points);
            summary.results.insert(index, points);
            summary.referee_ms += done.finished.referee_ms;
            summary.engine_moves += done.finished.engine_moves as u64;
            if let Ending::Forfeit { engine, forfeit } = &done.finished.ending {
                *summary
                    .forfeits
                    .entry((*engine, forfeit.kind()))
                    .or_default() += 1;
            }
            if let Some(other) = pairs.remove(&(index / 2)) {
                summary.pentanomial.add(other + points);
            } else {
                pairs.insert(index / 2, points);
            }
            let record = to_record(config, &done, names);
            if let Some(file) = record_file.as_mut() {
                write_record(file, &record);
            }
            if !config.quiet {
                let _ = writeln!(
                    out,
                    "Finished game {} of {} ({} vs {}): {} {{{}}}",
                    index + 1,
                    config.games,
                    names[0],
                    names[1],
                    record.result,
                    describe(&record)
                );
                let _ = writeln!(out, "{}", score_line(&summary.tally, names));
            }
            if let Some(sprt) = &config.sprt {
                let llr = if summary.pentanomial.pairs() >= 2 {
                    sprt.llr_pentanomial(&summary.pentanomial)
                } else {
                    sprt.llr_trinomial(&summary.tally)
                };
                summary.llr = Some(llr);
                let verdict = sprt.verdict(llr);
                summary.verdict = Some(verdict);
                if verdict != Verdict::Continue
                    && !stop.swap(true, Ordering::Relaxed)
                    && !config.quiet
                {
                    let _ = writeln!(
                        out,
                        "SPRT: {verdict} after {finished_games} games; stopping"
                    );
                }
            }
        }
    });
    print_summary(config, &summary, out);
    Ok(summary)
}

fn worker(
    config: &MatchConfig,
    next: &AtomicU32,
    stop: &AtomicBool,
    sender: std::sync::mpsc::Sender<Done>,
) {
    let mut engines: [Option<EngineProcess>; 2] = [None, None];
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= config.games {
            return;
        }
        let pair = index / 2;
        let start = pair_start(config, pair);
        let (engine_of_seat, order) = seating(config, &start, index);
        let finished = play_one(config, &mut engines, &start, engine_of_seat, pair);
        if sender
            .send(Done {
                index,
                start,
                engine_of_seat,
                order,
                finished,
            })
            .is_err()
        {
            return;
        }
    }
}

/// Plays one game on this worker's engines, starting any that are not
/// running and dropping any that the game left unusable.
fn play_one(
    config: &MatchConfig,
    engines: &mut [Option<EngineProcess>; 2],
    start: &str,
    engine_of_seat: [usize; MAX_SEATS],
    pair: u32,
) -> Finished {
    for e in 0..2 {
        if engines[e].as_mut().is_some_and(|p| !p.alive()) {
            engines[e] = None;
        }
        if engines[e].is_none() {
            match EngineProcess::start(&config.engines[e], config.stall.max(Duration::from_secs(5)))
            {
                Ok(p) => engines[e] = Some(p),
                Err(why) => {
                    log::warn!("engine {} did not start: {why}", config.engines[e].name);
                    let mut points = [1.0; 2];
                    points[e] = 0.0;
                    return Finished {
                        ending: Ending::Forfeit {
                            engine: e,
                            forfeit: Forfeit::Crash,
                        },
                        points,
                        moves: Vec::new(),
                        winner: None,
                        referee_ms: 0.0,
                        engine_moves: 0,
                    };
                }
            }
        }
    }
    let spec = GameSpec {
        entry: config.entry,
        rules: &config.rules,
        start,
        engine_of_seat,
        limits: [limit_of(config, 0), limit_of(config, 1)],
        dice_seed: derive(config.seed, pair, DICE),
        max_plies: config.max_plies,
        stall: config.stall,
        margin_ms: config.margin_ms,
        names: [&config.engines[0].name, &config.engines[1].name],
    };
    let [a, b] = engines;
    let mut pair_of_processes = [
        a.take().expect("started above"),
        b.take().expect("started above"),
    ];
    let finished = play(&spec, &mut pair_of_processes);
    let [a2, b2] = pair_of_processes;
    *a = Some(a2);
    *b = Some(b2);
    if let Ending::Forfeit { engine, forfeit } = &finished.ending {
        if forfeit.needs_restart() {
            // Killed by its own process id; the next game starts it afresh.
            if let Some(mut process) = engines[*engine].take() {
                process.kill();
            }
        }
    }
    finished
}

fn to_record(config: &MatchConfig, done: &Done, names: [&str; 2]) -> Record {
    let mut session = config
        .entry
        .session(&config.rules)
        .expect("the ruleset was checked");
    session
        .set_position(Some(&done.start), &[])
        .expect("checked");
    Record {
        game: config.entry.id.to_string(),
        rules: session
            .ruleset()
            .to_string()
            .split_whitespace()
            .map(String::from)
            .collect(),
        start: done.start.clone(),
        seed: config.seed,
        pair: done.index / 2,
        index: done.index,
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
        result: result_text(done.finished.points).to_string(),
        winner: done
            .finished
            .winner
            .map_or("-".to_string(), |c| c.to_string()),
        reason: done.finished.ending.describe(names),
        moves: done.finished.moves.clone(),
    }
}

/// Appends and flushes one line, so a killed match loses no finished game.
fn write_record(file: &mut File, record: &Record) {
    if let Err(e) = writeln!(file, "{record}")
        .and_then(|_| file.flush())
        .and_then(|_| file.sync_data())
    {
        log::error!("cannot write a game record: {e}");
    }
}

fn describe(record: &Record) -> String {
    match record.winner.as_str() {
        "-" => record.reason.clone(),
        w => format!("win {w} by {}", record.reason),
    }
}

fn score_line(t: &Tally, names: [&str; 2]) -> String {
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

fn print_summary(config: &MatchConfig, s: &Summary, out: &mut dyn Write) {
    let names = [
        config.engines[0].name.as_str(),
        config.engines[1].name.as_str(),
    ];
    let rules = config.rules.join(" ");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Match {} vs {}: {}{}{}, {} vs {}, seed {}",
        names[0],
        names[1],
        config.entry.id,
        if rules.is_empty() { "" } else { " " },
        rules,
        limit_of(config, 0),
        limit_of(config, 1),
        config.seed
    );
    let _ = writeln!(out, "{}", score_line(&s.tally, names));
    let score = s.tally.score();
    let elo = if s.tally.games() == 0 {
        "Elo difference: n/a".to_string()
    } else if score >= 1.0 {
        "Elo difference: +inf".to_string()
    } else if score <= 0.0 {
        "Elo difference: -inf".to_string()
    } else {
        let (elo, margin) = elo_interval(&s.tally);
        format!("Elo difference: {elo:.1} +/- {margin:.1}")
    };
    let _ = writeln!(
        out,
        "{elo}, LOS: {:.1} %, DrawRatio: {:.1} %",
        100.0 * los(&s.tally),
        100.0 * s.tally.draw_ratio()
    );
    let _ = writeln!(out, "Ptnml(0-2): {}", s.pentanomial);
    if let (Some(sprt), Some(llr), Some(verdict)) = (&config.sprt, s.llr, s.verdict) {
        let (low, high) = sprt.bounds();
        let _ = writeln!(
            out,
            "SPRT: llr {llr:.2} ({:.1}%), lbound {low:.2}, ubound {high:.2} - {verdict}",
            100.0 * llr / high
        );
    }
    if s.forfeits.is_empty() {
        let _ = writeln!(out, "Forfeits: none");
    } else {
        let list: Vec<String> = s
            .forfeits
            .iter()
            .map(|((e, kind), n)| format!("{}: {kind} {n}", names[*e]))
            .collect();
        let _ = writeln!(out, "Forfeits: {}", list.join(", "));
    }
    if s.engine_moves > 0 {
        let _ = writeln!(
            out,
            "Referee overhead: {:.3} ms per move ({} moves)",
            s.referee_ms / s.engine_moves as f64,
            s.engine_moves
        );
    }
}
