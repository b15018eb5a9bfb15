//! A small engine for the referee's tests, speaking the protocol through
//! its typed commands and replies: it plays seeded random legal moves, and
//! in its faulty modes fails the way engines fail in the field once it has
//! been asked for `--after` moves.
//!
//!     fake_engine [--mode MODE] [--after N] [--seed S] [--ms MS] [--lines N] [--pids FILE]
//!                 [--stop answer|ignore|never|extra] [--log FILE]
//!
//! `--pids FILE` appends the engine's process id to FILE (and, in
//! `grandchild` mode, its helper's), so that a test can check that none
//! outlives the referee.
//!
//! Modes:
//! - `random`: a random legal move (the default).
//! - `crash`: exits with status 3 when asked for a move.
//! - `hang`: stops answering anything, `isready` included.
//! - `illegal`: plays `a1a1`.
//! - `garbage`: answers with a line that is not the protocol.
//! - `flood`: plays a move, then prints `info string` lines without end,
//!   also while the opponent thinks.
//! - `grandchild`: starts a helper that holds its output open, then crashes.
//! - `slowstart`: waits `--ms` before answering `uci`.
//! - `think`: takes `--ms` per move, answering `isready` meanwhile and
//!   `stop` at once with its move.
//! - `late`: as `think`, for the one move after `--after`; then at once
//!   again (`--ms` past the clock: a time loss, and a late `bestmove`).
//! - `twice`: answers every `go` with two `bestmove` lines.
//!
//! `--stop answer` (the default) answers `stop` during a move with that
//! move; `--stop ignore` lets the move come at its time anyway; `--stop
//! never` loses the move for good (the search never answers, `isready`
//! still does); `--stop extra` answers like `answer` and then prints one
//! more `bestmove`, as an engine does that answers every `stop`, one that
//! came after its move too.
//!
//! `--log FILE` appends one line per `bestmove` printed: the `position`
//! line it answers, a tab, and the move, so that a test can check that
//! every move the referee recorded was the answer to its own request.
//! - `chatty`: takes `--ms` per move, then prints `--lines` `info` lines
//!   in one burst and its move (an engine reporting every root move at
//!   every depth).
//! - `reject`: refuses every `position` with an error line, then answers
//!   `go` with `bestmove (none)`.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use menagerie_rules::catalogue::{self, GAMES};
use menagerie_rules::game::session::DynSession;
use menagerie_rules::rng::Rng;
use menagerie_wire::command::{parse_line, Command};
use menagerie_wire::reply::{IdField, OptionKind, OptionLine, Reply};

type Out = Arc<Mutex<std::io::Stdout>>;

fn say(out: &Out, reply: &Reply) {
    let mut out = out.lock().unwrap();
    let _ = writeln!(out, "{reply}");
    let _ = out.flush();
}

/// Where `bestmove` lines go: the output, and the log of answers.
#[derive(Clone)]
struct Answers {
    out: Out,
    log: Option<Arc<Mutex<std::fs::File>>>,
}

impl Answers {
    /// Prints `reply` (a `bestmove`) as the answer to `position`.
    fn answer(&self, position: &str, reply: &Reply) {
        // Logged first: once the referee reads it, it is in the log.
        if let Some(log) = &self.log {
            let _ = writeln!(log.lock().unwrap(), "{position}\t{reply}");
        }
        say(&self.out, reply);
    }
}

