//! Every line the engine writes, typed: [`Reply`] parses a line and prints
//! back to the same line (tested). The engine and the fake test engine
//! write only replies; the referee and the tests read engines' lines only
//! through [`Reply::parse`] (the board's server relays lines untouched and
//! its page reads them). Lines of other engines parse too (an
//! `info` line with fields in another order, `score mate 3`): what is not
//! understood is kept as it came.

use std::fmt;

mod parse;

use parse::parse;

/// One line from an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `id name <text>` / `id author <text>`.
    Id {
        field: IdField,
        value: String,
    },
    /// `option name <name> type <kind> ...`.
    Option(OptionLine),
    UciOk,
    UgiOk,
    ReadyOk,
    /// Search progress: `info depth ... pv ...`.
    Info(InfoLine),
    /// `info string error: <command>: <message>`: the command that failed
    /// and why.
    Error {
        command: String,
        message: String,
    },
    /// `info string game over: <result> (<reason>)`.
    GameOver {
        result: GameResult,
        reason: String,
    },
    /// `info string <text>`: any other remark.
    Remark(String),
    /// `bestmove <move>`, or `bestmove (none)` when there is none.
    BestMove(Option<String>),
    /// `response <answer>`: the answer to `query`.
    Response(String),
    /// `legal <moves...>`.
    Legal(Vec<String>),
    /// One root move of `perft`: `<move>: <count>`.
    PerftMove {
        mv: String,
        nodes: u64,
    },
    /// The end of `perft`: `Nodes searched: <count>`.
    NodesSearched(u64),
    /// One move of `solve` (`<move>: <value>`) or, without a move, the
    /// position's value (`Value: <value>`).
    Solved {
        mv: Option<String>,
        value: String,
    },
    /// A field of `d`: `Game: ...`, `Notation: ...`, `Side: ...`, `Status: ...`.
    Field {
        key: FieldKey,
        value: String,
    },
    /// One fact of the `games` catalogue: `game <id> <fact>`.
    Catalogue {
        game: String,
        fact: GameFact,
    },
    /// The end of the catalogue.
    GamesOk,
    /// `rolled <move>`: the chance outcome `roll` drew and played.
    Rolled(String),
    /// One measurement of `bench`: `info string <kind> <subject> | <key>
    /// <value> | ...`.
    Measured(Measurement),
    /// One of the closing lines of `bench` (Stockfish's, which bench tools
    /// read): `Total time (ms) : <n>` and so on.
    BenchTotal {
        field: TotalField,
        value: u64,
    },
    /// Any other line: the board drawing of `d`, `help`, `bench`.
    Line(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdField {
    Name,
    Author,
}

/// `win <seat letter>` or `draw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win(char),
    Draw,
}

/// The fields of `d` that have a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKey {
    Game,
    Notation,
    Side,
    Status,
}

impl FieldKey {
    const ALL: [FieldKey; 4] = [
        FieldKey::Game,
        FieldKey::Notation,
        FieldKey::Side,
        FieldKey::Status,
    ];

    fn word(self) -> &'static str {
        match self {
            FieldKey::Game => "Game",
            FieldKey::Notation => "Notation",
            FieldKey::Side => "Side",
            FieldKey::Status => "Status",
        }
    }
}

/// What a `bench` line measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureKind {
    /// A fixed search (`bench search`).
    Bench,
    Perft,
    Playouts,
    Threads,
    /// Speed of the learned evaluation against the hand-written one.
    Eval,
}

impl MeasureKind {
    const ALL: [MeasureKind; 5] = [
        MeasureKind::Bench,
        MeasureKind::Perft,
        MeasureKind::Playouts,
        MeasureKind::Threads,
        MeasureKind::Eval,
    ];

