//! Awithlaknannai Mosona, the Zuni serpent game (RULES.md section 2).
//!
//! 25 points on three rows of a 17x3 grid. Indices: the middle row a2..q2
//! is 0..8, the top row b3..p3 is 9..16, the bottom row b1..p1 is 17..24, so
//! a side is a 25-bit mask. The line tables of the four board/leap
//! combinations are built at compile time.
//!
//! Moves: a step `k2i2`; a leap chain lists the start, then each jumped
//! point and landing point (`b3c2e2f3h3`). Capturing is compulsory, a leaping
//! piece must go on leaping while it can, and every chain is its own move.

use std::fmt;

mod numbering;

use crate::bits::{nth_one_wide, ones as bits, ByteTables};
use crate::game::endgame::{Endgame, Slice, TableKey};
use crate::game::inputs::{InputSet, Inputs, MoveKeys};
use crate::game::observation::Man;
use crate::game::{Game, OptionSpec, Outcome, Ruleset, Seat};
use crate::notation::{
    parse_board, parse_points, resolve_points, write_row, FieldReader, MoveSyntaxError,
    NotationError, PointName,
};
use crate::rng::{zobrist_table, Rng};

pub const WHITE: Seat = 0;
pub const BLACK: Seat = 1;

const POINTS: usize = 25;
/// The learned evaluation's inputs (`men-2`): men by owner and point,
/// the clock, exposed men by owner and point, each side's safe steps.
const AW_EXPOSED_INPUTS: usize = 2 * POINTS + 1;
const AW_MOBILITY_INPUTS: usize = AW_EXPOSED_INPUTS + 2 * POINTS;
const AW_MOBILITY_BUCKETS: usize = 16;
const ALL: u32 = (1 << POINTS) - 1;
/// The most leaps a chain can have: one per enemy piece.
const MAX_LEAPS: usize = 12;
const MAX_PATH: usize = 1 + 2 * MAX_LEAPS;
/// Room for a path in a move: more than [`MAX_PATH`], so that a move is
/// 32 bytes, written and read as two whole vectors (a move copied in
/// pieces and read back whole stalls the processor at every ply).
const PATH_SLOTS: usize = 31;

const fn middle(i: usize) -> u8 {
    i as u8
}
const fn top(i: usize) -> u8 {
    9 + i as u8
}
const fn bottom(i: usize) -> u8 {
    17 + i as u8
}

/// The point a half turn of the board takes `p` to: the middle row
/// reversed, the top and bottom rows reversed and swapped.
const fn half_turn(p: u8) -> usize {
    if p < 9 {
        8 - p as usize
    } else {
        33 - p as usize
    }
}

/// (file index 0..16, rank 1..3) of a point.
const fn coordinates(p: usize) -> (usize, usize) {
    if p < 9 {
        (2 * p, 2)
    } else if p < 17 {
        (2 * (p - 9) + 1, 3)
    } else {
        (2 * (p - 17) + 1, 1)
    }
}

fn point_name(p: u8) -> PointName {
    let (file, rank) = coordinates(p as usize);
    PointName {
        file: (b'a' + file as u8) as char,
        rank: rank as u32,
    }
}

fn point_index(name: PointName) -> Option<u8> {
    (0..POINTS as u8).find(|&p| point_name(p) == name)
}

/// Line and leap tables of one board/leap combination.
#[derive(Debug, PartialEq, Eq)]
pub struct Geometry {
    neighbours: [u32; POINTS],
    /// `landings[a][b]`: where a leap from `a` over its neighbour `b` can
    /// land, so that enemy neighbours and empty landings are found by
    /// masking rather than by walking a list of leaps.
    landings: [[u32; POINTS]; POINTS],
    /// Every (from, to) pair of neighbours as a slot, in the order
    /// [`Game::generate`] lists steps (by from, then by to), with its step
    /// ready made (copied whole, it reaches `play` without the stall of a
    /// move assembled byte by byte); the slots starting on the points of a
    /// mask, and those ending on them. Steps are then
    /// `from(own) & to(empty)`.
    edge_steps: [AwMove; 128],
    edges_from: ByteTables<4>,
    edges_to: ByteTables<4>,
    lined: bool,
    straight: bool,
}

