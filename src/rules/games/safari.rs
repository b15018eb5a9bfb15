//! Safari-Dual: the 5x5 sandwich game (RULES.md section 3).
//!
//! Squares a1 = 0 .. e1 = 4, a2 = 5, ... e5 = 24. A mailbox gives the piece
//! on a square; occupancy masks per side make "empty" one instruction.
//! Round (upper case) has its base on a1, Angular (lower case) on e5.
//!
//! Capture: after a move, walk outward from the moved piece P in each of
//! the 8 directions, collecting the enemy pieces passed; a piece Q that
//! pairs with P ends the walk and captures them (if any were passed); an
//! enemy piece is passed; anything else ends the walk with no capture.

pub mod eval;
mod numbering;

use std::fmt;

use crate::bits::ones as bits;
use crate::game::endgame::{Endgame, Slice, TableKey};
use crate::game::inputs::{InputSet, Inputs, MoveKeys};
use crate::game::observation::Man;
use crate::game::{Game, OptionSpec, Outcome, Ruleset, Seat};
use crate::notation::{
    parse_board, parse_from_to, write_row, FieldReader, MoveSyntaxError, NotationError, PointName,
};
use crate::rng::zobrist_table;

pub const ROUND: Seat = 0;
pub const ANGULAR: Seat = 1;

const SQUARES: usize = 25;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Lion = 0,
    Elephant = 1,
    Giraffe = 2,
}

const KINDS: [Kind; 3] = [Kind::Lion, Kind::Elephant, Kind::Giraffe];

/// A piece: owner and kind. The mailbox holds `Option<Piece>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub owner: Seat,
    pub kind: Kind,
}

impl Piece {
    fn letter(self) -> char {
        let c = match self.kind {
            Kind::Lion => 'L',
            Kind::Elephant => 'E',
            Kind::Giraffe => 'G',
        };
        if self.owner == ROUND {
            c
        } else {
            c.to_ascii_lowercase()
        }
    }

    fn from_letter(c: char) -> Option<Piece> {
        let owner = if c.is_ascii_uppercase() {
            ROUND
        } else {
            ANGULAR
        };
        let kind = match c.to_ascii_uppercase() {
            'L' => Kind::Lion,
            'E' => Kind::Elephant,
            'G' => Kind::Giraffe,
            _ => return None,
        };
        Some(Piece { owner, kind })
    }

    fn key(self, square: usize) -> u64 {
        KEYS[(self.owner as usize * 3 + self.kind as usize) * SQUARES + square]
    }
}

/// Whether a moved piece P pairs with Q to capture what lies between.
fn pairs(p: Piece, q: Piece) -> bool {
    match (p.kind, q.kind) {
        (Kind::Elephant, Kind::Elephant) | (Kind::Giraffe, Kind::Giraffe) => true,
        (Kind::Lion, Kind::Elephant | Kind::Giraffe)
        | (Kind::Elephant | Kind::Giraffe, Kind::Lion) => p.owner == q.owner,
        _ => false,
    }
}

/// Base square of each seat's lion.
pub const BASES: [usize; 2] = [0, 24];

/// Elephants plus giraffes each side starts with.
const HELPERS: u32 = 5;

const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

const fn neighbour_masks() -> [u32; SQUARES] {
    let mut masks = [0u32; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let (f, r) = ((s % 5) as i8, (s / 5) as i8);
        let mut d = 0;
        while d < 8 {
            let (nf, nr) = (f + DIRECTIONS[d].0, r + DIRECTIONS[d].1);
            if nf >= 0 && nf < 5 && nr >= 0 && nr < 5 {
                masks[s] |= 1 << (nr * 5 + nf);
            }
            d += 1;
        }
        s += 1;
    }
    masks
}