    pub fn word(self) -> &'static str {
        match self {
            MeasureKind::Bench => "bench",
            MeasureKind::Perft => "perft",
            MeasureKind::Playouts => "playouts",
            MeasureKind::Threads => "threads",
            MeasureKind::Eval => "eval",
        }
    }

    /// How many `|`-separated parts name what was measured, given the
    /// first: a game and a position, a game alone for playouts, or the
    /// word `total`.
    fn subject_parts(self, first: &str) -> usize {
        match self {
            MeasureKind::Playouts => 1,
            MeasureKind::Threads | MeasureKind::Eval if first == "total" => 1,
            _ => 2,
        }
    }
}

/// One measurement of `bench`: what was measured (a game, its position),
/// then named values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measurement {
    pub kind: MeasureKind,
    pub subject: Vec<String>,
    /// Name and value of each figure (a name may have blanks: `avg length`).
    pub values: Vec<(String, String)>,
}

impl Measurement {
    /// The value named `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The closing lines of `bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TotalField {
    TimeMs,
    Nodes,
    NodesPerSecond,
}

impl TotalField {
    const ALL: [TotalField; 3] = [
        TotalField::TimeMs,
        TotalField::Nodes,
        TotalField::NodesPerSecond,
    ];

    /// The label, padded as Stockfish pads it.
    fn label(self) -> &'static str {
        match self {
            TotalField::TimeMs => "Total time (ms) : ",
            TotalField::Nodes => "Nodes searched  : ",
            TotalField::NodesPerSecond => "Nodes/second    : ",
        }
    }
}

/// An engine option as `uci` and `ugi` list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionLine {
    pub name: String,
    pub kind: OptionKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Combo {
        default: String,
        values: Vec<String>,
    },
    Check {
        default: bool,
    },
    String {
        default: String,
    },
    Button,
}

/// A fact of the game catalogue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameFact {
    /// `name <words>`: the game's name for people.
    Name(String),
    /// `aliases <a> <b> ...` (none: `aliases`).
    Aliases(Vec<String>),
    /// `chance yes|no`: whether the game has dice.
    Chance(bool),
    /// `seat <letter> <Name>`, one per seat, in turn order.
    Seat { letter: char, name: String },
    /// `option <key> default <value> values <v1> <v2> ...`.
    Option {
        key: String,
        default: String,
        values: Vec<String>,
    },
    /// `moves <syntax>`: how moves are written.
    Moves(String),
    /// `end <reason> <meaning>`: a reason the game's rules end it for.
    End { reason: String, meaning: String },
}

/// The search's score as lines carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreText {
    Cp(i32),
    /// The side to move wins with its N-th move.
    Win(u32),
    /// The side to move loses after N moves of its own.
    Loss(u32),
    /// UCI engines' mate score: positive for a win in N moves.
    Mate(i32),
}

/// One field of an `info` line, in the order the engine gave them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InfoItem {
    Depth(u32),
    SelDepth(u32),
    Score(ScoreText),
    Nodes(u64),
    Nps(u64),
    Time(u64),
    HashFull(u32),
    /// The principal variation; always the last field.
    Pv(Vec<String>),
    /// A word not understood here (`tthits`, `lowerbound`, `currmove`...).
    Other(String),
}

/// An `info` line of search progress.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLine {
    pub items: Vec<InfoItem>,
}

impl InfoLine {
    pub fn depth(&self) -> Option<u32> {
        self.items.iter().find_map(|i| match i {
            InfoItem::Depth(d) => Some(*d),
            _ => None,
        })
    }

    pub fn score(&self) -> Option<ScoreText> {
        self.items.iter().find_map(|i| match i {
            InfoItem::Score(s) => Some(*s),
            _ => None,
        })
    }

    pub fn nodes(&self) -> Option<u64> {
        self.items.iter().find_map(|i| match i {
            InfoItem::Nodes(n) => Some(*n),
            _ => None,
        })
    }

