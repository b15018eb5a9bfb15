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

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{
    i64 as signed, multispace0, multispace1, u32 as unsigned32, u64 as unsigned64,
};
use nom::combinator::{cut, eof, map, opt, peek, recognize, rest, verify};
use nom::error::{ContextError, ErrorKind, FromExternalError, ParseError as NomParseError};
use nom::multi::{many0, separated_list1};
use nom::sequence::{preceded, terminated};
use nom::{Err as NomErr, IResult, Parser};

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

/// Parses one line. Blank lines are `Ok(None)`.
pub fn parse_line(line: &str) -> Result<Option<Command>, ParseError> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    match command(line) {
        Ok((_, cmd)) => Ok(Some(cmd)),
        Err(NomErr::Failure(Fail {
            command,
            words: Some(error),
            ..
        })) => Err(ParseError::Words {
            command: command.unwrap_or("command"),
            error,
        }),
        Err(NomErr::Failure(e)) => Err(ParseError::BadArguments {
            command: e.command.unwrap_or("command"),
            expected: e.expected.unwrap_or("valid arguments"),
            found: describe(e.at),
        }),
        Err(_) => Err(ParseError::UnknownCommand(
            line.split_whitespace().next().unwrap_or(line).to_string(),
        )),
    }
}

fn describe(at: &str) -> String {
    match at.split_whitespace().next() {
        Some(word) => format!("'{}'", Clipped(word)),
        None => "end of line".to_string(),
    }
}

/// Parse error carrying where it stopped, what was expected there, and in
/// which command.
#[derive(Debug)]
struct Fail<'a> {
    at: &'a str,
    expected: Option<&'static str>,
    command: Option<&'static str>,
    /// What a command's own check of its words refused.
    words: Option<WordsError>,
}

impl<'a> NomParseError<&'a str> for Fail<'a> {
    fn from_error_kind(at: &'a str, _: ErrorKind) -> Self {
        Fail {
            at,
            expected: None,
            command: None,
            words: None,
        }
    }
    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a> ContextError<&'a str> for Fail<'a> {
    /// The innermost context is the most precise, so it is kept.
    fn add_context(_: &'a str, context: &'static str, mut other: Self) -> Self {
        other.expected.get_or_insert(context);
        other
    }
}

impl<'a, E> FromExternalError<&'a str, E> for Fail<'a> {
    fn from_external_error(at: &'a str, kind: ErrorKind, _: E) -> Self {
        Fail::from_error_kind(at, kind)
    }
}

type Res<'a, O> = IResult<&'a str, O, Fail<'a>>;

/// Labels the errors of `parser` with what it expected.
fn expect<'a, O>(
    what: &'static str,
    parser: impl Parser<&'a str, Output = O, Error = Fail<'a>>,
) -> impl Parser<&'a str, Output = O, Error = Fail<'a>> {
    nom::error::context(what, parser)
}

/// A word: the keyword itself, followed by whitespace or the end.
fn keyword<'a>(word: &'static str) -> impl Parser<&'a str, Output = &'a str, Error = Fail<'a>> {
    terminated(tag(word), peek(alt((multispace1, eof))))
}

/// Any whitespace-free token.
fn token(input: &str) -> Res<'_, &str> {
    take_while1(|c: char| !c.is_whitespace()).parse(input)
}

/// The end of the line, trailing blanks allowed.
fn line_end(input: &str) -> Res<'_, ()> {
    map(preceded(multispace0, eof), |_| ()).parse(input)
}

fn end(input: &str) -> Res<'_, ()> {
    expect("end of line", line_end).parse(input)
}

/// A command without arguments.
fn bare<'a>(
    word: &'static str,
    cmd: Command,
) -> impl Parser<&'a str, Output = Command, Error = Fail<'a>> {
    arm(word, map(end, move |_| cmd.clone()))
}

