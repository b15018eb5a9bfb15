//! Hand-made evaluation for Safari-Dual: material, mobility, lion safety and
//! the lions' distance to the enemy base. The weights are in
//! [`crate::tune`], tuned by self-play with the referee (tools/tuning.md).

use super::{distance, neighbours, occupied, squares_of, Kind, Safari, BASES};
use crate::game::{Game, Seat};

use crate::tune::{SAFARI_BASE_RACE, SAFARI_HELPER, SAFARI_LION_PRESSURE, SAFARI_MOBILITY};

fn side_score(p: &Safari, seat: Seat) -> i32 {
    let them = 1 - seat;
    let mut score = SAFARI_HELPER.get() * p.helpers(seat) as i32;
    let empty = !(occupied(p, 0) | occupied(p, 1)) & ((1 << 25) - 1);
    for s in [Kind::Lion, Kind::Elephant, Kind::Giraffe]
        .into_iter()
        .flat_map(|k| squares_of(p, seat, k))
    {
        score += SAFARI_MOBILITY.get() * (neighbours(s) & empty).count_ones() as i32;
    }
    if let Some(lion) = p.lion(seat) {
        score -=
            SAFARI_LION_PRESSURE.get() * (neighbours(lion) & occupied(p, them)).count_ones() as i32;
        let enemy_base = BASES[them as usize] as u8;
        let base_open = p.lion(them) != Some(enemy_base);
        if base_open {
            score += SAFARI_BASE_RACE.get() * (4 - distance(lion, enemy_base) as i32);
        }
    }
    score
}

/// Score for the side to move.
pub fn evaluate(p: &Safari) -> i32 {
    let me = p.side();
    side_score(p, me) - side_score(p, 1 - me)
}
