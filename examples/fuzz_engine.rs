//! Feeds the engine binary random sessions, as a careless or hostile user
//! would, for as long as asked, and checks what must always hold:
//!
//! - the engine exits with status 0 after `quit`, the end of input or a
//!   final `stop`, and never panics;
//! - every `go` read gets exactly one `bestmove`, and it is legal (a
//!   `legal` sent just before each `go` says what is) or `(none)`;
//! - every line the engine prints is a reply that prints back the same;
//! - its peak memory stays under a bound;
//! - every session's control lines are obeyed: a session ending in `stop`
//!   after `go infinite` still ends.
//!
//! Lines are drawn from every command with plausible and absurd
//! arguments, mutated bytes, NUL, invalid UTF-8, and now and then a line
//! of more than 1 MiB. A failing session is written out with its seed so
//! that it can be replayed.
//!
//!     fuzz_engine [--minutes M] [--sessions N] [--seed S] [--engine PATH]
//!                 [--max-rss-mib MIB] [--out DIR]
//!
//! `tools/fuzz.sh` runs it for an hour; the test suite runs 40 sessions.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use menagerie_rules::rng::Rng;
use menagerie_wire::command::{parse_line, Command as Line};
use menagerie_wire::reply::Reply;

/// Only a hang makes a session take this long.
const HANG: Duration = Duration::from_secs(120);

struct Options {
    minutes: Option<f64>,
    sessions: Option<u64>,
    seed: u64,
    engine: PathBuf,
    max_rss_mib: u64,
    out: PathBuf,
}

fn options() -> Options {
    let mut options = Options {
        minutes: None,
        sessions: None,
        seed: 1,
        engine: std::env::current_exe()
            .ok()
            .and_then(|p| Some(p.parent()?.parent()?.join("menagerie")))
            .unwrap_or_else(|| PathBuf::from("menagerie")),
        max_rss_mib: 400,
        out: std::env::temp_dir().join("menagerie-fuzz"),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--minutes" => options.minutes = value.parse().ok(),
            "--sessions" => options.sessions = value.parse().ok(),
            "--seed" => options.seed = value.parse().unwrap_or(1),
            "--engine" => options.engine = PathBuf::from(value),
            "--max-rss-mib" => options.max_rss_mib = value.parse().unwrap_or(400),
            "--out" => options.out = PathBuf::from(value),
            other => {
                eprintln!("fuzz_engine: unknown argument '{other}'");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    if options.minutes.is_none() && options.sessions.is_none() {
        options.sessions = Some(100);
    }
    options
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len() as u64) as usize]
}

const GAMES: &[&str] = &[
    "hdk",
    "hdk board=large",
    "hdk start=apex board=large",
    "am",
    "am board=plain leap=straight",
    "am ending=count",
    "safari-dual",
    "kilkenny-cats",
    "kilkenny-cats players=3",
    "kilkenny-cats players=4",
    "chess",
    "hdk board=round",
];

const WORDS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "time",
    "inc",
    "infinite",
    "movestogo",
    "perft",
    "startpos",
    "fen",
    "moves",
    "name",
    "value",
    "@b1",
    "@b2",
    "b1b2",
    "f1g2i2",
    "c1d2",
    "r3",
    "r6",
    "a1a1",
    "T/3/3/3",
    "1/3/3/3",
    "t",
    "l",
    "0",
    "1",
    "7",
    "-1",
    "1001",
    "18446744073709551616",
    "\u{0}",
    "é",
    "x=y",
    "=",
    "",
];