/// One arm of the command table: after `word`, errors are failures that
/// name the command.
fn arm<'a>(
    word: &'static str,
    mut args: impl Parser<&'a str, Output = Command, Error = Fail<'a>>,
) -> impl FnMut(&'a str) -> Res<'a, Command> {
    move |input: &'a str| {
        let (input, _) = keyword(word).parse(input)?;
        match args.parse(input) {
            Ok(done) => Ok(done),
            Err(NomErr::Error(mut e)) | Err(NomErr::Failure(mut e)) => {
                e.command = Some(word);
                Err(NomErr::Failure(e))
            }
            Err(e) => Err(e),
        }
    }
}

fn solve(input: &str) -> Res<'_, Command> {
    // After each keyword, its value must follow.
    let budget = preceded(
        (multispace1, keyword("nodes")),
        cut(expect("a node count", preceded(multispace1, unsigned64))),
    );
    let memory = preceded(
        (multispace1, keyword("memory")),
        cut(expect("a size in MiB", preceded(multispace1, unsigned64))),
    );
    let checkpoint = preceded(
        (multispace1, keyword("checkpoint")),
        cut(expect("a file path", preceded(multispace1, token))),
    );
    let keys = preceded(
        (multispace1, keyword("keys")),
        cut(expect(
            "history or clock",
            preceded(
                multispace1,
                alt((
                    map(keyword("history"), |_| SolveKeys::History),
                    map(keyword("clock"), |_| SolveKeys::Clock),
                )),
            ),
        )),
    );
    let (input, nodes) = opt(budget).parse(input)?;
    let (input, memory) = opt(memory).parse(input)?;
    let (input, keys) = opt(keys).parse(input)?;
    let certificate = preceded(
        (multispace1, keyword("certificate")),
        cut(expect("a file path", preceded(multispace1, token))),
    );
    let (input, checkpoint) = opt(checkpoint).parse(input)?;
    let (input, certificate) = opt(certificate).parse(input)?;
    let (input, _) = end(input)?;
    Ok((
        input,
        Command::Solve(SolveArgs {
            nodes,
            memory,
            keys,
            checkpoint: checkpoint.map(String::from),
            certificate: certificate.map(String::from),
        }),
    ))
}

fn tables(input: &str) -> Res<'_, Command> {
    let action = alt((
        map(keyword("build"), |_| TablesAction::Build),
        map(keyword("verify"), |_| TablesAction::Verify),
        map(keyword("status"), |_| TablesAction::Status),
        map(keyword("bench"), |_| TablesAction::Bench),
    ));
    let (input, action) = expect(
        "build, verify, status or bench",
        preceded(multispace1, action),
    )
    .parse(input)?;
    let (input, game) = expect("a game id", preceded(multispace1, token)).parse(input)?;
    let (rest_of_line, words) = words(input)?;
    let args = TablesArgs::from_words(action, game, &words).map_err(|e| refused(input, e))?;
    Ok((rest_of_line, Command::Tables(args)))
}

fn selfplay(input: &str) -> Res<'_, Command> {
    let (input, game) = expect("a game id", preceded(multispace1, token)).parse(input)?;
    let (rest_of_line, words) = words(input)?;
    let args = SelfPlayArgs::from_words(game, &words).map_err(|e| refused(input, e))?;
    Ok((rest_of_line, Command::SelfPlay(args)))
}

fn dataset(input: &str) -> Res<'_, Command> {
    let (rest_of_line, words) = words(input)?;
    let args = DatasetArgs::from_words(&words).map_err(|e| refused(input, e))?;
    Ok((rest_of_line, Command::Dataset(args)))
}

/// The words to the end of the line.
fn words(input: &str) -> Res<'_, Vec<&str>> {
    terminated(many0(preceded(multispace1, token)), end).parse(input)
}

/// A failure for words the command's own checks refuse.
fn refused(at: &str, error: WordsError) -> NomErr<Fail<'_>> {
    NomErr::Failure(Fail {
        at,
        expected: None,
        command: None,
        words: Some(error),
    })
}

