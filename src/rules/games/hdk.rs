//! Hat Diviyan Keliya: one tiger against seven leopards (RULES.md section 1).
//!
//! Board: a triangle of ten points (`board=small`) or fifteen (`board=large`)
//! with the height line and the cross lines. Points are numbered b1 = 0, then
//! row by row a, b, c: a2 = 1, b2 = 2, c2 = 3, a3 = 4, ... c5 = 12, so a
//! position is two 16-bit masks plus the hands.
//!
//! Moves: `@b2` drops, `a2a3` steps, `b1b2b3` jumps (from, jumped, landing).
//! Tigers win at the 4th capture (3rd on the large board, with two tigers);
//! leopards win when the tiger player cannot move; leopards who cannot move
//! lose. Progress (for the 100-ply clock) is a capture or a drop.

use std::fmt;

use crate::bits::{nth_one, nth_one_wide, ones_wide, ByteTables};
use crate::game::observation::Man;
use crate::game::{play_random_move, Game, OptionSpec, Outcome, Ruleset, Seat};
use crate::notation::{
    parse_board, parse_points, resolve_points, write_row, FieldReader, MoveSyntaxError,
    NotationError, PointName,
};
use crate::rng::{zobrist_table, Rng};

pub const TIGER: Seat = 0;
pub const LEOPARD: Seat = 1;

const POINT_NAMES: [&str; 13] = [
    "b1", "a2", "b2", "c2", "a3", "b3", "c3", "a4", "b4", "c4", "a5", "b5", "c5",
];

/// The lines of the large board, each in order from the apex or from the
/// left; the small board uses the part of each line below index 10.
const LINES: [[u8; 5]; 7] = [
    [0, 1, 4, 7, 10],
    [0, 2, 5, 8, 11],
    [0, 3, 6, 9, 12],
    [1, 2, 3, NONE, NONE],
    [4, 5, 6, NONE, NONE],
    [7, 8, 9, NONE, NONE],
    [10, 11, 12, NONE, NONE],
];
const NONE: u8 = u8::MAX;

/// Adjacency and jump tables of one board size.
#[derive(Debug, PartialEq, Eq)]
pub struct Geometry {
    rows: u8,
    points: u8,
    neighbours: [u16; 13],
    /// (jumped point, landing point) for each jump from a point.
    jumps: [[(u8, u8); 4]; 13],
    jump_counts: [u8; 13],
    tigers: u8,
    leopards: u8,
    /// Captures that win the game for the tigers.
    winning_captures: u8,
    /// Whether every slot fits in the low 64 bits (48 on the small board,
    /// 66 on the large): picking a slot is then one 64-bit selection.
    narrow: bool,
    /// Every step and jump of the board, numbered in the order
    /// [`Game::generate`] lists moves: by starting point, each point's steps
    /// by landing point, then its jumps in the order of `jumps`.
    slot_moves: [HdkMove; 128],
    /// What each slot's move changes: the mover's start and landing
    /// points, and the leopard it jumps (none for a step).
    slot_changes: [(u16, u16); 128],
    /// The hash change of each slot's move by each side (the side key
    /// included), so that a random playout plays a slot without decoding
    /// a move.
    slot_hashes: [[u64; 128]; 2],
    /// The slots whose move starts on a point of a mask, steps only and
    /// steps with jumps; the slots whose landing point is in a mask; the
    /// slots that need no leopard or jump a leopard of a mask. Each is two
    /// tables, the low eight points and the rest, whose entries are ORed:
    /// the moves of a position are then four lookups ANDed (see
    /// [`Hdk::slots`]).
    step_from: Split,
    move_from: Split,
    landing: Split,
    jumped: Split,
}

type Split = ByteTables<2>;

