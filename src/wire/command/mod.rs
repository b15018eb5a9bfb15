//! One protocol line into a typed [`Command`], with nom.
//!
//! The parser reads like the protocol: one `alt` arm per command; after a
//! recognised keyword `cut` commits to it, so "unknown command" and "bad
//! argument for go" are different errors. Commands print back (`Display`)
//! to a line that parses to the same command.

use std::fmt;

use super::reply::Reply;
pub use super::work::{
    DatasetArgs, SelfPlayArgs, SliceArg, SolveArgs, SolveKeys, TablesAction, TablesArgs, WordsError,
};
use crate::text::{clip, Clipped};

mod parse;

pub use parse::parse_line;

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
    /// Search speed with each game's network against the hand-written
    /// evaluation, side by side.
    Eval,
}

/// Games per game id that `bench playouts` plays when no count is given.
pub const DEFAULT_PLAYOUTS: u64 = 100_000;
/// Threads `bench threads` compares with one when no count is given.
pub const DEFAULT_THREADS: u32 = 2;

/// Search limits and clocks given to `go`; absent means no limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub time: Option<u64>,
    pub inc: Option<u64>,
    pub movestogo: Option<u32>,
    pub infinite: bool,
    /// UGI's names for the clocks of the first and second player.
    pub p1time: Option<u64>,
    pub p2time: Option<u64>,
    pub p1inc: Option<u64>,
    pub p2inc: Option<u64>,
}

/// What `query` asks about the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// UGI: `true` or `false`.
    GameOver,
    /// UGI: whether the first seat is to move, `true` or `false`.
    P1Turn,
    /// UGI: `p1win`, `p2win`, `draw` or `none` (two-seat games).
    Result,
    /// The letter of the seat to move (or to roll).
    Side,
    /// `ongoing`, `win <seat> <reason>` or `draw <reason>`.
    Status,
    /// The legal moves.
    Legal,
    /// The letters of the seats in play, in turn order.
    Seats,
    /// Whether the position awaits a chance outcome (a roll), `true` or
    /// `false`.
    Chance,
}

impl Query {
    const ALL: [(&'static str, Query); 8] = [
        ("gameover", Query::GameOver),
        ("p1turn", Query::P1Turn),
        ("result", Query::Result),
        ("side", Query::Side),
        ("status", Query::Status),
        ("legal", Query::Legal),
        ("seats", Query::Seats),
        ("chance", Query::Chance),
    ];

    pub fn word(self) -> &'static str {
        Query::ALL
            .iter()
            .find(|(_, q)| *q == self)
            .map(|(w, _)| *w)
            .expect("every query has a word")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    /// Starts a UGI session (cutegames' Universal Game Interface).
    Ugi,
    UgiNewGame,
    Query(Query),
    /// The game catalogue.
    Games,
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    NewGame {
        game: String,
        options: Vec<String>,
    },
    UciNewGame,
    Position {
        notation: Option<String>,
        moves: Vec<String>,
    },
    Move {
        moves: Vec<String>,
    },
    Go(GoParams),
    /// `perft N`, or `go perft N` (`via_go`): a refused `go perft` ends
    /// with `bestmove (none)`, as every refused `go` does.
    Perft {
        depth: u32,
        via_go: bool,
    },
    Stop,
    Quit,
    Display,
    /// `eval`: the evaluation in use and what it says of the position.
    Eval,
    /// `dataset <in> out=PATH`: the positions of a self-play file as a
    /// network's training data.
    Dataset(DatasetArgs),
    Legal,
    /// `solve [nodes N] [memory MIB] [keys history|clock] [checkpoint
    /// PATH] [certificate PATH]`: for positions that no table holds, a
    /// proof search's node budget, the memory its stored positions may
    /// take, when two positions share their numbers, the file it resumes
    /// from and saves to, and the file its proof is written to.
    Solve(SolveArgs),
    /// Plays a chance outcome drawn by the engine.
    Roll,
    Bench(BenchKind),
    Help,
    /// Endgame tables: `tables build|verify|status|bench <game> ...`.
    Tables(TablesArgs),
    /// Self-play data: `selfplay <game> ...`.
    SelfPlay(SelfPlayArgs),
}

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    UnknownCommand(String),
    BadArguments {
        command: &'static str,
        expected: &'static str,
        found: String,
    },
    /// Words of a long command its own checks refuse.
    Words {
        command: &'static str,
        error: WordsError,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ParseError::UnknownCommand(word) => {
                write!(f, "unknown command '{}' (try 'help')", Clipped(word))
            }
            ParseError::BadArguments {
                command,
                expected,
                found,
            } => write!(f, "{command}: expected {expected}, found {found}"),
            ParseError::Words { command, error } => write!(f, "{command}: {error}"),
        }
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The command whose arguments were bad, if the line named one.
    pub fn command(&self) -> Option<&'static str> {
        match self {
            ParseError::BadArguments { command, .. } | ParseError::Words { command, .. } => {
                Some(command)
            }
            ParseError::UnknownCommand(_) => None,
        }
    }

    /// The error as the engine answers it: naming the command (for an
    /// unknown one, the word that was not a command).
    pub fn reply(&self) -> Reply {
        match self {
            ParseError::UnknownCommand(word) => {
                Reply::error(clip(word), "unknown command (try 'help')")
            }
            ParseError::BadArguments {
                command,
                expected,
                found,
            } => Reply::error(*command, format!("expected {expected}, found {found}")),
            ParseError::Words { command, error } => Reply::error(*command, error),
        }
    }
}