fn command(input: &str) -> Res<'_, Command> {
    alt((
        arm("tables", tables),
        arm("selfplay", selfplay),
        arm("dataset", dataset),
        bare("eval", Command::Eval),
        first_commands,
    ))
    .parse(input)
}

fn first_commands(input: &str) -> Res<'_, Command> {
    alt((
        bare("uci", Command::Uci),
        bare("ugi", Command::Ugi),
        bare("uginewgame", Command::UgiNewGame),
        arm("query", query),
        bare("games", Command::Games),
        bare("isready", Command::IsReady),
        arm("setoption", setoption),
        arm("newgame", newgame),
        bare("ucinewgame", Command::UciNewGame),
        arm("position", position),
        arm("move", move_list),
        arm("go", go),
        arm(
            "perft",
            map(terminated(depth_arg, end), |depth| Command::Perft {
                depth,
                via_go: false,
            }),
        ),
        bare("stop", Command::Stop),
        bare("quit", Command::Quit),
        bare("d", Command::Display),
        bare("legal", Command::Legal),
        arm("solve", solve),
        bare("roll", Command::Roll),
        arm("bench", bench),
        bare("help", Command::Help),
    ))
    .parse(input)
}

const QUESTIONS: &str = "a question (gameover, p1turn, result, side, status, legal, seats, chance)";

fn query(input: &str) -> Res<'_, Command> {
    let (input, word) = expect(QUESTIONS, preceded(multispace1, token)).parse(input)?;
    let Some(&(_, q)) = Query::ALL.iter().find(|(w, _)| *w == word) else {
        return Err(NomErr::Failure(Fail {
            at: word,
            expected: Some(QUESTIONS),
            command: None,
            words: None,
        }));
    };
    let (input, _) = end(input)?;
    Ok((input, Command::Query(q)))
}

fn depth_arg(input: &str) -> Res<'_, u32> {
    expect("a depth (a number)", preceded(multispace1, cut(unsigned32))).parse(input)
}

/// Whitespace-separated tokens up to (not including) the word `stop_at`.
fn words_until<'a>(
    stop_at: &'static str,
) -> impl Parser<&'a str, Output = Vec<&'a str>, Error = Fail<'a>> {
    separated_list1(multispace1, verify(token, move |t: &str| t != stop_at))
}

fn setoption(input: &str) -> Res<'_, Command> {
    let (input, _) = expect("'name'", preceded(multispace1, keyword("name"))).parse(input)?;
    let (input, name) = expect(
        "an option name",
        preceded(multispace1, recognize(words_until("value"))),
    )
    .parse(input)?;
    let (input, value) = opt(preceded(
        (multispace1, keyword("value")),
        cut(expect(
            "a value after 'value'",
            preceded(multispace1, verify(rest, |r: &str| !r.trim().is_empty())),
        )),
    ))
    .parse(input)?;
    let (input, _) = end(input)?;
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok((
        input,
        Command::SetOption {
            name,
            value: value.map(|v| v.trim().to_string()),
        },
    ))
}

fn newgame(input: &str) -> Res<'_, Command> {
    let (input, game) = expect("a game id", preceded(multispace1, token)).parse(input)?;
    let (input, options) = many0(preceded(multispace1, token)).parse(input)?;
    let (input, _) = end(input)?;
    Ok((
        input,
        Command::NewGame {
            game: game.to_string(),
            options: options.into_iter().map(String::from).collect(),
        },
    ))
}

fn moves_tail(input: &str) -> Res<'_, Vec<String>> {
    map(
        opt(preceded(
            (multispace1, keyword("moves")),
            many0(preceded(multispace1, token)),
        )),
        |moves| {
            moves
                .unwrap_or_default()
                .into_iter()
                .map(String::from)
                .collect()
        },
    )
    .parse(input)
}

