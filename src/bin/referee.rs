//! The referee: plays matches between two engine processes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use menagerie::referee::record::{replay, Record};
use menagerie::referee::spec::{parse_engine, parse_tc, EngineSpec, Limit};
use menagerie::referee::stats::Sprt;
use menagerie::referee::tournament::{run, MatchConfig};
use menagerie::runtime::registry;

const EXAMPLES: &str = "\
Examples:
  referee
      a short demo: the bundled engine at full strength against its greedy
      setting (Skill 1), 10 games of safari-dual at 20 ms per move
  referee --engine ./menagerie name=new --engine ./menagerie name=old option.Skill=10 \\
          --game awithlaknannai-mosona --rounds 50 --tc 5+0.05 --concurrency 2 --record games.txt
  referee --engine ./a --engine ./b --game kilkenny-cats players=4 --games 100 --movetime 100 \\
          --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05
  referee replay games.txt

Engine settings (after the command line of an --engine): name=<name>,
option.<Name>=<value> (sent with setoption), tc=<base>+<inc>, movetime=<ms>,
depth=<n>, nodes=<n> (the engine's own limit, overriding the match's).";

/// Plays matches between two engines speaking the menagerie protocol, for
/// any of the four games, and reports score, Elo and SPRT.
#[derive(Parser)]
#[command(name = "referee", version, about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,

    // Values are grouped per occurrence through the raw matches (engine_groups).
    /// An engine: its command line, then settings. Give it twice (none: the demo).
    #[arg(long = "engine", num_args = 1.., action = ArgAction::Append, value_name = "CMD [KEY=VALUE]...")]
    engines: Vec<String>,

    /// The game id, then ruleset options as key=value.
    #[arg(long, num_args = 1.., value_name = "ID [KEY=VALUE]...", default_values = ["safari-dual"])]
    game: Vec<String>,

    /// Number of games.
    #[arg(long, conflicts_with = "rounds")]
    games: Option<u32>,

    /// Number of rounds: a round is a pair of games with seats swapped.
    #[arg(long)]
    rounds: Option<u32>,

    /// Clock: base+increment in seconds, e.g. 10+0.1.
    #[arg(long, group = "limit", value_name = "BASE+INC")]
    tc: Option<String>,

    /// Fixed time per move in milliseconds.
    #[arg(long, group = "limit", value_name = "MS")]
    movetime: Option<u64>,

    /// Fixed search depth per move.
    #[arg(long, group = "limit")]
    depth: Option<u32>,

    /// Fixed node count per move.
    #[arg(long, group = "limit")]
    nodes: Option<u64>,

    /// Games played at the same time (each engine process plays one at a time).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    concurrency: u32,

    /// Seed of the dice and random openings (default: from the clock; printed).
    #[arg(long)]
    seed: Option<u64>,

    /// Openings: one notation, or move list from the start, per line; each played twice.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,

    /// Random plies from the start for each pair, when there is no openings file.
    #[arg(long, default_value_t = 0, value_name = "N")]
    random_openings: u32,

    /// Append one record line per finished game to this file.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Adjudicate a draw after this many player moves.
    #[arg(long, value_name = "N")]
    max_plies: Option<u32>,

    /// Stop when a sequential test decides: elo0=.. elo1=.. alpha=.. beta=..
    #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
    sprt: Vec<String>,

    /// Only print the summary.
    #[arg(long)]
    quiet: bool,

    /// Milliseconds an engine may stay silent past its time before it forfeits.
    #[arg(long, default_value_t = 3000, value_name = "MS")]
    stall_timeout: u64,

    /// Milliseconds over its clock an engine is forgiven.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    time_margin: u64,
}

#[derive(Subcommand)]
enum Sub {
    /// Re-check every record of a file against the rules and print its final position.
    Replay {
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

/// A problem found before any game starts: exit code 2.
fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("referee: error: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match &cli.command {
        Some(Sub::Replay { file }) => replay_file(file),
        None => match config(&cli, &engine_groups(&matches)) {
            Ok(config) => match run(&config, &mut std::io::stdout()) {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => fail(e),
            },
            Err(message) => fail(message),
        },
    }
}

fn replay_file(file: &PathBuf) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
    };
    let mut bad = 0;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let checked = line
            .parse::<Record>()
            .and_then(|r| replay(&r).map(|done| (r, done)));
        match checked {
            Ok((r, done)) => println!(
                "record {} (game {}): {} {} | {} | {}",
                n + 1,
                r.index + 1,
                r.game,
                r.result,
                done.status,
                done.final_notation
            ),
            Err(e) => {
                bad += 1;
                println!("record {}: error: {e}", n + 1);
            }
        }
    }
    if bad > 0 {
        eprintln!("referee: {bad} record(s) failed the replay");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The bundled engine, next to this program.
fn bundled_engine() -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate the referee: {e}"))?;
    let engine = exe.with_file_name(format!("menagerie{}", std::env::consts::EXE_SUFFIX));
    if engine.exists() {
        Ok(engine.to_string_lossy().into_owned())
    } else {
        Err(format!(
            "no engine given and the bundled engine is not at {} (build it: cargo build --release)",
            engine.display()
        ))
    }
}

/// The values of each `--engine`, one group per occurrence.
fn engine_groups(matches: &ArgMatches) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>("engines")
        .map(|groups| groups.map(|g| g.cloned().collect()).collect())
        .unwrap_or_default()
}