/// The straight lines of the board: the middle row, the diagonals through
/// the middle points, and (lined board) the two outer rows.
const fn lines(lined: bool) -> ([[u8; 9]; 24], [usize; 24], usize) {
    let mut lines = [[0u8; 9]; 24];
    let mut lengths = [0usize; 24];
    let mut n = 0;
    let mut i = 0;
    while i < 9 {
        lines[n][i] = middle(i);
        i += 1;
    }
    lengths[n] = 9;
    n += 1;
    if lined {
        let mut i = 0;
        while i < 8 {
            lines[n][i] = top(i);
            lines[n + 1][i] = bottom(i);
            i += 1;
        }
        lengths[n] = 8;
        lengths[n + 1] = 8;
        n += 2;
    }
    // Rising diagonals b1-c2-d3 ...: bottom(i), middle(i+1), top(i+1); the
    // ends a2-b3 and p1-q2 are two-point lines. Falling ones mirror them.
    lines[n] = [middle(0), top(0), 0, 0, 0, 0, 0, 0, 0];
    lengths[n] = 2;
    lines[n + 1] = [middle(0), bottom(0), 0, 0, 0, 0, 0, 0, 0];
    lengths[n + 1] = 2;
    n += 2;
    let mut i = 0;
    while i < 8 {
        if i < 7 {
            lines[n] = [bottom(i), middle(i + 1), top(i + 1), 0, 0, 0, 0, 0, 0];
            lines[n + 1] = [top(i), middle(i + 1), bottom(i + 1), 0, 0, 0, 0, 0, 0];
            lengths[n] = 3;
            lengths[n + 1] = 3;
        } else {
            lines[n] = [bottom(i), middle(i + 1), 0, 0, 0, 0, 0, 0, 0];
            lines[n + 1] = [top(i), middle(i + 1), 0, 0, 0, 0, 0, 0, 0];
            lengths[n] = 2;
            lengths[n + 1] = 2;
        }
        n += 2;
        i += 1;
    }
    (lines, lengths, n)
}

const fn on_one_line(lined: bool, a: u8, b: u8, c: u8) -> bool {
    let (lines, lengths, n) = lines(lined);
    let mut l = 0;
    while l < n {
        let mut i = 0;
        while i + 2 < lengths[l] {
            let (x, y, z) = (lines[l][i], lines[l][i + 1], lines[l][i + 2]);
            if y == b && ((x == a && z == c) || (x == c && z == a)) {
                return true;
            }
            i += 1;
        }
        l += 1;
    }
    false
}

