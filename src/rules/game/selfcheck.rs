//! Seeded random play that checks the invariants every game must keep
//! (OpenSpiel's basic game tests). The registry exposes it per game, so one
//! test runs it for every game and every ruleset without knowing them.

use std::fmt::Write;

use super::session::{status_of, Session};
use super::{Game, Outcome, Ruleset, Status};
use crate::rng::Rng;

/// What the random games covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckStats {
    pub games: u64,
    pub positions: u64,
    pub decided: u64,
    pub draws_by_rule: u64,
}

/// Plays `games` random games of ruleset `ruleset` and checks, at every
/// position: a copy equals the original; legal moves are unique; every move
/// prints and parses back (in either case); the notation round-trips with
/// the same hash; play then undo restores the position; the result is
/// consistent (no moves exactly when decided, winners are seats in play,
/// the session's status agrees). Returns the first violation.
pub fn random_play<G: Game>(
    ruleset: &Ruleset,
    seed: u64,
    games: u64,
) -> Result<CheckStats, String> {
    let mut rng = Rng::new(seed);
    let mut stats = CheckStats::default();
    for game in 0..games {
        let mut session = Session::<G>::new(ruleset.clone());
        let mut trail = String::new();
        loop {
            stats.positions += 1;
            check_position::<G>(&session).map_err(|e| {
                format!(
                    "{} {ruleset} game {game}, after moves [{trail}] at '{}': {e}",
                    G::ID,
                    session.position()
                )
            })?;
            let mut moves = Vec::new();
            session.legal(&mut moves);
            if moves.is_empty() {
                match session.status() {
                    Status::Over(_, super::EndReason::Rules(_)) => stats.decided += 1,
                    Status::Over(..) => stats.draws_by_rule += 1,
                    Status::Ongoing => {
                        return Err(format!("{} game {game}: no moves but ongoing", G::ID))
                    }
                }
                break;
            }
            let mv = moves[rng.below(moves.len() as u64) as usize];
            let _ = write!(trail, "{mv} ");
            session.play(mv);
        }
        stats.games += 1;
    }
    Ok(stats)
}

fn check_position<G: Game>(session: &Session<G>) -> Result<(), String> {
    let position = session.position();
    let copy = position.clone();
    if copy != *position || copy.hash() != position.hash() {
        return Err("a copy differs from the original".into());
    }

    let text = position.to_string();
    let parsed = G::from_notation(session.rules(), &text)
        .map_err(|e| format!("notation does not parse back: {e}"))?;
    if parsed != *position {
        return Err(format!(
            "notation round-trip changed the position: '{parsed}'"
        ));
    }
    if parsed.hash() != position.hash() {
        return Err("incremental hash differs from the hash of the parsed notation".into());
    }
    if parsed.to_string() != text {
        return Err("notation prints differently after a round-trip".into());
    }

    let mut moves = Vec::new();
    position.generate(&mut moves);
    for (i, mv) in moves.iter().enumerate() {
        if moves[..i].contains(mv) {
            return Err(format!("move {mv} generated twice"));
        }
        let written = mv.to_string();
        for form in [written.clone(), written.to_ascii_uppercase()] {
            match G::parse_move(&form) {
                Ok(back) if back == *mv => {}
                Ok(back) => return Err(format!("move {written} parses back as {back}")),
                Err(e) => return Err(format!("move {written} does not parse back: {e}")),
            }
        }
        let mut child = position.clone();
        let undo = child.play(*mv);
        if position.is_chance() == child.is_chance() && G::HAS_CHANCE && position.is_chance() {
            return Err(format!("chance move {mv} leads to another chance node"));
        }
        child.undo(*mv, undo);
        if child != *position || child.hash() != position.hash() {
            return Err(format!(
                "play and undo of {mv} does not restore the position"
            ));
        }
    }

    // The shortcuts of random playouts and perft agree with the list.
    let mut scratch = Vec::new();
    if position.count_moves(&mut scratch) != moves.len() {
        return Err(format!(
            "count_moves says {} moves, generate lists {}",
            position.count_moves(&mut scratch),
            moves.len()
        ));
    }
    for depth in 1..=2 {
        if let Some(bulk) = position.perft_bulk(depth) {
            let walked = super::perft::walked(position, depth);
            if bulk != walked {
                return Err(format!(
                    "perft_bulk({depth}) says {bulk}, the tree walk counts {walked}"
                ));
            }
        }
    }
    let seed = position.hash() ^ moves.len() as u64;
    let (mut by_move, mut by_list) = (Rng::new(seed), Rng::new(seed));
    for _ in 0..4 {
        let picked = position.random_move(&mut by_move, &mut scratch);
        let listed = (!moves.is_empty()).then(|| moves[by_list.below(moves.len() as u64) as usize]);
        if picked != listed {
            return Err(format!(
                "random_move picked {picked:?}, the list with the same draw {listed:?}"
            ));
        }
    }

    let (mut by_play, mut by_pick) = (Rng::new(seed), Rng::new(seed));
    let (mut played, mut picked) = (position.clone(), position.clone());
    let moved = played.play_random(&mut by_play, &mut scratch);
    if let Some(mv) = picked.random_move(&mut by_pick, &mut scratch) {
        picked.play(mv);
    }
    if played != picked || played.hash() != picked.hash() || played.clock() != picked.clock() {
        return Err("play_random leads elsewhere than random_move and play".into());
    }
    if moved == moves.is_empty() || by_play.below(1 << 20) != by_pick.below(1 << 20) {
        return Err("play_random draws differently from random_move".into());
    }

    let outcome = position.outcome();
    match (moves.is_empty(), outcome) {
        (true, None) => return Err("no legal moves but no outcome".into()),
        (false, Some(o)) => return Err(format!("legal moves exist but the outcome is {o:?}")),
        _ => {}
    }
    if let Some(Outcome::Win(seat)) = outcome.or_else(|| Some(position.no_progress_outcome())) {
        if !position.seats().contains(&seat) {
            return Err(format!("winner seat {seat} is not in play"));
        }
    }
    if !position.seats().contains(&position.side()) {
        return Err("the side to move is not a seat in play".into());
    }
    let status = status_of(position, session.history());
    if status != session.status() {
        return Err("status differs between session and history".into());
    }
    if let (Some(o), Status::Over(s, _)) = (outcome, status) {
        if o != s {
            return Err("a draw rule overrode a decisive result".into());
        }
    }
    Ok(())
}
