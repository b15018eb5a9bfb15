//! Checks the engine's two promises through its binary, and measures how
//! well they are kept:
//!
//! - every `go` ends with exactly one legal `bestmove` within its limit;
//! - `isready` is answered at once during any search, and `stop` ends one.
//!
//! `promises matrix` walks every game and ruleset, Skill 0, 1, 10 and 20,
//! Threads 1, 2 and 4 and every kind of limit (each depth from 1, nodes,
//! movetime, clocks with and without increment down to a few
//! milliseconds, infinite then stop). `--quick` walks the same matrix with
//! fewer positions and depths (the test suite runs it).
//!
//! `promises timing` plays whole games on a short clock, by default
//! 20 ms + 20 ms, and reports how close to the clock the moves came.
//!
//! Both take `--hogs N`: N threads spinning beside the engine, as on a
//! loaded machine. Times are measured from writing `go` to reading
//! `bestmove`, as a GUI or referee sees them.
//!
//!     promises matrix [--quick] [--hogs N] [--jobs N] [--tolerance MS] [--engine PATH]
//!     promises timing [--tc BASE+INC] [--games N] [--hogs N] [--engine PATH]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use menagerie_referee::process::{EngineProcess, Heard};
use menagerie_rules::catalogue::{GameEntry, GAMES};
use menagerie_rules::game::Status;
use menagerie_rules::rng::Rng;
use menagerie_wire::command::{parse_line, Command};
use menagerie_wire::reply::Reply;

const SKILLS: [u8; 4] = [0, 1, 10, 20];
const THREADS: [u32; 3] = [1, 2, 4];
/// How long a search with no time limit may take before it counts as hung.
const HANG: Duration = Duration::from_secs(60);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let engine = value("--engine").unwrap_or_else(default_engine);
    let hogs: usize = value("--hogs").and_then(|v| v.parse().ok()).unwrap_or(0);
    let _hog_guard = Hogs::start(hogs);
    let ok = match args.first().map(String::as_str) {
        Some("matrix") => {
            let quick = flag("--quick");
            let jobs = value("--jobs").and_then(|v| v.parse().ok()).unwrap_or(1);
            let tolerance = value("--tolerance")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            matrix(&engine, quick, jobs, tolerance, hogs)
        }
        Some("timing") => {
            let tc = value("--tc").unwrap_or_else(|| "20+20".into());
            let games = value("--games").and_then(|v| v.parse().ok()).unwrap_or(2);
            timing(&engine, &tc, games, hogs)
        }
        _ => {
            eprintln!("usage: promises matrix|timing [options] (see the source's header)");
            std::process::exit(2);
        }
    };
    std::process::exit(if ok { 0 } else { 1 });
}

fn default_engine() -> String {
    let exe = std::env::current_exe().expect("own path");
    // target/<profile>/examples/promises -> target/<profile>/menagerie
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("a target folder");
    dir.join("menagerie").to_string_lossy().into_owned()
}

/// Threads that keep CPUs busy until dropped.
struct Hogs(Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>);

impl Hogs {
    fn start(n: usize) -> Hogs {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..10_000 {
                            x = std::hint::black_box(
                                x.wrapping_mul(6364136223846793005).wrapping_add(1),
                            );
                        }
                    }
                })
            })
            .collect();
        Hogs(stop, threads)
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        for t in self.1.drain(..) {
            let _ = t.join();
        }
    }
}

/// One limit of the matrix.
#[derive(Clone, Copy, Debug)]
enum Limit {
    Depth(u32),
    Nodes(u64),
    MoveTime(u64),
    Clock {
        time: u64,
        inc: u64,
    },
    /// `go infinite`, then `stop` after this many milliseconds.
    InfiniteThenStop(u64),
}

