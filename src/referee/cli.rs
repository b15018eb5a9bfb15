//! The referee's command line: plays matches between two engines, and
//! re-checks or adds up their records. The `referee` program is this
//! module's [`main`] over the games of this build.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::config::{
    check_limit, program_checksum, ConfigError, MatchConfig, MatchRules, OpeningsError,
    PlaySettings, Seating, SprtError, MAX_OPENINGS, MAX_OPENINGS_BYTES, MAX_OPENING_LINE,
};
use crate::matches::{run, Finish};
use crate::merge;
use crate::record::{read_file_past_a_cut, replay};
use crate::report;
use crate::spec::{parse_engine, parse_tc, EngineSpec, Limit};
use crate::stats::Sprt;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use menagerie_os::signals::{self, EXIT_INTERRUPTED};
use menagerie_rules::catalogue::{self, GameEntry, GameError};

const EXAMPLES: &str = "\
Examples (from a clone: cargo build --release, then run them in target/release, where
./menagerie is the engine and ./referee this program):
  referee
      a short demo: the bundled engine at full strength against its greedy
      setting (Skill 1), 10 games of safari-dual at 20,000 nodes per move
      (fixed work: the result is the same on a busy machine)
  referee --engine ./menagerie name=new --engine ./menagerie name=old option.Skill=10 \\
          --game awithlaknannai-mosona --rounds 50 --tc 5+0.05 --random-openings 6 \\
          --concurrency 2 --record games.txt
  referee --engine ./a --engine ./b --game kilkenny-cats players=4 --games 100 --movetime 100 \\
          --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05
  referee ... --seed 7 --record part2.txt --shard 2/8      (a slice of the match)
  referee ... --seed 7 --record games.txt --resume         (finish a cut-short match)
  referee merge part*.txt --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 --json results.json
  referee replay games.txt

Engine settings (after the command line of an --engine): name=<name>,
option.<Name>=<value> (sent with setoption), tc=<base>+<inc>, movetime=<ms>,
depth=<n>, nodes=<n> (the engine's own limit, overriding the match's).

Exit status: 0 the match ended (all games, or an SPRT decision); 1 a record
could not be written, or replay found bad records; 2 bad arguments, an
engine that does not start or refuses an option, a record file that cannot
be used, before any game; 130 interrupted (Ctrl-C prints the summary so far;
a second Ctrl-C stops at once).";

