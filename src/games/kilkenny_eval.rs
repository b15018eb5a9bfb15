//! Hand-made evaluation for Kilkenny Cats: the race to the mice, cats
//! alive, and cats within an enemy's reach, weighed by the rolls that
//! would make a threat or a landing happen and by who rolls next. Each
//! seat gets a utility; the value for a seat is its utility less the best
//! of the others' (zero-sum with two seats, paranoid with more).

use super::kilkenny::Kilkenny;
use crate::game::{Game, Seat};

use crate::tune::{
    KC_COVER_OURS, KC_COVER_THEIRS, KC_DISTANCE, KC_FREE_CAT, KC_HOME, KC_THREAT_OURS,
    KC_THREAT_THEIRS,
};

/// A seat with no free cat is out (or has just won, which the search sees).
const OUT: i32 = -20_000;

// The weights (crate::tune): a cat home, a free cat, a king step between
// the nearest free cats and the empty mice; per roll (of six) that lets an
// enemy take a cat, when the enemy rolls first and when we do; per roll
// that lands a cat on a mouse at once, when we roll first and when they do.

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
        (KC_THREAT_OURS.get(), KC_COVER_OURS.get())
    } else {
        (KC_THREAT_THEIRS.get(), KC_COVER_THEIRS.get())
    };
    KC_HOME.get() * home + KC_FREE_CAT.get() * p.free_cats(seat) as i32
        - KC_DISTANCE.get() * race
        - threat_weight * threat / 6
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
