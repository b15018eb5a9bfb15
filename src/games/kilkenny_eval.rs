//! Hand-made evaluation for Kilkenny Cats: the race to the mice, cats
//! alive, and cats within an enemy's reach. Each seat gets a utility; the
//! value for a seat is its utility less the best of the others' (so with
//! two seats it is zero-sum, and with more it suits a paranoid search).

use super::kilkenny::Kilkenny;
use crate::game::{Game, Seat, MAX_SEATS};

const HOME: i32 = 900;
const FREE_CAT: i32 = 120;
/// Per king step between a seat's two nearest free cats and its empty mice.
const DISTANCE: i32 = 14;
/// A seat with no free cat is out (or has just won, which the search sees).
const OUT: i32 = -20_000;
/// Per own free cat that an enemy can land on with some roll next turn.
const THREATENED: i32 = 25;

fn utility(p: &Kilkenny, seat: Seat) -> i32 {
    if p.is_out(seat) {
        return OUT;
    }
    let home = p.cats_home(seat) as i32;
    // The two cats nearest the empty mice (one when a mouse is filled).
    let (mut nearest, mut second) = (i32::MAX, i32::MAX);
    let mut threatened = 0;
    for s in p.cats_of(seat) {
        let d = p.distance_home(s, seat) as i32;
        if d < nearest {
            second = nearest;
            nearest = d;
        } else if d < second {
            second = d;
        }
        threatened += i32::from(p.reachable_by_enemy(s, seat));
    }
    let race = match home {
        0 => nearest.saturating_add(second).min(60),
        1 => nearest.min(30),
        _ => 0,
    };
    HOME * home + FREE_CAT * p.free_cats(seat) as i32 - DISTANCE * race - THREATENED * threatened
}

/// Value of the position for `seat`.
pub fn evaluate_for(p: &Kilkenny, seat: Seat) -> i32 {
    let mut others = i32::MIN;
    let mut own = 0;
    let mut utilities = [0; MAX_SEATS];
    for &s in p.seats() {
        utilities[s as usize] = utility(p, s);
        if s == seat {
            own = utilities[s as usize];
        } else {
            others = others.max(utilities[s as usize]);
        }
    }
    own - others
}