/// Squares walked from each square in each direction, nearest first,
/// terminated by `NONE`.
const fn rays() -> [[[u8; 5]; 8]; SQUARES] {
    let mut rays = [[[NONE; 5]; 8]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let mut d = 0;
        while d < 8 {
            let (mut f, mut r) = ((s % 5) as i8, (s / 5) as i8);
            let mut i = 0;
            loop {
                f += DIRECTIONS[d].0;
                r += DIRECTIONS[d].1;
                if f < 0 || f >= 5 || r < 0 || r >= 5 {
                    break;
                }
                rays[s][d][i] = (r * 5 + f) as u8;
                i += 1;
            }
            d += 1;
        }
        s += 1;
    }
    rays
}

const NONE: u8 = u8::MAX;
static NEIGHBOURS: [u32; SQUARES] = neighbour_masks();
static RAYS: [[[u8; 5]; 8]; SQUARES] = rays();
static DIRECTION_TO: [[u8; SQUARES]; SQUARES] = directions_to();

/// The direction from a square to each of its neighbours.
const fn directions_to() -> [[u8; SQUARES]; SQUARES] {
    let rays = rays();
    let mut table = [[NONE; SQUARES]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let mut d = 0;
        while d < 8 {
            if rays[s][d][0] != NONE {
                table[s][rays[s][d][0] as usize] = d as u8;
            }
            d += 1;
        }
        s += 1;
    }
    table
}
const KEYS: [u64; 6 * SQUARES + 1] = zobrist_table(0x5341_4641);
const KEY_SIDE: usize = 6 * SQUARES;

fn square_name(s: u8) -> PointName {
    PointName {
        file: (b'a' + s % 5) as char,
        rank: (s / 5 + 1) as u32,
    }
}

fn square_index(p: PointName) -> Option<u8> {
    let file = (p.file as u8).checked_sub(b'a')?;
    (file < 5 && (1..=5).contains(&p.rank)).then(|| (p.rank as u8 - 1) * 5 + file)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SafariMove {
    pub from: u8,
    pub to: u8,
}

impl fmt::Display for SafariMove {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}{}", square_name(self.from), square_name(self.to))
    }
}

/// What undoing a move needs: the captured squares by kind, clock and hash.
#[derive(Clone, Copy, Debug)]
pub struct SafariUndo {
    captured: [u32; 3],
    clock: u32,
    hash: u64,
}

/// A position of Safari-Dual.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Safari {
    board: [Option<Piece>; SQUARES],
    occupied: [u32; 2],
    /// Square of each seat's lion, `NONE` once captured.
    lions: [u8; 2],
    side: Seat,
    clock: u32,
    hash: u64,
}

impl Safari {
    pub fn piece(&self, square: u8) -> Option<Piece> {
        self.board[square as usize]
    }

    fn empty(&self) -> u32 {
        ((1u32 << SQUARES) - 1) & !(self.occupied[0] | self.occupied[1])
    }

    pub fn lion(&self, seat: Seat) -> Option<u8> {
        let s = self.lions[seat as usize];
        (s != NONE).then_some(s)
    }

    /// Elephants and giraffes of `seat` still on the board.
    pub fn helpers(&self, seat: Seat) -> u32 {
        self.occupied[seat as usize].count_ones() - u32::from(self.lion(seat).is_some())
    }

    /// Elephants and giraffes of `seat` captured so far.
    pub fn helpers_lost(&self, seat: Seat) -> u32 {
        HELPERS - self.helpers(seat)
    }

