//! `bench`: speed measured on fixed work, through the same generic sessions
//! the protocol uses.
//!
//! - `bench` / `bench search`: fixed positions searched to fixed depths with a
//!   fresh table each; the total node count is a signature that changes only
//!   when search behaviour changes (Stockfish's bench).
//! - `bench perft`: perft of fixed positions, nodes per second.
//! - `bench playouts [N]`: N seeded uniformly random games per game.
//! - `bench threads [N]`: nodes per second of Lazy SMP with N threads
//!   against one, on the same positions, side by side.
//!
//! Lines go to a callback, and every kind ends early when `stop` is set.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::runtime::registry;
use crate::runtime::EngineSession;
use crate::search::time::Request;
use crate::search::{Limits, Settings, Shared, Silent};

/// What `bench` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchKind {
    /// Fixed positions searched to fixed depths.
    Search,
    /// Perft speed of each game.
    Perft,
    /// Seeded uniformly random games.
    Playouts(u64),
    /// Lazy SMP speed with this many threads against one.
    Threads(u32),
}

/// Games per game id that `bench playouts` plays when no count is given.
pub const DEFAULT_PLAYOUTS: u64 = 100_000;
/// Threads `bench threads` compares with one when no count is given.
pub const DEFAULT_THREADS: u32 = 2;
/// Milliseconds each position of `bench threads` is searched for.
const THREADS_MOVETIME: u64 = 1000;

/// A fixed piece of work: game, ruleset, position, moves, depth.
pub struct BenchCase {
    pub game: &'static str,
    pub rules: &'static [&'static str],
    pub notation: Option<&'static str>,
    pub moves: &'static [&'static str],
    pub depth: u32,
}

const fn case(
    game: &'static str,
    rules: &'static [&'static str],
    notation: Option<&'static str>,
    depth: u32,
) -> BenchCase {
    BenchCase {
        game,
        rules,
        notation,
        moves: &[],
        depth,
    }
}

/// Positions and depths of `bench search`.
#[rustfmt::skip]
pub const SEARCH_CASES: &[BenchCase] = &[
    case("hat-diviyan-keliya", &[], None, 9),
    case("hat-diviyan-keliya", &["start=apex"], None, 10),
    case("hat-diviyan-keliya", &["board=large"], Some("T/1T1/L1L/3/LLL t 0 3 0"), 8),
    case("awithlaknannai-mosona", &[], None, 16),
    case("awithlaknannai-mosona", &["leap=straight"], None, 12),
    case("awithlaknannai-mosona", &[], Some("B1B1B3/1W1B1W3/1B5W b 7"), 12),
    case("safari-dual", &[], None, 11),
    case("safari-dual", &[], Some("1g1el/1E1ge/2G1g/GE1E1/L4 a 17"), 10),
    BenchCase { moves: &["r3"], ..case("kilkenny-cats", &[], None, 3) },
    BenchCase { moves: &["r5", "e4e9", "r2"], ..case("kilkenny-cats", &["players=3"], None, 2) },
];

/// Positions and depths of `bench perft`.
#[rustfmt::skip]
pub const PERFT_CASES: &[BenchCase] = &[
    case("hat-diviyan-keliya", &[], None, 12),
    case("hat-diviyan-keliya", &["start=apex"], None, 13),
    case("hat-diviyan-keliya", &["board=large"], None, 9),
    case("awithlaknannai-mosona", &[], None, 13),
    case("awithlaknannai-mosona", &["leap=straight"], None, 14),
    case("awithlaknannai-mosona", &[], Some("B1B1B3/1W1B1W3/1B5W b 7"), 8),
    case("safari-dual", &[], None, 7),
    case("safari-dual", &[], Some("1g1el/1E1ge/2G1g/GE1E1/L4 a 17"), 6),
    case("kilkenny-cats", &[], None, 3),
    case("kilkenny-cats", &["players=4"], None, 3),
];

/// Games of `bench playouts` (each game's default ruleset).
pub const PLAYOUT_GAMES: &[&str] = &[
    "hat-diviyan-keliya",
    "awithlaknannai-mosona",
    "safari-dual",
    "kilkenny-cats",
];

/// Seed of the random games of `bench playouts`.
pub const PLAYOUT_SEED: u64 = 2026;

fn session_for(case: &BenchCase) -> Box<dyn EngineSession> {
    let mut session = registry::new_session_named(case.game, case.rules)
        .unwrap_or_else(|e| panic!("bench case for {}: {e}", case.game));
    let moves: Vec<String> = case.moves.iter().map(|m| m.to_string()).collect();
    session
        .set_position(case.notation, &moves)
        .unwrap_or_else(|e| panic!("bench case for {}: {e}", case.game));
    session
}

/// `game [options]`, without a trailing blank for games without options.
fn game_label(session: &dyn EngineSession) -> String {
    let ruleset = session.ruleset().to_string();
    if ruleset.is_empty() {
        session.game_id().to_string()
    } else {
        format!("{} {ruleset}", session.game_id())
    }
}

fn describe(session: &dyn EngineSession) -> String {
    format!("{} | {}", game_label(session), session.notation())
}