/// Plays matches between two engines speaking the menagerie protocol, for
/// any of the four games, and reports score, Elo and SPRT.
#[derive(Parser)]
#[command(name = "referee", version, after_help = EXAMPLES)]
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

    /// Number of games (at least 1).
    #[arg(long, conflicts_with = "rounds")]
    games: Option<u32>,

    /// Number of rounds: a round is a pair of games with seats swapped (at least 1).
    #[arg(long)]
    rounds: Option<u32>,

    /// Clock: base+increment in seconds, e.g. 10+0.1.
    #[arg(long, group = "limit", value_name = "BASE+INC")]
    tc: Option<String>,

    /// Fixed time per move in milliseconds (at least 1).
    #[arg(long, group = "limit", value_name = "MS")]
    movetime: Option<u64>,

    /// Fixed search depth per move (at least 1).
    #[arg(long, group = "limit")]
    depth: Option<u32>,

    /// Fixed node count per move (at least 1).
    #[arg(long, group = "limit")]
    nodes: Option<u64>,

    /// Games played at the same time (each engine process plays one at a time).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    concurrency: u32,

    /// Seed of the dice and random openings (default: from the clock; printed).
    /// --shard and --resume need it.
    #[arg(long)]
    seed: Option<u64>,

    /// Openings: one notation, or move list from the start, per line; each played twice.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,

    /// Random plies from the start for each pair, when there is no openings file.
    #[arg(long, default_value_t = 0, value_name = "N")]
    random_openings: u32,

    /// Append one record line per finished game to this file (locked while the match runs).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Continue the match of the --record file: play only the games it lacks.
    #[arg(long, requires = "record")]
    resume: bool,

    /// Play only the I-th of N interleaved slices of the pairs (1 <= I <= N).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,

    /// How the engines share the seats of games with more than two: alternate
    /// (in turn order, a pair swapping them) or lone (the first engine alone
    /// in one seat, the second in every other; a set of games gives the
    /// first each seat once, and the report gives its share of wins
    /// against par).
    #[arg(long, default_value = "alternate", value_parser = ["alternate", "lone"])]
    seating: String,

    /// Adjudicate a draw after this many player moves (at least 1).
    #[arg(long, value_name = "N")]
    max_plies: Option<u32>,

    /// Stop when a sequential test decides: elo0=.. elo1=.. alpha=.. beta=.. (all four).
    #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
    sprt: Vec<String>,

    /// Print the Elo and SPRT block every N games (0: only at the end).
    #[arg(long, default_value_t = 10, value_name = "N")]
    rating_interval: u32,

    /// Write the results as JSON to this file at the end.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Only print the summary.
    #[arg(long)]
    quiet: bool,

    /// Check the settings, the record file and the engines with their
    /// options, print what would be played, and play nothing.
    #[arg(long)]
    dry_run: bool,

    /// Milliseconds an engine may take to start and complete its handshake.
    #[arg(long, default_value_t = 30_000, value_name = "MS")]
    startup_timeout: u64,

    /// Milliseconds an engine may take to answer isready (between games, and
    /// pings during searches without a time limit) before it forfeits; and
    /// to answer stop with its bestmove after a time loss before it is
    /// restarted.
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
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
    },
    /// Add up the records of a match's shards: duplicates dropped, complete pairs counted.
    Merge {
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
        /// The SPRT to report: elo0=.. elo1=.. alpha=.. beta=.. (all four).
        #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
        sprt: Vec<String>,
        /// Write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
}

/// A problem found before any game: exit status 2.
fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("referee: error: {message}");
    ExitCode::from(2)
}

/// The `referee` program over the games of `games`: reads the command
/// line and does what it says.
pub fn main(games: &'static [GameEntry]) -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    menagerie_os::signals::report_file_size_limit();
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match &cli.command {
        Some(Sub::Replay { files }) => replay_files(files, games),
        Some(Sub::Merge { files, sprt, json }) => merge_files(files, sprt, json.as_deref()),
        None => {
            // At once, so that a stop signal during the set-up (a
            // scheduler cancelling a job that just started) is a stop
            // like any other.
            let interrupted = signals::stop_on_termination();
            match config(&cli, &engine_groups(&matches), games) {
                Ok(config) => play_match(&config, engine_groups(&matches).is_empty(), interrupted),
                Err(message) => fail(message),
            }
        }
    }
}

/// Seed of the demo's dice and openings, so that it shows the same games
/// every time (`--seed` still chooses others).
const DEMO_SEED: u64 = 2026;

/// Nodes per move of the demo, when no limit is given: under a second
/// for the whole demo here, and the same games on any machine.
const DEMO_NODES: u64 = 20_000;

