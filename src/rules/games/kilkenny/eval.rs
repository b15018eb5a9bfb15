//! Hand-made evaluation for Kilkenny Cats: the race to the mice, cats
//! alive, and cats within an enemy's reach, weighed by the rolls that
//! would make a threat or a landing happen and by who rolls next. Each
//! seat gets a utility; the value for a seat is its utility less the best
//! of the others' (zero-sum with two seats, paranoid with more).

use super::Kilkenny;
use crate::game::{Game, Seat};

use crate::tune::{
    KC_COVER_OURS, KC_COVER_THEIRS, KC_DISTANCE, KC_FREE_CAT, KC_HOME, KC_THREAT_OURS,
    KC_THREAT_THEIRS,
};

/// A seat with no free cat is out (or has just won, which the search sees).
const OUT: i32 = -20_000;

/// Number of terms in a seat's utility; [`features`] gives them.
pub const FEATURES: usize = 7;

/// The terms of a seat's utility, in the order of [`weights`]: cats home;
/// free cats; king steps from the nearest free cats to the empty mice;
/// rolls (of six) that would let an enemy take one of our cats, when the
/// enemy rolls first and when we do; rolls that land a cat on a mouse at
/// once, when we roll first and when they do. A term that does not apply
/// on this turn is 0. Public so that tools can fit the weights to games.
pub fn features(p: &Kilkenny, seat: Seat) -> [i32; FEATURES] {
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
    let (threat_theirs, threat_ours) = if ours { (0, threat) } else { (threat, 0) };
    let (cover_ours, cover_theirs) = if ours { (covered, 0) } else { (0, covered) };
    [
        home,
        p.free_cats(seat) as i32,
        race,
        threat_theirs,
        threat_ours,
        cover_ours,
        cover_theirs,
    ]
}

/// A seat's measures as the learned evaluation's inputs bucket them:
/// cats home, free cats, the race in steps of four, rolls that would
/// threaten its cats (whoever rolls first), rolls that would land one on
/// a mouse.
pub fn measures(p: &Kilkenny, seat: Seat) -> [u32; 5] {
    let f = features(p, seat);
    [
        f[0] as u32,
        f[1] as u32,
        f[2] as u32 / 4,
        (f[3] + f[4]) as u32,
        (f[5] + f[6]) as u32,
    ]
}

/// The weight of each feature (signed: race and threats count against).
pub fn weights() -> [i32; FEATURES] {
    [
        KC_HOME.get(),
        KC_FREE_CAT.get(),
        -KC_DISTANCE.get(),
        -KC_THREAT_THEIRS.get(),
        -KC_THREAT_OURS.get(),
        KC_COVER_OURS.get(),
        KC_COVER_THEIRS.get(),
    ]
}

fn utility(p: &Kilkenny, seat: Seat) -> i32 {
    if p.is_out(seat) {
        return OUT;
    }
    let f = features(p, seat);
    let w = weights();
    // Threat weights are per six rolls.
    w[0] * f[0]
        + w[1] * f[1]
        + w[2] * f[2]
        + (w[3] * f[3] + w[4] * f[4]) / 6
        + w[5] * f[5]
        + w[6] * f[6]
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
