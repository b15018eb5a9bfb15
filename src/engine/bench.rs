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
//! Results go to a callback as typed replies, and every kind ends early
//! when `stop` is set.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::session::{choose_network, EngineSession, Entry};
use menagerie_nnue::Network;
use menagerie_rules::catalogue;
use menagerie_search::time::Request;
use menagerie_search::{Limits, Settings, Shared, Silent};
use menagerie_wire::reply::{MeasureKind, Measurement, Reply, TotalField};
use menagerie_wire::BenchKind;

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
    // Every built-in network is in the bench: four seats have their own.
    BenchCase { moves: &["r4"], ..case("kilkenny-cats", &["players=4"], None, 2) },
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

/// Seed of the random games of `bench playouts`.
pub const PLAYOUT_SEED: u64 = 2026;

/// Where the bench sends what it measured.
pub type Sink<'a> = &'a mut dyn FnMut(Reply);

fn session_for(case: &BenchCase) -> Box<dyn EngineSession> {
    let mut session = catalogue::new_session_named(&crate::session::GAMES, case.game, case.rules)
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

/// The game and position measured.
fn subject(session: &dyn EngineSession) -> Vec<String> {
    vec![game_label(session), session.notation()]
}

fn measured(kind: MeasureKind, subject: Vec<String>, values: &[(&str, String)]) -> Reply {
    Reply::Measured(Measurement {
        kind,
        subject,
        values: values
            .iter()
            .map(|(name, value)| (name.to_string(), value.clone()))
            .collect(),
    })
}

/// How `bench` names an evaluation: the network's input set and checksum,
/// or `hand`.
fn evaluation_name(net: Option<&Network>) -> String {
    net.map_or("hand".to_string(), |n| {
        format!("{}:{:08x}", n.input_set, n.checksum())
    })
}

/// The one table of a bench run, its pages in place before anything is
/// timed. Each search gets it cleared, as a game gets it at `newgame`; a
/// fresh table per search would time the system handing over its pages.
fn bench_table(stop: &Arc<AtomicBool>) -> Shared {
    let shared = Shared::try_with_stop(16, Arc::clone(stop)).expect("16 MiB for bench");
    shared.tt.touch_all();
    shared
}

/// Total nodes of `bench search`, the signature, and the milliseconds
/// its searches took.
pub fn search_signature(stop: &Arc<AtomicBool>, mut out: Option<Sink>) -> (u64, u128) {
    let mut total = 0;
    let mut searching = Duration::ZERO;
    let shared = bench_table(stop);
    for case in SEARCH_CASES {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let session = session_for(case);
        shared.tt.clear();
        // One thread and no solved tables: the signature measures the
        // searches themselves and never depends on timing.
        let network = choose_network(session.as_ref(), None);
        let settings = Settings {
            threads: 1,
            exact: false,
            network: network.clone(),
            ..Settings::default()
        };
        let start = Instant::now();
        let result = session.search(&Limits::depth(case.depth), &shared, &settings, &mut Silent);
        searching += start.elapsed();
        total += result.nodes;
        if let Some(out) = out.as_deref_mut() {
            out(measured(
                MeasureKind::Bench,
                subject(session.as_ref()),
                &[
                    ("depth", case.depth.to_string()),
                    ("nodes", result.nodes.to_string()),
                    ("bestmove", result.best.unwrap_or_else(|| "(none)".into())),
                    ("eval", evaluation_name(network.as_deref())),
                ],
            ));
        }
    }
    (total, searching.as_millis())
}

/// Stockfish's closing lines, which bench tools read; when stopped, a
/// remark instead, so that no partial total passes for a signature.
fn print_totals(out: Sink, stop: &AtomicBool, nodes: u64, ms: u128) {
    if stop.load(Ordering::Relaxed) {
        out(Reply::Remark(
            "bench stopped before the end; no totals".to_string(),
        ));
        return;
    }
    out(Reply::Line(String::new()));
    let nps = (nodes as u128 * 1000 / ms.max(1)) as u64;
    for (field, value) in [
        (TotalField::TimeMs, ms as u64),
        (TotalField::Nodes, nodes),
        (TotalField::NodesPerSecond, nps),
    ] {
        out(Reply::BenchTotal { field, value });
    }
}

/// Stopped before the end.
fn stopped() -> Reply {
    Reply::Remark("bench stopped before the end".to_string())
}

/// Runs one kind of bench, giving its replies to `out`: the fixed cases of
/// this build's games, or for playouts every game of `games`.
pub fn run(
    kind: BenchKind,
    games: &[Entry],
    networks: &Networks,
    stop: &Arc<AtomicBool>,
    out: Sink,
) {
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
                out(measured(
                    MeasureKind::Perft,
                    subject(session.as_ref()),
                    &[
                        ("depth", case.depth.to_string()),
                        ("nodes", n.to_string()),
                        ("time", ms.to_string()),
                        ("nps", (n as u128 * 1000 / ms.max(1)).to_string()),
                    ],
                ));
            }
            let ms = start.elapsed().as_millis();
            print_totals(out, stop, nodes, ms);
        }
        BenchKind::Playouts(count) => {
            for game in games {
                let session = game.session::<&str>(&[]).expect("the default ruleset");
                let start = Instant::now();
                let stats = session.playouts(count, PLAYOUT_SEED, stop);
                if stop.load(Ordering::Relaxed) {
                    out(stopped());
                    return;
                }
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                let per_game = |n: u64| n as f64 / stats.games.max(1) as f64;
                let mut values = vec![
                    ("games", stats.games.to_string()),
                    ("games/s", format!("{:.0}", stats.games as f64 / secs)),
                    ("moves/s", format!("{:.0}", stats.moves as f64 / secs)),
                    ("avg length", format!("{:.2}", per_game(stats.moves))),
                ];
                let shares: Vec<(String, String)> = session
                    .seats_in_play()
                    .into_iter()
                    .map(|seat| {
                        (
                            format!("win_{}", session.seat_letter_of(seat)),
                            format!("{:.4}", per_game(stats.wins[seat as usize])),
                        )
                    })
                    .collect();
                values.extend(shares.iter().map(|(k, v)| (k.as_str(), v.clone())));
                values.push(("draw", format!("{:.4}", per_game(stats.draws))));
                out(measured(
                    MeasureKind::Playouts,
                    vec![game_label(session.as_ref())],
                    &values,
                ));
            }
        }
        BenchKind::Threads(threads) => threads_bench(threads.max(1), stop, out),
        BenchKind::Eval => eval_bench(networks, stop, out),
    }
}