impl Limit {
    fn go(self, seats: usize) -> String {
        match self {
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::Nodes(n) => format!("go nodes {n}"),
            Limit::MoveTime(ms) => format!("go movetime {ms}"),
            Limit::Clock { time, inc } if seats == 2 => {
                format!("go wtime {time} btime {time} winc {inc} binc {inc}")
            }
            Limit::Clock { time, inc } => format!("go time {time} inc {inc}"),
            Limit::InfiniteThenStop(_) => "go infinite".into(),
        }
    }

    /// The time the answer must come within, if the limit has one.
    fn allowed_ms(self) -> Option<u64> {
        match self {
            Limit::MoveTime(ms) => Some(ms),
            Limit::Clock { time, .. } => Some(time),
            _ => None,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Limit::Depth(_) => "depth",
            Limit::Nodes(_) => "nodes",
            Limit::MoveTime(_) => "movetime",
            Limit::Clock { inc: 0, .. } => "clock",
            Limit::Clock { .. } => "clock+inc",
            Limit::InfiniteThenStop(_) => "infinite+stop",
        }
    }
}

fn limits(quick: bool, max_depth: u32) -> Vec<Limit> {
    let depths = if quick { 2 } else { max_depth };
    let mut list: Vec<Limit> = (1..=depths).map(Limit::Depth).collect();
    list.extend([Limit::Nodes(1), Limit::Nodes(2000)]);
    list.extend([Limit::MoveTime(5), Limit::MoveTime(20)]);
    list.extend([
        Limit::Clock { time: 5, inc: 0 },
        Limit::Clock { time: 20, inc: 20 },
        Limit::Clock { time: 60, inc: 0 },
        Limit::InfiniteThenStop(10),
    ]);
    if !quick {
        list.extend([
            Limit::Nodes(100_000),
            Limit::MoveTime(100),
            Limit::Clock {
                time: 50,
                inc: 1000,
            },
            Limit::Clock {
                time: 2000,
                inc: 20,
            },
            Limit::InfiniteThenStop(100),
        ]);
    }
    list
}

/// Positions with choices for one ruleset: seeded random play from the
/// start, ending at a player's turn.
fn positions(entry: &'static GameEntry, words: &[String], quick: bool) -> Vec<String> {
    let plies: &[u32] = if quick { &[12] } else { &[0, 12, 40] };
    let mut rng = Rng::new(0x5EED);
    let mut found = Vec::new();
    for &n in plies {
        for _attempt in 0..50 {
            let mut session = entry.session(words).expect("declared ruleset");
            let mut played = 0;
            while played < n && session.status() == Status::Ongoing {
                let moves = session.legal_moves();
                let mv = moves[rng.below(moves.len() as u64) as usize].clone();
                if !session.awaiting_chance() {
                    played += 1;
                }
                session.play_moves(&[mv]).expect("legal");
            }
            if session.awaiting_chance() && session.status() == Status::Ongoing {
                let rolls = session.legal_moves();
                let roll = rolls[rng.below(rolls.len() as u64) as usize].clone();
                session.play_moves(&[roll]).expect("legal");
            }
            if session.status() == Status::Ongoing && !session.legal_moves().is_empty() {
                found.push(session.notation());
                break;
            }
        }
    }
    found
}

/// What one combination found.
#[derive(Default)]
struct Findings {
    gos: u64,
    failures: Vec<String>,
    /// Worst (elapsed - allowed) per limit kind, in ms.
    worst_over: Vec<(&'static str, f64)>,
    worst_isready_ms: f64,
    worst_stop_ms: f64,
}

impl Findings {
    fn over(&mut self, kind: &'static str, ms: f64) {
        match self.worst_over.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, worst)) => *worst = worst.max(ms),
            None => self.worst_over.push((kind, ms)),
        }
    }

    fn merge(&mut self, other: Findings) {
        self.gos += other.gos;
        self.failures.extend(other.failures);
        for (kind, ms) in other.worst_over {
            self.over(kind, ms);
        }
        self.worst_isready_ms = self.worst_isready_ms.max(other.worst_isready_ms);
        self.worst_stop_ms = self.worst_stop_ms.max(other.worst_stop_ms);
    }
}

