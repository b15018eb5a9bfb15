//! Evaluation weights that self-play tuning can change at run time
//! (`setoption name Tune.<name> value <n>`), as engine authors tune with
//! SPSA: tools/tune.sh plays referee matches between variants. They are
//! process-wide, like every engine option, and not listed by `uci`.

use std::sync::atomic::{AtomicI32, Ordering};

pub struct Param {
    pub name: &'static str,
    pub default: i32,
    value: AtomicI32,
}

impl Param {
    const fn new(name: &'static str, default: i32) -> Param {
        Param {
            name,
            default,
            value: AtomicI32::new(default),
        }
    }

    #[inline]
    pub fn get(&self) -> i32 {
        self.value.load(Ordering::Relaxed)
    }
}

pub static SAFARI_HELPER: Param = Param::new("safari.helper", 100);
pub static SAFARI_MOBILITY: Param = Param::new("safari.mobility", 3);
pub static SAFARI_LION_PRESSURE: Param = Param::new("safari.lion_pressure", 18);
pub static SAFARI_BASE_RACE: Param = Param::new("safari.base_race", 25);

pub static AW_MATERIAL: Param = Param::new("awithlaknannai.material", 100);
pub static AW_MOBILITY: Param = Param::new("awithlaknannai.mobility", 4);
pub static AW_EXPOSED: Param = Param::new("awithlaknannai.exposed", 20);
pub static AW_TARGET: Param = Param::new("awithlaknannai.target", 30);

pub static KC_HOME: Param = Param::new("kilkenny.home", 900);
pub static KC_FREE_CAT: Param = Param::new("kilkenny.free_cat", 120);
pub static KC_DISTANCE: Param = Param::new("kilkenny.distance", 14);
pub static KC_THREAT_THEIRS: Param = Param::new("kilkenny.threat_their_turn", 140);
pub static KC_THREAT_OURS: Param = Param::new("kilkenny.threat_our_turn", 45);
pub static KC_COVER_OURS: Param = Param::new("kilkenny.cover_our_turn", 150);
pub static KC_COVER_THEIRS: Param = Param::new("kilkenny.cover_their_turn", 70);

static PARAMS: [&Param; 15] = [
    &SAFARI_HELPER,
    &SAFARI_MOBILITY,
    &SAFARI_LION_PRESSURE,
    &SAFARI_BASE_RACE,
    &AW_MATERIAL,
    &AW_MOBILITY,
    &AW_EXPOSED,
    &AW_TARGET,
    &KC_HOME,
    &KC_FREE_CAT,
    &KC_DISTANCE,
    &KC_THREAT_THEIRS,
    &KC_THREAT_OURS,
    &KC_COVER_OURS,
    &KC_COVER_THEIRS,
];

/// The parameter called `name` (after `Tune.`), any case.
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS
        .iter()
        .copied()
        .find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Sets a parameter; values stay within a factor of 10 of the default.
pub fn set(param: &Param, value: i32) -> Result<(), (i32, i32)> {
    let (low, high) = bounds(param);
    if !(low..=high).contains(&value) {
        return Err((low, high));
    }
    param.value.store(value, Ordering::Relaxed);
    Ok(())
}

pub fn bounds(param: &Param) -> (i32, i32) {
    (0, (param.default.abs() * 10).max(100))
}

pub fn all() -> impl Iterator<Item = &'static Param> {
    PARAMS.iter().copied()
}