/// A move being thought about: its number, its `position`, its answer.
type Thinking = Arc<Mutex<Option<(u32, String, Reply)>>>;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mode = value("--mode").unwrap_or_else(|| "random".into());
    let mut after: u32 = value("--after").and_then(|v| v.parse().ok()).unwrap_or(0);
    let seed: u64 = value("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    let ms: u64 = value("--ms").and_then(|v| v.parse().ok()).unwrap_or(0);
    let lines: u32 = value("--lines").and_then(|v| v.parse().ok()).unwrap_or(0);
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let stop_mode = value("--stop").unwrap_or_else(|| "answer".into());
    let answers = Answers {
        out: Arc::clone(&out),
        log: value("--log").map(|file| {
            Arc::new(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(file)
                    .expect("log file"),
            ))
        }),
    };
    let thinking: Thinking = Arc::new(Mutex::new(None));
    let mut mode = mode;
    let mut position_line = String::from("position startpos");

    if mode == "slowstart" {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let mut pids = vec![std::process::id()];
    if mode == "grandchild" {
        // A helper that inherits the output and outlives us.
        if let Ok(helper) = std::process::Command::new("sleep").arg("600").spawn() {
            pids.push(helper.id());
        }
    }
    if let Some(file) = value("--pids") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .expect("pid file");
        for pid in pids {
            let _ = writeln!(file, "{pid}");
        }
    }

    let mut session = GAMES[0].session::<&str>(&[]).expect("the default ruleset");
    let mut asked = 0u32;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match parse_line(&line) {
            Ok(Some(Command::Uci)) => {
                say(
                    &out,
                    &Reply::Id {
                        field: IdField::Name,
                        value: format!("fake-{mode}"),
                    },
                );
                say(
                    &out,
                    &Reply::Option(OptionLine {
                        name: "Skill".into(),
                        kind: OptionKind::Spin {
                            default: 20,
                            min: 0,
                            max: 20,
                        },
                    }),
                );
                say(&out, &Reply::UciOk);
            }
            Ok(Some(Command::IsReady)) => say(&out, &Reply::ReadyOk),
            Ok(Some(Command::Quit)) => return,
            Ok(Some(Command::SetOption { name, value })) => {
                let known = name.eq_ignore_ascii_case("Skill")
                    && value
                        .as_deref()
                        .and_then(|v| v.parse::<u32>().ok())
                        .is_some_and(|v| v <= 20);
                if !known {
                    say(
                        &out,
                        &Reply::error("setoption", format!("cannot set {name}")),
                    );
                }
            }
            Ok(Some(Command::NewGame { game, options })) => {
                if let Ok(s) = catalogue::new_session_named(&GAMES, &game, &options) {
                    session = s;
                }
            }
            Ok(Some(Command::Stop)) => {
                let taken = match stop_mode.as_str() {
                    "ignore" | "never" => None,
                    _ => thinking.lock().unwrap().take(),
                };
                if let Some((_, position, reply)) = taken {
                    answers.answer(&position, &reply);
                }
                if stop_mode == "extra" {
                    answers.answer(&position_line, &random_move(session.as_ref(), seed, 0));
                }
            }
            Ok(Some(Command::Position { notation, moves })) => {
                position_line = line.trim().to_string();
                if mode == "reject" {
                    say(
                        &out,
                        &Reply::error("position", "bad notation: I cannot read this"),
                    );
                } else {
                    let _ = session.set_position(notation.as_deref(), &moves);
                }
            }
            Ok(Some(Command::Go(_))) => {
                asked += 1;
                // A search still running ends first, with its own answer,
                // as an engine that is sent `go` while it thinks.
                let unfinished = thinking.lock().unwrap().take();
                if let Some((_, position, reply)) = unfinished.filter(|_| stop_mode != "never") {
                    answers.answer(&position, &reply);
                }
                if asked <= after {
                    answers.answer(&position_line, &random_move(session.as_ref(), seed, asked));
                    continue;
                }
                let current = mode.clone();
                match current.as_str() {
                    "crash" | "grandchild" => std::process::exit(3),
                    "hang" => loop {
                        std::thread::sleep(Duration::from_secs(60));
                    },
                    "illegal" => say(&out, &Reply::BestMove(Some("a1a1".into()))),
                    "garbage" => say(
                        &out,
                        &Reply::Line("I am not an engine, I am a teapot".into()),
                    ),
                    "reject" => say(&out, &Reply::BestMove(None)),
                    "flood" => {
                        say(&out, &random_move(session.as_ref(), seed, asked));
                        let out = Arc::clone(&out);
                        std::thread::spawn(move || loop {
                            say(&out, &Reply::Remark("flooding ".repeat(20)));
                        });
                        after = u32::MAX;
                    }
                    "chatty" => {
                        std::thread::sleep(Duration::from_millis(ms));
                        let mut text = String::new();
                        for i in 0..lines {
                            text.push_str(&format!("info depth {} nodes {i} pv\n", i % 60 + 1));
                        }
                        text.push_str(&format!("{}\n", random_move(session.as_ref(), seed, asked)));
                        let mut out = out.lock().unwrap();
                        let _ = out.write_all(text.as_bytes());
                        let _ = out.flush();
                    }
                    "think" | "late" => {
                        let reply = random_move(session.as_ref(), seed, asked);
                        *thinking.lock().unwrap() = Some((asked, position_line.clone(), reply));
                        let (thinking, answers) = (Arc::clone(&thinking), answers.clone());
                        let lost = stop_mode == "never";
                        std::thread::spawn(move || {
                            std::thread::sleep(Duration::from_millis(ms));
                            let mut slot = thinking.lock().unwrap();
                            if slot.as_ref().is_some_and(|(n, ..)| *n == asked) {
                                let (_, position, reply) = slot.take().expect("checked");
                                if !lost {
                                    answers.answer(&position, &reply);
                                }
                            }
                        });
                        if mode == "late" {
                            mode = "random".into();
                        }
                    }
                    "twice" => {
                        let reply = random_move(session.as_ref(), seed, asked);
                        answers.answer(&position_line, &reply);
                        answers.answer(&position_line, &reply);
                    }
                    _ => {
                        answers.answer(&position_line, &random_move(session.as_ref(), seed, asked))
                    }
                }
            }
            _ => {}
        }
    }
}

fn random_move(session: &dyn DynSession, seed: u64, asked: u32) -> Reply {
    let moves = session.legal_moves();
    if moves.is_empty() {
        return Reply::BestMove(None);
    }
    let mut rng = Rng::new(seed ^ (asked as u64) << 20 ^ session.notation().len() as u64);
    Reply::BestMove(Some(moves[rng.below(moves.len() as u64) as usize].clone()))
}