struct Combo {
    entry: &'static GameEntry,
    words: Vec<String>,
    skill: u8,
    threads: u32,
}

fn matrix(engine: &str, quick: bool, jobs: usize, tolerance: u64, hogs: usize) -> bool {
    let mut combos = Vec::new();
    for entry in &GAMES {
        for ruleset in entry.all_rulesets() {
            let words: Vec<String> = ruleset
                .to_string()
                .split_whitespace()
                .map(String::from)
                .collect();
            for skill in SKILLS {
                for threads in THREADS {
                    combos.push(Combo {
                        entry,
                        words: words.clone(),
                        skill,
                        threads,
                    });
                }
            }
        }
    }
    let total = combos.len();
    let queue = Mutex::new(combos.into_iter());
    let findings = Mutex::new(Findings::default());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let Some(combo) = queue.lock().unwrap().next() else {
                    return;
                };
                let found = check_combo(engine, &combo, quick, tolerance);
                findings.lock().unwrap().merge(found);
            });
        }
    });
    let f = findings.into_inner().unwrap();
    println!(
        "matrix{}: {total} combinations (game and ruleset x Skill {SKILLS:?} x Threads {THREADS:?}), {} searches, {} hog(s), {:.1} s",
        if quick { " (quick)" } else { "" },
        f.gos,
        hogs,
        started.elapsed().as_secs_f64()
    );
    for (kind, ms) in &f.worst_over {
        println!("  {kind:14} worst time past the limit: {ms:+.1} ms");
    }
    println!(
        "  isready during a search: answered within {:.2} ms",
        f.worst_isready_ms
    );
    println!("  stop: bestmove within {:.2} ms", f.worst_stop_ms);
    for failure in &f.failures {
        println!("  FAILED {failure}");
    }
    println!(
        "  {}",
        if f.failures.is_empty() {
            "every go ended with one legal bestmove within its limit"
        } else {
            "promises broken"
        }
    );
    f.failures.is_empty()
}

fn check_combo(engine: &str, combo: &Combo, quick: bool, tolerance: u64) -> Findings {
    let mut f = Findings::default();
    let label = format!(
        "{} {} skill {} threads {}",
        combo.entry.id,
        combo.words.join(" "),
        combo.skill,
        combo.threads
    );
    let options = [
        ("Threads".to_string(), combo.threads.to_string()),
        ("Skill".to_string(), combo.skill.to_string()),
    ];
    let started = EngineProcess::start(&[engine.to_string()], "engine", Duration::from_secs(10))
        .and_then(|mut p| p.configure(&options, Duration::from_secs(10)).map(|_| p));
    let mut process = match started {
        Ok(p) => p,
        Err(e) => {
            f.failures.push(format!("{label}: {e}"));
            return f;
        }
    };
    let newgame = Command::NewGame {
        game: combo.entry.id.to_string(),
        options: combo.words.clone(),
    };
    if process.send(&newgame).is_err()
        || process
            .sync(Instant::now() + Duration::from_secs(30))
            .is_err()
    {
        f.failures
            .push(format!("{label}: no readyok after newgame"));
        return f;
    }
    let seats = combo
        .entry
        .session(&combo.words)
        .expect("ruleset")
        .seats_in_play()
        .len();
    let max_depth = if combo.entry.id == "kilkenny-cats" {
        3
    } else {
        6
    };
    for notation in positions(combo.entry, &combo.words, quick) {
        for limit in limits(quick, max_depth) {
            f.gos += 1;
            if let Err(why) = one_go(
                &mut process,
                combo,
                &notation,
                limit,
                seats,
                tolerance,
                &mut f,
            ) {
                f.failures
                    .push(format!("{label} | {notation} | {}: {why}", limit.go(seats)));
                return f;
            }
        }
    }
    f
}