fn position(input: &str) -> Res<'_, Command> {
    let (input, notation) = expect(
        "'startpos' or 'fen <notation>'",
        preceded(
            multispace1,
            alt((
                map(keyword("startpos"), |_| None),
                map(
                    preceded(
                        keyword("fen"),
                        expect(
                            "a notation after 'fen'",
                            preceded(multispace1, words_until("moves")),
                        ),
                    ),
                    |fields| Some(fields.join(" ")),
                ),
            )),
        ),
    )
    .parse(input)?;
    let (input, moves) = moves_tail(input)?;
    let (input, _) = expect("'moves' or the end of line", line_end).parse(input)?;
    Ok((input, Command::Position { notation, moves }))
}

fn move_list(input: &str) -> Res<'_, Command> {
    let (input, moves) = expect("at least one move", many1_tokens).parse(input)?;
    let (input, _) = end(input)?;
    Ok((
        input,
        Command::Move {
            moves: moves.into_iter().map(String::from).collect(),
        },
    ))
}

fn many1_tokens(input: &str) -> Res<'_, Vec<&str>> {
    preceded(multispace1, separated_list1(multispace1, token)).parse(input)
}

/// One `go` parameter.
#[derive(Clone, Copy)]
enum GoParam {
    Depth(u32),
    Nodes(u64),
    MoveTime(u64),
    WTime(u64),
    BTime(u64),
    WInc(u64),
    BInc(u64),
    Time(u64),
    Inc(u64),
    MovesToGo(u32),
    Infinite,
    P1Time(u64),
    P2Time(u64),
    P1Inc(u64),
    P2Inc(u64),
}

impl GoParam {
    fn name(self) -> &'static str {
        match self {
            GoParam::Depth(_) => "depth",
            GoParam::Nodes(_) => "nodes",
            GoParam::MoveTime(_) => "movetime",
            GoParam::WTime(_) => "wtime",
            GoParam::BTime(_) => "btime",
            GoParam::WInc(_) => "winc",
            GoParam::BInc(_) => "binc",
            GoParam::Time(_) => "time",
            GoParam::Inc(_) => "inc",
            GoParam::MovesToGo(_) => "movestogo",
            GoParam::Infinite => "infinite",
            GoParam::P1Time(_) => "p1time",
            GoParam::P2Time(_) => "p2time",
            GoParam::P1Inc(_) => "p1inc",
            GoParam::P2Inc(_) => "p2inc",
        }
    }
}

/// Milliseconds; GUIs may send a negative clock after an overrun, read as 0.
fn millis(input: &str) -> Res<'_, u64> {
    map(signed, |ms: i64| ms.max(0) as u64).parse(input)
}

fn go_param(input: &str) -> Res<'_, GoParam> {
    fn after<'a, O>(
        word: &'static str,
        what: &'static str,
        value: impl Parser<&'a str, Output = O, Error = Fail<'a>>,
    ) -> impl Parser<&'a str, Output = O, Error = Fail<'a>> {
        preceded(
            keyword(word),
            cut(expect(what, preceded(multispace1, value))),
        )
    }
    alt((
        map(
            after("depth", "a number after 'depth'", unsigned32),
            GoParam::Depth,
        ),
        map(
            after("nodes", "a number after 'nodes'", unsigned64),
            GoParam::Nodes,
        ),
        map(
            after("movetime", "milliseconds after 'movetime'", millis),
            GoParam::MoveTime,
        ),
        map(
            after("wtime", "milliseconds after 'wtime'", millis),
            GoParam::WTime,
        ),
        map(
            after("btime", "milliseconds after 'btime'", millis),
            GoParam::BTime,
        ),
        map(
            after("winc", "milliseconds after 'winc'", millis),
            GoParam::WInc,
        ),
        map(
            after("binc", "milliseconds after 'binc'", millis),
            GoParam::BInc,
        ),
        map(
            after("time", "milliseconds after 'time'", millis),
            GoParam::Time,
        ),
        map(
            after("inc", "milliseconds after 'inc'", millis),
            GoParam::Inc,
        ),
        map(
            after("movestogo", "a number after 'movestogo'", unsigned32),
            GoParam::MovesToGo,
        ),
        map(keyword("infinite"), |_| GoParam::Infinite),
        map(
            after("p1time", "milliseconds after 'p1time'", millis),
            GoParam::P1Time,
        ),
        map(
            after("p2time", "milliseconds after 'p2time'", millis),
            GoParam::P2Time,
        ),
        map(
            after("p1inc", "milliseconds after 'p1inc'", millis),
            GoParam::P1Inc,
        ),
        map(
            after("p2inc", "milliseconds after 'p2inc'", millis),
            GoParam::P2Inc,
        ),
    ))
    .parse(input)
}

