//! The default network of each game, built into the binary. Each file
//! under `nets/` was made by the command in its note (`d` and `bench`
//! print it; tools/train/README.md lists them) and is checked at start
//! like any other file.

use std::sync::{Arc, OnceLock};

use crate::file::Network;

/// The game ids with a default network and the file's bytes. A game
/// gets one when its network beats the hand-written evaluation through
/// the referee (README, "Strength of the learned evaluation"): so far
/// Safari-Dual and Kilkenny Cats; the networks trained for Awithlaknannai
/// Mosona did not, and it keeps its hand-written evaluation unless
/// `EvalFile` gives a network.
const FILES: &[(&str, &[u8])] = &[
    ("safari-dual", include_bytes!("nets/safari-dual.nnue")),
    ("kilkenny-cats", include_bytes!("nets/kilkenny-cats.nnue")),
];

/// The default network of game `game`, if it has one.
///
/// # Panics
/// When a built-in file does not load: a broken build, caught by the
/// test that loads them all.
pub fn network(game: &str) -> Option<Arc<Network>> {
    static LOADED: OnceLock<Vec<(&'static str, Arc<Network>)>> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| {
        FILES
            .iter()
            .map(|&(id, bytes)| {
                let net = Network::from_bytes(bytes)
                    .unwrap_or_else(|e| panic!("built-in network of {id}: {e}"));
                (id, Arc::new(net))
            })
            .collect()
    });
    loaded
        .iter()
        .find(|(id, _)| *id == game)
        .map(|(_, net)| net.clone())
}

/// The games that have a default network.
pub fn games() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(id, _)| *id)
}