/// One `go` and its checks.
fn one_go(
    process: &mut EngineProcess,
    combo: &Combo,
    notation: &str,
    limit: Limit,
    seats: usize,
    tolerance: u64,
    f: &mut Findings,
) -> Result<(), String> {
    let position = format!("position fen {notation}");
    let go = limit.go(seats);
    process
        .send(&command(&position))
        .map_err(|_| "the engine closed its input")?;
    let sent = Instant::now();
    process
        .send_all(&[command(&go), Command::IsReady])
        .map_err(|_| "the engine closed its input")?;
    let mut readyok = None;
    let mut stop_sent = None;
    if let Limit::InfiniteThenStop(after) = limit {
        readyok = Some(read_until(process, sent + HANG, &Reply::ReadyOk)?);
        std::thread::sleep(Duration::from_millis(after).saturating_sub(sent.elapsed()));
        stop_sent = Some(Instant::now());
        process
            .send(&Command::Stop)
            .map_err(|_| "the engine closed its input")?;
    }
    let deadline = sent + HANG;
    let (bestmove, answered) = loop {
        match process.hear(deadline) {
            Heard::Reply(Reply::ReadyOk) => readyok = Some(Instant::now()),
            Heard::Reply(Reply::BestMove(mv)) => break (mv, Instant::now()),
            Heard::Reply(error @ Reply::Error { .. }) => {
                return Err(format!("error reply '{error}'"))
            }
            Heard::Reply(_) => {}
            Heard::Timeout => return Err(format!("no bestmove within {} s", HANG.as_secs())),
            other => return Err(format!("{other:?}")),
        }
    };
    // Exactly one: nothing but info lines until the next readyok.
    if readyok.is_none() {
        read_until(process, Instant::now() + HANG, &Reply::ReadyOk)?;
    }
    let strays = process.strays();
    process
        .send(&Command::IsReady)
        .map_err(|_| "the engine closed its input")?;
    loop {
        match process.hear(Instant::now() + HANG) {
            Heard::Reply(Reply::ReadyOk) if process.pings() == 0 => break,
            Heard::Reply(_) => {}
            other => return Err(format!("after bestmove: {other:?}")),
        }
    }
    // The referee's process skips a bestmove that answers no go: counted.
    if process.strays() > strays {
        return Err("a second bestmove".into());
    }
    let Some(mv) = bestmove else {
        return Err("bestmove (none)".into());
    };
    let mut session = combo.entry.session(&combo.words).expect("ruleset");
    session
        .set_position(Some(notation), &[])
        .map_err(|e| format!("bad test position: {e}"))?;
    if session.play_moves(std::slice::from_ref(&mv)).is_err() {
        return Err(format!("illegal or no move: '{mv}'"));
    }
    let ms = |from: Instant, to: Instant| (to - from).as_secs_f64() * 1000.0;
    if let Some(at) = readyok {
        f.worst_isready_ms = f.worst_isready_ms.max(ms(sent, at));
    }
    if let Some(stop) = stop_sent {
        f.worst_stop_ms = f.worst_stop_ms.max(ms(stop, answered));
    }
    if std::env::var_os("PROMISES_VERBOSE").is_some() {
        eprintln!(
            "{} {} skill {} threads {} | {go} | {:.2} ms | isready {:.2} ms",
            combo.entry.id,
            combo.words.join(" "),
            combo.skill,
            combo.threads,
            ms(sent, answered),
            readyok.map_or(-1.0, |at| ms(sent, at))
        );
    }
    if let Some(allowed) = limit.allowed_ms() {
        let over = ms(sent, answered) - allowed as f64;
        f.over(limit.kind(), over);
        if over > tolerance as f64 {
            return Err(format!(
                "bestmove after {:.1} ms, {over:.1} ms past the limit",
                ms(sent, answered)
            ));
        }
    }
    Ok(())
}

