//! What a match plays: its games in pairs (same start, same dice, seats
//! swapped), each pair's start and dice derived from the match seed and the
//! pair's number alone, so that any part of a match (a shard, a resumed
//! match) plays exactly the games the whole match would.

use super::config::MatchConfig;
use menagerie_rules::game::{Seat, Status, MAX_SEATS};
use menagerie_rules::rng::Rng;

/// 64 well-mixed bits from the match seed, a pair and a purpose.
pub fn derive(seed: u64, pair: u32, purpose: u64) -> u64 {
    Rng::new(seed ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ purpose).next_u64()
}

const DICE: u64 = 0xD1CE;
const OPENING: u64 = 0x0BE1;

/// The seed of pair `pair`'s dice: both games of the pair roll the same.
pub fn dice_seed(config: &MatchConfig, pair: u32) -> u64 {
    derive(config.play.seed, pair, DICE)
}

/// The pairs of the match.
pub fn pairs(config: &MatchConfig) -> u32 {
    config.games.div_ceil(2)
}

/// The games of pair `pair` (the last pair of an odd number of games has
/// one).
pub fn games_of_pair(config: &MatchConfig, pair: u32) -> impl Iterator<Item = u32> {
    let games = config.games;
    (2 * pair..2 * pair + 2).filter(move |&i| i < games)
}

/// The pairs this run plays: all of them, or with `--shard I/N` every
/// N-th starting at the I-th (so shards interleave and each gets early and
/// late pairs alike).
pub fn pairs_to_play(config: &MatchConfig) -> Vec<u32> {
    let all = 0..pairs(config);
    match config.shard {
        None => all.collect(),
        Some((i, n)) => all.filter(|p| p % n == i - 1).collect(),
    }
}

/// The start of a pair: an opening from the list, a random opening, or the
/// ruleset's start.
pub fn pair_start(config: &MatchConfig, pair: u32) -> String {
    let mut session = config
        .play
        .entry
        .session(&config.play.rules)
        .expect("the ruleset was checked");
    if !config.play.openings.is_empty() {
        return config.play.openings[pair as usize % config.play.openings.len()].clone();
    }
    if config.play.random_openings == 0 {
        return session.notation();
    }
    let start = session.boxed_clone();
    let mut rng = Rng::new(derive(config.play.seed, pair, OPENING));
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
/// turn order: the first game of a pair gives the first seat to the first
/// engine, the second swaps; with more than two seats the engines take
/// turns in seat order.
pub fn seating(config: &MatchConfig, start: &str, index: u32) -> ([usize; MAX_SEATS], Vec<Seat>) {
    let mut session = config
        .play
        .entry
        .session(&config.play.rules)
        .expect("the ruleset was checked");
    session
        .set_position(Some(start), &[])
        .expect("openings were checked");
    let order = session.seats_in_play();
    let mut engine_of_seat = [0; MAX_SEATS];
    for (i, &seat) in order.iter().enumerate() {
        engine_of_seat[seat as usize] = (i + index as usize % 2) % 2;
    }
    (engine_of_seat, order)
}

/// The fingerprint of the match's settings (see
/// [`super::config::PlaySettings::fingerprint`]).
pub fn fingerprint(config: &MatchConfig) -> String {
    config.play.fingerprint()
}
