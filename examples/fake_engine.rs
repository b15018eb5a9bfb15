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

/// What the command line asked the fake to be.
struct Settings {
    mode: String,
    /// Plays well for this many `go`s before its mode shows.
    after: u32,
    seed: u64,
    ms: u64,
    lines: u32,
    stop_mode: String,
}

/// The fake engine: its settings, the game it keeps and what it thinks.
struct Fake {
    settings: Settings,
    out: Out,
    answers: Answers,
    thinking: Thinking,
    position_line: String,
    session: Box<dyn DynSession>,
    asked: u32,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number =
        |flag: &str, default: u64| value(flag).and_then(|v| v.parse().ok()).unwrap_or(default);
    let settings = Settings {
        mode: value("--mode").unwrap_or_else(|| "random".into()),
        after: number("--after", 0) as u32,
        seed: number("--seed", 1),
        ms: number("--ms", 0),
        lines: number("--lines", 0) as u32,
        stop_mode: value("--stop").unwrap_or_else(|| "answer".into()),
    };
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let answers = Answers {
        out: Arc::clone(&out),
        log: value("--log").map(|file| Arc::new(Mutex::new(append_to(&file)))),
    };
    start(&settings, value("--pids"));
    let mut fake = Fake {
        settings,
        out,
        answers,
        thinking: Arc::new(Mutex::new(None)),
        position_line: String::from("position startpos"),
        session: GAMES[0].session::<&str>(&[]).expect("the default ruleset"),
        asked: 0,
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if let Ok(Some(command)) = parse_line(&line) {
            if fake.on(command, &line).is_break() {
                return;
            }
        }
    }
}

fn append_to(file: &str) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .expect("a file to append to")
}

/// A slow start, a helper left behind, and the pids written down.
fn start(settings: &Settings, pid_file: Option<String>) {
    if settings.mode == "slowstart" {
        std::thread::sleep(Duration::from_millis(settings.ms));
    }
    let mut pids = vec![std::process::id()];
    if settings.mode == "grandchild" {
        // A helper that inherits the output and outlives us.
        if let Ok(helper) = std::process::Command::new("sleep").arg("600").spawn() {
            pids.push(helper.id());
        }
    }
    if let Some(file) = pid_file {
        let mut file = append_to(&file);
        for pid in pids {
            let _ = writeln!(file, "{pid}");
        }
    }
}

impl Fake {
    fn on(&mut self, command: Command, line: &str) -> std::ops::ControlFlow<()> {
        let out = &self.out;
        match command {
            Command::Uci => {
                say(
                    out,
                    &Reply::Id {
                        field: IdField::Name,
                        value: format!("fake-{}", self.settings.mode),
                    },
                );
                say(
                    out,
                    &Reply::Option(OptionLine {
                        name: "Skill".into(),
                        kind: OptionKind::Spin {
                            default: 20,
                            min: 0,
                            max: 20,
                        },
                    }),
                );
                say(out, &Reply::UciOk);
            }
            Command::IsReady => say(out, &Reply::ReadyOk),
            Command::Quit => return std::ops::ControlFlow::Break(()),
            Command::SetOption { name, value } => {
                let known = name.eq_ignore_ascii_case("Skill")
                    && value
                        .as_deref()
                        .and_then(|v| v.parse::<u32>().ok())
                        .is_some_and(|v| v <= 20);
                if !known {
                    say(
                        out,
                        &Reply::error("setoption", format!("cannot set {name}")),
                    );
                }
            }
            Command::NewGame { game, options } => {
                if let Ok(s) = catalogue::new_session_named(&GAMES, &game, &options) {
                    self.session = s;
                }
            }
            Command::Stop => self.on_stop(),
            Command::Position { notation, moves } => {
                self.position_line = line.trim().to_string();
                if self.settings.mode == "reject" {
                    say(
                        out,
                        &Reply::error("position", "bad notation: I cannot read this"),
                    );
                } else {
                    let _ = self.session.set_position(notation.as_deref(), &moves);
                }
            }
            Command::Go(_) => self.on_go(),
            _ => {}
        }
        std::ops::ControlFlow::Continue(())
    }

    fn on_stop(&mut self) {
        let taken = match self.settings.stop_mode.as_str() {
            "ignore" | "never" => None,
            _ => self.thinking.lock().unwrap().take(),
        };
        if let Some((_, position, reply)) = taken {
            self.answers.answer(&position, &reply);
        }
        if self.settings.stop_mode == "extra" {
            let extra = self.random_move(0);
            self.answers.answer(&self.position_line, &extra);
        }
    }

    fn random_move(&self, asked: u32) -> Reply {
        random_move(self.session.as_ref(), self.settings.seed, asked)
    }

    fn on_go(&mut self) {
        self.asked += 1;
        let asked = self.asked;
        // A search still running ends first, with its own answer, as an
        // engine that is sent `go` while it thinks.
        let unfinished = self.thinking.lock().unwrap().take();
        if let Some((_, position, reply)) =
            unfinished.filter(|_| self.settings.stop_mode != "never")
        {
            self.answers.answer(&position, &reply);
        }
        let (out, answers) = (&self.out, &self.answers);
        if asked <= self.settings.after {
            answers.answer(&self.position_line, &self.random_move(asked));
            return;
        }
        match self.settings.mode.as_str() {
            "crash" | "grandchild" => std::process::exit(3),
            "hang" => loop {
                std::thread::sleep(Duration::from_secs(60));
            },
            "illegal" => say(out, &Reply::BestMove(Some("a1a1".into()))),
            "garbage" => say(
                out,
                &Reply::Line("I am not an engine, I am a teapot".into()),
            ),
            "reject" => say(out, &Reply::BestMove(None)),
            "flood" => {
                say(out, &self.random_move(asked));
                let out = Arc::clone(out);
                std::thread::spawn(move || loop {
                    say(&out, &Reply::Remark("flooding ".repeat(20)));
                });
                self.settings.after = u32::MAX;
            }
            "chatty" => {
                std::thread::sleep(Duration::from_millis(self.settings.ms));
                let mut text = String::new();
                for i in 0..self.settings.lines {
                    text.push_str(&format!("info depth {} nodes {i} pv\n", i % 60 + 1));
                }
                text.push_str(&format!("{}\n", self.random_move(asked)));
                let mut out = out.lock().unwrap();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            "think" | "late" => self.think(asked),
            "twice" => {
                let reply = self.random_move(asked);
                answers.answer(&self.position_line, &reply);
                answers.answer(&self.position_line, &reply);
            }
            _ => answers.answer(&self.position_line, &self.random_move(asked)),
        }
    }

    /// Answers after `ms` unless stopped first (or never, with
    /// `--stop never`); `late` thinks so once, then plays at once.
    fn think(&mut self, asked: u32) {
        let reply = self.random_move(asked);
        *self.thinking.lock().unwrap() = Some((asked, self.position_line.clone(), reply));
        let (thinking, answers) = (Arc::clone(&self.thinking), self.answers.clone());
        let lost = self.settings.stop_mode == "never";
        let ms = self.settings.ms;
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
        if self.settings.mode == "late" {
            self.settings.mode = "random".into();
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
