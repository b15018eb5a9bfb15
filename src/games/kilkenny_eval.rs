//! Hand-made evaluation for Kilkenny Cats: the race to the mice, cats
//! alive, and cats within an enemy's reach, weighed by the rolls that
//! would make a threat or a landing happen and by who rolls next. Each
//! seat gets a utility; the value for a seat is its utility less the best
//! of the others' (zero-sum with two seats, paranoid with more).

use super::kilkenny::Kilkenny;
use crate::game::{Game, Seat};

const HOME: i32 = 900;
const FREE_CAT: i32 = 120;
/// Per king step between a seat's nearest free cats and its empty mice.
const DISTANCE: i32 = 14;
/// A seat with no free cat is out (or has just won, which the search sees).
const OUT: i32 = -20_000;
/// Per roll (of six) that lets an enemy take a cat, on the value of a cat;
/// worse when the enemy rolls first.
const THREAT_THEIR_TURN: i32 = 140;
const THREAT_OUR_TURN: i32 = 45;
/// Per roll that lands a cat on an empty mouse at once; better when we
/// roll first.
const COVER_OUR_TURN: i32 = 150;
const COVER_THEIR_TURN: i32 = 70;

fn utility(p: &Kilkenny, seat: Seat) -> i32 {
    if p.is_out(seat) {
        return OUT;
    }
    let ours = p.side() == seat;
    let home = p.cats_home(seat) as i32;
    // The two cats nearest the empty mice (one when a mouse is filled).
    let (mut nearest, mut second) = (i32::MAX, i32::MAX);
    let mut threat = 0;
    for s in p.cats_of(seat) {
        let d = p.distance_home(s, seat) as i32;
        if d < nearest {
            second = nearest;
            nearest = d;
        } else if d < second {
            second = d;
        }
        threat += p.threat_rolls(s, seat).count_ones() as i32;
    }
    let race = match home {
        0 => nearest.saturating_add(second).min(60),
        1 => nearest.min(30),
        _ => 0,
    };
    let covered = p.landing_rolls(seat).count_ones() as i32;
    let (threat_weight, cover_weight) = if ours {
        (THREAT_OUR_TURN, COVER_OUR_TURN)
    } else {
        (THREAT_THEIR_TURN, COVER_THEIR_TURN)
    };
    HOME * home + FREE_CAT * p.free_cats(seat) as i32 - DISTANCE * race - threat_weight * threat / 6
        + cover_weight * covered
}

/// Value of the position for `seat`.
pub fn evaluate_for(p: &Kilkenny, seat: Seat) -> i32 {
    let mut others = i32::MIN;
    let mut own = 0;
    for &s in p.seats() {
        let u = utility(p, s);
        if s == seat {
            own = u;
        } else {
            others = others.max(u);
        }
    }
    own - others
}