    /// Squares of the enemy pieces the move would capture, by kind.
    pub fn captures(&self, mv: SafariMove) -> [u32; 3] {
        let mover = self.board[mv.from as usize].expect("a move starts on a piece");
        let enemy = self.occupied[1 - mover.owner as usize];
        let mut captured = [0u32; 3];
        // A walk captures only if it starts on an enemy piece.
        for first in bits(NEIGHBOURS[mv.to as usize] & enemy) {
            let ray = &RAYS[mv.to as usize][DIRECTION_TO[mv.to as usize][first as usize] as usize];
            let mut passed = [0u32; 3];
            let mut any = false;
            for &s in ray.iter().take_while(|&&s| s != NONE) {
                // The start square is empty once the piece has left it.
                let q = if s == mv.from {
                    None
                } else {
                    self.board[s as usize]
                };
                let Some(q) = q else { break };
                if any && pairs(mover, q) {
                    for k in 0..3 {
                        captured[k] |= passed[k];
                    }
                    break;
                }
                if q.owner == mover.owner {
                    break;
                }
                passed[q.kind as usize] |= 1 << s;
                any = true;
            }
        }
        captured
    }

    pub fn is_capturing(&self, mv: SafariMove) -> bool {
        self.captures(mv) != [0; 3]
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for (s, cell) in self.board.iter().enumerate() {
            if let Some(p) = cell {
                h ^= p.key(s);
            }
        }
        if self.side == ANGULAR {
            h ^= KEYS[KEY_SIDE];
        }
        h
    }

    /// Whether the lion of the side to move must leave its base now.
    pub fn lion_must_leave(&self) -> bool {
        let me = self.side;
        self.lion(me) == Some(BASES[me as usize] as u8) && self.helpers_lost(me) >= 3
    }

    fn generate_all(&self, moves: &mut Vec<SafariMove>) {
        let me = self.side as usize;
        let empty = self.empty();
        let base = BASES[me];
        let lion_home = self.lion(self.side) == Some(base as u8);
        for from in bits(self.occupied[me]) {
            for to in bits(NEIGHBOURS[from as usize] & empty) {
                let mv = SafariMove { from, to };
                if to as usize == base && !lion_home {
                    // The base is closed to its owner once the lion has
                    // left, except for a move that takes the enemy lion.
                    if self.captures(mv)[Kind::Lion as usize] == 0 {
                        continue;
                    }
                }
                moves.push(mv);
            }
        }
    }

    fn decided(&self) -> Option<Outcome> {
        let me = self.side;
        let them = 1 - me;
        let (my_lion, their_lion) = (self.lion(me), self.lion(them));
        if my_lion.is_none() || their_lion == Some(BASES[me as usize] as u8) {
            return Some(Outcome::Win(them));
        }
        if their_lion.is_none() || my_lion == Some(BASES[them as usize] as u8) {
            return Some(Outcome::Win(me));
        }
        None
    }

    fn put(&mut self, s: usize, piece: Piece) {
        if piece.kind == Kind::Lion {
            self.lions[piece.owner as usize] = s as u8;
        }
        self.board[s] = Some(piece);
        self.occupied[piece.owner as usize] |= 1 << s;
        self.hash ^= piece.key(s);
    }

    fn take(&mut self, s: usize) -> Piece {
        let piece = self.board[s].take().expect("a piece to take");
        if piece.kind == Kind::Lion {
            self.lions[piece.owner as usize] = NONE;
        }
        self.occupied[piece.owner as usize] &= !(1 << s);
        self.hash ^= piece.key(s);
        piece
    }
}

impl Game for Safari {
    type Move = SafariMove;
    type Undo = SafariUndo;
    type Rules = ();

