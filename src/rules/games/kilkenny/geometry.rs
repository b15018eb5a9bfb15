//! The Kilkenny Cats board as tables built at compile time: which squares
//! are in play, the rays from every square, how much of each ray is
//! playable, king distances to the mice, and the lines whose occupancy
//! masks turn ray scans into bit scans.

use crate::game::Seat;

use super::{EAST, NORTH, SOUTH, WEST};

pub(super) const SIDE: usize = 16;
pub(super) const SQUARES: usize = SIDE * SIDE;

pub(super) const fn square(file: usize, rank: usize) -> u8 {
    ((rank - 1) * SIDE + file) as u8
}

/// The mice in notation order (h16 i16 h1 i1 p8 p9 a8 a9) and their seats.
pub(super) const MICE: [(u8, Seat); 8] = [
    (square(7, 16), SOUTH),
    (square(8, 16), SOUTH),
    (square(7, 1), NORTH),
    (square(8, 1), NORTH),
    (square(15, 8), WEST),
    (square(15, 9), WEST),
    (square(0, 8), EAST),
    (square(0, 9), EAST),
];

/// What a square is: playable, a seat's mouse, or out of play.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Terrain {
    Playable,
    Mouse(Seat),
    Off,
}

const fn terrain_table() -> [Terrain; SQUARES] {
    let mut t = [Terrain::Off; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let (file, rank) = (s % SIDE, s / SIDE + 1);
        if file >= 1 && file <= 14 && rank >= 2 && rank <= 15 {
            t[s] = Terrain::Playable;
        }
        s += 1;
    }
    let mut m = 0;
    while m < MICE.len() {
        t[MICE[m].0 as usize] = Terrain::Mouse(MICE[m].1);
        m += 1;
    }
    t
}

pub(super) static TERRAIN: [Terrain; SQUARES] = TERRAIN_CONST;
/// The table for compile-time use (a static cannot be read there).
const TERRAIN_CONST: [Terrain; SQUARES] = terrain_table();

const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The square `steps` (1 to 6) away from `from` in direction `d`, if on
/// the frame.
pub(super) fn offset(from: u8, d: usize, steps: i8) -> Option<u8> {
    let s = RAYS[from as usize][d][steps as usize - 1];
    (s != NO_SQUARE).then_some(s)
}

/// The squares 1 to 6 steps from each square in each direction, while on
/// the frame; the rest of each ray is `NO_SQUARE`.
const fn rays() -> [[[u8; 6]; 8]; SQUARES] {
    let mut rays = [[[NO_SQUARE; 6]; 8]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let mut d = 0;
        while d < 8 {
            let (file, rank) = ((s % SIDE) as i32, (s / SIDE) as i32);
            let mut k = 1;
            while k <= 6 {
                let (f, r) = (
                    file + DIRECTIONS[d].0 as i32 * k,
                    rank + DIRECTIONS[d].1 as i32 * k,
                );
                if f < 0 || f >= 16 || r < 0 || r >= 16 {
                    break;
                }
                rays[s][d][k as usize - 1] = (r * 16 + f) as u8;
                k += 1;
            }
            d += 1;
        }
        s += 1;
    }
    rays
}

const NO_SQUARE: u8 = 255;
pub(super) static RAYS: [[[u8; 6]; 8]; SQUARES] = RAYS_CONST;
const RAYS_CONST: [[[u8; 6]; 8]; SQUARES] = rays();

/// How many squares of each ray are playable before the first that is
/// not: the part of a ray a cat can cross or start from.
const fn playable_runs() -> [[u8; 8]; SQUARES] {
    let mut runs = [[0u8; 8]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let mut d = 0;
        while d < 8 {
            let mut k = 0;
            while k < 6 {
                let t = RAYS_CONST[s][d][k];
                if t == NO_SQUARE || !matches!(TERRAIN_CONST[t as usize], Terrain::Playable) {
                    break;
                }
                k += 1;
            }
            runs[s][d] = k as u8;
            d += 1;
        }
        s += 1;
    }
    runs
}

pub(super) static PLAYABLE_RUNS: [[u8; 8]; SQUARES] = playable_runs();

/// Occupancy of each line of the frame, one bit per square of the line:
/// ranks (bit = file), files (bit = rank - 1), diagonals going up to the
/// right (bit = file) and diagonals going down to the right (bit = file).
const LINE_RANKS: usize = 0;
const LINE_FILES: usize = 16;
const LINE_DIAGONALS: usize = 32;
const LINE_ANTIDIAGONALS: usize = 64;
pub(super) const LINES: usize = 96;

/// For each square and direction: the line the ray runs along, and the
/// square's bit on it. Directions 0..4 run towards higher bits, 4..8 lower.
const fn line_of() -> [[(u8, u8); 8]; SQUARES] {
    let mut table = [[(0u8, 0u8); 8]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let (file, rank) = (s % SIDE, s / SIDE);
        let rank_line = (LINE_RANKS + rank, file);
        let file_line = (LINE_FILES + file, rank);
        let diagonal = (LINE_DIAGONALS + file + 15 - rank, file);
        let antidiagonal = (LINE_ANTIDIAGONALS + file + rank, file);
        let by_direction = [
            file_line,
            diagonal,
            rank_line,
            antidiagonal,
            file_line,
            diagonal,
            rank_line,
            antidiagonal,
        ];
        let mut d = 0;
        while d < 8 {
            table[s][d] = (by_direction[d].0 as u8, by_direction[d].1 as u8);
            d += 1;
        }
        s += 1;
    }
    table
}

pub(super) static LINE_OF: [[(u8, u8); 8]; SQUARES] = line_of();

/// King distance from every square to each mouse, in the order of `MICE`.
const fn mouse_distances() -> [[u8; SQUARES]; 8] {
    let mut table = [[0u8; SQUARES]; 8];
    let mut m = 0;
    while m < 8 {
        let (mf, mr) = (
            (MICE[m].0 as usize % SIDE) as i32,
            (MICE[m].0 as usize / SIDE) as i32,
        );
        let mut s = 0;
        while s < SQUARES {
            let (df, dr) = ((s % SIDE) as i32 - mf, (s / SIDE) as i32 - mr);
            let (df, dr) = (if df < 0 { -df } else { df }, if dr < 0 { -dr } else { dr });
            table[m][s] = if df > dr { df as u8 } else { dr as u8 };
            s += 1;
        }
        m += 1;
    }
    table
}

pub(super) static MOUSE_DISTANCES: [[u8; SQUARES]; 8] = mouse_distances();

/// Seat + 1 of the mouse on each square, 0 elsewhere (`NO_SQUARE`, past
/// the frame, included).
const fn mouse_owners() -> [u8; SQUARES] {
    let mut owners = [0u8; SQUARES];
    let mut m = 0;
    while m < MICE.len() {
        owners[MICE[m].0 as usize] = MICE[m].1 + 1;
        m += 1;
    }
    owners
}

pub(super) static MOUSE_OWNER: [u8; SQUARES] = mouse_owners();
