//! Which search runs: chosen from what the game declares (chance or not,
//! two seats or more) and the settings, never from the game's name.

use menagerie_rules::game::session::Session;
use menagerie_rules::game::Game;

use crate::vocabulary::{MultiSeat, Reporter, SearchResult, Settings, Shared, FULL_STRENGTH};
use crate::{alphabeta, exact, expectimax, maxn, mcts, puct, skill, Limits};

/// Builds what the search of this game wants before any clock runs (the
/// solved table of a solvable game, the endgame tables opened); `newgame`
/// calls it. Table files left out are named through `reporter`.
pub fn prepare<G: Game>(session: &Session<G>, settings: &Settings, reporter: &mut dyn Reporter) {
    if settings.skill >= FULL_STRENGTH {
        exact::prepare(session, settings, reporter);
    }
}

/// Runs the search that fits game `G` on the session's position.
pub fn run<G: Game>(
    session: &Session<G>,
    limits: &Limits,
    shared: &Shared,
    settings: &Settings,
    reporter: &mut dyn Reporter,
) -> SearchResult<G::Move> {
    shared.tt.new_search();
    let position = session.position();
    let two_seats = position.seats().len() == 2;
    // The algorithm follows what the game declares, never its name.
    if settings.skill < FULL_STRENGTH {
        skill::play(session, settings, limits, shared, reporter)
    } else if let Some(result) = exact::play(session, limits, shared, settings, reporter) {
        result
    } else if two_seats && !G::HAS_CHANCE {
        alphabeta::search(session, limits, shared, settings, reporter)
    } else if settings.multi_seat == MultiSeat::MaxN && !two_seats {
        maxn::search(session, limits, shared, settings, reporter)
    } else if settings.multi_seat == MultiSeat::Mcts && !two_seats {
        mcts::search(session, limits, shared, settings, reporter)
    } else if matches!(settings.multi_seat, MultiSeat::Puct | MultiSeat::Gumbel) && !two_seats {
        puct::search(session, limits, shared, settings, reporter)
    } else {
        expectimax::search(session, limits, shared, settings, reporter)
    }
}