/// One random line: mostly a command with plausible arguments, sometimes
/// noise.
fn line(rng: &mut Rng) -> Vec<u8> {
    let n = |rng: &mut Rng, most: u64| rng.below(most + 1).to_string();
    let text = match rng.below(40) {
        0..=3 => format!("newgame {}", pick(rng, GAMES)),
        4..=6 => "legal".to_string(),
        7 => "d".to_string(),
        8 => format!(
            "query {}",
            pick(
                rng,
                &[
                    "side", "status", "legal", "seats", "chance", "gameover", "result", "p1turn",
                    "what"
                ]
            )
        ),
        9..=10 => "isready".to_string(),
        11..=14 => format!("go depth {}", 1 + rng.below(3)),
        15 => format!("go nodes {}", n(rng, 5000)),
        16 => format!("go movetime {}", n(rng, 20)),
        17 => format!("go time {} inc {}", n(rng, 200), n(rng, 20)),
        18 => format!("go wtime {} btime {}", n(rng, 200), n(rng, 200)),
        19 => "go infinite".to_string(),
        20 => "stop".to_string(),
        21 => format!("perft {}", n(rng, 3)),
        22 => format!("go perft {}", pick(rng, &["1", "2", "1001", "x"])),
        23 => format!("solve nodes {}", n(rng, 2000)),
        24 => "roll".to_string(),
        25 => format!(
            "setoption name {} value {}",
            pick(
                rng,
                &[
                    "Hash",
                    "Threads",
                    "Skill",
                    "MultiSeat",
                    "Seed",
                    "UseTables",
                    "Move Overhead",
                    "Nope"
                ]
            ),
            pick(
                rng,
                &["1", "2", "16", "0", "20", "brs", "maxn", "true", "false", "99999999", "-3", ""]
            )
        ),
        26 => format!(
            "position startpos moves {}",
            pick(rng, &["@b1", "f1g2i2", "c1d2", "r3", "b1b2 @b1"])
        ),
        27 => format!(
            "move {}",
            pick(rng, &["@b1", "f1g2i2", "c1d2", "r3", "r6", "zz"])
        ),
        28 => format!(
            "tables {} am dir={}",
            pick(rng, &["status", "verify", "bench", "fold"]),
            std::env::temp_dir().join("menagerie-fuzz-tables").display()
        ),
        29 => pick(
            rng,
            &["uci", "ugi", "games", "help", "ucinewgame", "uginewgame"],
        )
        .to_string(),
        30..=33 => {
            let words: Vec<&str> = (0..rng.below(8)).map(|_| pick(rng, WORDS)).collect();
            format!(
                "{} {}",
                pick(
                    rng,
                    &[
                        "go",
                        "position",
                        "setoption",
                        "newgame",
                        "perft",
                        "query",
                        "tables",
                        "solve",
                        "fly"
                    ]
                ),
                words.join(" ")
            )
        }
        _ => String::new(),
    };
    let mut bytes = text.into_bytes();
    match rng.below(60) {
        // Random bytes, NUL and invalid UTF-8 included.
        0..=2 => {
            bytes = (0..rng.below(200))
                .map(|_| rng.below(256) as u8)
                .filter(|&b| b != b'\n')
                .collect()
        }
        3 => bytes.extend_from_slice(&[0xff, 0xfe, 0x00, 0xc3]),
        4 if !bytes.is_empty() => {
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] = rng.below(256) as u8;
            bytes.retain(|&b| b != b'\n');
        }
        // Now and then a line past the engine's 1 MiB limit.
        5 if rng.below(20) == 0 => {
            bytes.extend(std::iter::repeat(b'x').take((1 << 20) + 10));
        }
        _ => {}
    }
    bytes
}

/// How a session's input ends.
#[derive(Clone, Copy, Debug)]
enum End {
    Quit,
    InputEnds,
    Stop,
}

/// A session that broke a promise, and which.
struct Failure {
    input: Vec<Vec<u8>>,
    output: String,
    why: String,
}

/// Runs one session; `Err` with what failed.
fn session(engine: &PathBuf, rng: &mut Rng, max_rss_mib: u64) -> Result<u64, Failure> {
    let (input, end) = script(rng);
    let fail = |output: &str, why: String| Failure {
        input: input.clone(),
        output: output.to_string(),
        why,
    };
    let ran = run(engine, &input).map_err(|why| fail("", format!("{end:?}: {why}")))?;
    let output = ran.output;
    if ran.status.code() != Some(0) || ran.stderr.contains("panicked") {
        return Err(fail(
            &output,
            format!("{end:?}: {}: {}", ran.status, ran.stderr),
        ));
    }
    if ran.peak_kib > max_rss_mib * 1024 {
        return Err(fail(&output, format!("peak memory {} KiB", ran.peak_kib)));
    }
    check_answers(&input, &output).map_err(|why| fail(&output, why))?;
    Ok(input.len() as u64)
}

/// A session's random lines and how it ends.
fn script(rng: &mut Rng) -> (Vec<Vec<u8>>, End) {
    let mut input: Vec<Vec<u8>> = Vec::new();
    for _ in 0..1 + rng.below(30) {
        let l = line(rng);
        // Each go is preceded by `legal`, so that its bestmove can be
        // checked against what was legal where it was asked.
        if l.starts_with(b"go") {
            input.push(b"legal".to_vec());
        }
        input.push(l);
    }
    let mut end = [End::Quit, End::InputEnds, End::Stop][rng.below(3) as usize];
    // The end of input lets long work finish, and random words can ask
    // for a lot of it (`perft 7` with four seats and dice): such sessions
    // end with `quit`, which stops it.
    let noisy = input.iter().any(|l| {
        let text = String::from_utf8_lossy(l);
        let first = text.split_whitespace().next().unwrap_or("");
        ["perft", "go", "solve", "bench", "tables"].contains(&first)
            && text
                .split_whitespace()
                .any(|w| w.parse::<u64>().is_ok_and(|n| n > 3))
            && !text.starts_with("go nodes ")
            && !text.starts_with("go movetime ")
            && !text.starts_with("go time ")
            && !text.starts_with("go wtime ")
            && !text.starts_with("solve nodes ")
    });
    if noisy && !matches!(end, End::Quit) {
        end = End::Quit;
    }
    match end {
        End::Quit => input.push(b"quit".to_vec()),
        End::Stop => input.push(b"stop".to_vec()),
        End::InputEnds => {}
    }
    (input, end)
}

