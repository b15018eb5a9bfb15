//! The default networks of each game, built into the binary. Each file
//! under `nets/` was made by the command in its note (`d` and `bench`
//! print it; tools/train/README.md lists them) and is checked at start
//! like any other file.
//!
//! A game may have one network per range of seat counts: a network
//! fitted to the games of one seat count can beat one fitted to all
//! (Kilkenny Cats: README, "Strength of the learned evaluation"). The
//! network's inputs cover every seat count either way; the choice is made
//! by the number of seats the game is played with.

use std::ops::RangeInclusive;
use std::sync::{Arc, OnceLock};

use crate::file::Network;

/// One built-in network: its game, the seat counts it serves, its bytes.
struct Builtin {
    game: &'static str,
    seats: RangeInclusive<usize>,
    bytes: &'static [u8],
}

/// The built-in networks. A game gets one when it beats the hand-written
/// evaluation through the referee (README, "Strength of the learned
/// evaluation"): Safari-Dual, Kilkenny Cats (one network for two players,
/// one for three and one for four) and Awithlaknannai Mosona (a network trained
/// on the games of an earlier network). Hat Diviyan Keliya is solved.
const FILES: &[Builtin] = &[
    Builtin {
        game: "safari-dual",
        seats: 2..=2,
        bytes: include_bytes!("nets/safari-dual.nnue"),
    },
    Builtin {
        game: "awithlaknannai-mosona",
        seats: 2..=2,
        bytes: include_bytes!("nets/awithlaknannai-mosona.nnue"),
    },
    Builtin {
        game: "kilkenny-cats",
        seats: 2..=2,
        bytes: include_bytes!("nets/kilkenny-cats.nnue"),
    },
    // Generation 1 of the self-play loop at 3 and 4 seats: it passed both
    // gates at 3 seats, but at 4 its no-loss match at 20 ms a move ended
    // undecided (docs/network.md, "Generations"), so 4 seats keep the
    // network it was trained from.
    Builtin {
        game: "kilkenny-cats",
        seats: 3..=3,
        bytes: include_bytes!("nets/kilkenny-cats-3.nnue"),
    },
    Builtin {
        game: "kilkenny-cats",
        seats: 4..=4,
        bytes: include_bytes!("nets/kilkenny-cats-3-4.nnue"),
    },
];

/// Every built-in network, loaded once, in the order of [`FILES`].
fn loaded() -> &'static [Arc<Network>] {
    static LOADED: OnceLock<Vec<Arc<Network>>> = OnceLock::new();
    LOADED.get_or_init(|| {
        FILES
            .iter()
            .map(|file| {
                let net = Network::from_bytes(file.bytes)
                    .unwrap_or_else(|e| panic!("built-in network of {}: {e}", file.game));
                Arc::new(net)
            })
            .collect()
    })
}

/// The default network of game `game` played with `seats` seats, if it
/// has one.
///
/// # Panics
/// When a built-in file does not load: a broken build, caught by the
/// test that loads them all.
pub fn network(game: &str, seats: usize) -> Option<Arc<Network>> {
    FILES
        .iter()
        .zip(loaded())
        .find(|(file, _)| file.game == game && file.seats.contains(&seats))
        .map(|(_, net)| net.clone())
}

/// Every built-in network with its game and the seat counts it serves.
pub fn all() -> impl Iterator<Item = (&'static str, RangeInclusive<usize>, Arc<Network>)> {
    FILES
        .iter()
        .zip(loaded())
        .map(|(file, net)| (file.game, file.seats.clone(), net.clone()))
}

/// The games that have a default network (each once).
pub fn games() -> impl Iterator<Item = &'static str> {
    FILES
        .iter()
        .enumerate()
        .filter(|&(i, file)| FILES[..i].iter().all(|f| f.game != file.game))
        .map(|(_, file)| file.game)
}
