//! The nom grammar: one `alt` arm per command, `cut` after a keyword so
//! that a bad argument is told apart from an unknown command.

use super::{BenchKind, Command, GoParams, ParseError, Query};
use super::{
    DatasetArgs, SelfPlayArgs, SolveArgs, SolveKeys, TablesAction, TablesArgs, WordsError,
};
use super::{DEFAULT_PLAYOUTS, DEFAULT_THREADS};
use crate::text::Clipped;

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

/// Parses one line. Blank lines and comments (`#` first) are `Ok(None)`:
/// a game record or a script may carry its own notes.
pub fn parse_line(line: &str) -> Result<Option<Command>, ParseError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
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
        map(keyword("plan"), |_| TablesAction::Plan),
    ));
    let (input, action) = expect(
        "build, verify, status, bench or plan",
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