    const ID: &'static str = "safari-dual";
    const NAME: &'static str = "Safari-Dual";
    const SEAT_NAMES: &'static [&'static str] = &["Round", "Angular"];
    const MOVE_SYNTAX: &'static str = "step <from><to>";
    const END_REASONS: &'static [(&'static str, &'static str)] = &[
        ("lion-captured", "a lion has been captured"),
        ("base-reached", "a lion has reached the enemy base"),
        ("no-move", "the side to move has no legal move"),
    ];
    const ALIASES: &'static [&'static str] = &["safari"];
    const OPTIONS: &'static [OptionSpec] = &[];
    const SEAT_LETTERS: &'static [char] = &['r', 'a'];
    const HAS_CHANCE: bool = false;
    const NO_PROGRESS_LIMIT: u32 = 100;

    fn rules(_: &Ruleset) {}

    fn start(_: &()) -> Safari {
        Safari::from_notation(&(), "2gel/3ge/E3g/GE3/LGE2 r 0")
            .expect("the start notation is valid")
    }

    fn from_notation(_: &(), text: &str) -> Result<Safari, NotationError> {
        let mut fields = FieldReader::new(text)?;
        let rows = parse_board(fields.next("board")?, &[5; 5], "LEGleg")?;
        let side = match fields.next("side")? {
            s if s.eq_ignore_ascii_case("r") => ROUND,
            s if s.eq_ignore_ascii_case("a") => ANGULAR,
            s => {
                return Err(NotationError::BadField {
                    field: "side",
                    text: s.to_string(),
                    expected: "r or a",
                })
            }
        };
        let clock = fields.clock()?;
        fields.finish()?;
        let mut p = Safari {
            board: [None; SQUARES],
            occupied: [0; 2],
            lions: [NONE; 2],
            side,
            clock,
            hash: 0,
        };
        let mut counts = [[0usize; 3]; 2];
        for (row_index, row) in rows.iter().enumerate() {
            let rank = 4 - row_index;
            for (file, cell) in row.iter().enumerate() {
                if let Some(piece) = cell.and_then(Piece::from_letter) {
                    counts[piece.owner as usize][piece.kind as usize] += 1;
                    p.put(rank * 5 + file, piece);
                }
            }
        }
        const LIMITS: [[(&str, &str, usize); 3]; 2] = [
            [
                ("Round lions", "at most 1", 1),
                ("Round elephants", "at most 3", 3),
                ("Round giraffes", "at most 2", 2),
            ],
            [
                ("Angular lions", "at most 1", 1),
                ("Angular elephants", "at most 2", 2),
                ("Angular giraffes", "at most 3", 3),
            ],
        ];
        for seat in 0..2 {
            for kind in KINDS {
                let (piece, expected, max) = LIMITS[seat][kind as usize];
                let found = counts[seat][kind as usize];
                if found > max {
                    return Err(NotationError::PieceCount {
                        piece,
                        found,
                        expected,
                    });
                }
            }
        }
        let lions = [p.lion(ROUND), p.lion(ANGULAR)];
        if lions == [None, None] {
            return Err(NotationError::Inconsistent("both lions are missing"));
        }
        if lions[0] == Some(BASES[1] as u8) && lions[1] == Some(BASES[0] as u8) {
            return Err(NotationError::Inconsistent(
                "both lions stand on the enemy base",
            ));
        }
        let won_twice =
            |seat: usize| lions[1 - seat].is_none() || lions[seat] == Some(BASES[1 - seat] as u8);
        if won_twice(0) && won_twice(1) {
            return Err(NotationError::Inconsistent("both sides have already won"));
        }
        p.hash = p.compute_hash();
        Ok(p)
    }

    fn parse_move(text: &str) -> Result<SafariMove, MoveSyntaxError> {
        let (from, to) = parse_from_to(text, square_index)?;
        Ok(SafariMove { from, to })
    }

    fn seats(&self) -> &[Seat] {
        &[ROUND, ANGULAR]
    }

    fn side(&self) -> Seat {
        self.side
    }

    fn generate(&self, moves: &mut Vec<SafariMove>) {
        if self.decided().is_some() {
            return;
        }
        let start = moves.len();
        self.generate_all(moves);
        if self.lion_must_leave() {
            let lion = BASES[self.side as usize] as u8;
            if moves[start..].iter().any(|m| m.from == lion) {
                let mut keep = start;
                for i in start..moves.len() {
                    if moves[i].from == lion {
                        moves[keep] = moves[i];
                        keep += 1;
                    }
                }
                moves.truncate(keep);
            }
        }
    }

    /// By population counts of each piece's empty neighbours; only the
    /// rare moves onto the mover's own base (lion gone from it) need the
    /// capture walk.
    fn count_moves(&self, _: &mut Vec<SafariMove>) -> usize {
        if self.decided().is_some() {
            return 0;
        }
        let me = self.side as usize;
        let empty = self.empty();
        let base = BASES[me];
        if self.lion_must_leave() {
            let lion_moves = (NEIGHBOURS[base] & empty).count_ones();
            if lion_moves > 0 {
                return lion_moves as usize;
            }
        }
        let mut count = 0;
        for from in bits(self.occupied[me]) {
            count += (NEIGHBOURS[from as usize] & empty).count_ones();
        }
        let lion_home = self.lion(self.side) == Some(base as u8);
        if !lion_home && empty & (1 << base) != 0 {
            for from in bits(self.occupied[me] & NEIGHBOURS[base]) {
                let mv = SafariMove {
                    from,
                    to: base as u8,
                };
                count -= u32::from(self.captures(mv)[Kind::Lion as usize] == 0);
            }
        }
        count as usize
    }

    fn play(&mut self, mv: SafariMove) -> SafariUndo {
        let captured = self.captures(mv);
        let undo = SafariUndo {
            captured,
            clock: self.clock,
            hash: self.hash,
        };
        let piece = self.take(mv.from as usize);
        self.put(mv.to as usize, piece);
        let mut any = false;
        for mask in captured {
            for s in bits(mask) {
                self.take(s as usize);
                any = true;
            }
        }
        self.clock = if any { 0 } else { self.clock + 1 };
        self.side ^= 1;
        self.hash ^= KEYS[KEY_SIDE];
        undo
    }

    fn undo(&mut self, mv: SafariMove, undo: SafariUndo) {
        self.side ^= 1;
        let enemy = 1 - self.side;
        for kind in KINDS {
            for s in bits(undo.captured[kind as usize]) {
                self.put(s as usize, Piece { owner: enemy, kind });
            }
        }
        let piece = self.take(mv.to as usize);
        self.put(mv.from as usize, piece);
        self.clock = undo.clock;
        self.hash = undo.hash;
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.decided() {
            return Some(o);
        }
        let mut moves = Vec::with_capacity(48);
        self.generate_all(&mut moves);
        if moves.is_empty() {
            Some(Outcome::Win(1 - self.side))
        } else {
            None
        }
    }

    fn end_reason(&self) -> &'static str {
        if self.lion(0).is_none() || self.lion(1).is_none() {
            "lion-captured"
        } else if self.decided().is_some() {
            "base-reached"
        } else {
            "no-move"
        }
    }

    fn clock(&self) -> u32 {
        self.clock
    }

    fn set_clock(&mut self, clock: u32) {
        self.clock = clock;
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    const MOVE_KEYS: usize = SQUARES * SQUARES;

    fn move_key(mv: SafariMove) -> usize {
        mv.from as usize * SQUARES + mv.to as usize
    }

    fn endgame() -> Option<Endgame<Safari>> {
        Some(numbering::endgame())
    }

    fn table_key(&self) -> Option<TableKey> {
        self.key()
    }

    fn table_slice(&self) -> Option<Slice> {
        self.slice_of()
    }

    fn is_capture(&self, mv: SafariMove) -> bool {
        self.is_capturing(mv)
    }

    fn evaluate(&self) -> i32 {
        eval::evaluate(self)
    }

    const PIECE_KINDS: &'static [&'static str] = &["lion", "elephant", "giraffe"];

    fn points(&self) -> usize {
        SQUARES
    }

    fn point_name(&self, point: usize) -> String {
        square_name(point as u8).to_string()
    }

    fn men(&self, out: &mut Vec<Man>) {
        for (point, piece) in self.board.iter().enumerate() {
            if let Some(p) = piece {
                out.push(Man {
                    point,
                    owner: p.owner,
                    kind: p.kind as usize,
                });
            }
        }
    }

    /// Angular sees the board turned half round, its base at a1, as the
    /// network inputs do.
    fn seen_from(&self, point: usize, seat: Seat) -> usize {
        if seat == ANGULAR {
            SQUARES - 1 - point
        } else {
            point
        }
    }

    /// Each man by owner (mover or other), kind and square, the board
    /// turned half round when Angular moves, so that the mover's base is
    /// always a1 (the board is symmetric under that turn; the armies are
    /// not, two giraffes and three elephants against three and two, so
    /// the inputs still tell the colours apart).
    const INPUT_SET: Option<InputSet> = Some(InputSet {
        name: "safari-dual/men-1",
        inputs: 2 * 3 * SQUARES,
        heads: 1,
        covers: &[],
        // A move's origin and its destination, turned as the inputs are.
        moves: 2 * SQUARES,
    });

    fn policy_keys(&self, mv: SafariMove) -> MoveKeys {
        let turned = |s: u8| {
            if self.side == ANGULAR {
                (SQUARES - 1 - s as usize) as u16
            } else {
                u16::from(s)
            }
        };
        [turned(mv.from), SQUARES as u16 + turned(mv.to)]
    }

    fn inputs(&self, out: &mut Inputs) {
        out.clear();
        let turned = self.side == ANGULAR;
        for (s, piece) in self.board.iter().enumerate() {
            if let Some(p) = piece {
                let own = usize::from(p.owner != self.side);
                let square = if turned { SQUARES - 1 - s } else { s };
                out.push((own * 3 + p.kind as usize) * SQUARES + square);
            }
        }
        out.finish();
    }

    fn draw(&self) -> String {
        let mut out = String::new();
        for rank in (0..5).rev() {
            out.push_str(&format!("{} ", rank + 1));
            for file in 0..5 {
                let s = rank * 5 + file;
                let c = self.board[s].map_or('.', Piece::letter);
                if BASES.contains(&s) {
                    out.push_str(&format!("[{c}]"));
                } else {
                    out.push_str(&format!(" {c} "));
                }
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        out.push_str("   a  b  c  d  e\n");
        out.push_str(&format!(
            "Bases: [a1] Round, [e5] Angular  Lost: Round {} Angular {}  Clock: {}{}\n",
            self.helpers_lost(ROUND),
            self.helpers_lost(ANGULAR),
            self.clock,
            if self.lion_must_leave() {
                "  (the lion must leave its base)"
            } else {
                ""
            }
        ));
        out
    }
}

impl fmt::Display for Safari {
    /// `<rank5>/.../<rank1> <side> <clock>`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for rank in (0..5).rev() {
            write_row(
                f,
                (0..5).map(|file| self.board[rank * 5 + file].map(Piece::letter)),
            )?;
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(
            f,
            " {} {}",
            Self::SEAT_LETTERS[self.side as usize],
            self.clock
        )
    }
}

/// Iterates the squares of `seat`'s pieces of `kind`.
pub fn squares_of(position: &Safari, seat: Seat, kind: Kind) -> impl Iterator<Item = u8> + '_ {
    bits(position.occupied[seat as usize])
        .filter(move |&s| position.board[s as usize].map(|p| p.kind) == Some(kind))
}

/// King-move distance between two squares.
pub fn distance(a: u8, b: u8) -> u8 {
    let (fa, ra) = (a % 5, a / 5);
    let (fb, rb) = (b % 5, b / 5);
    fa.abs_diff(fb).max(ra.abs_diff(rb))
}

/// Neighbour mask of a square.
pub fn neighbours(s: u8) -> u32 {
    NEIGHBOURS[s as usize]
}

/// Occupancy of a seat.
pub fn occupied(position: &Safari, seat: Seat) -> u32 {
    position.occupied[seat as usize]
}