fn play_match(config: &MatchConfig, demo: bool, interrupted: &AtomicBool) -> ExitCode {
    let mut out = std::io::stdout();
    if demo && !config.quiet {
        let entry = config.play.entry;
        let seats: Vec<String> = entry
            .seat_letters
            .iter()
            .zip(entry.seat_names)
            .map(|(letter, name)| format!("{letter} = {name}"))
            .collect();
        let _ = writeln!(
            out,
            "Demo match: the bundled engine at full strength (full) against its greedy setting (greedy, Skill 1), seed {}.\n\
             Seats are written by letter ({}); each opening is played twice with the seats swapped (a pair).\n",
            config.play.seed,
            seats.join(", ")
        );
    }
    let outcome = match run(config, &mut out, interrupted) {
        Ok(outcome) => outcome,
        Err(e) => return fail(e),
    };
    if config.dry_run {
        return ExitCode::SUCCESS;
    }
    report::summary(&outcome.board, !config.quiet, &mut out);
    report::upkeep(&outcome.board.engines, &outcome.upkeep, &mut out);
    if let Some(machine) = &outcome.load {
        report::machine(machine, &mut out);
    }
    if outcome.engine_moves > 0 && !config.quiet {
        // Output nobody reads (a closed pipe) never stops the match, its
        // records or its JSON.
        let _ = writeln!(
            out,
            "Referee overhead: {:.3} ms per move ({} moves)",
            outcome.referee_ms / outcome.engine_moves as f64,
            outcome.engine_moves
        );
    }
    if demo && !config.quiet {
        let _ = writeln!(
            out,
            "\nPtnml(0-2) counts the pairs by the first engine's points in them: 0, 1/2, 1, 3/2, 2.\n\
             Next: your own match, `referee --engine <cmd> --engine <cmd> --game <id> --rounds 50` \
             (`referee --help`), the tests (`cargo test --release`), or the README."
        );
    }
    if let Some(path) = &config.json {
        if let Err(e) = merge::write_json(&outcome.board, outcome.fingerprint, path) {
            eprintln!("referee: error: {e}");
            return ExitCode::from(1);
        }
    }
    match outcome.finish {
        Finish::Completed | Finish::Decided => ExitCode::SUCCESS,
        Finish::Interrupted => {
            let _ = writeln!(
                out,
                "Interrupted: the summary counts the games finished so far."
            );
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Finish::RecordFailed(why) => {
            eprintln!("referee: error: {why}; the match stopped");
            ExitCode::from(1)
        }
    }
}

fn replay_files(files: &[PathBuf], games: &[GameEntry]) -> ExitCode {
    let mut out = std::io::stdout();
    let (mut good, mut bad) = (0, 0);
    for file in files {
        let lines = match crate::record::FileLines::open(file) {
            Ok(lines) => lines,
            Err(e) => return fail(e),
        };
        // With several files each line names its file.
        let prefix = if files.len() > 1 {
            format!("{}: ", file.display())
        } else {
            String::new()
        };
        for line in lines {
            let line = match line {
                Ok(line) => line,
                Err(e) => {
                    bad += 1;
                    let _ = writeln!(out, "{prefix}error: {e}");
                    break;
                }
            };
            if line.text.trim().is_empty() || line.text.starts_with('#') {
                continue;
            }
            let checked = line
                .text
                .parse::<crate::record::Record>()
                .and_then(|r| replay(&r, games).map(|done| (r, done)));
            // A closed pipe (`| head`) ends the listing, not the checks.
            let _ = match checked {
                Ok((r, done)) => {
                    good += 1;
                    writeln!(
                        out,
                        "{prefix}record {} (game {}): {} {} | {} | {}",
                        line.number,
                        r.index + 1,
                        r.game,
                        r.result,
                        done.ending,
                        done.final_notation
                    )
                }
                Err(e) => {
                    bad += 1;
                    writeln!(out, "{prefix}record {}: error: {e}", line.number)
                }
            };
        }
    }
    let _ = writeln!(
        out,
        "Replayed {} record(s) of {} file(s): {good} agree with the rules, {bad} do not",
        good + bad,
        files.len()
    );
    if bad > 0 {
        eprintln!("referee: {bad} record(s) failed the replay");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn merge_files(files: &[PathBuf], sprt: &[String], json: Option<&Path>) -> ExitCode {
    let sprt = if sprt.is_empty() {
        None
    } else {
        match parse_sprt(sprt) {
            Ok(s) => Some(s),
            Err(e) => return fail(e),
        }
    };
    if let Some(Err(e)) = json.map(menagerie_os::files::write_target) {
        return fail(format!("--json {e}"));
    }
    let mut records = Vec::new();
    for file in files {
        match read_file_past_a_cut(file, false) {
            Ok(read) => {
                if let Some(cut) = read.cut {
                    // A shard killed mid-write: that game is not counted,
                    // and --resume (or --retry) plays it again.
                    eprintln!(
                        "referee: {}: line {} was cut short and is left out",
                        file.display(),
                        cut.line
                    );
                }
                records.extend(read.records);
            }
            Err(e) => return fail(e),
        }
    }
    let merged = match merge::merge(records, sprt) {
        Ok(merged) => merged,
        Err(e) => return fail(e),
    };
    let mut out = std::io::stdout();
    merge::print(&merged, &mut out);
    if let Some(path) = json {
        if let Err(e) = merge::write_json(&merged.board, merged.fingerprint, path) {
            return fail(e);
        }
    }
    ExitCode::SUCCESS
}

/// The bundled engine, next to this program.
fn bundled_engine() -> Result<String, ConfigError> {
    menagerie_os::bundled::engine()
        .map(|path| path.to_string_lossy().into_owned())
        .map_err(ConfigError::Bundled)
}

/// The values of each `--engine`, one group per occurrence.
fn engine_groups(matches: &ArgMatches) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>("engines")
        .map(|groups| groups.map(|g| g.cloned().collect()).collect())
        .unwrap_or_default()
}

fn at_least_one<T: PartialOrd + From<u8> + Copy>(
    value: Option<T>,
    option: &'static str,
) -> Result<(), ConfigError> {
    match value {
        Some(v) if v < T::from(1) => Err(ConfigError::Zero(option)),
        _ => Ok(()),
    }
}

/// The two engines of the command line, or the demo's.
fn engines(engine_args: &[Vec<String>]) -> Result<[EngineSpec; 2], ConfigError> {
    let groups = match engine_args.len() {
        0 => {
            let engine = bundled_engine()?;
            vec![
                vec![engine.clone(), "name=full".into()],
                vec![engine, "name=greedy".into(), "option.Skill=1".into()],
            ]
        }
        2 => engine_args.to_vec(),
        n => return Err(ConfigError::EngineCount(n)),
    };
    let [a, b] = [0, 1].map(|i| parse_engine(&groups[i], i).map_err(ConfigError::Engine));
    let engines = [a?, b?];
    if engines[0].name == engines[1].name {
        return Err(ConfigError::SameNames(engines[0].name.clone()));
    }
    for e in &engines {
        if e.name
            .contains(|c: char| c.is_whitespace() || matches!(c, ',' | ':' | '=' | '\t'))
            || e.name == "-"
        {
            return Err(ConfigError::BadName(e.name.clone()));
        }
        if let Some(limit) = &e.limit {
            check_limit(limit).map_err(|error| ConfigError::EngineLimit {
                engine: e.name.clone(),
                error,
            })?;
        }
    }
    Ok(engines)
}

/// The match the command line describes, checked.
fn config(
    cli: &Cli,
    engine_args: &[Vec<String>],
    games: &'static [GameEntry],
) -> Result<MatchConfig, ConfigError> {
    let engines = engines(engine_args)?;
    // The results go over a regular file or nothing: said now, not after
    // the match.
    if let Some(json) = &cli.json {
        menagerie_os::files::write_target(json).map_err(ConfigError::Json)?;
    }
    let (id, rules) = cli.game.split_first().ok_or(ConfigError::NoGame)?;
    let entry = catalogue::entry(games, id).map_err(ConfigError::Game)?;
    let rules = MatchRules::of(entry, rules).map_err(|e| ConfigError::Ruleset {
        game: id.clone(),
        error: GameError::Ruleset(e),
    })?;
    at_least_one(cli.games, "--games")?;
    at_least_one(cli.rounds, "--rounds")?;
    at_least_one(cli.max_plies, "--max-plies")?;
    at_least_one(cli.movetime, "--movetime")?;
    at_least_one(cli.depth, "--depth")?;
    at_least_one(cli.nodes, "--nodes")?;
    at_least_one(Some(cli.stall_timeout), "--stall-timeout")?;
    at_least_one(Some(cli.startup_timeout), "--startup-timeout")?;
    let limit = if let Some(tc) = &cli.tc {
        parse_tc(tc).map_err(|error| ConfigError::Tc {
            text: tc.clone(),
            error,
        })?
    } else if let Some(ms) = cli.movetime {
        Limit::MoveTime(ms)
    } else if let Some(d) = cli.depth {
        Limit::Depth(d)
    } else if let Some(n) = cli.nodes {
        Limit::Nodes(n)
    } else if engine_args.is_empty() {
        // The demo plays fixed work, so that no load on the machine (a
        // stalled engine, another job) changes its games.
        Limit::Nodes(DEMO_NODES)
    } else {
        Limit::MoveTime(20)
    };
    check_limit(&limit).map_err(ConfigError::Limit)?;
    let games = match (cli.games, cli.rounds) {
        (Some(g), _) => g,
        (None, Some(r)) => r.checked_mul(2).ok_or(ConfigError::RoundsTooLarge)?,
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
        Some(path) => load_openings(path, entry, &rules).map_err(ConfigError::Openings)?,
        None => Vec::new(),
    };
    let sprt = if cli.sprt.is_empty() {
        None
    } else {
        Some(parse_sprt(&cli.sprt).map_err(ConfigError::Sprt)?)
    };
    let shard = cli.shard.as_deref().map(parse_shard).transpose()?;
    if (shard.is_some() || cli.resume) && cli.seed.is_none() {
        return Err(ConfigError::NeedsSeed(if cli.resume {
            "--resume"
        } else {
            "--shard"
        }));
    }
    if shard.is_some() && sprt.is_some() {
        return Err(ConfigError::SprtWithShard);
    }
    let demo = engine_args.is_empty();
    let seed = cli.seed.or(demo.then_some(DEMO_SEED)).unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64 & 0xFFFF_FFFF)
    });
    let programs = [
        program_checksum(&engines[0].command),
        program_checksum(&engines[1].command),
    ];
    Ok(MatchConfig {
        play: PlaySettings {
            entry,
            rules,
            engines,
            limit,
            openings,
            random_openings,
            seed,
            max_plies: cli.max_plies,
            margin_ms: cli.time_margin,
            seating: Seating::from_word(&cli.seating).expect("clap checked the word"),
            programs,
        },
        games,
        concurrency: cli.concurrency as usize,
        record: cli.record.clone(),
        resume: cli.resume,
        shard,
        sprt,
        quiet: cli.quiet && !cli.dry_run,
        dry_run: cli.dry_run,
        startup: Duration::from_millis(cli.startup_timeout),
        stall: Duration::from_millis(cli.stall_timeout),
        rating_interval: cli.rating_interval,
        json: cli.json.clone(),
    })
}

