//! `bench`: speed measured on fixed work, through the same generic sessions
//! the protocol uses.
//!
//! - `bench` / `bench search`: fixed positions searched to fixed depths with a
//!   fresh table each; the total node count is a signature that changes only
//!   when search behaviour changes (Stockfish's bench).
//! - `bench perft`: perft of fixed positions, nodes per second.
//! - `bench playouts [N]`: N seeded uniformly random games per game.

use std::time::Instant;

use crate::game::registry;
use crate::game::session::DynSession;
use crate::protocol::command::BenchKind;
use crate::protocol::Output;
use crate::search::{Limits, Settings, Shared, Silent};

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

fn session_for(case: &BenchCase) -> Box<dyn DynSession> {
    let mut session = registry::new_session_named(case.game, case.rules)
        .unwrap_or_else(|e| panic!("bench case for {}: {e}", case.game));
    let moves: Vec<String> = case.moves.iter().map(|m| m.to_string()).collect();
    session
        .set_position(case.notation, &moves)
        .unwrap_or_else(|e| panic!("bench case for {}: {e}", case.game));
    session
}

/// `game [options]`, without a trailing blank for games without options.
fn game_label(session: &dyn DynSession) -> String {
    let ruleset = session.ruleset().to_string();
    if ruleset.is_empty() {
        session.game_id().to_string()
    } else {
        format!("{} {ruleset}", session.game_id())
    }
}

fn describe(session: &dyn DynSession) -> String {
    format!("{} | {}", game_label(session), session.notation())
}

/// Total nodes of `bench search`, the signature.
pub fn search_signature(out: Option<&Output>) -> (u64, u128) {
    let mut total = 0;
    let start = Instant::now();
    for case in SEARCH_CASES {
        let session = session_for(case);
        let shared = Shared::new(16);
        // One thread and no solved tables: the signature measures the
        // searches themselves and never depends on timing.
        let settings = Settings {
            threads: 1,
            solver: false,
            ..Settings::default()
        };
        let result = session.search(&Limits::depth(case.depth), &shared, &settings, &mut Silent);
        total += result.nodes;
        if let Some(out) = out {
            out.line(&format!(
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

/// Stockfish's closing lines, which bench tools read.
fn print_totals(out: &Output, nodes: u64, ms: u128) {
    out.line("");
    out.line(&format!("Total time (ms) : {ms}"));
    out.line(&format!("Nodes searched  : {nodes}"));
    out.line(&format!(
        "Nodes/second    : {}",
        nodes as u128 * 1000 / ms.max(1)
    ));
}

pub fn run(kind: BenchKind, out: &Output) {
    match kind {
        BenchKind::Search => {
            let (nodes, ms) = search_signature(Some(out));
            print_totals(out, nodes, ms);
        }
        BenchKind::Perft => {
            let (mut nodes, start) = (0u64, Instant::now());
            for case in PERFT_CASES {
                let session = session_for(case);
                let t = Instant::now();
                let (_, n) = session.perft_divide(case.depth);
                let ms = t.elapsed().as_millis();
                nodes += n;
                out.line(&format!(
                    "info string perft {} | depth {} | nodes {} | time {} | nps {}",
                    describe(session.as_ref()),
                    case.depth,
                    n,
                    ms,
                    n as u128 * 1000 / ms.max(1)
                ));
            }
            let ms = start.elapsed().as_millis();
            print_totals(out, nodes, ms);
        }
        BenchKind::Playouts(games) => {
            for id in PLAYOUT_GAMES {
                let session =
                    registry::new_session_named::<&str>(id, &[]).expect("registered game");
                let start = Instant::now();
                let stats = session.playouts(games, PLAYOUT_SEED);
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                let mut shares = String::new();
                for seat in session.seats_in_play() {
                    shares.push_str(&format!(
                        " win_{} {:.4}",
                        session.seat_letter_of(seat),
                        stats.wins[seat as usize] as f64 / stats.games.max(1) as f64
                    ));
                }
                out.line(&format!(
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
    }
}
