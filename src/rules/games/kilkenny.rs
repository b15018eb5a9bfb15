//! Kilkenny Cats: 2 to 4 players and a die (RULES.md section 4).
//!
//! A 16x16 frame, files a..p and ranks 1..16, square index
//! `(rank - 1) * 16 + file`; the playable squares are b2..o15 and the only
//! frame squares in play are the eight mice. Chance is a player: at the
//! start of a turn the position awaits a roll, and the six rolls `r1`..`r6`
//! are its moves, all equally likely. Then the seat to move plays a cat
//! exactly that many squares in a straight line, or `pass` if it cannot.
//!
//! Seats are indexed in turn order S = 0, W = 1, N = 2, E = 3; the `players`
//! option decides which are in play.

pub mod eval;
mod geometry;

use std::fmt;

use crate::game::inputs::{InputSet, Inputs, MoveKeys, NO_KEY};
use crate::game::observation::Man;
use crate::game::{Game, OptionSpec, Outcome, Ruleset, Seat};
use crate::notation::{
    number, parse_board, parse_from_to, write_row, FieldReader, MoveSyntaxError, NotationError,
    PointName,
};
use crate::rng::zobrist_table;

use geometry::{
    offset, square, Terrain, LINES, LINE_OF, MICE, MOUSE_DISTANCES, MOUSE_OWNER, PLAYABLE_RUNS,
    RAYS, SIDE, SQUARES, TERRAIN,
};

/// A roll mask (bit k-1 for k) spread out one byte per roll, so that
/// adding these adds up the moves of every roll at once.
static ROLL_BYTES: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut mask = 0;
    while mask < 64 {
        let mut k = 0;
        while k < 6 {
            if mask & (1 << k) != 0 {
                table[mask] |= 1 << (8 * k);
            }
            k += 1;
        }
        mask += 1;
    }
    table
};

pub const SOUTH: Seat = 0;
pub const WEST: Seat = 1;
pub const NORTH: Seat = 2;
pub const EAST: Seat = 3;

const CATS: u8 = 8;
const LETTERS: [char; 4] = ['S', 'W', 'N', 'E'];

const KEY_CAT: usize = 0;
const KEY_SIDE: usize = 4 * SQUARES;
const KEY_ROLL: usize = KEY_SIDE + 4;
const KEYS: [u64; KEY_ROLL + 7] = zobrist_table(0x4B49_4C4B);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KcRules {
    pub players: u8,
}

static SEAT_ORDERS: [&[Seat]; 3] = [
    &[SOUTH, NORTH],
    &[SOUTH, WEST, NORTH],
    &[SOUTH, WEST, NORTH, EAST],
];

fn seats_for(players: u8) -> &'static [Seat] {
    SEAT_ORDERS[players as usize - 2]
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KcMove {
    Roll(u8),
    Step { from: u8, to: u8 },
    Pass,
}

fn square_name(s: u8) -> PointName {
    PointName {
        file: (b'a' + s % SIDE as u8) as char,
        rank: (s as u32 / SIDE as u32) + 1,
    }
}

fn square_index(p: PointName) -> Option<u8> {
    let file = (p.file as u8).checked_sub(b'a')? as usize;
    (file < SIDE && (1..=16).contains(&p.rank)).then(|| square(file, p.rank as usize))
}