const fn geometry(rows: u8) -> Geometry {
    let points = 1 + 3 * (rows - 1);
    let mut g = Geometry {
        rows,
        points,
        neighbours: [0; 13],
        jumps: [[(0, 0); 4]; 13],
        jump_counts: [0; 13],
        tigers: if rows == 4 { 1 } else { 2 },
        leopards: if rows == 4 { 7 } else { 8 },
        winning_captures: if rows == 4 { 4 } else { 3 },
        narrow: false,
        slot_moves: [HdkMove::Drop(0); 128],
        slot_changes: [(0, 0); 128],
        slot_hashes: [[0; 128]; 2],
        step_from: Split::EMPTY,
        move_from: Split::EMPTY,
        landing: Split::EMPTY,
        jumped: Split::EMPTY,
    };
    let mut l = 0;
    while l < LINES.len() {
        let line = LINES[l];
        let mut len = 0;
        while len < 5 && line[len] != NONE && line[len] < points {
            len += 1;
        }
        let mut i = 0;
        while i + 1 < len {
            let (a, b) = (line[i] as usize, line[i + 1] as usize);
            g.neighbours[a] |= 1 << b;
            g.neighbours[b] |= 1 << a;
            if i + 2 < len {
                let c = line[i + 2] as usize;
                g.jumps[a][g.jump_counts[a] as usize] = (b as u8, c as u8);
                g.jump_counts[a] += 1;
                g.jumps[c][g.jump_counts[c] as usize] = (b as u8, a as u8);
                g.jump_counts[c] += 1;
            }
            i += 1;
        }
        l += 1;
    }
    number_slots(&mut g);
    g
}

/// Numbers the steps and jumps of a geometry (see `Geometry::slot_moves`)
/// and builds the lookup tables from them.
const fn number_slots(g: &mut Geometry) {
    let (mut step_from, mut move_from) = ([0u128; 13], [0u128; 13]);
    let (mut landing, mut jumped) = ([0u128; 13], [0u128; 13]);
    let mut steps = 0u128;
    let mut slot = 0;
    let mut from = 0;
    while from < g.points as usize {
        let mut to = 0;
        while to < g.points as usize {
            if g.neighbours[from] & (1 << to) != 0 {
                g.slot_moves[slot] = HdkMove::Step(from as u8, to as u8);
                g.slot_changes[slot] = ((1 << from) | (1 << to), 0);
                g.slot_hashes[TIGER as usize][slot] =
                    KEYS[KEY_TIGER + from] ^ KEYS[KEY_TIGER + to] ^ KEYS[KEY_SIDE];
                g.slot_hashes[LEOPARD as usize][slot] =
                    KEYS[KEY_LEOPARD + from] ^ KEYS[KEY_LEOPARD + to] ^ KEYS[KEY_SIDE];
                step_from[from] |= 1 << slot;
                move_from[from] |= 1 << slot;
                landing[to] |= 1 << slot;
                steps |= 1 << slot;
                slot += 1;
            }
            to += 1;
        }
        let mut j = 0;
        while j < g.jump_counts[from] as usize {
            let (over, land) = g.jumps[from][j];
            g.slot_moves[slot] = HdkMove::Jump(from as u8, over, land);
            g.slot_changes[slot] = ((1 << from) | (1 << land), 1 << over);
            // Only the tiger jumps.
            g.slot_hashes[TIGER as usize][slot] = KEYS[KEY_TIGER + from]
                ^ KEYS[KEY_TIGER + land as usize]
                ^ KEYS[KEY_LEOPARD + over as usize]
                ^ KEYS[KEY_SIDE];
            move_from[from] |= 1 << slot;
            landing[land as usize] |= 1 << slot;
            jumped[over as usize] |= 1 << slot;
            slot += 1;
            j += 1;
        }
        from += 1;
    }
    g.step_from = Split::new(&step_from, 0);
    g.move_from = Split::new(&move_from, 0);
    g.landing = Split::new(&landing, 0);
    g.jumped = Split::new(&jumped, steps);
    g.narrow = slot <= 64;
}

static SMALL: Geometry = geometry(4);
static LARGE: Geometry = geometry(5);

const KEY_TIGER: usize = 0;
const KEY_LEOPARD: usize = 13;
const KEY_SIDE: usize = 26;
const KEY_TIGER_HAND: usize = 27;
const KEY_LEOPARD_HAND: usize = 30;
const KEYS: [u64; 39] = zobrist_table(0x4844_4b00);

/// The chosen options: board size and start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HdkRules {
    pub large: bool,
    pub apex: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HdkMove {
    Drop(u8),
    Step(u8, u8),
    Jump(u8, u8, u8),
}

impl fmt::Display for HdkMove {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let name = |p: &u8| POINT_NAMES[*p as usize];
        match self {
            HdkMove::Drop(p) => write!(f, "@{}", name(p)),
            HdkMove::Step(a, b) => write!(f, "{}{}", name(a), name(b)),
            HdkMove::Jump(a, b, c) => write!(f, "{}{}{}", name(a), name(b), name(c)),
        }
    }
}

