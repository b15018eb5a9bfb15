//! Hand-made evaluation for Safari-Dual: material, mobility, lion safety and
//! the lions' distance to the enemy base. Weights tuned by self-play with
//! the referee (see tools/strength.md).

use super::safari::{distance, neighbours, occupied, squares_of, Kind, Safari, BASES};
use crate::game::{Game, Seat};

const HELPER: i32 = 100;
const MOBILITY: i32 = 3;
/// Per enemy piece next to a lion.
const LION_PRESSURE: i32 = 18;
/// Per step the lion is closer to the enemy base, once that base is open.
const BASE_RACE: i32 = 25;

fn side_score(p: &Safari, seat: Seat) -> i32 {
    let them = 1 - seat;
    let mut score = HELPER * p.helpers(seat) as i32;
    let empty = !(occupied(p, 0) | occupied(p, 1)) & ((1 << 25) - 1);
    for s in [Kind::Lion, Kind::Elephant, Kind::Giraffe]
        .into_iter()
        .flat_map(|k| squares_of(p, seat, k))
    {
        score += MOBILITY * (neighbours(s) & empty).count_ones() as i32;
    }
    if let Some(lion) = p.lion(seat) {
        score -= LION_PRESSURE * (neighbours(lion) & occupied(p, them)).count_ones() as i32;
        let enemy_base = BASES[them as usize] as u8;
        let base_open = p.lion(them) != Some(enemy_base);
        if base_open {
            score += BASE_RACE * (4 - distance(lion, enemy_base) as i32);
        }
    }
    score
}

/// Score for the side to move.
pub fn evaluate(p: &Safari) -> i32 {
    let me = p.side();
    side_score(p, me) - side_score(p, 1 - me)
}