impl fmt::Display for KcMove {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            KcMove::Roll(n) => write!(f, "r{n}"),
            KcMove::Step { from, to } => write!(f, "{}{}", square_name(*from), square_name(*to)),
            KcMove::Pass => f.write_str("pass"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct KcUndo {
    captured: Option<Seat>,
    side: Seat,
    roll: Option<u8>,
    clock: u32,
    hash: u64,
}

/// The learned evaluation's inputs: cats by place and square, then the
/// six rolls, then the four places in play, then each place's measures
/// ([`eval::measures`]) in buckets of these sizes.
const KC_ROLL_INPUTS: usize = 4 * SQUARES;
const KC_PLACE_INPUTS: usize = KC_ROLL_INPUTS + 6;
const KC_MEASURE_INPUTS: usize = KC_PLACE_INPUTS + 4;
const KC_MEASURE_BUCKETS: [usize; 5] = [3, 9, 16, 13, 7];
const KC_MEASURES: usize = 3 + 9 + 16 + 13 + 7;
const KC_INPUTS: usize = KC_MEASURE_INPUTS + 4 * KC_MEASURES;

/// Square `s` with the board turned so that seat `side` sits South: a
/// quarter turn takes South's side of the board to West's, West's to
/// North's, and so on, so `side` quarter turns the other way bring it back.
fn turned_to_south(s: u8, side: usize) -> u8 {
    let (mut file, mut row) = (s as usize % SIDE, s as usize / SIDE);
    for _ in 0..side {
        // The inverse of the quarter turn (file, row) -> (row, 15 - file).
        (file, row) = (SIDE - 1 - row, file);
    }
    (row * SIDE + file) as u8
}

/// A position of Kilkenny Cats.
#[derive(Clone, PartialEq, Eq)]
pub struct Kilkenny {
    /// Seat + 1 of the cat on each square (mice included), 0 when empty.
    board: [u8; SQUARES],
    seats: &'static [Seat],
    side: Seat,
    roll: Option<u8>,
    /// Cats of each seat on playable squares.
    free: [u8; 4],
    /// The squares of those cats, as 256-bit masks.
    free_mask: [[u64; 4]; 4],
    /// Cats of every seat on playable squares, by line (see `LINE_OF`),
    /// so that finding the first cat along a ray is a bit scan.
    lines: [u16; LINES],
    /// Cats of each seat on its mice.
    home: [u8; 4],
    clock: u32,
    hash: u64,
}

impl fmt::Debug for Kilkenny {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Kilkenny({self})")
    }
}

impl Kilkenny {
    pub fn cat(&self, s: u8) -> Option<Seat> {
        self.board[s as usize].checked_sub(1)
    }

    pub fn roll(&self) -> Option<u8> {
        self.roll
    }

    /// A seat is out when it has no cat left off its mice.
    pub fn is_out(&self, seat: Seat) -> bool {
        self.free[seat as usize] == 0
    }

    pub fn free_cats(&self, seat: Seat) -> u8 {
        self.free[seat as usize]
    }

    pub fn cats_home(&self, seat: Seat) -> u8 {
        self.home[seat as usize]
    }