/// Total nodes of `bench search`, the signature, and the milliseconds.
pub fn search_signature(
    stop: &Arc<AtomicBool>,
    mut out: Option<&mut dyn FnMut(&str)>,
) -> (u64, u128) {
    let mut total = 0;
    let start = Instant::now();
    for case in SEARCH_CASES {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let session = session_for(case);
        let shared = Shared::try_with_stop(16, Arc::clone(stop)).expect("16 MiB for bench");
        // One thread and no solved tables: the signature measures the
        // searches themselves and never depends on timing.
        let settings = Settings {
            threads: 1,
            solver: false,
            ..Settings::default()
        };
        let result = session.search(&Limits::depth(case.depth), &shared, &settings, &mut Silent);
        total += result.nodes;
        if let Some(out) = out.as_deref_mut() {
            out(&format!(
                "info string bench {} | depth {} | nodes {} | bestmove {}",
                describe(session.as_ref()),
                case.depth,
                result.nodes,
                result.best.as_deref().unwrap_or("(none)")
            ));
        }
    }
    (total, start.elapsed().as_millis())
}

/// Stockfish's closing lines, which bench tools read; when stopped, a
/// remark instead, so that no partial total passes for a signature.
fn print_totals(out: &mut dyn FnMut(&str), stop: &AtomicBool, nodes: u64, ms: u128) {
    if stop.load(Ordering::Relaxed) {
        out("info string bench stopped before the end; no totals");
        return;
    }
    out("");
    out(&format!("Total time (ms) : {ms}"));
    out(&format!("Nodes searched  : {nodes}"));
    out(&format!(
        "Nodes/second    : {}",
        nodes as u128 * 1000 / ms.max(1)
    ));
}

/// Runs one kind of bench, giving its lines to `out`.
pub fn run(kind: BenchKind, stop: &Arc<AtomicBool>, out: &mut dyn FnMut(&str)) {
    match kind {
        BenchKind::Search => {
            let (nodes, ms) = search_signature(stop, Some(&mut *out));
            print_totals(out, stop, nodes, ms);
        }
        BenchKind::Perft => {
            let (mut nodes, start) = (0u64, Instant::now());
            for case in PERFT_CASES {
                let session = session_for(case);
                let t = Instant::now();
                let Some(n) = session.perft_divide(case.depth, stop, &mut |_, _| {}) else {
                    break;
                };
                let ms = t.elapsed().as_millis();
                nodes += n;
                out(&format!(
                    "info string perft {} | depth {} | nodes {} | time {} | nps {}",
                    describe(session.as_ref()),
                    case.depth,
                    n,
                    ms,
                    n as u128 * 1000 / ms.max(1)
                ));
            }
            let ms = start.elapsed().as_millis();
            print_totals(out, stop, nodes, ms);
        }
        BenchKind::Playouts(games) => {
            for id in PLAYOUT_GAMES {
                let session =
                    registry::new_session_named::<&str>(id, &[]).expect("registered game");
                let start = Instant::now();
                let stats = session.playouts(games, PLAYOUT_SEED, stop);
                if stop.load(Ordering::Relaxed) {
                    out("info string bench stopped before the end");
                    return;
                }
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                let mut shares = String::new();
                for seat in session.seats_in_play() {
                    shares.push_str(&format!(
                        " win_{} {:.4}",
                        session.seat_letter_of(seat),
                        stats.wins[seat as usize] as f64 / stats.games.max(1) as f64
                    ));
                }
                out(&format!(
                    "info string playouts {} | games {} | games/s {:.0} | moves/s {:.0} | avg length {:.2} |{shares} draw {:.4}",
                    game_label(session.as_ref()),
                    stats.games,
                    stats.games as f64 / secs,
                    stats.moves as f64 / secs,
                    stats.moves as f64 / stats.games.max(1) as f64,
                    stats.draws as f64 / stats.games.max(1) as f64
                ));
            }
        }
        BenchKind::Threads(threads) => threads_bench(threads.max(1), stop, out),
    }
}

/// Nodes per second of one thread and of `threads` threads on the first
/// searched position of each game, searched in turn for a fixed time, so
/// that both see the same machine load.
fn threads_bench(threads: u32, stop: &Arc<AtomicBool>, out: &mut dyn FnMut(&str)) {
    let mut totals = [(0u64, 0u64); 2];
    let mut seen = Vec::new();
    for case in SEARCH_CASES {
        if seen.contains(&case.game) {
            continue;
        }
        seen.push(case.game);
        let session = session_for(case);
        let mut line = format!("info string threads {}", describe(session.as_ref()));
        for (slot, count) in [1, threads].into_iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                out("info string bench stopped before the end");
                return;
            }
            let shared = Shared::try_with_stop(16, Arc::clone(stop)).expect("16 MiB for bench");
            let settings = Settings {
                threads: count as usize,
                solver: false,
                ..Settings::default()
            };
            let request = Request {
                movetime_ms: Some(THREADS_MOVETIME),
                ..Request::default()
            };
            let start = Instant::now();
            let result =
                session.search(&Limits::plan(&request, 0), &shared, &settings, &mut Silent);
            let ms = start.elapsed().as_millis().max(1) as u64;
            totals[slot].0 += result.nodes;
            totals[slot].1 += ms;
            line.push_str(&format!(
                " | {count} thread(s) nps {}",
                result.nodes * 1000 / ms
            ));
        }
        out(&line);
    }
    let nps = |(nodes, ms): (u64, u64)| nodes * 1000 / ms.max(1);
    let (one, many) = (nps(totals[0]), nps(totals[1]));
    out(&format!(
        "info string threads total | 1 thread nps {one} | {threads} threads nps {many} | speedup {:.2}",
        many as f64 / one.max(1) as f64
    ));
}
