//! What a match plays: its games in sets that share a start and dice (a
//! pair with the seats swapped; with lone seating, one game per seat with
//! the first engine in it), each set's start and dice derived from the
//! match seed and the set's number alone, so that any part of a match (a
//! shard, a resumed match, a wave) plays exactly the games the whole match
//! would.

use super::config::{MatchConfig, PlaySettings, Seating};
use menagerie_rules::game::{Seat, Status, MAX_SEATS};
use menagerie_rules::rng::Rng;

pub use menagerie_rules::rng::{derive_seed as derive, DICE, OPENING};

/// The seed of set `set`'s dice: every game of the set rolls the same.
pub fn dice_seed(config: &MatchConfig, set: u32) -> u64 {
    derive(config.play.seed, set, DICE)
}

/// The seats in play at the ruleset's start, in turn order.
pub fn seats_in_play(play: &PlaySettings) -> Vec<Seat> {
    play.rules.session(play.entry).seats_in_play()
}

/// Games per set: two (a pair) when the seats alternate, one per seat
/// (each with the first engine in it) when it plays alone.
pub fn set_size(play: &PlaySettings) -> u32 {
    match play.seating {
        Seating::Alternate => 2,
        Seating::Lone => seats_in_play(play).len() as u32,
    }
}

/// The sets of the match.
pub fn sets(config: &MatchConfig) -> u32 {
    config.games.div_ceil(set_size(&config.play))
}

/// The games of set `set` (the last set of a match whose games do not
/// divide into sets has fewer).
pub fn games_of_set(config: &MatchConfig, set: u32) -> impl Iterator<Item = u32> {
    let (games, size) = (config.games, set_size(&config.play));
    (size * set..size * set + size).filter(move |&i| i < games)
}

/// The set game `index` belongs to.
pub fn set_of(config: &MatchConfig, index: u32) -> u32 {
    index / set_size(&config.play)
}

/// The sets this run plays: all of them, or with `--shard I/N` every
/// N-th starting at the I-th (so shards interleave and each gets early and
/// late sets alike).
pub fn sets_to_play(config: &MatchConfig) -> Vec<u32> {
    let all = 0..sets(config);
    match config.shard {
        None => all.collect(),
        Some((i, n)) => all.filter(|p| p % n == i - 1).collect(),
    }
}

/// The start of a set: an opening from the list, a random opening, or the
/// ruleset's start.
pub fn set_start(config: &MatchConfig, set: u32) -> String {
    let mut session = config.play.rules.session(config.play.entry);
    if !config.play.openings.is_empty() {
        return config.play.openings[set as usize % config.play.openings.len()].clone();
    }
    if config.play.random_openings == 0 {
        return session.notation();
    }
    let start = session.boxed_clone();
    let mut rng = Rng::new(derive(config.play.seed, set, OPENING));
    // A random opening that already ends the game is drawn again.
    for _ in 0..100 {
        session = start.boxed_clone();
        let mut plies = 0;
        while plies < config.play.random_openings && session.status() == Status::Ongoing {
            let moves = session.legal_moves();
            let mv = moves[rng.below(moves.len() as u64) as usize].clone();
            if !session.awaiting_chance() {
                plies += 1;
            }
            session.play_moves(&[mv]).expect("a legal move plays");
        }
        if session.status() == Status::Ongoing {
            break;
        }
    }
    session.notation()
}

/// Which engine plays each seat in game `index`, and the seats in play in
/// turn order. Alternating: the first game of a pair gives the first seat
/// to the first engine, the second swaps; with more than two seats the
/// engines take turns in seat order. Lone: game k of a set gives the k-th
/// seat to the first engine and every other to the second.
pub fn seating(config: &MatchConfig, start: &str, index: u32) -> ([usize; MAX_SEATS], Vec<Seat>) {
    let mut session = config.play.rules.session(config.play.entry);
    session
        .set_position(Some(start), &[])
        .expect("openings were checked");
    let order = session.seats_in_play();
    let size = set_size(&config.play) as usize;
    let mut engine_of_seat = [0; MAX_SEATS];
    for (i, &seat) in order.iter().enumerate() {
        engine_of_seat[seat as usize] = match config.play.seating {
            Seating::Alternate => (i + index as usize % 2) % 2,
            Seating::Lone => usize::from(i != index as usize % size),
        };
    }
    (engine_of_seat, order)
}

/// The fingerprint of the match's settings (see
/// [`super::config::PlaySettings::fingerprint`]).
pub fn fingerprint(config: &MatchConfig) -> super::checksum::Fingerprint {
    config.play.fingerprint()
}