    /// Squares of `seat`'s cats that can still move, in square order.
    pub fn cats_of(&self, seat: Seat) -> impl Iterator<Item = u8> + '_ {
        let masks = self.free_mask[seat as usize];
        (0..4).flat_map(move |word| {
            let mut bits = masks[word];
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros();
                    bits &= bits - 1;
                    (word as u32 * 64 + i) as u8
                })
            })
        })
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for (s, &c) in self.board.iter().enumerate() {
            if c != 0 {
                h ^= KEYS[KEY_CAT + (c as usize - 1) * SQUARES + s];
            }
        }
        h ^ KEYS[KEY_SIDE + self.side as usize] ^ KEYS[KEY_ROLL + self.roll.unwrap_or(0) as usize]
    }

    /// The landing square of a move of `steps` from `from` in direction
    /// `d` by `seat`, if the rules allow it.
    fn landing(&self, from: u8, d: usize, steps: u8, seat: Seat) -> Option<u8> {
        for k in 1..steps {
            let s = offset(from, d, k as i8)?;
            if TERRAIN[s as usize] != Terrain::Playable || self.board[s as usize] != 0 {
                return None;
            }
        }
        let to = offset(from, d, steps as i8)?;
        let occupant = self.board[to as usize];
        match TERRAIN[to as usize] {
            Terrain::Playable if occupant == 0 || occupant != seat + 1 => Some(to),
            Terrain::Mouse(owner) if owner == seat && occupant == 0 => Some(to),
            _ => None,
        }
    }

    /// The next seat in turn order that is not out, the mover last.
    fn next_seat(&self, mover: Seat) -> Seat {
        let n = self.seats.len();
        let i = self
            .seats
            .iter()
            .position(|&s| s == mover)
            .expect("the mover has a seat at the table");
        (1..=n)
            .map(|k| self.seats[(i + k) % n])
            .find(|&s| !self.is_out(s))
            .unwrap_or(self.seats[(i + 1) % n])
    }

    fn set_side(&mut self, side: Seat) {
        self.hash ^= KEYS[KEY_SIDE + self.side as usize] ^ KEYS[KEY_SIDE + side as usize];
        self.side = side;
    }

    fn set_roll(&mut self, roll: Option<u8>) {
        self.hash ^= KEYS[KEY_ROLL + self.roll.unwrap_or(0) as usize]
            ^ KEYS[KEY_ROLL + roll.unwrap_or(0) as usize];
        self.roll = roll;
    }

    fn place(&mut self, s: u8, seat: Seat) {
        self.board[s as usize] = seat + 1;
        self.hash ^= KEYS[KEY_CAT + seat as usize * SQUARES + s as usize];
        match TERRAIN[s as usize] {
            Terrain::Playable => {
                self.free[seat as usize] += 1;
                self.free_mask[seat as usize][s as usize / 64] |= 1 << (s % 64);
                self.toggle_lines(s);
            }
            _ => self.home[seat as usize] += 1,
        }
    }

    fn remove(&mut self, s: u8) -> Seat {
        let seat = self.board[s as usize] - 1;
        self.board[s as usize] = 0;
        self.hash ^= KEYS[KEY_CAT + seat as usize * SQUARES + s as usize];
        match TERRAIN[s as usize] {
            Terrain::Playable => {
                self.free[seat as usize] -= 1;
                self.free_mask[seat as usize][s as usize / 64] &= !(1 << (s % 64));
                self.toggle_lines(s);
            }
            _ => self.home[seat as usize] -= 1,
        }
        seat
    }

    /// Flips the bit of `s` on the four lines through it (directions 0..4
    /// name each line once).
    fn toggle_lines(&mut self, s: u8) {
        for &(line, bit) in &LINE_OF[s as usize][..4] {
            self.lines[line as usize] ^= 1 << bit;
        }
    }

    /// Steps from `s` in direction `d` (0 for the adjacent square) to the
    /// first cat on the playable part of the ray, if there is one.
    fn first_cat(&self, s: u8, d: usize) -> Option<usize> {
        let run = PLAYABLE_RUNS[s as usize][d] as u32;
        if run == 0 {
            return None;
        }
        let (line, bit) = LINE_OF[s as usize][d];
        let occupied = self.lines[line as usize] as u32;
        let bit = bit as u32;
        if d < 4 {
            let ahead = (occupied >> (bit + 1)) & ((1 << run) - 1);
            (ahead != 0).then(|| ahead.trailing_zeros() as usize)
        } else {
            // The `run` bits below `bit`, nearest first from bit 31 down.
            let behind = (occupied << (32 - bit)) & !(u32::MAX >> run);
            (behind != 0).then(|| behind.leading_zeros() as usize)
        }
    }

    /// Player moves for the current roll (without `pass`).
    fn player_moves(&self, roll: u8, moves: &mut Vec<KcMove>) {
        let seat = self.side;
        for from in self.cats_of(seat) {
            for d in 0..8 {
                if let Some(to) = self.landing(from, d, roll, seat) {
                    moves.push(KcMove::Step { from, to });
                }
            }
        }
    }

    /// The rolls (bit k-1 for k) with which a cat of `seat` on `from` can
    /// move in direction `d`: every roll short of the first cat on the
    /// ray, the roll onto that cat if it is an enemy's, and, with the ray
    /// clear, the roll onto a mouse of the seat just past the playable
    /// part if that mouse is empty. [`Kilkenny::landing`] square by square.
    #[inline(always)]
    fn roll_mask(&self, from: u8, d: usize, seat: Seat) -> u32 {
        let own = seat + 1;
        match self.first_cat(from, d) {
            Some(j) => {
                let enemy = self.board[RAYS[from as usize][d][j] as usize] != own;
                ((1 << j) - 1) | (u32::from(enemy) << j)
            }
            None => {
                let run = PLAYABLE_RUNS[from as usize][d] as usize;
                // Past the frame the ray holds NO_SQUARE, which is no mouse.
                let past = RAYS[from as usize][d][run.min(5)] as usize;
                let home = run < 6 && MOUSE_OWNER[past] == own && self.board[past] == 0;
                ((1 << run) - 1) | (u32::from(home) << run)
            }
        }
    }

    /// For each roll, how many moves the side to move has with it, one
    /// byte per roll (byte k-1 for k), without the `pass` of a roll that
    /// has none.
    fn moves_by_roll(&self) -> u64 {
        let seat = self.side;
        let mut counts = 0;
        for from in self.cats_of(seat) {
            for d in 0..8 {
                counts += ROLL_BYTES[self.roll_mask(from, d, seat) as usize];
            }
        }
        counts
    }

    /// The rolls (bit k-1 for k) with which some enemy cat could land on
    /// `s`: along each line, the first cat within six squares, if an
    /// enemy's, can with the roll of its distance.
    pub fn threat_rolls(&self, s: u8, seat: Seat) -> u8 {
        let mut rolls = 0u8;
        for (d, ray) in RAYS[s as usize].iter().enumerate() {
            if let Some(k) = self.first_cat(s, d) {
                if self.board[ray[k] as usize] != seat + 1 {
                    rolls |= 1 << k;
                }
            }
        }
        rolls
    }

    /// The rolls (bit k-1 for a roll of k) with which some free cat of
    /// `seat` could land on one of its empty mice now.
    pub fn landing_rolls(&self, seat: Seat) -> u8 {
        let mut rolls = 0u8;
        for (mouse, owner) in MICE {
            if owner != seat || self.board[mouse as usize] != 0 {
                continue;
            }
            for (d, ray) in RAYS[mouse as usize].iter().enumerate() {
                if let Some(k) = self.first_cat(mouse, d) {
                    if self.board[ray[k] as usize] == seat + 1 {
                        rolls |= 1 << k;
                    }
                }
            }
        }
        rolls
    }

    /// Distance in king moves from `s` to the nearest empty mouse of `seat`.
    pub fn distance_home(&self, s: u8, seat: Seat) -> u8 {
        MICE.iter()
            .zip(&MOUSE_DISTANCES)
            .filter(|((m, owner), _)| *owner == seat && self.board[*m as usize] == 0)
            .map(|(_, distances)| distances[s as usize])
            .min()
            .unwrap_or(0)
    }
}

