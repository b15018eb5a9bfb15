//! Shared pieces of the position and move notations (RULES.md, "General
//! conventions"): whitespace-separated fields, the board field of rows with
//! run-length digits, numbers, and point names; with their typed errors.

use std::fmt;

use crate::text::Clipped;

use nom::branch::alt;
use nom::bytes::complete::take_while1;
use nom::character::complete::{char as ch, digit1, multispace0, multispace1, satisfy};
use nom::combinator::{all_consuming, map, map_res, opt};
use nom::multi::{many0, many1, separated_list0, separated_list1};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Parser};

/// Why a position notation was rejected; every variant names the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    Empty,
    MissingField(&'static str),
    ExtraField(String),
    /// The board field is not rows of letters and digits separated by `/`.
    BoardSyntax(String),
    RowCount {
        expected: usize,
        found: usize,
    },
    /// `row` counts from 1 at the first (top) row of the board field.
    RowLength {
        row: usize,
        expected: usize,
        found: usize,
    },
    UnknownPiece {
        row: usize,
        letter: char,
    },
    BadField {
        field: &'static str,
        text: String,
        expected: &'static str,
    },
    PieceCount {
        piece: &'static str,
        found: usize,
        expected: &'static str,
    },
    /// A game-specific inconsistency, stated as a fixed sentence.
    Inconsistent(&'static str),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NotationError::Empty => write!(f, "empty notation"),
            NotationError::MissingField(field) => write!(f, "notation lacks the {field} field"),
            NotationError::ExtraField(text) => {
                write!(f, "notation has an unexpected extra field '{}'", Clipped(text))
            }
            NotationError::BoardSyntax(text) => write!(
                f,
                "board field '{}' is not rows of piece letters and empty-run numbers separated by '/'",
                Clipped(text)
            ),
            NotationError::RowCount { expected, found } => {
                write!(f, "board field has {found} rows, expected {expected}")
            }
            NotationError::RowLength {
                row,
                expected,
                found,
            } => write!(f, "board row {row} has {found} points, expected {expected}"),
            NotationError::UnknownPiece { row, letter } => {
                write!(f, "board row {row} has unknown piece letter '{letter}'")
            }
            NotationError::BadField {
                field,
                text,
                expected,
            } => write!(
                f,
                "{field} field '{}' is invalid, expected {expected}",
                Clipped(text)
            ),
            NotationError::PieceCount {
                piece,
                found,
                expected,
            } => write!(f, "position has {found} {piece}, expected {expected}"),
            NotationError::Inconsistent(why) => write!(f, "impossible position: {why}"),
        }
    }
}

impl std::error::Error for NotationError {}

/// Why a move's text could not be read (legality is judged elsewhere).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveSyntaxError {
    /// Not of any written form this game uses.
    Unreadable(String),
    /// A point name that does not exist on this game's boards.
    UnknownPoint { mv: String, point: String },
    /// Right form but a wrong number of points, e.g. a single point.
    PointCount { mv: String, found: usize },
}

impl fmt::Display for MoveSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MoveSyntaxError::Unreadable(text) => write!(f, "'{}' is not a move", Clipped(text)),
            MoveSyntaxError::UnknownPoint { mv, point } => {
                write!(
                    f,
                    "move '{}' names point '{}', which is not on the board",
                    Clipped(mv),
                    Clipped(point)
                )
            }
            MoveSyntaxError::PointCount { mv, found } => {
                write!(
                    f,
                    "move '{}' lists {found} points, which no move of this game has",
                    Clipped(mv)
                )
            }
        }
    }
}

impl std::error::Error for MoveSyntaxError {}

/// Why a move could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    Syntax(MoveSyntaxError),
    Illegal(String),
    GameOver(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MoveError::Syntax(e) => e.fmt(f),
            MoveError::Illegal(mv) => write!(f, "illegal move '{mv}' in this position"),
            MoveError::GameOver(mv) => write!(f, "cannot play '{mv}': the game is over"),
        }
    }
}

impl std::error::Error for MoveError {}

/// Splits a notation into its whitespace-separated fields.
pub fn fields(text: &str) -> Vec<&str> {
    let parsed: IResult<&str, Vec<&str>> = all_consuming(preceded(
        multispace0,
        terminated(
            separated_list0(multispace1, take_while1(|c: char| !c.is_whitespace())),
            multispace0,
        ),
    ))
    .parse(text);
    parsed.map(|(_, v)| v).unwrap_or_default()
}

/// Reads fields in order, with an error naming the first missing one.
pub struct FieldReader<'a> {
    fields: std::vec::IntoIter<&'a str>,
}