fn read_until(
    process: &mut EngineProcess,
    deadline: Instant,
    wanted: &Reply,
) -> Result<Instant, String> {
    loop {
        match process.hear(deadline) {
            Heard::Reply(reply) if reply == *wanted => return Ok(Instant::now()),
            Heard::Reply(_) => {}
            other => return Err(format!("waiting for {wanted}: {other:?}")),
        }
    }
}

/// A command the tool writes as text, typed as the engine would read it.
fn command(text: &str) -> Command {
    parse_line(text)
        .unwrap_or_else(|e| panic!("'{text}': {e}"))
        .unwrap_or_else(|| panic!("'{text}' is empty"))
}

/// Self-play on a clock through one engine process, as a referee would
/// keep the clocks; reports moves past the clock and the closest call.
fn timing(engine: &str, tc: &str, games: u32, hogs: usize) -> bool {
    let (base, inc) = tc
        .split_once('+')
        .and_then(|(b, i)| Some((b.parse::<u64>().ok()?, i.parse::<u64>().ok()?)))
        .unwrap_or_else(|| {
            eprintln!("--tc wants BASE+INC in milliseconds, e.g. 20+20");
            std::process::exit(2);
        });
    let mut all_ok = true;
    println!(
        "timing: clock {base} ms + {inc} ms per move, {hogs} hog(s), {games} game(s) per game"
    );
    for entry in &GAMES {
        let words: Vec<String> = Vec::new();
        let mut process =
            EngineProcess::start(&[engine.to_string()], "engine", Duration::from_secs(10))
                .expect("engine starts");
        let mut rng = Rng::new(7);
        let (mut moves_made, mut late, mut closest, mut used_sum) = (0u64, 0u64, f64::MAX, 0.0);
        for _ in 0..games {
            process
                .send(&Command::NewGame {
                    game: entry.id.to_string(),
                    options: Vec::new(),
                })
                .expect("engine alive");
            process
                .sync(Instant::now() + Duration::from_secs(30))
                .expect("readyok");
            let mut session = entry.session(&words).expect("defaults");
            let seats = session.seats_in_play();
            let mut clocks = vec![base; seats.len()];
            let mut played: Vec<String> = Vec::new();
            while session.status() == Status::Ongoing && played.len() < 400 {
                if let Some(roll) = session.play_chance(&mut rng) {
                    played.push(roll);
                    continue;
                }
                let order = seats
                    .iter()
                    .position(|&s| s == session.side())
                    .expect("a seat");
                let go = if seats.len() == 2 {
                    format!(
                        "go wtime {} btime {} winc {inc} binc {inc}",
                        clocks[0], clocks[1]
                    )
                } else {
                    format!("go time {} inc {inc}", clocks[order])
                };
                let position = if played.is_empty() {
                    "position startpos".to_string()
                } else {
                    format!("position startpos moves {}", played.join(" "))
                };
                process.send(&command(&position)).expect("engine alive");
                let sent = Instant::now();
                process.send(&command(&go)).expect("engine alive");
                let mv = loop {
                    match process.hear(sent + HANG) {
                        Heard::Reply(Reply::BestMove(Some(mv))) => break mv,
                        Heard::Reply(_) => {}
                        other => panic!("{}: {other:?}", entry.id),
                    }
                };
                let used = sent.elapsed().as_secs_f64() * 1000.0;
                moves_made += 1;
                used_sum += used;
                let left = clocks[order] as f64 - used;
                closest = closest.min(left);
                if left < 0.0 {
                    late += 1;
                }
                clocks[order] = left.max(0.0) as u64 + inc;
                session
                    .play_moves(std::slice::from_ref(&mv))
                    .expect("a legal move");
                played.push(mv);
            }
        }
        println!(
            "  {:22} moves {moves_made:5}, past the clock {late}, least time left {closest:+.1} ms, mean time per move {:.1} ms",
            entry.id,
            used_sum / moves_made.max(1) as f64
        );
        all_ok &= late == 0;
    }
    all_ok
}