fn point_index(p: PointName) -> Option<u8> {
    let name = p.to_string();
    POINT_NAMES.iter().position(|n| *n == name).map(|i| i as u8)
}

#[derive(Clone, Copy, Debug)]
pub struct HdkUndo {
    clock: u32,
    hash: u64,
}

/// A position of Hat Diviyan Keliya.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hdk {
    geometry: &'static Geometry,
    tigers: u16,
    leopards: u16,
    tigers_in_hand: u8,
    leopards_in_hand: u8,
    side: Seat,
    clock: u32,
    hash: u64,
}

impl Hdk {
    fn vacant(&self) -> u16 {
        let all = (1u16 << self.geometry.points) - 1;
        all & !(self.tigers | self.leopards)
    }

    /// Leopards removed so far.
    pub fn captured(&self) -> u8 {
        self.geometry.leopards - self.leopards.count_ones() as u8 - self.leopards_in_hand
    }

    pub fn tigers_in_hand(&self) -> u8 {
        self.tigers_in_hand
    }

    pub fn leopards_in_hand(&self) -> u8 {
        self.leopards_in_hand
    }

    pub fn tigers(&self) -> u16 {
        self.tigers
    }

    pub fn leopards(&self) -> u16 {
        self.leopards
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for p in bits(self.tigers) {
            h ^= KEYS[KEY_TIGER + p];
        }
        for p in bits(self.leopards) {
            h ^= KEYS[KEY_LEOPARD + p];
        }
        if self.side == LEOPARD {
            h ^= KEYS[KEY_SIDE];
        }
        h ^ KEYS[KEY_TIGER_HAND + self.tigers_in_hand as usize]
            ^ KEYS[KEY_LEOPARD_HAND + self.leopards_in_hand as usize]
    }

    /// Whether the side to move has a move (captures aside).
    fn can_move(&self) -> bool {
        if self.hand() > 0 {
            self.vacant() != 0
        } else {
            self.slots() != 0
        }
    }

    /// The steps and jumps open to the side to move, as slots of
    /// `Geometry::slot_moves`: empty while it has pieces in hand (it drops).
    #[inline(always)]
    fn slots(&self) -> u128 {
        let g = self.geometry;
        let landing = g.landing.of(self.vacant().into());
        if self.side == TIGER {
            g.move_from.of(self.tigers.into()) & landing & g.jumped.of(self.leopards.into())
        } else {
            g.step_from.of(self.leopards.into()) & landing
        }
    }

    /// How many moves [`Game::generate`] lists.
    #[inline(always)]
    fn move_count(&self) -> u32 {
        if self.captured() >= self.geometry.winning_captures {
            0
        } else if self.hand() > 0 {
            self.vacant().count_ones()
        } else {
            self.slots().count_ones()
        }
    }

    /// Moves the pieces of a slot's move by the side to move, without a
    /// branch on the side or the kind of move, and returns the jumped
    /// leopard's mask (0 for a step). The side, hash and clock are left to
    /// the caller: perft's two-ply count needs only the pieces.
    #[inline(always)]
    fn move_slot_pieces(&mut self, slot: usize) -> u16 {
        let (moved, over) = self.geometry.slot_changes[slot];
        let tiger_moved = moved & 0u16.wrapping_sub(u16::from(self.side == TIGER));
        self.tigers ^= tiger_moved;
        self.leopards = (self.leopards ^ moved ^ tiger_moved) & !over;
        over
    }

    /// The `n`-th open slot of `slots`.
    #[inline(always)]
    fn nth_slot(&self, slots: u128, n: usize) -> usize {
        if self.geometry.narrow {
            nth_one(slots as u64, n) as usize
        } else {
            nth_one_wide(slots, n) as usize
        }
    }

    /// Pieces of the side to move still in hand.
    fn hand(&self) -> u8 {
        if self.side == TIGER {
            self.tigers_in_hand
        } else {
            self.leopards_in_hand
        }
    }

    fn toggle_side(&mut self) {
        self.side ^= 1;
        self.hash ^= KEYS[KEY_SIDE];
    }
}