fn config(cli: &Cli, engine_args: &[Vec<String>]) -> Result<MatchConfig, String> {
    let engines: Vec<EngineSpec> = match engine_args.len() {
        0 => {
            let engine = bundled_engine()?;
            let demo = [
                vec![engine.clone(), "name=full".into()],
                vec![engine, "name=greedy".into(), "option.Skill=1".into()],
            ];
            demo.iter()
                .enumerate()
                .map(|(i, v)| parse_engine(v, i).map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?
        }
        2 => engine_args
            .iter()
            .enumerate()
            .map(|(i, v)| parse_engine(v, i).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?,
        n => {
            return Err(format!(
                "a match needs two engines (--engine twice), got {n}"
            ))
        }
    };
    if engines[0].name == engines[1].name {
        return Err(format!(
            "both engines are named '{}'; give one a name= setting",
            engines[0].name
        ));
    }
    for e in &engines {
        if e.name
            .contains(|c: char| c.is_whitespace() || matches!(c, ',' | ':' | '=' | '\t'))
        {
            return Err(format!(
                "engine name '{}' may not contain blanks, ',', ':' or '='",
                e.name
            ));
        }
    }
    let (id, rules) = cli.game.split_first().ok_or("--game needs a game id")?;
    let entry = registry::find(id)
        .ok_or_else(|| registry::GameError::UnknownGame(id.clone()).to_string())?;
    entry.session(rules).map_err(|e| e.to_string())?;
    let limit = if let Some(tc) = &cli.tc {
        parse_tc(tc)
            .ok_or_else(|| format!("--tc '{tc}': expected <base>+<inc> in seconds, e.g. 10+0.1"))?
    } else if let Some(ms) = cli.movetime {
        Limit::MoveTime(ms)
    } else if let Some(d) = cli.depth {
        Limit::Depth(d)
    } else if let Some(n) = cli.nodes {
        Limit::Nodes(n)
    } else {
        Limit::MoveTime(20)
    };
    let games = match (cli.games, cli.rounds) {
        (Some(g), _) => g,
        (None, Some(r)) => r.checked_mul(2).ok_or("--rounds is too large")?,
        (None, None) => 10,
    };
    // The demo varies its games with a few random plies.
    let random_openings =
        if engine_args.is_empty() && cli.openings.is_none() && cli.random_openings == 0 {
            4
        } else {
            cli.random_openings
        };
    let openings = match &cli.openings {
        Some(path) => load_openings(path, entry, rules)?,
        None => Vec::new(),
    };
    let sprt = if cli.sprt.is_empty() {
        None
    } else {
        Some(parse_sprt(&cli.sprt)?)
    };
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64 & 0xFFFF_FFFF)
    });
    let [a, b]: [EngineSpec; 2] = engines.try_into().map_err(|_| "two engines".to_string())?;
    Ok(MatchConfig {
        engines: [a, b],
        entry,
        rules: rules.to_vec(),
        games,
        limit,
        concurrency: cli.concurrency as usize,
        seed,
        openings,
        random_openings,
        record: cli.record.clone(),
        max_plies: cli.max_plies,
        sprt,
        quiet: cli.quiet,
        stall: Duration::from_millis(cli.stall_timeout),
        margin_ms: cli.time_margin,
    })
}

/// Reads an openings file into start notations.
fn load_openings(
    path: &PathBuf,
    entry: &registry::GameEntry,
    rules: &[String],
) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("openings file {}: {e}", path.display()))?;
    let mut openings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut session = entry.session(rules).map_err(|e| e.to_string())?;
        let as_notation = session.set_position(Some(line), &[]);
        if as_notation.is_err() {
            let (notation, moves) = match line.split_once(" moves ") {
                Some((fen, moves)) => (Some(fen), moves),
                None => (None, line),
            };
            let moves: Vec<String> = moves.split_whitespace().map(String::from).collect();
            if let Err(e) = session.set_position(notation, &moves) {
                let why = match (notation, as_notation) {
                    (None, Err(notation_error)) => {
                        format!("not a notation ({notation_error}) nor a move list ({e})")
                    }
                    _ => e.to_string(),
                };
                return Err(format!(
                    "openings file {} line {}: {why}",
                    path.display(),
                    n + 1
                ));
            }
        }
        if session.status() != menagerie::game::Status::Ongoing {
            return Err(format!(
                "openings file {} line {}: the game is already over",
                path.display(),
                n + 1
            ));
        }
        openings.push(session.notation());
    }
    if openings.is_empty() {
        return Err(format!("openings file {} has no openings", path.display()));
    }
    Ok(openings)
}

fn parse_sprt(words: &[String]) -> Result<Sprt, String> {
    let mut sprt = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("--sprt '{word}' is not key=value"))?;
        let v: f64 = value
            .parse()
            .map_err(|_| format!("--sprt {key}: '{value}' is not a number"))?;
        match key {
            "elo0" => sprt.elo0 = v,
            "elo1" => sprt.elo1 = v,
            "alpha" if v > 0.0 && v < 1.0 => sprt.alpha = v,
            "beta" if v > 0.0 && v < 1.0 => sprt.beta = v,
            "alpha" | "beta" => return Err(format!("--sprt {key} must be between 0 and 1")),
            _ => {
                return Err(format!(
                    "--sprt: unknown key '{key}' (known: elo0, elo1, alpha, beta)"
                ))
            }
        }
    }
    if sprt.elo1 <= sprt.elo0 {
        return Err("--sprt needs elo1 greater than elo0".to_string());
    }
    Ok(sprt)
}