/// `I/N` with 1 <= I <= N.
fn parse_shard(text: &str) -> Result<(u32, u32), ConfigError> {
    let bad = || ConfigError::Shard(text.to_string());
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Reads an openings file into start notations, in bounded memory: lines
/// past [`MAX_OPENING_LINE`], files past [`MAX_OPENINGS_BYTES`] and more
/// than [`MAX_OPENINGS`] openings are refused with where they are.
fn load_openings(
    path: &Path,
    entry: &GameEntry,
    rules: &MatchRules,
) -> Result<Vec<String>, Box<OpeningsError>> {
    use std::io::Read;
    let file = menagerie_os::files::open_regular(path, MAX_OPENINGS_BYTES).map_err(|e| {
        Box::new(match e {
            menagerie_os::files::PathError::TooLarge { .. } => {
                OpeningsError::TooLarge(path.to_path_buf())
            }
            other => OpeningsError::Unreadable(path.to_path_buf(), other.reason()),
        })
    })?;
    let reader = std::io::BufReader::new(file.take(MAX_OPENINGS_BYTES + 1));
    let mut openings = Vec::new();
    let mut read = 0u64;
    for (n, line) in menagerie_os::lines::BoundedLines::new(reader, MAX_OPENING_LINE).enumerate() {
        read += line.length as u64 + 1;
        if read > MAX_OPENINGS_BYTES {
            return Err(Box::new(OpeningsError::TooLarge(path.to_path_buf())));
        }
        if line.is_cut() {
            return Err(Box::new(OpeningsError::LongLine {
                path: path.to_path_buf(),
                line: n + 1,
                bytes: line.length,
            }));
        }
        let text = String::from_utf8_lossy(&line.bytes);
        let line_text = text.trim();
        if line_text.is_empty() || line_text.starts_with('#') {
            continue;
        }
        if openings.len() == MAX_OPENINGS {
            return Err(Box::new(OpeningsError::TooMany(path.to_path_buf())));
        }
        openings.push(opening(path, n + 1, line_text, entry, rules)?);
    }
    if openings.is_empty() {
        return Err(Box::new(OpeningsError::Empty(path.to_path_buf())));
    }
    Ok(openings)
}

/// The start notation of line `n` of an openings file: a notation, or
/// moves (after a notation and `moves`, or from the start).
fn opening(
    path: &Path,
    n: usize,
    line: &str,
    entry: &GameEntry,
    rules: &MatchRules,
) -> Result<String, Box<OpeningsError>> {
    let mut session = rules.session(entry);
    let as_notation = session.set_position(Some(line), &[]);
    if let Err(notation_error) = as_notation {
        let (notation, moves) = match line.split_once(" moves ") {
            Some((fen, moves)) => (Some(fen), moves),
            None => (None, line),
        };
        let moves: Vec<String> = moves.split_whitespace().map(String::from).collect();
        if let Err(as_moves) = session.set_position(notation, &moves) {
            return Err(Box::new(OpeningsError::BadLine {
                path: path.to_path_buf(),
                line: n,
                as_notation: notation.is_none().then_some(notation_error),
                as_moves,
            }));
        }
    }
    if session.status() != menagerie_rules::game::Status::Ongoing {
        return Err(Box::new(OpeningsError::Over {
            path: path.to_path_buf(),
            line: n,
        }));
    }
    Ok(session.notation())
}

/// `elo0=.. elo1=.. alpha=.. beta=..`, all four, once each.
fn parse_sprt(words: &[String]) -> Result<Sprt, SprtError> {
    let mut values: [Option<f64>; 4] = [None; 4];
    const KEYS: [&str; 4] = ["elo0", "elo1", "alpha", "beta"];
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| SprtError::NotKeyValue(word.clone()))?;
        let i = KEYS
            .iter()
            .position(|k| *k == key)
            .ok_or_else(|| SprtError::UnknownKey(key.to_string()))?;
        let v: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| SprtError::NotANumber {
                key: KEYS[i],
                value: value.to_string(),
            })?;
        if values[i].replace(v).is_some() {
            return Err(SprtError::Twice(KEYS[i]));
        }
    }
    let missing: Vec<&str> = KEYS
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| *k)
        .collect();
    if !missing.is_empty() {
        return Err(SprtError::Missing(missing));
    }
    let [elo0, elo1, alpha, beta] = values.map(|v| v.expect("checked"));
    for (key, value) in [("alpha", alpha), ("beta", beta)] {
        if !(value > 0.0 && value < 0.5) {
            return Err(SprtError::ErrorRate { key, value });
        }
    }
    if elo1 <= elo0 {
        return Err(SprtError::Order { elo0, elo1 });
    }
    if elo0.abs() >= 1000.0 || elo1.abs() >= 1000.0 {
        return Err(SprtError::TooLarge);
    }
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}