/// Indices of the set bits of a mask, lowest first.
fn bits(mask: u16) -> impl Iterator<Item = usize> {
    crate::bits::ones(mask.into()).map(usize::from)
}

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        key: "start",
        values: &["ludovici", "apex"],
    },
    OptionSpec {
        key: "board",
        values: &["small", "large"],
    },
];

impl Game for Hdk {
    type Move = HdkMove;
    type Undo = HdkUndo;
    type Rules = HdkRules;

    const ID: &'static str = "hat-diviyan-keliya";
    const NAME: &'static str = "Hat Diviyan Keliya";
    const SEAT_NAMES: &'static [&'static str] = &["Tiger", "Leopards"];
    const MOVE_SYNTAX: &'static str = "drop @<point>; step <from><to>; jump <from><over><to>";
    const END_REASONS: &'static [(&'static str, &'static str)] = &[
        ("tiger-trapped", "the tiger cannot move"),
        (
            "leopards-captured",
            "the tiger has captured enough leopards",
        ),
        ("leopards-trapped", "the leopards cannot move"),
    ];
    const ALIASES: &'static [&'static str] = &["hdk", "hat-diviyan", "tiger"];
    const OPTIONS: &'static [OptionSpec] = OPTIONS;
    const SEAT_LETTERS: &'static [char] = &['t', 'l'];
    const HAS_CHANCE: bool = false;
    const NO_PROGRESS_LIMIT: u32 = 100;

    fn rules(ruleset: &Ruleset) -> HdkRules {
        HdkRules {
            large: ruleset.value("board") == "large",
            apex: ruleset.value("start") == "apex",
        }
    }

    fn start(rules: &HdkRules) -> Hdk {
        let geometry = if rules.large { &LARGE } else { &SMALL };
        let mut position = Hdk {
            geometry,
            tigers: 0,
            leopards: 0,
            tigers_in_hand: geometry.tigers,
            leopards_in_hand: geometry.leopards,
            side: TIGER,
            clock: 0,
            hash: 0,
        };
        if rules.apex {
            // Tigers on b1 (and b2 on the large board); leopards move first.
            position.tigers = if rules.large { 0b101 } else { 0b1 };
            position.tigers_in_hand = 0;
            position.side = LEOPARD;
        }
        position.hash = position.compute_hash();
        position
    }

    fn from_notation(rules: &HdkRules, text: &str) -> Result<Hdk, NotationError> {
        let geometry = if rules.large { &LARGE } else { &SMALL };
        let mut fields = FieldReader::new(text)?;
        let widths: &[usize] = if rules.large {
            &[1, 3, 3, 3, 3]
        } else {
            &[1, 3, 3, 3]
        };
        let rows = parse_board(fields.next("board")?, widths, "TL")?;
        let side = match fields.next("side")? {
            s if s.eq_ignore_ascii_case("t") => TIGER,
            s if s.eq_ignore_ascii_case("l") => LEOPARD,
            s => {
                return Err(NotationError::BadField {
                    field: "side",
                    text: s.to_string(),
                    expected: "t or l",
                })
            }
        };
        let tigers_in_hand = crate::notation::number(
            "tigers-in-hand",
            fields.next("tigers-in-hand")?,
            geometry.tigers as u32,
            "a count of tigers in hand",
        )? as u8;
        let leopards_in_hand = crate::notation::number(
            "leopards-in-hand",
            fields.next("leopards-in-hand")?,
            geometry.leopards as u32,
            "a count of leopards in hand",
        )? as u8;
        let clock = fields.clock()?;
        fields.finish()?;

        let (mut tigers, mut leopards) = (0u16, 0u16);
        for (point, cell) in rows.iter().flatten().enumerate() {
            match cell {
                Some('T') => tigers |= 1 << point,
                Some('L') => leopards |= 1 << point,
                _ => {}
            }
        }
        let tiger_total = tigers.count_ones() as u8 + tigers_in_hand;
        if tiger_total != geometry.tigers {
            return Err(NotationError::PieceCount {
                piece: "tigers on the board and in hand",
                found: tiger_total as usize,
                expected: if rules.large { "2" } else { "1" },
            });
        }
        let leopard_total = leopards.count_ones() as u8 + leopards_in_hand;
        if leopard_total > geometry.leopards {
            return Err(NotationError::PieceCount {
                piece: "leopards on the board and in hand",
                found: leopard_total as usize,
                expected: if rules.large {
                    "at most 8"
                } else {
                    "at most 7"
                },
            });
        }
        if geometry.leopards - leopard_total > geometry.winning_captures {
            return Err(NotationError::Inconsistent(
                "more leopards captured than the game allows (it ends at the winning capture)",
            ));
        }
        let mut position = Hdk {
            geometry,
            tigers,
            leopards,
            tigers_in_hand,
            leopards_in_hand,
            side,
            clock,
            hash: 0,
        };
        position.hash = position.compute_hash();
        Ok(position)
    }

    fn parse_move(text: &str) -> Result<HdkMove, MoveSyntaxError> {
        let (drop, points) =
            parse_points(text).ok_or_else(|| MoveSyntaxError::Unreadable(text.to_string()))?;
        let p = resolve_points(text, &points, point_index)?;
        match (drop, p.as_slice()) {
            (true, [to]) => Ok(HdkMove::Drop(*to)),
            (false, [a, b]) => Ok(HdkMove::Step(*a, *b)),
            (false, [a, b, c]) => Ok(HdkMove::Jump(*a, *b, *c)),
            (true, _) => Err(MoveSyntaxError::Unreadable(text.to_string())),
            (false, _) => Err(MoveSyntaxError::PointCount {
                mv: text.to_string(),
                found: p.len(),
            }),
        }
    }

    fn seats(&self) -> &[Seat] {
        &[TIGER, LEOPARD]
    }

    fn side(&self) -> Seat {
        self.side
    }

    fn generate(&self, moves: &mut Vec<HdkMove>) {
        if self.captured() >= self.geometry.winning_captures {
            return;
        }
        if self.hand() > 0 {
            moves.extend(bits(self.vacant()).map(|p| HdkMove::Drop(p as u8)));
        } else {
            let slots = self.geometry.slot_moves;
            moves.extend(ones_wide(self.slots()).map(|s| slots[s as usize]));
        }
    }

    fn count_moves(&self, _: &mut Vec<HdkMove>) -> usize {
        self.move_count() as usize
    }

    /// Two plies: each move's child built from its masks alone (no hash,
    /// clock or undo) and its moves counted.
    fn perft_bulk(&self, depth: u32) -> Option<u64> {
        if depth != 2 {
            return None;
        }
        if self.captured() >= self.geometry.winning_captures {
            return Some(0);
        }
        let tiger = self.side == TIGER;
        let mut total = 0;
        if self.hand() > 0 {
            for p in bits(self.vacant()) {
                let mut child = self.clone();
                child.side ^= 1;
                if tiger {
                    child.tigers |= 1 << p;
                    child.tigers_in_hand -= 1;
                } else {
                    child.leopards |= 1 << p;
                    child.leopards_in_hand -= 1;
                }
                total += u64::from(child.move_count());
            }
        } else {
            let mut slots = self.slots();
            while slots != 0 {
                let slot = slots.trailing_zeros() as usize;
                slots &= slots - 1;
                let mut child = self.clone();
                child.move_slot_pieces(slot);
                child.side ^= 1;
                total += u64::from(child.move_count());
            }
        }
        Some(total)
    }

    fn random_move(&self, rng: &mut Rng, _: &mut Vec<HdkMove>) -> Option<HdkMove> {
        if self.captured() >= self.geometry.winning_captures {
            return None;
        }
        if self.hand() > 0 {
            let vacant = self.vacant();
            let n = vacant.count_ones();
            return (n > 0)
                .then(|| HdkMove::Drop(nth_one(vacant.into(), rng.below(n.into()) as usize)));
        }
        let slots = self.slots();
        let n = slots.count_ones();
        (n > 0)
            .then(|| self.geometry.slot_moves[self.nth_slot(slots, rng.below(n.into()) as usize)])
    }

    /// Past the drops, the chosen slot is played from its masks and hash
    /// change without a branch on the kind of move (which the processor
    /// mispredicts about once in three plies).
    fn play_random(&mut self, rng: &mut Rng, scratch: &mut Vec<HdkMove>) -> bool {
        if self.hand() > 0 || self.captured() >= self.geometry.winning_captures {
            return play_random_move(self, rng, scratch);
        }
        let slots = self.slots();
        let n = slots.count_ones();
        if n == 0 {
            return false;
        }
        let slot = self.nth_slot(slots, rng.below(n.into()) as usize);
        let over = self.move_slot_pieces(slot);
        self.hash ^= self.geometry.slot_hashes[self.side as usize][slot];
        self.clock = (self.clock + 1) * u32::from(over == 0);
        self.side ^= 1;
        true
    }

    fn play(&mut self, mv: HdkMove) -> HdkUndo {
        let undo = HdkUndo {
            clock: self.clock,
            hash: self.hash,
        };
        let (pieces, base) = if self.side == TIGER {
            (&mut self.tigers, KEY_TIGER)
        } else {
            (&mut self.leopards, KEY_LEOPARD)
        };
        match mv {
            HdkMove::Drop(to) => {
                *pieces |= 1 << to;
                self.hash ^= KEYS[base + to as usize];
                let (hand, hand_key) = if self.side == TIGER {
                    (&mut self.tigers_in_hand, KEY_TIGER_HAND)
                } else {
                    (&mut self.leopards_in_hand, KEY_LEOPARD_HAND)
                };
                self.hash ^= KEYS[hand_key + *hand as usize] ^ KEYS[hand_key + *hand as usize - 1];
                *hand -= 1;
                self.clock = 0;
            }
            HdkMove::Step(from, to) => {
                *pieces ^= (1 << from) | (1 << to);
                self.hash ^= KEYS[base + from as usize] ^ KEYS[base + to as usize];
                self.clock += 1;
            }
            HdkMove::Jump(from, over, to) => {
                *pieces ^= (1 << from) | (1 << to);
                self.leopards &= !(1 << over);
                self.hash ^= KEYS[base + from as usize]
                    ^ KEYS[base + to as usize]
                    ^ KEYS[KEY_LEOPARD + over as usize];
                self.clock = 0;
            }
        }
        self.toggle_side();
        undo
    }

    fn undo(&mut self, mv: HdkMove, undo: HdkUndo) {
        self.side ^= 1;
        let pieces = if self.side == TIGER {
            &mut self.tigers
        } else {
            &mut self.leopards
        };
        match mv {
            HdkMove::Drop(to) => {
                *pieces &= !(1 << to);
                if self.side == TIGER {
                    self.tigers_in_hand += 1;
                } else {
                    self.leopards_in_hand += 1;
                }
            }
            HdkMove::Step(from, to) => *pieces ^= (1 << from) | (1 << to),
            HdkMove::Jump(from, over, to) => {
                *pieces ^= (1 << from) | (1 << to);
                self.leopards |= 1 << over;
            }
        }
        self.clock = undo.clock;
        self.hash = undo.hash;
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.captured() >= self.geometry.winning_captures {
            return Some(Outcome::Win(TIGER));
        }
        match self.side {
            TIGER if !self.can_move() => Some(Outcome::Win(LEOPARD)),
            LEOPARD if !self.can_move() => Some(Outcome::Win(TIGER)),
            _ => None,
        }
    }

    fn end_reason(&self) -> &'static str {
        if self.captured() >= self.geometry.winning_captures {
            "leopards-captured"
        } else if self.side == TIGER {
            "tiger-trapped"
        } else {
            "leopards-trapped"
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

    fn solver_key(&self) -> Option<u64> {
        Some(
            self.tigers as u64
                | (self.leopards as u64) << 13
                | (self.tigers_in_hand as u64) << 26
                | (self.leopards_in_hand as u64) << 28
                | (self.side as u64) << 32,
        )
    }

    const MOVE_KEYS: usize = 16 + 2 * 256;

    fn move_key(mv: HdkMove) -> usize {
        match mv {
            HdkMove::Drop(p) => p as usize,
            HdkMove::Step(a, b) => 16 + a as usize * 16 + b as usize,
            HdkMove::Jump(a, _, c) => 16 + 256 + a as usize * 16 + c as usize,
        }
    }

    const PIECE_KINDS: &'static [&'static str] = &["tiger", "leopard"];

    fn points(&self) -> usize {
        self.geometry.points as usize
    }

    fn point_name(&self, point: usize) -> String {
        POINT_NAMES[point].to_string()
    }

    fn men(&self, out: &mut Vec<Man>) {
        for (owner, mask) in [(TIGER, self.tigers), (LEOPARD, self.leopards)] {
            for point in bits(mask) {
                out.push(Man {
                    point,
                    owner,
                    kind: owner as usize,
                });
            }
        }
    }

    /// Drops and captures: every man in hand is dropped once, and every
    /// leopard, on the board or in hand, can be captured once.
    fn progress_left(&self) -> u32 {
        let in_hand = u32::from(self.tigers_in_hand) + u32::from(self.leopards_in_hand);
        in_hand + self.leopards.count_ones() + u32::from(self.leopards_in_hand)
    }

    /// Men still to drop and leopards taken, each over its most.
    const EXTRA_PLANES: &'static [&'static str] =
        &["tigers in hand", "leopards in hand", "leopards captured"];

    fn extra_planes(&self, _seat: Seat, out: &mut [f32]) {
        let g = self.geometry;
        let fractions = [
            f32::from(self.tigers_in_hand) / f32::from(g.tigers),
            f32::from(self.leopards_in_hand) / f32::from(g.leopards),
            f32::from(self.captured()) / f32::from(g.winning_captures),
        ];
        for (plane, value) in out.chunks_mut(g.points as usize).zip(fractions) {
            plane.fill(value);
        }
    }

    fn is_capture(&self, mv: HdkMove) -> bool {
        matches!(mv, HdkMove::Jump(..))
    }

    fn evaluate(&self) -> i32 {
        // Captures dominate; then tiger freedom (the leopards' aim is a trap).
        let mut moves = Vec::with_capacity(16);
        let tiger_view = if self.side == TIGER {
            self.generate(&mut moves);
            moves.len() as i32
        } else {
            let mut as_tiger = self.clone();
            as_tiger.side = TIGER;
            as_tiger.generate(&mut moves);
            moves.len() as i32
        };
        let score = 150 * self.captured() as i32 + 12 * tiger_view;
        if self.side == TIGER {
            score
        } else {
            -score
        }
    }

    fn draw(&self) -> String {
        let rows = self.geometry.rows as usize;
        let centre = 4 * (rows - 1);
        let width = 2 * centre + 1;
        let piece = |p: usize| {
            if self.tigers & (1 << p) != 0 {
                'T'
            } else if self.leopards & (1 << p) != 0 {
                'L'
            } else {
                '.'
            }
        };
        let mut out = String::new();
        for row in 1..=rows {
            let mut line = vec![' '; width];
            if row == 1 {
                line[centre] = piece(0);
            } else {
                let spread = 4 * (row - 1);
                let first = 1 + 3 * (row - 2);
                line[centre - spread..=centre + spread].fill('-');
                line[centre - spread] = piece(first);
                line[centre] = piece(first + 1);
                line[centre + spread] = piece(first + 2);
            }
            out.push_str(&format!("  {}   {row}\n", line.iter().collect::<String>()));
            if row < rows {
                let mut link = vec![' '; width];
                let spread = 4 * (row - 1);
                link[centre - spread - 2] = '/';
                link[centre] = '|';
                link[centre + spread + 2] = '\\';
                out.push_str(&format!(
                    "  {}\n",
                    link.iter().collect::<String>().trim_end()
                ));
            }
        }
        let mut files = vec![' '; width];
        files[0] = 'a';
        files[centre] = 'b';
        files[width - 1] = 'c';
        out.push_str(&format!("  {}\n", files.iter().collect::<String>()));
        out.push_str(&format!(
            "Tigers in hand: {}  Leopards in hand: {}  Leopards captured: {}  Clock: {}\n",
            self.tigers_in_hand,
            self.leopards_in_hand,
            self.captured(),
            self.clock
        ));
        out
    }
}

impl fmt::Display for Hdk {
    /// The notation: `<board> <side> <tigers-in-hand> <leopards-in-hand> <clock>`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let cell = |p: usize| {
            if self.tigers & (1 << p) != 0 {
                Some('T')
            } else if self.leopards & (1 << p) != 0 {
                Some('L')
            } else {
                None
            }
        };
        write_row(f, [cell(0)])?;
        for row in 0..(self.geometry.rows as usize - 1) {
            f.write_str("/")?;
            write_row(f, (1 + 3 * row..4 + 3 * row).map(cell))?;
        }
        write!(
            f,
            " {} {} {} {}",
            Self::SEAT_LETTERS[self.side as usize],
            self.tigers_in_hand,
            self.leopards_in_hand,
            self.clock
        )
    }
}