impl fmt::Display for GoParams {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("go")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
            ("movetime", self.movetime),
            ("wtime", self.wtime),
            ("btime", self.btime),
            ("winc", self.winc),
            ("binc", self.binc),
            ("time", self.time),
            ("inc", self.inc),
            ("movestogo", self.movestogo.map(u64::from)),
            ("p1time", self.p1time),
            ("p2time", self.p2time),
            ("p1inc", self.p1inc),
            ("p2inc", self.p2inc),
        ];
        for (name, value) in numbers {
            if let Some(v) = value {
                write!(f, " {name} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        Ok(())
    }
}

/// When a command takes effect while the engine is busy (protocol.md,
/// "Order"): the four classes every engine of this protocol keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `stop`, `quit`: act the moment they are read, whatever runs or
    /// waits, and are never refused.
    Control,
    /// `isready`, UCI's barrier: while a search or other long work runs
    /// (and has not been told to stop), answered at once without stopping
    /// it; otherwise answered once every line sent before it has been
    /// answered. Never refused.
    Sync,
    /// Commands that only read the state (`d`, `legal`, `query`, `help`,
    /// `games`, `uci`, `ugi`): answered at once, also during a search,
    /// unless a state command waits before them.
    ReadOnly,
    /// Commands that change the state or start long work: run in the
    /// order they arrived, each after the work before it has answered.
    State,
}

impl Command {
    /// The command's [`Class`].
    pub fn class(&self) -> Class {
        match self {
            Command::Stop | Command::Quit => Class::Control,
            Command::IsReady => Class::Sync,
            Command::Display
            | Command::Eval
            | Command::Legal
            | Command::Query(_)
            | Command::Help
            | Command::Games
            | Command::Uci
            | Command::Ugi => Class::ReadOnly,
            Command::UgiNewGame
            | Command::SetOption { .. }
            | Command::NewGame { .. }
            | Command::UciNewGame
            | Command::Position { .. }
            | Command::Move { .. }
            | Command::Go(_)
            | Command::Perft { .. }
            | Command::Solve(_)
            | Command::Roll
            | Command::Bench(_)
            | Command::Tables(_)
            | Command::SelfPlay(_)
            | Command::Dataset(_) => Class::State,
        }
    }