/// What a finished engine left.
struct Ran {
    status: std::process::ExitStatus,
    output: String,
    stderr: String,
    peak_kib: u64,
}

/// Runs the engine on `input`, watching its peak memory; `Err` when it
/// cannot start or does not end within `HANG`.
fn run(engine: &PathBuf, input: &[Vec<u8>]) -> Result<Ran, String> {
    let mut child = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", engine.display()))?;
    let mut stdin = child.stdin.take().unwrap();
    let bytes: Vec<u8> = input
        .iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let errors = std::thread::spawn(move || {
        let mut err = Vec::new();
        let _ = stderr.read_to_end(&mut err);
        err
    });
    let started = Instant::now();
    let mut peak_kib = 0;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("no end after {HANG:?}"));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let _ = writer.join();
    Ok(Ran {
        status,
        output: String::from_utf8_lossy(&reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&errors.join().unwrap()).into_owned(),
        peak_kib,
    })
}

/// Every line prints back, every `bestmove` was legal where it was
/// asked, and each `go` read has one.
fn check_answers(input: &[Vec<u8>], output: &str) -> Result<(), String> {
    // The lines read: everything up to the first quit.
    let read: Vec<&Vec<u8>> = input
        .iter()
        .take_while(|l| {
            !matches!(
                parse_line(&String::from_utf8_lossy(l)),
                Ok(Some(Line::Quit))
            )
        })
        .collect();
    let gos = read
        .iter()
        .filter(|l| {
            let text = String::from_utf8_lossy(l);
            text.split_whitespace().next() == Some("go")
                && !matches!(parse_line(&text), Ok(Some(Line::Perft { depth, .. })) if depth <= 1000)
        })
        .count();
    let mut legal: Vec<Vec<String>> = Vec::new();
    let mut bestmoves = 0;
    for l in output.lines() {
        let reply = Reply::parse(l);
        if reply.to_string() != l {
            return Err(format!("a line that does not print back: {l}"));
        }
        if let Some(moves) = l.strip_prefix("legal") {
            legal.push(moves.split_whitespace().map(String::from).collect());
        }
        if let Some(mv) = l.strip_prefix("bestmove ") {
            bestmoves += 1;
            if mv != "(none)" && !legal.iter().any(|list| list.iter().any(|m| m == mv)) {
                return Err(format!("bestmove {mv} was legal nowhere"));
            }
        }
    }
    if gos != bestmoves {
        return Err(format!("{gos} go lines read, {bestmoves} bestmoves"));
    }
    Ok(())
}

fn main() {
    let options = options();
    let mut rng = Rng::new(options.seed);
    let started = Instant::now();
    let (mut sessions, mut lines) = (0u64, 0u64);
    loop {
        if options.sessions.is_some_and(|n| sessions >= n)
            || options
                .minutes
                .is_some_and(|m| started.elapsed().as_secs_f64() > m * 60.0)
        {
            break;
        }
        match session(&options.engine, &mut rng, options.max_rss_mib) {
            Ok(n) => lines += n,
            Err(failure) => {
                std::fs::create_dir_all(&options.out).unwrap();
                let path = options
                    .out
                    .join(format!("failure-seed{}-{sessions}.txt", options.seed));
                let mut text = Vec::new();
                for l in &failure.input {
                    text.extend_from_slice(l);
                    text.push(b'\n');
                }
                std::fs::write(&path, &text).unwrap();
                std::fs::write(path.with_extension("out"), failure.output).unwrap();
                eprintln!(
                    "fuzz_engine: session {sessions} (seed {}) failed: {}\ninput in {}",
                    options.seed,
                    failure.why,
                    path.display()
                );
                std::process::exit(1);
            }
        }
        sessions += 1;
        if sessions % 100 == 0 {
            eprintln!(
                "fuzz_engine: {sessions} sessions, {lines} lines, {:.0} s, all promises kept",
                started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "fuzz_engine: {sessions} sessions, {lines} lines in {:.0} s: every promise kept",
        started.elapsed().as_secs_f64()
    );
}
