//! Whole-number arguments: a number the argument's type cannot hold is a
//! `MenagerieError` naming the argument and its range, as every other
//! value out of range is, not PyO3's `OverflowError`.

use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::MenagerieError;

fn whole(value: &Bound<'_, PyAny>, name: &str, min: i128, max: i128) -> PyResult<i128> {
    let number = match value.extract::<i128>() {
        Ok(number) => Some(number),
        // An int, but beyond even 128 bits: out of range. Anything else
        // (a str, a float) keeps PyO3's TypeError.
        Err(_) if value.is_instance_of::<PyInt>() => None,
        Err(error) => return Err(error),
    };
    match number {
        Some(number) if (min..=max).contains(&number) => Ok(number),
        _ => Err(MenagerieError::new_err(format!(
            "{name} {value} is out of range {min}..={max}"
        ))),
    }
}

macro_rules! whole_arguments {
    ($($function:ident: $type:ty = $name:literal, $min:expr, $max:expr;)*) => {$(
        pub fn $function(value: &Bound<'_, PyAny>) -> PyResult<$type> {
            // In range of the type by the bounds, so the cast is exact.
            whole(value, $name, $min as i128, $max as i128).map(|number| number as $type)
        }
    )*};
}

/// An optional whole number: `None` stays `None`.
pub fn optional<T>(
    value: &Bound<'_, PyAny>,
    whole: fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if value.is_none() {
        return Ok(None);
    }
    whole(value).map(Some)
}

pub fn search_depth_or_none(value: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    optional(value, search_depth)
}

pub fn search_nodes_or_none(value: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    optional(value, search_nodes)
}

pub fn search_movetime_or_none(value: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    optional(value, search_movetime)
}

use menagerie_engine::{HASH, THREADS};
use menagerie_search::skill::FULL_STRENGTH;

// Each named as its method's errors are. Threads and hash as the engine's
// options bound them: past them a thread count only fails to start, or a
// table to allocate. solve's nodes may be 0: only what is known.
whole_arguments! {
    search_depth: u32 = "search: depth", 0, u32::MAX;
    search_nodes: u64 = "search: nodes", 1, u64::MAX;
    search_movetime: u64 = "search: movetime_ms", 0, u64::MAX;
    search_skill: u8 = "search: skill", 0, FULL_STRENGTH;
    search_seed: u64 = "search: seed", 0, u64::MAX;
    search_threads: usize = "search: threads", THREADS.min, THREADS.max;
    search_hash: usize = "search: hash_mib", HASH.min, HASH.max;
    solve_nodes: u64 = "solve: nodes", 0, u64::MAX;
    perft_depth: u32 = "perft: depth", 0, u32::MAX;
    playouts_games: u64 = "random_playouts: games", 0, u64::MAX;
    playouts_seed: u64 = "random_playouts: seed", 0, u64::MAX;
    action_number: usize = "action_text: action", 0, usize::MAX;
}