static OPTIONS: &[OptionSpec] = &[OptionSpec {
    key: "players",
    values: &["2", "3", "4"],
}];

/// The start rows: each seat's eight cats.
fn start_squares(seat: Seat) -> impl Iterator<Item = u8> {
    (0..8).map(move |i| match seat {
        SOUTH => square(4 + i, 4),
        NORTH => square(4 + i, 13),
        WEST => square(3, 5 + i),
        _ => square(12, 5 + i),
    })
}

impl Game for Kilkenny {
    type Move = KcMove;
    type Undo = KcUndo;
    type Rules = KcRules;

    const ID: &'static str = "kilkenny-cats";
    const NAME: &'static str = "Kilkenny Cats";
    const SEAT_NAMES: &'static [&'static str] = &["South", "West", "North", "East"];
    const MOVE_SYNTAX: &'static str = "roll r1..r6; step <from><to>; pass";
    const END_REASONS: &'static [(&'static str, &'static str)] = &[
        ("mice-reached", "a seat has cats on both of its mice"),
        ("last-seat", "only one seat is still in the game"),
        ("no-seat", "no seat is left in the game"),
    ];
    const ALIASES: &'static [&'static str] = &["kilkenny", "cats", "kc"];
    const OPTIONS: &'static [OptionSpec] = OPTIONS;
    const SEAT_LETTERS: &'static [char] = &['s', 'w', 'n', 'e'];
    const HAS_CHANCE: bool = true;
    const NO_PROGRESS_LIMIT: u32 = 200;

    fn rules(ruleset: &Ruleset) -> KcRules {
        KcRules {
            players: ruleset
                .value("players")
                .parse()
                .expect("players is 2, 3 or 4"),
        }
    }

    fn start(rules: &KcRules) -> Kilkenny {
        let mut p = Kilkenny {
            board: [0; SQUARES],
            seats: seats_for(rules.players),
            side: SOUTH,
            roll: None,
            free: [0; 4],
            free_mask: [[0; 4]; 4],
            lines: [0; LINES],
            home: [0; 4],
            clock: 0,
            hash: 0,
        };
        for &seat in p.seats {
            for s in start_squares(seat) {
                p.place(s, seat);
            }
        }
        p.hash = p.compute_hash();
        p
    }

    fn from_notation(rules: &KcRules, text: &str) -> Result<Kilkenny, NotationError> {
        let mut fields = FieldReader::new(text)?;
        let board_text = fields.next("board")?;
        let rows = parse_board(board_text, &[14; 14], "SWNE").map_err(|e| match e {
            NotationError::RowCount { found: 16, .. }
            | NotationError::RowLength { found: 16, .. } => NotationError::Inconsistent(
                "the board field lists only the playable squares b2..o15 (14 rows of 14); \
                     a cat on the frame can only be on a mouse, given in the mice field",
            ),
            other => other,
        })?;
        let side_text = fields.next("side")?;
        let roll_text = fields.next("roll")?;
        let seats_text = fields.next("seats")?;
        let mice_text = fields.next("mice")?;
        let clock = fields.clock()?;
        fields.finish()?;

        let seats = notation::seats(rules, seats_text)?;
        let mut p = Kilkenny {
            board: [0; SQUARES],
            seats,
            side: notation::side(seats, side_text)?,
            roll: notation::roll(roll_text)?,
            free: [0; 4],
            free_mask: [[0; 4]; 4],
            lines: [0; LINES],
            home: [0; 4],
            clock,
            hash: 0,
        };
        notation::place_board(&mut p, &rows)?;
        notation::place_mice(&mut p, mice_text)?;
        notation::check_counts(&p)?;
        p.hash = p.compute_hash();
        Ok(p)
    }

    fn parse_move(text: &str) -> Result<KcMove, MoveSyntaxError> {
        let lower = text.to_ascii_lowercase();
        if lower == "pass" {
            return Ok(KcMove::Pass);
        }
        if let Some(n) = lower.strip_prefix('r') {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                return match n.parse::<u8>() {
                    Ok(roll @ 1..=6) => Ok(KcMove::Roll(roll)),
                    _ => Err(MoveSyntaxError::Unreadable(text.to_string())),
                };
            }
        }
        let (from, to) = parse_from_to(text, square_index)?;
        Ok(KcMove::Step { from, to })
    }

    fn seats(&self) -> &[Seat] {
        self.seats
    }

    fn side(&self) -> Seat {
        self.side
    }

    fn is_chance(&self) -> bool {
        self.roll.is_none()
    }

    fn generate(&self, moves: &mut Vec<KcMove>) {
        if self.outcome().is_some() {
            return;
        }
        match self.roll {
            None => moves.extend((1..=6).map(KcMove::Roll)),
            Some(roll) => {
                let start = moves.len();
                self.player_moves(roll, moves);
                if moves.len() == start {
                    moves.push(KcMove::Pass);
                }
            }
        }
    }

    fn count_moves(&self, _: &mut Vec<KcMove>) -> usize {
        if self.outcome().is_some() {
            return 0;
        }
        match self.roll {
            None => 6,
            Some(roll) => {
                let n = (self.moves_by_roll() >> (8 * (roll - 1))) & 0xff;
                // Without a landing the only move is `pass`.
                n.max(1) as usize
            }
        }
    }

    /// One ply past a roll: the moves after each of the six rolls, added
    /// up from the per-roll counts of one pass over the cats.
    fn perft_bulk(&self, depth: u32) -> Option<u64> {
        if depth != 1 || self.roll.is_some() {
            return None;
        }
        if self.outcome().is_some() {
            return Some(0);
        }
        let counts = self.moves_by_roll();
        Some((0..6).map(|k| ((counts >> (8 * k)) & 0xff).max(1)).sum())
    }

    fn play(&mut self, mv: KcMove) -> KcUndo {
        let undo = KcUndo {
            captured: None,
            side: self.side,
            roll: self.roll,
            clock: self.clock,
            hash: self.hash,
        };
        match mv {
            KcMove::Roll(n) => {
                self.set_roll(Some(n));
                return undo;
            }
            KcMove::Pass => self.clock += 1,
            KcMove::Step { from, to } => {
                let seat = self.remove(from);
                let captured = (self.board[to as usize] != 0).then(|| self.remove(to));
                self.place(to, seat);
                let landed = TERRAIN[to as usize] != Terrain::Playable;
                self.clock = if captured.is_some() || landed {
                    0
                } else {
                    self.clock + 1
                };
                self.set_roll(None);
                let next = self.next_seat(undo.side);
                self.set_side(next);
                return KcUndo { captured, ..undo };
            }
        }
        self.set_roll(None);
        let next = self.next_seat(undo.side);
        self.set_side(next);
        undo
    }

    fn hand_turn(&mut self, seat: Seat) -> Option<KcUndo> {
        if !self.seats.contains(&seat) || self.is_out(seat) || self.outcome().is_some() {
            return None;
        }
        let undo = KcUndo {
            captured: None,
            side: self.side,
            roll: self.roll,
            clock: self.clock,
            hash: self.hash,
        };
        self.set_roll(None);
        self.set_side(seat);
        Some(undo)
    }

    fn take_back_turn(&mut self, undo: KcUndo) {
        self.side = undo.side;
        self.roll = undo.roll;
        self.hash = undo.hash;
    }

    fn undo(&mut self, mv: KcMove, undo: KcUndo) {
        if let KcMove::Step { from, to } = mv {
            let seat = self.remove(to);
            self.place(from, seat);
            if let Some(victim) = undo.captured {
                self.place(to, victim);
            }
        }
        self.side = undo.side;
        self.roll = undo.roll;
        self.clock = undo.clock;
        self.hash = undo.hash;
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(&winner) = self.seats.iter().find(|&&s| self.home[s as usize] == 2) {
            return Some(Outcome::Win(winner));
        }
        let mut alive = self.seats.iter().filter(|&&s| !self.is_out(s));
        match (alive.next(), alive.next()) {
            (None, _) => Some(Outcome::Draw),
            (Some(&last), None) => Some(Outcome::Win(last)),
            _ => None,
        }
    }

    fn end_reason(&self) -> &'static str {
        if self.seats.iter().any(|&s| self.home[s as usize] == 2) {
            "mice-reached"
        } else if self.seats.iter().any(|&s| !self.is_out(s)) {
            "last-seat"
        } else {
            "no-seat"
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

    const MOVE_KEYS: usize = SQUARES * SQUARES + 8;

    fn move_key(mv: KcMove) -> usize {
        match mv {
            KcMove::Step { from, to } => from as usize * SQUARES + to as usize,
            KcMove::Roll(n) => SQUARES * SQUARES + n as usize,
            KcMove::Pass => SQUARES * SQUARES,
        }
    }

    fn evaluate(&self) -> i32 {
        eval::evaluate_for(self, self.side)
    }

    /// Each cat by its seat's place after the mover in turn order (0 the
    /// mover, ..., 3) and its square, the board turned a quarter at a time
    /// so that the mover always sits South (the board, its mice and the
    /// starting cats are symmetric under that turn); the roll in hand;
    /// which places are in play; and for each place in play the measures
    /// of the hand-made evaluation, each in buckets (cats home, free cats,
    /// the race to the mice, rolls that threaten its cats, rolls that
    /// land one on a mouse), which relate cats far apart on the board as
    /// one layer of sums cannot. One head per place, the chance its seat
    /// wins.
    const INPUT_SET: Option<InputSet> = Some(InputSet {
        name: "kilkenny-cats/cats-2",
        inputs: KC_INPUTS,
        heads: 4,
        covers: &["players"],
        // A step's origin, its destination (both turned so the mover sits
        // South), and the pass.
        moves: 2 * SQUARES + 1,
    });

    fn policy_keys(&self, mv: KcMove) -> MoveKeys {
        let side = self.side as usize;
        match mv {
            KcMove::Step { from, to } => [
                u16::from(turned_to_south(from, side)),
                (SQUARES + turned_to_south(to, side) as usize) as u16,
            ],
            KcMove::Pass => [2 * SQUARES as u16, NO_KEY],
            KcMove::Roll(_) => [NO_KEY; 2],
        }
    }

    fn inputs(&self, out: &mut Inputs) {
        out.clear();
        let side = self.side as usize;
        for (s, &c) in self.board.iter().enumerate() {
            if c != 0 {
                let place = (c as usize - 1 + 4 - side) % 4;
                out.push(place * SQUARES + turned_to_south(s as u8, side) as usize);
            }
        }
        if let Some(k) = self.roll {
            out.push(KC_ROLL_INPUTS + k as usize - 1);
        }
        for &seat in self.seats {
            let place = (seat as usize + 4 - side) % 4;
            out.push(KC_PLACE_INPUTS + place);
            let m = eval::measures(self, seat);
            let base = KC_MEASURE_INPUTS + place * KC_MEASURES;
            let mut at = base;
            for (value, buckets) in m.into_iter().zip(KC_MEASURE_BUCKETS) {
                out.push(at + (value as usize).min(buckets - 1));
                at += buckets;
            }
        }
        out.finish();
    }

    fn head_seat(&self, head: usize) -> Option<Seat> {
        crate::game::inputs::head_seat_in_turn(self.side, head, 4, self.seats)
    }

    fn evaluate_for(&self, seat: Seat) -> i32 {
        eval::evaluate_for(self, seat)
    }

    const PIECE_KINDS: &'static [&'static str] = &["cat"];

    fn points(&self) -> usize {
        SQUARES
    }

    fn point_name(&self, point: usize) -> String {
        square_name(point as u8).to_string()
    }

    fn men(&self, out: &mut Vec<Man>) {
        for (point, &c) in self.board.iter().enumerate() {
            if c != 0 {
                out.push(Man {
                    point,
                    owner: c - 1,
                    kind: 0,
                });
            }
        }
    }

    /// Captures and landings: every cat off the mice can be captured
    /// once, and every empty mouse of a seat in play landed on once (a
    /// landing takes one of each).
    fn progress_left(&self) -> u32 {
        let cats = self.board.iter().filter(|&&c| c != 0).count() as u32;
        let home: u32 = self.home.iter().map(|&h| u32::from(h)).sum();
        (cats - home) + (2 * self.seats.len() as u32 - home)
    }

    /// Every seat sees the board turned so that it sits South, as the
    /// network inputs do.
    fn seen_from(&self, point: usize, seat: Seat) -> usize {
        turned_to_south(point as u8, seat as usize) as usize
    }

    /// The roll in hand, one plane per face; each place's mice; the
    /// squares in play.
    const EXTRA_PLANES: &'static [&'static str] = &[
        "roll 1",
        "roll 2",
        "roll 3",
        "roll 4",
        "roll 5",
        "roll 6",
        "mice of place 0",
        "mice of place 1",
        "mice of place 2",
        "mice of place 3",
        "playable",
    ];

    fn extra_planes(&self, seat: Seat, out: &mut [f32]) {
        let mut planes: Vec<&mut [f32]> = out.chunks_mut(SQUARES).collect();
        if let Some(k) = self.roll {
            planes[k as usize - 1].fill(1.0);
        }
        for (s, terrain) in TERRAIN.iter().enumerate() {
            let seen = self.seen_from(s, seat);
            match *terrain {
                Terrain::Mouse(owner) => {
                    planes[6 + crate::game::observation::place::<Kilkenny>(owner, seat)][seen] = 1.0
                }
                Terrain::Playable => planes[10][seen] = 1.0,
                Terrain::Off => {}
            }
        }
    }

    fn is_capture(&self, mv: KcMove) -> bool {
        match mv {
            KcMove::Step { to, .. } => {
                self.board[to as usize] != 0 || TERRAIN[to as usize] != Terrain::Playable
            }
            _ => false,
        }
    }

    fn draw(&self) -> String {
        let mut out = String::from("    a b c d e f g h i j k l m n o p\n");
        for rank in (1..=16).rev() {
            let mut line = format!("{rank:>2}  ");
            for file in 0..SIDE {
                let s = square(file, rank);
                let c = match (TERRAIN[s as usize], self.board[s as usize]) {
                    (_, c) if c != 0 => LETTERS[c as usize - 1],
                    (Terrain::Playable, _) => '.',
                    (Terrain::Mouse(_), _) => 'o',
                    (Terrain::Off, _) => ' ',
                };
                line.push(c);
                line.push(' ');
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out.push_str("Mice (o = empty): h16 i16 South, h1 i1 North, p8 p9 West, a8 a9 East\n");
        let seats: Vec<String> = self
            .seats
            .iter()
            .map(|&s| {
                let status = if self.home[s as usize] == 2 {
                    "won".to_string()
                } else if self.is_out(s) {
                    "out".to_string()
                } else {
                    format!(
                        "{} free, {} home",
                        self.free[s as usize], self.home[s as usize]
                    )
                };
                format!("{} ({status})", Self::SEAT_LETTERS[s as usize])
            })
            .collect();
        out.push_str(&format!("Seats: {}\n", seats.join(", ")));
        match self.roll {
            None => out.push_str(&format!(
                "Roll: - ({} to roll)  Clock: {}\n",
                Self::SEAT_LETTERS[self.side as usize],
                self.clock
            )),
            Some(n) => out.push_str(&format!("Roll: {n}  Clock: {}\n", self.clock)),
        }
        out
    }
}

impl fmt::Display for Kilkenny {
    /// `<rank15>/.../<rank2> <side> <roll> <seats> <mice> <clock>`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for rank in (2..=15).rev() {
            write_row(
                f,
                (1..=14).map(|file| self.cat(square(file, rank)).map(|s| LETTERS[s as usize])),
            )?;
            if rank > 2 {
                f.write_str("/")?;
            }
        }
        write!(f, " {} ", Self::SEAT_LETTERS[self.side as usize])?;
        match self.roll {
            Some(n) => write!(f, "{n}")?,
            None => f.write_str("-")?,
        }
        f.write_str(" ")?;
        for &s in self.seats {
            write!(f, "{}", Self::SEAT_LETTERS[s as usize])?;
        }
        f.write_str(" ")?;
        for (m, _) in MICE {
            match self.cat(m) {
                Some(seat) => write!(f, "{}", LETTERS[seat as usize])?,
                None => f.write_str("-")?,
            }
        }
        write!(f, " {}", self.clock)
    }
}