/// Nodes each search of `bench eval` is given.
const EVAL_NODES: u64 = 300_000;
/// Times each position is searched with each evaluation, alternating.
const EVAL_ROUNDS: usize = 3;

/// The networks `EvalFile` chose, by game id.
pub type Networks = std::collections::HashMap<&'static str, Arc<Network>>;

/// Nodes per second of the search with the network in use (`EvalFile`'s
/// for its game, the built-in one otherwise) against the hand-written
/// evaluation on the positions of games that have one: each searched for
/// a fixed node count with one, then the other, in turn, so that both
/// see the same machine load; one line per position and a total, with
/// the ratio. A network with a policy head is also searched with the
/// head cut off (the same values), so its cost is a ratio of one run.
fn eval_bench(networks: &Networks, stop: &Arc<AtomicBool>, out: Sink) {
    let mut totals = [(0u64, 0u64); 3];
    let shared = bench_table(stop);
    for case in SEARCH_CASES {
        let session = session_for(case);
        let loaded = networks.get(session.game_id());
        let Some(network) = choose_network(session.as_ref(), loaded) else {
            continue;
        };
        let mut sums = [(0u64, 0u64); 3];
        let mut nets = vec![None, Some(network.clone())];
        if network.moves > 0 {
            nets.push(Some(Arc::new(without_policy(&network))));
        }
        for _ in 0..EVAL_ROUNDS {
            for (slot, net) in nets.iter().cloned().enumerate() {
                if stop.load(Ordering::Relaxed) {
                    out(stopped());
                    return;
                }
                shared.tt.clear();
                let settings = Settings {
                    threads: 1,
                    exact: false,
                    network: net,
                    ..Settings::default()
                };
                let limits = Limits {
                    nodes: Some(EVAL_NODES),
                    ..Limits::default()
                };
                let start = Instant::now();
                let result = session.search(&limits, &shared, &settings, &mut Silent);
                sums[slot].0 += result.nodes;
                sums[slot].1 += start.elapsed().as_micros().max(1) as u64;
            }
        }
        for (total, sum) in totals.iter_mut().zip(sums) {
            total.0 += sum.0;
            total.1 += sum.1;
        }
        out(measured(
            MeasureKind::Eval,
            subject(session.as_ref()),
            &speeds(sums, &network),
        ));
    }
    if let Some((_, _, network)) = menagerie_nnue::builtin::all().next() {
        // The policy's cost is a figure of the lines of its game only.
        let mut values = speeds([totals[0], totals[1], (0, 0)], &network);
        values.pop();
        out(measured(
            MeasureKind::Eval,
            vec!["total".to_string()],
            &values,
        ));
    }
}