fn go(input: &str) -> Res<'_, Command> {
    if let Ok((rest, _)) = preceded(multispace1, keyword("perft")).parse(input) {
        let (input, depth) = cut(terminated(depth_arg, end)).parse(rest)?;
        return Ok((
            input,
            Command::Perft {
                depth,
                via_go: true,
            },
        ));
    }
    let start = input;
    let (input, list) = many0(preceded(multispace1, go_param)).parse(input)?;
    let (input, _) = expect(
        "a go parameter (depth, nodes, movetime, wtime, btime, winc, binc, time, inc, movestogo, infinite, p1time, p2time, p1inc, p2inc, perft)",
        line_end,
    )
    .parse(input)?;
    let mut params = GoParams::default();
    let mut seen: Vec<&'static str> = Vec::new();
    for p in list {
        if seen.contains(&p.name()) {
            return Err(NomErr::Failure(Fail {
                at: start,
                expected: Some("each go parameter at most once"),
                command: None,
                words: None,
            }));
        }
        seen.push(p.name());
        match p {
            GoParam::Depth(n) => params.depth = Some(n),
            GoParam::Nodes(n) => params.nodes = Some(n),
            GoParam::MoveTime(n) => params.movetime = Some(n),
            GoParam::WTime(n) => params.wtime = Some(n),
            GoParam::BTime(n) => params.btime = Some(n),
            GoParam::WInc(n) => params.winc = Some(n),
            GoParam::BInc(n) => params.binc = Some(n),
            GoParam::Time(n) => params.time = Some(n),
            GoParam::Inc(n) => params.inc = Some(n),
            GoParam::MovesToGo(n) => params.movestogo = Some(n),
            GoParam::Infinite => params.infinite = true,
            GoParam::P1Time(n) => params.p1time = Some(n),
            GoParam::P2Time(n) => params.p2time = Some(n),
            GoParam::P1Inc(n) => params.p1inc = Some(n),
            GoParam::P2Inc(n) => params.p2inc = Some(n),
        }
    }
    Ok((input, Command::Go(params)))
}

fn bench(input: &str) -> Res<'_, Command> {
    let (input, kind) = opt(preceded(
        multispace1,
        alt((
            map(keyword("search"), |_| BenchKind::Search),
            map(keyword("perft"), |_| BenchKind::Perft),
            map(keyword("eval"), |_| BenchKind::Eval),
            map(
                preceded(
                    keyword("playouts"),
                    opt(preceded(
                        multispace1,
                        expect("a number of games", unsigned64),
                    )),
                ),
                |n| BenchKind::Playouts(n.unwrap_or(DEFAULT_PLAYOUTS)),
            ),
            map(
                preceded(
                    keyword("threads"),
                    opt(preceded(
                        multispace1,
                        expect("a number of threads", unsigned32),
                    )),
                ),
                |n| BenchKind::Threads(n.unwrap_or(DEFAULT_THREADS)),
            ),
        )),
    ))
    .parse(input)?;
    let (input, _) = expect(
        "'search', 'perft', 'eval', 'playouts [N]' or 'threads [N]'",
        line_end,
    )
    .parse(input)?;
    Ok((input, Command::Bench(kind.unwrap_or(BenchKind::Search))))
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
        assert!(error("tables").contains("build, verify, status or bench"));
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
        assert!(error("tables fold am").contains("build, verify, status or bench"));
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