    /// The command's word, which error replies name.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Uci => "uci",
            Command::Ugi => "ugi",
            Command::UgiNewGame => "uginewgame",
            Command::Query(_) => "query",
            Command::Games => "games",
            Command::IsReady => "isready",
            Command::SetOption { .. } => "setoption",
            Command::NewGame { .. } => "newgame",
            Command::UciNewGame => "ucinewgame",
            Command::Position { .. } => "position",
            Command::Move { .. } => "move",
            Command::Go(_) => "go",
            Command::Perft { via_go: true, .. } => "go",
            Command::Perft { .. } => "perft",
            Command::Stop => "stop",
            Command::Quit => "quit",
            Command::Display => "d",
            Command::Eval => "eval",
            Command::Dataset(_) => "dataset",
            Command::Legal => "legal",
            Command::Solve(_) => "solve",
            Command::Roll => "roll",
            Command::Bench(_) => "bench",
            Command::Help => "help",
            Command::Tables(_) => "tables",
            Command::SelfPlay(_) => "selfplay",
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let list = |moves: &[String]| moves.join(" ");
        match self {
            Command::Uci => f.write_str("uci"),
            Command::Ugi => f.write_str("ugi"),
            Command::UgiNewGame => f.write_str("uginewgame"),
            Command::Query(q) => write!(f, "query {}", q.word()),
            Command::Games => f.write_str("games"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption { name, value: None } => write!(f, "setoption name {name}"),
            Command::SetOption {
                name,
                value: Some(v),
            } => write!(f, "setoption name {name} value {v}"),
            Command::NewGame { game, options } if options.is_empty() => write!(f, "newgame {game}"),
            Command::NewGame { game, options } => write!(f, "newgame {game} {}", list(options)),
            Command::UciNewGame => f.write_str("ucinewgame"),
            Command::Position { notation, moves } => {
                match notation {
                    None => f.write_str("position startpos")?,
                    Some(n) => write!(f, "position fen {n}")?,
                }
                if !moves.is_empty() {
                    write!(f, " moves {}", list(moves))?;
                }
                Ok(())
            }
            Command::Move { moves } => write!(f, "move {}", list(moves)),
            Command::Go(params) => params.fmt(f),
            Command::Perft {
                depth,
                via_go: false,
            } => write!(f, "perft {depth}"),
            Command::Perft {
                depth,
                via_go: true,
            } => write!(f, "go perft {depth}"),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::Display => f.write_str("d"),
            Command::Eval => f.write_str("eval"),
            Command::Dataset(args) => args.fmt(f),
            Command::Legal => f.write_str("legal"),
            Command::Solve(args) => args.fmt(f),
            Command::Roll => f.write_str("roll"),
            Command::Bench(BenchKind::Search) => f.write_str("bench"),
            Command::Bench(BenchKind::Perft) => f.write_str("bench perft"),
            Command::Bench(BenchKind::Eval) => f.write_str("bench eval"),
            Command::Bench(BenchKind::Playouts(n)) => write!(f, "bench playouts {n}"),
            Command::Bench(BenchKind::Threads(n)) => write!(f, "bench threads {n}"),
            Command::Help => f.write_str("help"),
            Command::Tables(args) => args.fmt(f),
            Command::SelfPlay(args) => args.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Command {
        parse_line(line).unwrap().unwrap()
    }

    fn error(line: &str) -> String {
        parse_line(line).unwrap_err().to_string()
    }

    #[test]
    fn tables_lines_parse_and_print_back() {
        let line = "tables build awithlaknannai-mosona board=plain men=6 dir=/tmp/t";
        let command = parse(line);
        assert_eq!(
            command,
            Command::Tables(TablesArgs {
                action: TablesAction::Build,
                game: "awithlaknannai-mosona".to_string(),
                ruleset: vec!["board=plain".into()],
                men: Some(6),
                dir: Some("/tmp/t".into()),
                slice: None,
                threads: None,
                fresh: false,
            })
        );
        assert_eq!(command.to_string(), line);
        assert_eq!(parse("tables status am").to_string(), "tables status am");
        assert_eq!(parse("solve"), Command::Solve(SolveArgs::default()));
        let line = "solve nodes 9000 memory 64 checkpoint /tmp/p.ckpt";
        assert_eq!(parse(line).to_string(), line);
        let line = "solve nodes 9000 checkpoint /tmp/p.ckpt certificate /tmp/p.cert";
        assert_eq!(parse(line).to_string(), line);
        assert_eq!(
            parse("solve certificate c.txt"),
            Command::Solve(SolveArgs {
                certificate: Some("c.txt".to_string()),
                ..SolveArgs::default()
            })
        );
        assert!(error("solve certificate").contains("a file path"));
        let line = "solve nodes 9000 memory 64 keys clock checkpoint /tmp/p.ckpt certificate c";
        assert_eq!(parse(line).to_string(), line);
        assert_eq!(
            parse("solve keys history").to_string(),
            "solve keys history"
        );
        assert!(error("solve keys").contains("history or clock"));
        assert!(error("solve keys board").contains("history or clock"));
        assert_eq!(parse("solve memory 8").to_string(), "solve memory 8");
        assert!(error("solve memory").contains("a size in MiB"));
        assert!(error("solve checkpoint").contains("a file path"));
        assert_eq!(parse("solve nodes 5000").to_string(), "solve nodes 5000");
        assert!(error("solve nodes").contains("a node count"));
        assert!(error("solve depth 3").contains("solve"));
        assert!(error("tables").contains("build, verify, status, bench or plan"));
        let command = parse("selfplay kilkenny-cats players=3 games=10 nodes=500 out=/tmp/d.bin");
        assert_eq!(
            command,
            Command::SelfPlay(SelfPlayArgs {
                game: "kilkenny-cats".to_string(),
                ruleset: vec!["players=3".into()],
                games: 10,
                out: "/tmp/d.bin".into(),
                nodes: Some(500),
                openings: None,
                seed: None,
                shard: None,
                join: None,
                network: None,
            })
        );
        // Printed in its own order, which parses back to the same.
        let line = "selfplay kilkenny-cats players=3 games=10 out=/tmp/d.bin nodes=500";
        assert_eq!(command.to_string(), line);
        assert_eq!(parse(line), command);
        assert!(error("selfplay").contains("a game id"));
        assert_eq!(
            error("selfplay am games=0 out=x"),
            "selfplay: 'games=0': expected games=N with N from 1"
        );
        assert_eq!(
            error("selfplay am out=x"),
            "selfplay: selfplay needs games=N"
        );
        assert_eq!(
            error("tables build am men=1"),
            "tables: 'men=1': expected men=N with N from 2 to 32"
        );
        assert_eq!(
            error("tables build am"),
            "tables: tables build needs men=N (the most men of the tables, 2 or more)"
        );
        assert_eq!(error("dataset"), "dataset: dataset needs a self-play file");
        assert_eq!(
            error("dataset a.bin out=b rescore=no"),
            "dataset: rescore takes one value: tables"
        );
        let line = "dataset a.bin out=b rescore=tables";
        assert_eq!(parse(line).to_string(), line);
        let line = "tables verify am board=plain men=9 dir=d slice=4v3 threads=2 fresh";
        assert_eq!(parse(line).to_string(), line);
        assert_eq!(
            parse("tables plan sd men=6").to_string(),
            "tables plan sd men=6"
        );
        assert!(error("tables plan sd").contains("needs men=N"));
        for slice in ["0v0", "2+1v0+2", "3v1+1"] {
            let line = format!("tables build safari men=5 slice={slice}");
            assert_eq!(parse(&line).to_string(), line);
        }
        for bad in ["4+0v3", "4v", "2+1+1v1", "4v3x"] {
            assert!(
                error(&format!("tables build am slice={bad}")).contains("slice=MvO"),
                "{bad}"
            );
        }
        assert!(error("tables fold am").contains("build, verify, status, bench or plan"));
        assert_eq!(
            parse("tables bench am dir=x").to_string(),
            "tables bench am dir=x"
        );
        assert!(error("tables build").contains("a game id"));
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Command::Uci);
        assert_eq!(parse("  isready  "), Command::IsReady);
        assert_eq!(parse("ucinewgame"), Command::UciNewGame);
        assert_eq!(parse("d"), Command::Display);
        assert_eq!(parse("eval"), Command::Eval);
        assert_eq!(parse_line("   ").unwrap(), None);
    }

    #[test]
    fn comments_are_no_command() {
        assert_eq!(parse_line("# menagerie game record 1").unwrap(), None);
        assert_eq!(parse_line("  #result: win n (resigned)").unwrap(), None);
        // Only a whole line is a comment: a word after a command is its argument.
        assert!(parse_line("d # a note").is_err());
    }

    #[test]
    fn position_with_spaced_notation_and_moves() {
        assert_eq!(
            parse("position fen 1/3/3/3 t 1 7 0 moves @b2 @a2"),
            Command::Position {
                notation: Some("1/3/3/3 t 1 7 0".into()),
                moves: vec!["@b2".into(), "@a2".into()]
            }
        );
        assert_eq!(
            parse("position startpos"),
            Command::Position {
                notation: None,
                moves: vec![]
            }
        );
    }

    #[test]
    fn go_parameters_in_any_order() {
        let Command::Go(p) = parse("go btime 100 wtime -5 depth 3 infinite") else {
            panic!("not go")
        };
        assert_eq!(p.depth, Some(3));
        assert_eq!(p.wtime, Some(0));
        assert_eq!(p.btime, Some(100));
        assert!(p.infinite);
        assert_eq!(
            parse("go perft 4"),
            Command::Perft {
                depth: 4,
                via_go: true
            }
        );
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        assert_eq!(
            parse("setoption name Hash value 64"),
            Command::SetOption {
                name: "Hash".into(),
                value: Some("64".into())
            }
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
    }

    #[test]
    fn errors_distinguish_unknown_commands_from_bad_arguments() {
        assert_eq!(error("fly away"), "unknown command 'fly' (try 'help')");
        assert_eq!(error("ucix"), "unknown command 'ucix' (try 'help')");
        assert_eq!(
            error("go depth x"),
            "go: expected a number after 'depth', found 'x'"
        );
        assert_eq!(
            error("go depth"),
            "go: expected a number after 'depth', found end of line"
        );
        assert!(error("go sideways").starts_with("go: expected a go parameter"));
        assert_eq!(
            error("go depth 2 depth 3"),
            "go: expected each go parameter at most once, found 'depth'"
        );
        assert_eq!(error("uci now"), "uci: expected end of line, found 'now'");
        assert_eq!(
            error("position"),
            "position: expected 'startpos' or 'fen <notation>', found end of line"
        );
        assert_eq!(
            error("position fen moves a"),
            "position: expected a notation after 'fen', found 'moves'"
        );
        assert_eq!(
            error("perft"),
            "perft: expected a depth (a number), found end of line"
        );
        assert_eq!(
            error("go perft"),
            "go: expected a depth (a number), found end of line"
        );
        assert_eq!(error("go perft 3 4"), "go: expected end of line, found '4'");
        assert_eq!(
            error("move"),
            "move: expected at least one move, found end of line"
        );
        assert_eq!(
            error("setoption Hash"),
            "setoption: expected 'name', found 'Hash'"
        );
        assert_eq!(
            error("setoption name Hash value"),
            "setoption: expected a value after 'value', found end of line"
        );
        assert_eq!(
            error("bench fast"),
            "bench: expected 'search', 'perft', 'eval', 'playouts [N]' or 'threads [N]', found 'fast'"
        );
    }

    #[test]
    fn commands_print_back_to_themselves() {
        for line in [
            "uci",
            "setoption name Hash value 64",
            "newgame kilkenny-cats players=3",
            "position fen 1/3/3/3 t 1 7 0 moves @b2",
            "position startpos moves @b1 @a2",
            "move a2a3 b1b2b3",
            "go depth 5 nodes 1000 wtime 100 btime 200 winc 1 binc 2 infinite",
            "go time 1000 inc 10",
            "go p1time 1000 p2time 900 p1inc 10 p2inc 10",
            "ugi",
            "uginewgame",
            "query p1turn",
            "query status",
            "games",
            "perft 3",
            "bench playouts 50",
            "bench perft",
            "bench threads 4",
            "bench eval",
            "eval",
            "dataset kc3.bin out=kc3.data",
            "query chance",
            "roll",
            "solve",
            "d",
            "legal",
            "stop",
            "quit",
            "isready",
            "ucinewgame",
            "help",
        ] {
            let cmd = parse(line);
            assert_eq!(cmd.to_string(), line);
            assert_eq!(parse(&cmd.to_string()), cmd);
        }
    }
}