/// `net` with its policy head cut off: the same values.
fn without_policy(net: &Network) -> Network {
    Network {
        moves: 0,
        policy: Vec::new(),
        policy_bias: Vec::new(),
        ..net.clone()
    }
}

/// The figures of one `bench eval` line from (nodes, microseconds) with
/// the hand-written evaluation, with the network, and (a network with a
/// policy head) with the network without it.
fn speeds(sums: [(u64, u64); 3], network: &Network) -> Vec<(&'static str, String)> {
    let nps = |(nodes, us): (u64, u64)| nodes * 1_000_000 / us.max(1);
    let (hand, net) = (nps(sums[0]), nps(sums[1]));
    let mut out = vec![
        ("hand nps", hand.to_string()),
        ("network nps", net.to_string()),
        ("ratio", format!("{:.2}", net as f64 / hand.max(1) as f64)),
    ];
    if sums[2].1 > 0 {
        let plain = nps(sums[2]);
        out.push(("without policy nps", plain.to_string()));
        out.push((
            "policy ratio",
            format!("{:.2}", net as f64 / plain.max(1) as f64),
        ));
    }
    out.push(("eval", evaluation_name(Some(network))));
    out
}

/// Nodes per second of one thread and of `threads` threads on the first
/// searched position of each game, searched in turn for a fixed time, so
/// that both see the same machine load.
fn threads_bench(threads: u32, stop: &Arc<AtomicBool>, out: Sink) {
    let mut totals = [(0u64, 0u64); 2];
    let shared = bench_table(stop);
    let mut seen = Vec::new();
    for case in SEARCH_CASES {
        if seen.contains(&case.game) {
            continue;
        }
        seen.push(case.game);
        let session = session_for(case);
        let mut values = Vec::new();
        for (slot, count) in [1, threads].into_iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                out(stopped());
                return;
            }
            shared.tt.clear();
            let settings = Settings {
                threads: count as usize,
                exact: false,
                network: choose_network(session.as_ref(), None),
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
            values.push((
                format!("{count} thread(s) nps"),
                (result.nodes * 1000 / ms).to_string(),
            ));
        }
        let values: Vec<(&str, String)> = values
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        out(measured(
            MeasureKind::Threads,
            subject(session.as_ref()),
            &values,
        ));
    }
    let nps = |(nodes, ms): (u64, u64)| nodes * 1000 / ms.max(1);
    let (one, many) = (nps(totals[0]), nps(totals[1]));
    let many_name = format!("{threads} threads nps");
    out(measured(
        MeasureKind::Threads,
        vec!["total".to_string()],
        &[
            ("1 thread nps", one.to_string()),
            (&many_name, many.to_string()),
            ("speedup", format!("{:.2}", many as f64 / one.max(1) as f64)),
        ],
    ));
}

/// `bench [search|perft|eval|playouts N|threads N]`: the task.
pub fn task(kind: BenchKind, ctx: &crate::task::Context) -> crate::task::Made {
    let games = ctx.games;
    let networks = ctx.networks.clone();
    Ok(crate::task::once(move |out, stop| {
        run(kind, games, &networks, stop, &mut |reply| out.reply(&reply));
        false
    }))
}