impl<'a> FieldReader<'a> {
    pub fn new(text: &'a str) -> Result<FieldReader<'a>, NotationError> {
        let fields = fields(text);
        if fields.is_empty() {
            return Err(NotationError::Empty);
        }
        Ok(FieldReader {
            fields: fields.into_iter(),
        })
    }

    pub fn next(&mut self, name: &'static str) -> Result<&'a str, NotationError> {
        self.fields.next().ok_or(NotationError::MissingField(name))
    }

    pub fn optional(&mut self) -> Option<&'a str> {
        self.fields.next()
    }

    /// Reads an optional trailing clock (absent means 0).
    pub fn clock(&mut self) -> Result<u32, NotationError> {
        match self.optional() {
            None => Ok(0),
            Some(text) => number("clock", text, u32::MAX, "a number of plies"),
        }
    }

    /// Fails if any field is left.
    pub fn finish(mut self) -> Result<(), NotationError> {
        match self.fields.next() {
            None => Ok(()),
            Some(extra) => Err(NotationError::ExtraField(extra.to_string())),
        }
    }
}

/// Parses a decimal field no greater than `max`.
pub fn number(
    field: &'static str,
    text: &str,
    max: u32,
    expected: &'static str,
) -> Result<u32, NotationError> {
    let parsed: IResult<&str, u32> =
        all_consuming(map_res(digit1, |d: &str| d.parse::<u32>())).parse(text);
    match parsed {
        Ok((_, n)) if n <= max => Ok(n),
        _ => Err(NotationError::BadField {
            field,
            text: text.to_string(),
            expected,
        }),
    }
}

/// One row entry of a board field: a piece letter or a run of empty points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowItem {
    Piece(char),
    Empty(usize),
}

fn row_item(input: &str) -> IResult<&str, RowItem> {
    alt((
        map_res(digit1, |d: &str| d.parse::<usize>().map(RowItem::Empty)),
        map(satisfy(|c| c.is_ascii_alphabetic()), RowItem::Piece),
    ))
    .parse(input)
}

/// Parses a board field into rows of cells (`None` = empty point), checking
/// the row count, each row's length and every piece letter.
pub fn parse_board(
    text: &str,
    widths: &[usize],
    letters: &str,
) -> Result<Vec<Vec<Option<char>>>, NotationError> {
    let parsed: IResult<&str, Vec<Vec<RowItem>>> =
        all_consuming(separated_list1(ch('/'), many0(row_item))).parse(text);
    let rows = parsed
        .map_err(|_| NotationError::BoardSyntax(text.to_string()))?
        .1;
    if rows.len() != widths.len() {
        return Err(NotationError::RowCount {
            expected: widths.len(),
            found: rows.len(),
        });
    }
    let mut board = Vec::with_capacity(rows.len());
    for (index, (items, &width)) in rows.iter().zip(widths).enumerate() {
        let row = index + 1;
        let mut cells = Vec::with_capacity(width);
        let mut length = 0usize;
        for item in items {
            match *item {
                RowItem::Piece(letter) => {
                    if !letters.contains(letter) {
                        return Err(NotationError::UnknownPiece { row, letter });
                    }
                    length += 1;
                    if length <= width {
                        cells.push(Some(letter));
                    }
                }
                RowItem::Empty(0) => return Err(NotationError::BoardSyntax(text.to_string())),
                RowItem::Empty(run) => {
                    length = length.saturating_add(run);
                    for _ in 0..run.min(width + 1) {
                        if cells.len() < width {
                            cells.push(None);
                        }
                    }
                }
            }
        }
        if length != width {
            return Err(NotationError::RowLength {
                row,
                expected: width,
                found: length,
            });
        }
        board.push(cells);
    }
    Ok(board)
}

/// Writes one board row, compressing empty runs into numbers.
pub fn write_row(
    out: &mut impl fmt::Write,
    cells: impl IntoIterator<Item = Option<char>>,
) -> fmt::Result {
    let mut run = 0;
    for cell in cells {
        match cell {
            None => run += 1,
            Some(letter) => {
                if run > 0 {
                    write!(out, "{run}")?;
                    run = 0;
                }
                out.write_char(letter)?;
            }
        }
    }
    if run > 0 {
        write!(out, "{run}")?;
    }
    Ok(())
}

/// A point name as written: a file letter (lower-cased) and a rank number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointName {
    pub file: char,
    pub rank: u32,
}

impl fmt::Display for PointName {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}{}", self.file, self.rank)
    }
}