/// The fields of Kilkenny Cats' notation, one reader each.
mod notation {
    use super::*;

    pub(super) fn seats(rules: &KcRules, text: &str) -> Result<&'static [Seat], NotationError> {
        let seats = seats_for(rules.players);
        let expected_seats: String = seats
            .iter()
            .map(|&s| Kilkenny::SEAT_LETTERS[s as usize])
            .collect();
        if !text.eq_ignore_ascii_case(&expected_seats) {
            return Err(NotationError::BadField {
                field: "seats",
                text: text.to_string(),
                expected: match rules.players {
                    2 => "sn (the seats in play with players=2, in turn order)",
                    3 => "swn (the seats in play with players=3, in turn order)",
                    _ => "swne (the seats in play with players=4, in turn order)",
                },
            });
        }
        Ok(seats)
    }

    pub(super) fn side(seats: &[Seat], text: &str) -> Result<Seat, NotationError> {
        crate::game::seat_from_letter::<Kilkenny>(text.chars().next().unwrap_or(' '))
            .filter(|s| text.len() == 1 && seats.contains(s))
            .ok_or_else(|| NotationError::BadField {
                field: "side",
                text: text.to_string(),
                expected: "the letter of a seat in play",
            })
    }

    pub(super) fn roll(text: &str) -> Result<Option<u8>, NotationError> {
        const EXPECTED: &str = "a roll 1 to 6, or - when the roll is to come";
        if text == "-" {
            return Ok(None);
        }
        match number("roll", text, 6, EXPECTED)? {
            0 => Err(NotationError::BadField {
                field: "roll",
                text: text.to_string(),
                expected: EXPECTED,
            }),
            n => Ok(Some(n as u8)),
        }
    }

    pub(super) fn place_board(
        p: &mut Kilkenny,
        rows: &[Vec<Option<char>>],
    ) -> Result<(), NotationError> {
        let seats = p.seats;
        for (i, row) in rows.iter().enumerate() {
            let rank = 15 - i;
            for (j, cell) in row.iter().enumerate() {
                if let Some(letter) = cell {
                    let seat = LETTERS
                        .iter()
                        .position(|c| c == letter)
                        .expect("parse_board checked the letters")
                        as Seat;
                    if !seats.contains(&seat) {
                        return Err(NotationError::Inconsistent(
                            "a cat of a seat that is not in play",
                        ));
                    }
                    p.place(square(j + 1, rank), seat);
                }
            }
        }
        Ok(())
    }

    pub(super) fn place_mice(p: &mut Kilkenny, text: &str) -> Result<(), NotationError> {
        let (seats, mice_text) = (p.seats, text);
        let mice: Vec<char> = mice_text.chars().collect();
        if mice.len() != 8 {
            return Err(NotationError::BadField {
                field: "mice",
                text: mice_text.to_string(),
                expected: "eight characters for h16 i16 h1 i1 p8 p9 a8 a9, each a cat letter or -",
            });
        }
        for (&c, &(s, owner)) in mice.iter().zip(&MICE) {
            if c == '-' {
                continue;
            }
            match LETTERS.iter().position(|&l| l == c) {
                Some(seat) if seat as Seat == owner && seats.contains(&owner) => p.place(s, owner),
                Some(_) => {
                    return Err(NotationError::Inconsistent(
                        "a mouse holds a cat of another seat (h16 i16 are South's, h1 i1 North's, p8 p9 West's, a8 a9 East's)",
                    ))
                }
                None => {
                    return Err(NotationError::BadField {
                        field: "mice",
                        text: mice_text.to_string(),
                        expected: "eight characters for h16 i16 h1 i1 p8 p9 a8 a9, each a cat letter or -",
                    })
                }
            }
        }
        Ok(())
    }

    /// At most eight cats a seat, and one seat at most on both its mice.
    pub(super) fn check_counts(p: &Kilkenny) -> Result<(), NotationError> {
        let seats = p.seats;
        for &seat in seats {
            let total = (p.free[seat as usize] + p.home[seat as usize]) as usize;
            if total > CATS as usize {
                return Err(NotationError::PieceCount {
                    piece: "cats of one seat",
                    found: total,
                    expected: "at most 8",
                });
            }
        }
        if seats.iter().filter(|&&s| p.home[s as usize] == 2).count() > 1 {
            return Err(NotationError::Inconsistent(
                "more than one seat has filled both mice",
            ));
        }
        Ok(())
    }
}
