//! A small engine for the referee's tests: plays seeded random legal moves,
//! and in its faulty modes crashes, hangs, plays an illegal move or prints
//! garbage once it has been asked for `--after` moves.
//!
//!     fake_engine [--mode random|crash|hang|illegal|garbage] [--after N] [--seed S]

use std::io::{BufRead, Write};

use menagerie::protocol::command::{parse_line, Command};
use menagerie::rng::Rng;
use menagerie::runtime::registry;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mode = value("--mode").unwrap_or_else(|| "random".into());
    let after: u32 = value("--after").and_then(|v| v.parse().ok()).unwrap_or(0);
    let seed: u64 = value("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);

    let mut session = registry::default_session();
    let mut asked = 0u32;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let reply: Vec<String> = match parse_line(&line) {
            Ok(Some(Command::Uci)) => vec![
                format!("id name fake-{mode}"),
                "id author tests".into(),
                "uciok".into(),
            ],
            Ok(Some(Command::IsReady)) => vec!["readyok".into()],
            Ok(Some(Command::Quit)) => return,
            Ok(Some(Command::NewGame { game, options })) => {
                if let Ok(s) = registry::new_session_named(&game, &options) {
                    session = s;
                }
                vec![]
            }
            Ok(Some(Command::Position { notation, moves })) => {
                let _ = session.set_position(notation.as_deref(), &moves);
                vec![]
            }
            Ok(Some(Command::Go(_))) => {
                asked += 1;
                if asked > after {
                    match mode.as_str() {
                        "crash" => std::process::exit(3),
                        "hang" => loop {
                            std::thread::sleep(std::time::Duration::from_secs(60));
                        },
                        "illegal" => vec!["bestmove a1a1".into()],
                        "garbage" => vec!["I am not an engine, I am a teapot".into()],
                        _ => vec![random_move(&*session, seed, asked)],
                    }
                } else {
                    vec![random_move(&*session, seed, asked)]
                }
            }
            _ => vec![],
        };
        for r in reply {
            let _ = writeln!(out, "{r}");
        }
        let _ = out.flush();
    }
}

fn random_move(
    session: &dyn menagerie::game::session::DynSession,
    seed: u64,
    asked: u32,
) -> String {
    let moves = session.legal_moves();
    if moves.is_empty() {
        return "bestmove (none)".into();
    }
    let mut rng = Rng::new(seed ^ (asked as u64) << 20 ^ session.notation().len() as u64);
    format!("bestmove {}", moves[rng.below(moves.len() as u64) as usize])
}