    pub fn pv(&self) -> &[String] {
        self.items
            .iter()
            .find_map(|i| match i {
                InfoItem::Pv(pv) => Some(pv.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }
}

const ERROR_PREFIX: &str = "info string error: ";
const GAME_OVER_PREFIX: &str = "info string game over: ";

impl Reply {
    /// Reads one line (without its line end). Never fails: a line of no
    /// known form is [`Reply::Line`].
    pub fn parse(line: &str) -> Reply {
        parse(line).unwrap_or_else(|| Reply::Line(line.to_string()))
    }

    /// Reads another program's line as the protocol allows it to be
    /// written: blanks around and between words (UCI's "arbitrary white
    /// space") give the same reply as the canonical spacing; the text of
    /// an `info string` is kept as it is, but for its ends.
    pub fn read(line: &str) -> Reply {
        let trimmed = line.trim();
        if let Some(reply) = parse(trimmed) {
            return reply;
        }
        let canonical = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
        parse(&canonical).unwrap_or_else(|| Reply::Line(line.to_string()))
    }

    /// An error reply for `command`.
    pub fn error(command: impl Into<String>, message: impl fmt::Display) -> Reply {
        Reply::Error {
            command: command.into(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Reply::Id { field, value } => {
                let field = match field {
                    IdField::Name => "name",
                    IdField::Author => "author",
                };
                write!(f, "id {field} {value}")
            }
            Reply::Option(option) => option.fmt(f),
            Reply::UciOk => f.write_str("uciok"),
            Reply::UgiOk => f.write_str("ugiok"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Info(info) => info.fmt(f),
            Reply::Error { command, message } => write!(f, "{ERROR_PREFIX}{command}: {message}"),
            Reply::GameOver { result, reason } => {
                write!(f, "{GAME_OVER_PREFIX}{result} ({reason})")
            }
            Reply::Remark(text) => write!(f, "info string {text}"),
            Reply::BestMove(Some(mv)) => write!(f, "bestmove {mv}"),
            Reply::BestMove(None) => f.write_str("bestmove (none)"),
            Reply::Response(answer) if answer.is_empty() => f.write_str("response"),
            Reply::Response(answer) => write!(f, "response {answer}"),
            Reply::Legal(moves) if moves.is_empty() => f.write_str("legal"),
            Reply::Legal(moves) => write!(f, "legal {}", moves.join(" ")),
            Reply::PerftMove { mv, nodes } => write!(f, "{mv}: {nodes}"),
            Reply::NodesSearched(n) => write!(f, "Nodes searched: {n}"),
            Reply::Solved {
                mv: Some(mv),
                value,
            } => write!(f, "{mv}: {value}"),
            Reply::Solved { mv: None, value } => write!(f, "Value: {value}"),
            Reply::Field { key, value } => write!(f, "{}: {value}", key.word()),
            Reply::Catalogue { game, fact } => write!(f, "game {game} {fact}"),
            Reply::GamesOk => f.write_str("gamesok"),
            Reply::Rolled(mv) => write!(f, "rolled {mv}"),
            Reply::Measured(m) => m.fmt(f),
            Reply::BenchTotal { field, value } => write!(f, "{}{value}", field.label()),
            Reply::Line(text) => f.write_str(text),
        }
    }
}

impl fmt::Display for Measurement {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "info string {} {}",
            self.kind.word(),
            self.subject.join(" | ")
        )?;
        for (name, value) in &self.values {
            write!(f, " | {name} {value}")?;
        }
        Ok(())
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameResult::Win(seat) => write!(f, "win {seat}"),
            GameResult::Draw => f.write_str("draw"),
        }
    }
}

impl fmt::Display for OptionLine {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "option name {} type ", self.name)?;
        match &self.kind {
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, values } => {
                write!(f, "combo default {default}")?;
                values.iter().try_for_each(|v| write!(f, " var {v}"))
            }
            OptionKind::Check { default } => write!(f, "check default {default}"),
            OptionKind::String { default } if default.is_empty() => f.write_str("string default"),
            OptionKind::String { default } => write!(f, "string default {default}"),
            OptionKind::Button => f.write_str("button"),
        }
    }
}