fn point_name(input: &str) -> IResult<&str, PointName> {
    map(
        pair(
            satisfy(|c| c.is_ascii_alphabetic()),
            map_res(digit1, |d: &str| d.parse::<u32>()),
        ),
        |(file, rank)| PointName {
            file: file.to_ascii_lowercase(),
            rank,
        },
    )
    .parse(input)
}

/// Parses a move written as points without separators (`a2a3`, `b3c2e2f3h3`),
/// optionally after a one-character prefix such as the drop sign `@`.
pub fn parse_points(text: &str) -> Option<(bool, Vec<PointName>)> {
    let parsed: IResult<&str, (Option<char>, Vec<PointName>)> =
        all_consuming(pair(opt(ch('@')), many1(point_name))).parse(text);
    parsed.ok().map(|(_, (at, points))| (at.is_some(), points))
}

/// Maps written points to a game's point indices with `index_of`, or names
/// the first unknown point.
pub fn resolve_points(
    text: &str,
    points: &[PointName],
    index_of: impl Fn(PointName) -> Option<u8>,
) -> Result<Vec<u8>, MoveSyntaxError> {
    points
        .iter()
        .map(|&p| {
            index_of(p).ok_or_else(|| MoveSyntaxError::UnknownPoint {
                mv: text.to_string(),
                point: p.to_string(),
            })
        })
        .collect()
}

/// Parses a move written as exactly two points (`a2b3`: from, to).
pub fn parse_from_to(
    text: &str,
    index_of: impl Fn(PointName) -> Option<u8>,
) -> Result<(u8, u8), MoveSyntaxError> {
    let (drop, points) =
        parse_points(text).ok_or_else(|| MoveSyntaxError::Unreadable(text.to_string()))?;
    if drop {
        return Err(MoveSyntaxError::Unreadable(text.to_string()));
    }
    match resolve_points(text, &points, index_of)?.as_slice() {
        [from, to] => Ok((*from, *to)),
        other => Err(MoveSyntaxError::PointCount {
            mv: text.to_string(),
            found: other.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_rows_parse_and_print_back() {
        let rows = parse_board("T/1L1/3/L2", &[1, 3, 3, 3], "TL").unwrap();
        assert_eq!(rows[0], vec![Some('T')]);
        assert_eq!(rows[1], vec![None, Some('L'), None]);
        let mut out = String::new();
        write_row(&mut out, rows[1].iter().copied()).unwrap();
        assert_eq!(out, "1L1");
    }

    #[test]
    fn runs_may_exceed_nine() {
        let rows = parse_board("14", &[14], "S").unwrap();
        assert_eq!(rows[0].len(), 14);
        let mut out = String::new();
        write_row(&mut out, rows[0].iter().copied()).unwrap();
        assert_eq!(out, "14");
    }

    #[test]
    fn board_errors_name_row_and_problem() {
        assert_eq!(
            parse_board("1/3/3", &[1, 3, 3, 3], "TL").unwrap_err(),
            NotationError::RowCount {
                expected: 4,
                found: 3
            }
        );
        assert_eq!(
            parse_board("1/4/3/3", &[1, 3, 3, 3], "TL").unwrap_err(),
            NotationError::RowLength {
                row: 2,
                expected: 3,
                found: 4
            }
        );
        assert_eq!(
            parse_board("1/3/X2/3", &[1, 3, 3, 3], "TL").unwrap_err(),
            NotationError::UnknownPiece {
                row: 3,
                letter: 'X'
            }
        );
        assert!(matches!(
            parse_board("1/3/3/3#", &[1, 3, 3, 3], "TL"),
            Err(NotationError::BoardSyntax(_))
        ));
        assert!(matches!(
            parse_board("99999999999999999999/3/3/3", &[1, 3, 3, 3], "TL"),
            Err(NotationError::BoardSyntax(_))
        ));
    }

    #[test]
    fn points_parse_in_either_case() {
        let (drop, points) = parse_points("@B2").unwrap();
        assert!(drop);
        assert_eq!(points, vec![PointName { file: 'b', rank: 2 }]);
        let (_, points) = parse_points("b3c2e2f3h16").unwrap();
        assert_eq!(points.len(), 5);
        assert_eq!(points[4].rank, 16);
        assert!(parse_points("b").is_none());
        assert!(parse_points("b2-b3").is_none());
        assert!(parse_points("").is_none());
    }

    #[test]
    fn fields_split_on_any_whitespace() {
        assert_eq!(fields("  a  b\tc "), vec!["a", "b", "c"]);
        assert!(fields("   ").is_empty());
    }
}