const fn geometry(lined: bool, straight: bool) -> Geometry {
    let (lines, lengths, n) = lines(lined);
    let mut g = Geometry {
        neighbours: [0; POINTS],
        landings: [[0; POINTS]; POINTS],
        edge_steps: [AwMove::step(0, 0); 128],
        edges_from: ByteTables::EMPTY,
        edges_to: ByteTables::EMPTY,
        lined,
        straight,
    };
    let mut l = 0;
    while l < n {
        let mut i = 0;
        while i + 1 < lengths[l] {
            let (a, b) = (lines[l][i] as usize, lines[l][i + 1] as usize);
            g.neighbours[a] |= 1 << b;
            g.neighbours[b] |= 1 << a;
            i += 1;
        }
        l += 1;
    }
    // A leap: A over a neighbour B to a neighbour C of B that is neither A
    // nor a neighbour of A (and, for straight leaps, in line with A and B).
    let mut a = 0;
    while a < POINTS {
        let mut b = 0;
        while b < POINTS {
            if g.neighbours[a] & (1 << b) != 0 {
                let mut c = 0;
                while c < POINTS {
                    let lands = g.neighbours[b] & (1 << c) != 0
                        && c != a
                        && g.neighbours[a] & (1 << c) == 0;
                    if lands && (!straight || on_one_line(lined, a as u8, b as u8, c as u8)) {
                        g.landings[a][b] |= 1 << c;
                    }
                    c += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    let (mut from_point, mut to_point) = ([0u128; POINTS], [0u128; POINTS]);
    let mut slot = 0;
    let mut a = 0;
    while a < POINTS {
        let mut b = 0;
        while b < POINTS {
            if g.neighbours[a] & (1 << b) != 0 {
                assert!(slot < 128, "more neighbour pairs than slots");
                g.edge_steps[slot] = AwMove::step(a as u8, b as u8);
                from_point[a] |= 1 << slot;
                to_point[b] |= 1 << slot;
                slot += 1;
            }
            b += 1;
        }
        a += 1;
    }
    g.edges_from = ByteTables::new(&from_point, 0);
    g.edges_to = ByteTables::new(&to_point, 0);
    g
}

static LINED_BENT: Geometry = geometry(true, false);
static LINED_STRAIGHT: Geometry = geometry(true, true);
static PLAIN_BENT: Geometry = geometry(false, false);
static PLAIN_STRAIGHT: Geometry = geometry(false, true);

const KEY_WHITE: usize = 0;
const KEY_BLACK: usize = POINTS;
const KEY_SIDE: usize = 2 * POINTS;
const KEYS: [u64; 2 * POINTS + 1] = zobrist_table(0x4157_4954);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AwRules {
    pub lined: bool,
    pub straight: bool,
    /// `ending=count`: the 50-ply ending goes to the side with more pieces.
    pub count: bool,
}

/// A step (two points) or a leap chain (start, then jumped and landing
/// points in turn). Unused slots stay zero so that equality is by path.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct AwMove {
    len: u8,
    path: [u8; PATH_SLOTS],
}

impl AwMove {
    const fn step(from: u8, to: u8) -> AwMove {
        let mut path = [0; PATH_SLOTS];
        path[0] = from;
        path[1] = to;
        AwMove { len: 2, path }
    }

    pub fn points(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }

    pub fn is_leap(&self) -> bool {
        self.len >= 3
    }

    /// Pieces this move captures.
    pub fn captures(&self) -> usize {
        (self.len as usize - 1) / 2 * usize::from(self.is_leap())
    }

    fn from(&self) -> u8 {
        self.path[0]
    }

    fn to(&self) -> u8 {
        self.path[self.len as usize - 1]
    }

    fn jumped(&self) -> u32 {
        if !self.is_leap() {
            return 0;
        }
        self.points()[1..]
            .iter()
            .step_by(2)
            .fold(0, |m, &p| m | 1 << p)
    }
}

impl fmt::Display for AwMove {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for &p in self.points() {
            write!(f, "{}", point_name(p))?;
        }
        Ok(())
    }
}

impl fmt::Debug for AwMove {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct AwUndo {
    clock: u32,
    hash: u64,
}

/// A position of Awithlaknannai Mosona.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Awithlaknannai {
    geometry: &'static Geometry,
    count_ending: bool,
    pieces: [u32; 2],
    side: Seat,
    clock: u32,
    hash: u64,
}

impl Awithlaknannai {
    fn empty(&self) -> u32 {
        ALL & !(self.pieces[0] | self.pieces[1])
    }

    pub fn pieces(&self, seat: Seat) -> u32 {
        self.pieces[seat as usize]
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for p in bits(self.pieces[0]) {
            h ^= KEYS[KEY_WHITE + p as usize];
        }
        for p in bits(self.pieces[1]) {
            h ^= KEYS[KEY_BLACK + p as usize];
        }
        if self.side == BLACK {
            h ^= KEYS[KEY_SIDE];
        }
        h
    }

    /// Whether the piece on `from` has a leap with this occupancy.
    fn can_leap(&self, from: u8, enemy: u32, empty: u32) -> bool {
        let landings = &self.geometry.landings[from as usize];
        bits(self.geometry.neighbours[from as usize] & enemy)
            .any(|b| landings[b as usize] & empty != 0)
    }

    /// The pieces of the side to move that can leap: capturing is
    /// compulsory, so the side steps only when there are none.
    fn leapers(&self, own: u32, enemy: u32, empty: u32) -> u32 {
        bits(own).fold(0, |leapers, p| {
            leapers | u32::from(self.can_leap(p, enemy, empty)) << p
        })
    }

    /// The steps of the side to move, as slots of `Geometry::edges`.
    fn steps(&self, own: u32, empty: u32) -> u128 {
        self.geometry.edges_from.of(own) & self.geometry.edges_to.of(empty)
    }

    /// How many chains continue from a piece on `at` with this occupancy
    /// (0: none, the chain that reached `at` ends there). Counted without
    /// listing them, in the order of [`Self::extend_chains`].
    fn count_chains(&self, at: u8, enemy: u32, empty: u32) -> u32 {
        let g = self.geometry;
        let mut chains = 0;
        for b in bits(g.neighbours[at as usize] & enemy) {
            for c in bits(g.landings[at as usize][b as usize] & empty) {
                let (enemy, empty) = (enemy & !(1 << b), (empty | 1 << at | 1 << b) & !(1 << c));
                // Most chains end at their first landing: no call for them.
                chains += if g.neighbours[c as usize] & enemy == 0 {
                    1
                } else {
                    self.count_chains(c, enemy, empty).max(1)
                };
            }
        }
        chains
    }

    /// Whether the side to move has any leap.
    pub fn must_capture(&self) -> bool {
        let (own, enemy) = self.own_and_enemy();
        let empty = self.empty();
        bits(own).any(|p| self.can_leap(p, enemy, empty))
    }

    fn own_and_enemy(&self) -> (u32, u32) {
        (
            self.pieces[self.side as usize],
            self.pieces[1 - self.side as usize],
        )
    }

    /// Appends every chain that continues the path `path[..len]`, whose
    /// piece stands on `at` with the given occupancy.
    fn extend_chains(
        &self,
        at: u8,
        enemy: u32,
        empty: u32,
        path: &mut [u8; PATH_SLOTS],
        len: usize,
        out: &mut Vec<AwMove>,
    ) {
        let g = self.geometry;
        let mut continued = false;
        // Over each enemy neighbour, lowest first, to each empty landing,
        // lowest first: the order of the leap table.
        for b in bits(g.neighbours[at as usize] & enemy) {
            for c in bits(g.landings[at as usize][b as usize] & empty) {
                continued = true;
                path[len] = b;
                path[len + 1] = c;
                // The jumped piece goes at once and the start is left empty.
                let empty = (empty | 1 << at | 1 << b) & !(1 << c);
                self.extend_chains(c, enemy & !(1 << b), empty, path, len + 2, out);
            }
        }
        if !continued && len > 1 {
            // The whole array, then the tail masked off: fixed-length work
            // the compiler keeps in vector registers (a copy of `len` bytes
            // is a call, and reading its bytes back as one vector stalls).
            let mut points = *path;
            for (i, point) in points.iter_mut().enumerate() {
                *point &= u8::from(i < len).wrapping_neg();
            }
            out.push(AwMove {
                len: len as u8,
                path: points,
            });
        }
    }

    fn outcome_of_count(&self) -> Outcome {
        let (w, b) = (self.pieces[0].count_ones(), self.pieces[1].count_ones());
        match w.cmp(&b) {
            std::cmp::Ordering::Greater => Outcome::Win(WHITE),
            std::cmp::Ordering::Less => Outcome::Win(BLACK),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// Moves of the side to move that are currently safe from capture:
    /// used by the evaluation.
    fn mobility(&self, seat: Seat) -> i32 {
        let own = self.pieces[seat as usize];
        let empty = self.empty();
        bits(own)
            .map(|p| (self.geometry.neighbours[p as usize] & empty).count_ones() as i32)
            .sum()
    }

    /// Pieces of `seat` that the other side could leap over right now.
    fn exposed(&self, seat: Seat) -> u32 {
        let own = self.pieces[seat as usize];
        let enemy = self.pieces[1 - seat as usize];
        let empty = self.empty();
        let g = self.geometry;
        let mut exposed = 0;
        for a in bits(enemy) {
            for b in bits(g.neighbours[a as usize] & own) {
                if g.landings[a as usize][b as usize] & empty != 0 {
                    exposed |= 1 << b;
                }
            }
        }
        exposed
    }
}

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        key: "board",
        values: &["lined", "plain"],
    },
    OptionSpec {
        key: "leap",
        values: &["bent", "straight"],
    },
    OptionSpec {
        key: "ending",
        values: &["draw", "count"],
    },
];

fn geometry_for(rules: &AwRules) -> &'static Geometry {
    match (rules.lined, rules.straight) {
        (true, false) => &LINED_BENT,
        (true, true) => &LINED_STRAIGHT,
        (false, false) => &PLAIN_BENT,
        (false, true) => &PLAIN_STRAIGHT,
    }
}

const ROWS: [(usize, std::ops::Range<usize>); 3] = [(3, 9..17), (2, 0..9), (1, 17..25)];

impl Game for Awithlaknannai {
    type Move = AwMove;
    type Undo = AwUndo;
    type Rules = AwRules;

    const ID: &'static str = "awithlaknannai-mosona";
    const NAME: &'static str = "Awithlaknannai Mosona";
    const SEAT_NAMES: &'static [&'static str] = &["White", "Black"];
    const MOVE_SYNTAX: &'static str = "step <from><to>; leap chain <from><over><to>[<over><to>...]";
    const END_REASONS: &'static [(&'static str, &'static str)] = &[
        ("all-captured", "every piece of one side has been captured"),
        ("no-move", "the side to move has no legal move"),
    ];
    const ALIASES: &'static [&'static str] = &["awithlaknannai", "serpent", "am"];
    const OPTIONS: &'static [OptionSpec] = OPTIONS;
    const SEAT_LETTERS: &'static [char] = &['w', 'b'];
    const HAS_CHANCE: bool = false;
    const NO_PROGRESS_LIMIT: u32 = 50;

    fn rules(ruleset: &Ruleset) -> AwRules {
        AwRules {
            lined: ruleset.value("board") == "lined",
            straight: ruleset.value("leap") == "straight",
            count: ruleset.value("ending") == "count",
        }
    }

    fn start(rules: &AwRules) -> Awithlaknannai {
        let white = (0..8).fold(0u32, |m, i| m | 1 << bottom(i))
            | (5..9).fold(0, |m, i| m | 1 << middle(i));
        let black =
            (0..8).fold(0u32, |m, i| m | 1 << top(i)) | (0..4).fold(0, |m, i| m | 1 << middle(i));
        let mut p = Awithlaknannai {
            geometry: geometry_for(rules),
            count_ending: rules.count,
            pieces: [white, black],
            side: WHITE,
            clock: 0,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    fn from_notation(rules: &AwRules, text: &str) -> Result<Awithlaknannai, NotationError> {
        let mut fields = FieldReader::new(text)?;
        let rows = parse_board(fields.next("board")?, &[8, 9, 8], "WB")?;
        let side = match fields.next("side")? {
            s if s.eq_ignore_ascii_case("w") => WHITE,
            s if s.eq_ignore_ascii_case("b") => BLACK,
            s => {
                return Err(NotationError::BadField {
                    field: "side",
                    text: s.to_string(),
                    expected: "w or b",
                })
            }
        };
        let clock = fields.clock()?;
        fields.finish()?;
        let mut pieces = [0u32; 2];
        for ((_, points), row) in ROWS.iter().zip(&rows) {
            for (p, cell) in points.clone().zip(row) {
                match cell {
                    Some('W') => pieces[0] |= 1 << p,
                    Some('B') => pieces[1] |= 1 << p,
                    _ => {}
                }
            }
        }
        for (seat, piece) in [(0, "white pieces"), (1, "black pieces")] {
            let n = pieces[seat].count_ones() as usize;
            if n > 12 {
                return Err(NotationError::PieceCount {
                    piece,
                    found: n,
                    expected: "at most 12",
                });
            }
        }
        let mut p = Awithlaknannai {
            geometry: geometry_for(rules),
            count_ending: rules.count,
            pieces,
            side,
            clock,
            hash: 0,
        };
        p.hash = p.compute_hash();
        Ok(p)
    }

    fn parse_move(text: &str) -> Result<AwMove, MoveSyntaxError> {
        let (drop, points) =
            parse_points(text).ok_or_else(|| MoveSyntaxError::Unreadable(text.to_string()))?;
        if drop {
            return Err(MoveSyntaxError::Unreadable(text.to_string()));
        }
        let points = resolve_points(text, &points, point_index)?;
        let n = points.len();
        if !(2..=MAX_PATH).contains(&n) || (n > 2 && n % 2 == 0) {
            return Err(MoveSyntaxError::PointCount {
                mv: text.to_string(),
                found: n,
            });
        }
        let mut path = [0; PATH_SLOTS];
        path[..n].copy_from_slice(&points);
        Ok(AwMove { len: n as u8, path })
    }

    fn seats(&self) -> &[Seat] {
        &[WHITE, BLACK]
    }

    fn side(&self) -> Seat {
        self.side
    }

    fn generate(&self, moves: &mut Vec<AwMove>) {
        let (own, enemy) = self.own_and_enemy();
        if enemy == 0 || own == 0 {
            return;
        }
        let empty = self.empty();
        let leapers = self.leapers(own, enemy, empty);
        let mut path = [0u8; PATH_SLOTS];
        for p in bits(leapers) {
            path[0] = p;
            self.extend_chains(p, enemy, empty, &mut path, 1, moves);
        }
        if leapers != 0 {
            return;
        }
        for p in bits(own) {
            for q in bits(self.geometry.neighbours[p as usize] & empty) {
                moves.push(AwMove::step(p, q));
            }
        }
    }

    fn count_moves(&self, _: &mut Vec<AwMove>) -> usize {
        let (own, enemy) = self.own_and_enemy();
        if enemy == 0 || own == 0 {
            return 0;
        }
        let empty = self.empty();
        match self.leapers(own, enemy, empty) {
            0 => self.steps(own, empty).count_ones() as usize,
            leapers => bits(leapers)
                .map(|p| self.count_chains(p, enemy, empty) as usize)
                .sum(),
        }
    }

    fn random_move(&self, rng: &mut Rng, scratch: &mut Vec<AwMove>) -> Option<AwMove> {
        let (own, enemy) = self.own_and_enemy();
        if enemy == 0 || own == 0 {
            return None;
        }
        let empty = self.empty();
        let leapers = self.leapers(own, enemy, empty);
        if leapers == 0 {
            let steps = self.steps(own, empty);
            let n = steps.count_ones();
            if n == 0 {
                return None;
            }
            let slot = nth_one_wide(steps, rng.below(n.into()) as usize);
            return Some(self.geometry.edge_steps[slot as usize]);
        }
        // Chains are few (one or two in most positions): listing them
        // once costs less than counting them and walking to the chosen one.
        scratch.clear();
        let mut path = [0u8; PATH_SLOTS];
        for p in bits(leapers) {
            path[0] = p;
            self.extend_chains(p, enemy, empty, &mut path, 1, scratch);
        }
        Some(scratch[rng.below(scratch.len() as u64) as usize])
    }

    fn play(&mut self, mv: AwMove) -> AwUndo {
        let undo = AwUndo {
            clock: self.clock,
            hash: self.hash,
        };
        let me = self.side as usize;
        let (from, to) = (mv.from(), mv.to());
        let base = if me == 0 { KEY_WHITE } else { KEY_BLACK };
        self.pieces[me] &= !(1 << from);
        self.pieces[me] |= 1 << to;
        self.hash ^= KEYS[base + from as usize] ^ KEYS[base + to as usize];
        let jumped = mv.jumped();
        if jumped != 0 {
            let enemy_base = if me == 0 { KEY_BLACK } else { KEY_WHITE };
            self.pieces[1 - me] &= !jumped;
            for p in bits(jumped) {
                self.hash ^= KEYS[enemy_base + p as usize];
            }
            self.clock = 0;
        } else {
            self.clock += 1;
        }
        self.side ^= 1;
        self.hash ^= KEYS[KEY_SIDE];
        undo
    }

    fn undo(&mut self, mv: AwMove, undo: AwUndo) {
        self.side ^= 1;
        let me = self.side as usize;
        self.pieces[me] &= !(1 << mv.to());
        self.pieces[me] |= 1 << mv.from();
        self.pieces[1 - me] |= mv.jumped();
        self.clock = undo.clock;
        self.hash = undo.hash;
    }

    fn outcome(&self) -> Option<Outcome> {
        let (own, enemy) = self.own_and_enemy();
        let opponent = 1 - self.side;
        if own == 0 {
            // The opponent's last move took the last piece.
            return Some(Outcome::Win(opponent));
        }
        if enemy == 0 {
            return Some(Outcome::Win(self.side));
        }
        let empty = self.empty();
        let can_move = bits(own).any(|p| {
            self.geometry.neighbours[p as usize] & empty != 0 || self.can_leap(p, enemy, empty)
        });
        if can_move {
            None
        } else {
            Some(Outcome::Win(opponent))
        }
    }

    fn end_reason(&self) -> &'static str {
        let (own, enemy) = self.own_and_enemy();
        if own == 0 || enemy == 0 {
            "all-captured"
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

    fn no_progress_outcome(&self) -> Outcome {
        if self.count_ending {
            self.outcome_of_count()
        } else {
            Outcome::Draw
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn endgame() -> Option<Endgame<Awithlaknannai>> {
        Some(numbering::endgame())
    }

    fn table_key(&self) -> Option<TableKey> {
        self.key()
    }

    fn table_slice(&self) -> Option<Slice> {
        let (own, enemy) = self.own_and_enemy();
        (own != 0 && enemy != 0)
            .then(|| Slice::new(own.count_ones() as u8, enemy.count_ones() as u8))
    }

    const MOVE_KEYS: usize = 2 * 32 * 32;

    // Leap chains between the same two points by different routes share
    // a key (more than 64 of them in one position, met by an MCTS
    // rollout), so a chain is numbered leap by leap, as OpenSpiel's
    // checkers numbers its multiple jumps: a step by its two points, a
    // leap by its three. A chain ends only where no leap goes on, so none
    // is the start of another.
    const ACTIONS: usize = 32 * 32 + 32 * 32 * 32;

    fn move_actions(mv: AwMove, out: &mut Vec<usize>) {
        if !mv.is_leap() {
            // A step's key is below 32 * 32: its two points.
            out.push(Self::move_key(mv));
            return;
        }
        for leap in mv.points().windows(3).step_by(2) {
            let [from, over, to] = [leap[0], leap[1], leap[2]].map(usize::from);
            out.push(32 * 32 + (from * 32 + over) * 32 + to);
        }
    }

    fn action_text(action: usize) -> Option<String> {
        let leap = action.checked_sub(32 * 32)?;
        let points = [leap / (32 * 32), leap / 32 % 32, leap % 32];
        points
            .iter()
            .all(|&p| p < POINTS)
            .then(|| points.map(|p| point_name(p as u8).to_string()).concat())
    }

    fn move_key(mv: AwMove) -> usize {
        // Steps and leaps between the same points learn separately.
        (usize::from(mv.is_leap()) * 32 + mv.from() as usize) * 32 + mv.to() as usize
    }

    fn is_capture(&self, mv: AwMove) -> bool {
        mv.is_leap()
    }

    const PIECE_KINDS: &'static [&'static str] = &["man"];

    fn points(&self) -> usize {
        POINTS
    }

    fn point_name(&self, point: usize) -> String {
        point_name(point as u8).to_string()
    }

    fn men(&self, out: &mut Vec<Man>) {
        for owner in [WHITE, BLACK] {
            for p in bits(self.pieces[owner as usize]) {
                out.push(Man {
                    point: p as usize,
                    owner,
                    kind: 0,
                });
            }
        }
    }

    /// Black sees the board turned half round, as the network inputs do.
    fn seen_from(&self, point: usize, seat: Seat) -> usize {
        if seat == BLACK {
            half_turn(point as u8)
        } else {
            point
        }
    }

    /// Each man by owner (mover or other) and point, the board turned
    /// half round when Black moves, so that the mover always starts from
    /// the bottom row (the board and the start are symmetric under that
    /// turn); one input for the no-progress clock past half its limit;
    /// then what the hand-written evaluation weighs, which men alone show
    /// a small network only through many examples: each man the other
    /// side could leap over now, by owner and point, and each side's safe
    /// steps in buckets of two.
    const INPUT_SET: Option<InputSet> = Some(InputSet {
        name: "awithlaknannai-mosona/men-2",
        inputs: AW_MOBILITY_INPUTS + 2 * AW_MOBILITY_BUCKETS,
        heads: 1,
        covers: &[],
        // A move's first point and its last, turned as the inputs are.
        moves: 2 * POINTS,
    });

    fn policy_keys(&self, mv: AwMove) -> MoveKeys {
        let place = |p: u8| {
            if self.side == BLACK {
                half_turn(p) as u16
            } else {
                u16::from(p)
            }
        };
        [place(mv.from()), POINTS as u16 + place(mv.to())]
    }

    fn inputs(&self, out: &mut Inputs) {
        out.clear();
        let turned = self.side == BLACK;
        let place = |p: u8| if turned { half_turn(p) } else { p as usize };
        for (own, seat) in [self.side, 1 - self.side].into_iter().enumerate() {
            for p in bits(self.pieces[seat as usize]) {
                out.push(own * POINTS + place(p));
            }
            for p in bits(self.exposed(seat)) {
                out.push(AW_EXPOSED_INPUTS + own * POINTS + place(p));
            }
            let steps = self.mobility(seat) as usize / 2;
            out.push(
                AW_MOBILITY_INPUTS + own * AW_MOBILITY_BUCKETS + steps.min(AW_MOBILITY_BUCKETS - 1),
            );
        }
        if self.clock >= Self::NO_PROGRESS_LIMIT / 2 {
            out.push(2 * POINTS);
        }
        out.finish();
    }

    fn evaluate(&self) -> i32 {
        use crate::tune::{AW_EXPOSED, AW_MATERIAL, AW_MOBILITY, AW_TARGET};
        let me = self.side;
        let them = 1 - me;
        let count = |seat: Seat| self.pieces[seat as usize].count_ones() as i32;
        let material = AW_MATERIAL.get() * (count(me) - count(them));
        let mobility = AW_MOBILITY.get() * (self.mobility(me) - self.mobility(them));
        // The side to move may take an exposed enemy piece now; its own
        // exposed pieces are only threatened.
        let safety = AW_TARGET.get() * self.exposed(them).count_ones().min(1) as i32
            - AW_EXPOSED.get() * self.exposed(me).count_ones() as i32;
        material + mobility + safety
    }

    fn draw(&self) -> String {
        let cell = |p: usize| -> char {
            if self.pieces[0] & (1 << p) != 0 {
                'W'
            } else if self.pieces[1] & (1 << p) != 0 {
                'B'
            } else {
                '.'
            }
        };
        let width = 33;
        let mut out = String::new();
        for (rank, points) in ROWS {
            let mut line = vec![' '; width];
            for p in points.clone() {
                line[2 * coordinates(p).0] = cell(p);
            }
            let row_is_line = rank == 2 || self.geometry.lined;
            if row_is_line {
                let first = 2 * coordinates(points.start).0;
                let last = 2 * coordinates(points.end - 1).0;
                for c in line.iter_mut().take(last).skip(first + 1) {
                    if *c == ' ' {
                        *c = '-';
                    }
                }
            }
            out.push_str(&format!(
                "{rank}  {}\n",
                line.iter().collect::<String>().trim_end()
            ));
            if rank > 1 {
                let mut link = vec![' '; width];
                let outer = if rank == 3 { 9..17 } else { 17..25 };
                for p in outer {
                    let c = 2 * coordinates(p).0;
                    let (left, right) = if rank == 3 { ('/', '\\') } else { ('\\', '/') };
                    link[c - 1] = left;
                    link[c + 1] = right;
                }
                out.push_str(&format!(
                    "   {}\n",
                    link.iter().collect::<String>().trim_end()
                ));
            }
        }
        out.push_str("   a b c d e f g h i j k l m n o p q\n");
        out.push_str(&format!(
            "White: {}  Black: {}  Clock: {}{}\n",
            self.pieces[0].count_ones(),
            self.pieces[1].count_ones(),
            self.clock,
            if self.must_capture() {
                "  (capture is compulsory)"
            } else {
                ""
            }
        ));
        out
    }
}

impl fmt::Display for Awithlaknannai {
    /// `<top row>/<middle row>/<bottom row> <side> <clock>`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, (_, points)) in ROWS.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write_row(
                f,
                points.clone().map(|p| {
                    if self.pieces[0] & (1 << p) != 0 {
                        Some('W')
                    } else if self.pieces[1] & (1 << p) != 0 {
                        Some('B')
                    } else {
                        None
                    }
                }),
            )?;
        }
        write!(
            f,
            " {} {}",
            Self::SEAT_LETTERS[self.side as usize],
            self.clock
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_the_rules() {
        let g = &LINED_BENT;
        let n =
            |name: &str| point_index(crate::notation::parse_points(name).unwrap().1[0]).unwrap();
        // i2: the middle row and both diagonals cross there.
        let i2 = n("i2") as usize;
        let expected = ["g2", "k2", "h3", "j3", "h1", "j1"]
            .iter()
            .fold(0u32, |m, p| m | 1 << n(p));
        assert_eq!(g.neighbours[i2], expected);
        // b3 on the lined board: a2, c2 and d3.
        let b3 = n("b3") as usize;
        assert_eq!(g.neighbours[b3].count_ones(), 3);
        assert_eq!(PLAIN_BENT.neighbours[b3].count_ones(), 2);
        // Straight triples through c2: b3-c2-d1 and d3-c2-b1.
        assert!(on_one_line(true, n("b3"), n("c2"), n("d1")));
        assert!(on_one_line(true, n("d3"), n("c2"), n("b1")));
        assert!(!on_one_line(true, n("b3"), n("c2"), n("e2")));
    }
}