impl fmt::Display for ScoreText {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ScoreText::Cp(cp) => write!(f, "cp {cp}"),
            ScoreText::Win(n) => write!(f, "win {n}"),
            ScoreText::Loss(n) => write!(f, "loss {n}"),
            ScoreText::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

impl fmt::Display for InfoLine {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("info")?;
        for item in &self.items {
            match item {
                InfoItem::Depth(d) => write!(f, " depth {d}")?,
                InfoItem::SelDepth(d) => write!(f, " seldepth {d}")?,
                InfoItem::Score(s) => write!(f, " score {s}")?,
                InfoItem::Nodes(n) => write!(f, " nodes {n}")?,
                InfoItem::Nps(n) => write!(f, " nps {n}")?,
                InfoItem::Time(t) => write!(f, " time {t}")?,
                InfoItem::HashFull(h) => write!(f, " hashfull {h}")?,
                InfoItem::Pv(pv) => {
                    f.write_str(" pv")?;
                    pv.iter().try_for_each(|m| write!(f, " {m}"))?;
                }
                InfoItem::Other(word) => write!(f, " {word}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for GameFact {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameFact::Name(name) => write!(f, "name {name}"),
            GameFact::Aliases(aliases) if aliases.is_empty() => f.write_str("aliases"),
            GameFact::Aliases(aliases) => write!(f, "aliases {}", aliases.join(" ")),
            GameFact::Chance(yes) => write!(f, "chance {}", if *yes { "yes" } else { "no" }),
            GameFact::Seat { letter, name } => write!(f, "seat {letter} {name}"),
            GameFact::Option {
                key,
                default,
                values,
            } => write!(
                f,
                "option {key} default {default} values {}",
                values.join(" ")
            ),
            GameFact::Moves(syntax) => write!(f, "moves {syntax}"),
            GameFact::End { reason, meaning } => write!(f, "end {reason} {meaning}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_line_prints_back_to_itself() {
        for line in [
            "id name menagerie 0.1.0",
            "id author the menagerie developers",
            "option name Hash type spin default 16 min 1 max 65536",
            "option name Move Overhead type spin default 10 min 0 max 5000",
            "option name UCI_Variant type combo default safari-dual var safari-dual var kilkenny-cats",
            "option name Ponder type check default false",
            "option name Book type string default",
            "option name Clear Hash type button",
            "uciok",
            "ugiok",
            "readyok",
            "info depth 4 seldepth 8 score cp -9 nodes 1675 nps 1675000 time 0 hashfull 1 pv c1d2 c5b4",
            "info depth 13 score win 7 nodes 30358 pv @a4 b1b2",
            "info depth 2 score mate -3 lowerbound tthits 12 pv e2e4",
            "info string error: go: expected a number after 'depth', found 'x'",
            "info string error: fly: unknown command (try 'help')",
            "info string game over: win l (tiger-trapped)",
            "info string game over: draw (repetition)",
            "info string solved: 31517 positions in the table",
            "bestmove b1b2b3",
            "bestmove (none)",
            "response true",
            "response",
            "legal @b1 @a2",
            "legal",
            "b1a2: 8",
            "Nodes searched: 25",
            "@a2: win 8",
            "Value: draw",
            "Value: win",
            "Value: at least draw",
            "Value: unknown",
            "Game: hat-diviyan-keliya start=ludovici board=small",
            "Notation: T/1L1/3/3 t 0 6 0",
            "Side: t",
            "Status: win l (tiger-trapped)",
            "game safari-dual name Safari-Dual",
            "game safari-dual aliases safari",
            "game kilkenny-cats chance yes",
            "game kilkenny-cats seat s South",
            "game hat-diviyan-keliya option board default small values small large",
            "game hat-diviyan-keliya moves drop @<point>; step <from><to>",
            "game hat-diviyan-keliya end tiger-trapped the tiger cannot move",
            "gamesok",
            "              T               1",
            "",
            "Total time (ms) : 1234",
            "Nodes searched  : 1079322",
            "Nodes/second    : 3341554",
            "rolled r4",
            "info string bench hat-diviyan-keliya start=apex | T/3/3/3 l 0 7 0 | depth 10 | nodes 5678 | bestmove @b4",
            "info string perft safari-dual | 2gel/3ge/E3g/GE3/LGE2 r 0 | depth 7 | nodes 124258404 | time 550 | nps 225924370",
            "info string playouts kilkenny-cats players=2 | games 100 | games/s 1234 | moves/s 56789 | avg length 45.67 | win_s 0.4800 | win_n 0.5000 | draw 0.0200",
            "info string threads safari-dual | 2gel/3ge/E3g/GE3/LGE2 r 0 | 1 thread(s) nps 3000000 | 2 thread(s) nps 5000000",
            "info string threads total | 1 thread nps 3000000 | 2 threads nps 5000000 | speedup 1.67",
            "info string bench stopped before the end",
            "info string perft stopped: 3 of 10 root moves counted",
        ] {
            let reply = Reply::parse(line);
            assert_eq!(reply.to_string(), line, "{reply:?}");
        }
    }

    #[test]
    fn bench_lines_are_measurements_and_totals() {
        let Reply::Measured(m) = Reply::parse(
            "info string playouts safari-dual | games 10 | avg length 45.50 | win_r 0.6000",
        ) else {
            panic!("a measurement")
        };
        assert_eq!(m.kind, MeasureKind::Playouts);
        assert_eq!(m.subject, ["safari-dual"]);
        assert_eq!(m.value("avg length"), Some("45.50"));
        assert_eq!(m.value("win_r"), Some("0.6000"));
        assert_eq!(
            Reply::parse("Nodes searched  : 77"),
            Reply::BenchTotal {
                field: TotalField::Nodes,
                value: 77
            }
        );
        // Stopped: a remark, not a measurement.
        assert!(matches!(
            Reply::parse("info string bench stopped before the end"),
            Reply::Remark(_)
        ));
    }

    #[test]
    fn lines_get_their_types() {
        assert_eq!(
            Reply::parse("bestmove a2a3"),
            Reply::BestMove(Some("a2a3".into()))
        );
        assert_eq!(
            Reply::parse("info string error: go: inc needs time"),
            Reply::error("go", "inc needs time")
        );
        let Reply::Info(info) = Reply::parse("info depth 3 score loss 2 nodes 10 pv a b") else {
            panic!("an info line")
        };
        assert_eq!(info.depth(), Some(3));
        assert_eq!(info.score(), Some(ScoreText::Loss(2)));
        assert_eq!(info.nodes(), Some(10));
        assert_eq!(info.pv(), ["a", "b"]);
        assert_eq!(
            Reply::parse("info string game over: win t (leopards-captured)"),
            Reply::GameOver {
                result: GameResult::Win('t'),
                reason: "leopards-captured".into()
            }
        );
        assert_eq!(
            Reply::parse("option name Skill type spin default 20 min 0 max 20"),
            Reply::Option(OptionLine {
                name: "Skill".into(),
                kind: OptionKind::Spin {
                    default: 20,
                    min: 0,
                    max: 20
                }
            })
        );
        // Not of any known form: kept as it came.
        for line in [
            "I am a teapot",
            "bestmove",
            "info depth x",
            "bestmove  a2a3",
            "response  x",
        ] {
            assert_eq!(Reply::parse(line), Reply::Line(line.into()), "{line}");
        }
    }

    #[test]
    fn other_engines_lines_are_read_with_any_spacing() {
        for (line, canonical) in [
            ("bestmove  a2a3", "bestmove a2a3"),
            ("bestmove\ta2a3\r", "bestmove a2a3"),
            ("  readyok ", "readyok"),
            ("info  depth 3\tscore cp 5", "info depth 3 score cp 5"),
            (
                "info string two  spaces kept ",
                "info string two  spaces kept",
            ),
        ] {
            assert_eq!(Reply::read(line).to_string(), canonical, "{line:?}");
        }
        assert_eq!(
            Reply::read("I am a teapot"),
            Reply::Line("I am a teapot".into())
        );
    }
}
