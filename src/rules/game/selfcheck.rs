//! Seeded random play that checks the invariants every game must keep
//! (OpenSpiel's basic game tests). The registry exposes it per game, so one
//! test runs it for every game and every ruleset without knowing them.

use std::fmt::{self, Write};

use super::inputs::NO_KEY;
use super::session::{status_of, Session};
use super::{Game, Outcome, Ruleset, Seat, Status};
use crate::rng::Rng;

/// An invariant a position broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broken {
    CopyDiffers,
    /// The notation does not parse back: why.
    NotationUnparsed(String),
    /// The round trip gave another position: its notation.
    NotationChanged(String),
    NotationHash,
    NotationReprinted,
    MoveTwice(String),
    /// A move's written form parses back as another move.
    MoveParsedAs(String, String),
    MoveUnparsed(String, String),
    ChanceAfterChance(String),
    UndoDiffers(String),
    /// The seat handed the turn.
    HandedTurn(Seat),
    /// `count_moves` and the list's length.
    CountMoves(usize, usize),
    /// A move's key is not below [`Game::MOVE_KEYS`].
    MoveKey(String),
    /// A move's actions ([`Game::move_actions`]) are empty, out of range,
    /// or the same as or the start of another move's.
    MoveActions(String),
    /// The depth, the bulk count and the tree walk's.
    PerftBulk(u32, u64, u64),
    /// `random_move`'s pick and the list's with the same draw.
    RandomMove(String, String),
    PlayRandomElsewhere,
    PlayRandomDraws,
    NoMovesNoOutcome,
    /// Moves exist, yet the outcome is this.
    MovesAndOutcome(String),
    WinnerNotInPlay(Seat),
    /// A seat's letter is not its entry in [`Game::SEAT_LETTERS`], which
    /// the catalogue (and the referee's records) read without a position.
    SeatLetter(Seat),
    /// The observation tensor ([`super::observation`]): what is wrong.
    Observation(String),
    /// A move that did not lower [`Game::most_plies`] (a roll that raised
    /// it): the move, the bound before and after.
    MostPlies(String, u64, u64),
    SideNotInPlay,
    StatusDiffers,
    DrawRuleOverDecision,
    NoMovesButOngoing,
    /// A learned evaluation's inputs: out of order, repeated, out of the
    /// input set's range, or the heads do not name each seat in play once.
    Inputs(String),
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Broken::CopyDiffers => f.write_str("a copy differs from the original"),
            Broken::NotationUnparsed(e) => write!(f, "notation does not parse back: {e}"),
            Broken::NotationChanged(p) => {
                write!(f, "notation round-trip changed the position: '{p}'")
            }
            Broken::NotationHash => {
                f.write_str("incremental hash differs from the hash of the parsed notation")
            }
            Broken::NotationReprinted => {
                f.write_str("notation prints differently after a round-trip")
            }
            Broken::MoveTwice(m) => write!(f, "move {m} generated twice"),
            Broken::MoveParsedAs(m, back) => write!(f, "move {m} parses back as {back}"),
            Broken::MoveUnparsed(m, e) => write!(f, "move {m} does not parse back: {e}"),
            Broken::ChanceAfterChance(m) => {
                write!(f, "chance move {m} leads to another chance node")
            }
            Broken::UndoDiffers(m) => {
                write!(f, "play and undo of {m} does not restore the position")
            }
            Broken::HandedTurn(seat) => write!(
                f,
                "handing the turn to seat {seat} gives it no fresh turn or is not taken back"
            ),
            Broken::MoveKey(m) => write!(f, "move {m}'s key is out of range"),
            Broken::MoveActions(m) => write!(
                f,
                "move {m}'s actions are empty, out of range, or start another move's"
            ),
            Broken::CountMoves(counted, listed) => write!(
                f,
                "count_moves says {counted} moves, generate lists {listed}"
            ),
            Broken::PerftBulk(depth, bulk, walked) => write!(
                f,
                "perft_bulk({depth}) says {bulk}, the tree walk counts {walked}"
            ),
            Broken::RandomMove(picked, listed) => write!(
                f,
                "random_move picked {picked}, the list with the same draw {listed}"
            ),
            Broken::PlayRandomElsewhere => {
                f.write_str("play_random leads elsewhere than random_move and play")
            }
            Broken::PlayRandomDraws => {
                f.write_str("play_random draws differently from random_move")
            }
            Broken::NoMovesNoOutcome => f.write_str("no legal moves but no outcome"),
            Broken::MovesAndOutcome(o) => write!(f, "legal moves exist but the outcome is {o}"),
            Broken::WinnerNotInPlay(seat) => write!(f, "winner seat {seat} is not in play"),
            Broken::Observation(what) => write!(f, "observation: {what}"),
            Broken::MostPlies(mv, before, after) => {
                write!(f, "{mv} took the most plies left from {before} to {after}")
            }
            Broken::SeatLetter(seat) => {
                write!(f, "seat {seat}'s letter is not SEAT_LETTERS[{seat}]")
            }
            Broken::SideNotInPlay => f.write_str("the side to move is not a seat in play"),
            Broken::StatusDiffers => f.write_str("status differs between session and history"),
            Broken::DrawRuleOverDecision => f.write_str("a draw rule overrode a decisive result"),
            Broken::NoMovesButOngoing => f.write_str("no moves but ongoing"),
            Broken::Inputs(what) => write!(f, "network inputs: {what}"),
        }
    }
}

impl std::error::Error for Broken {}

/// Where random play found a broken invariant, and which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Game and ruleset.
    pub game: String,
    /// Which random game, and the moves that led there.
    pub index: u64,
    pub trail: String,
    /// The position's notation.
    pub at: String,
    pub broken: Broken,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} game {}, after moves [{}] at '{}': {}",
            self.game, self.index, self.trail, self.at, self.broken
        )
    }
}

impl std::error::Error for Violation {}

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
) -> Result<CheckStats, Box<Violation>> {
    let mut rng = Rng::new(seed);
    let mut stats = CheckStats::default();
    for game in 0..games {
        let mut session = Session::<G>::new(ruleset.clone());
        let mut trail = String::new();
        loop {
            stats.positions += 1;
            let violation = |broken| {
                Box::new(Violation {
                    game: format!("{} {ruleset}", G::ID),
                    index: game,
                    trail: trail.clone(),
                    at: session.position().to_string(),
                    broken,
                })
            };
            check_position::<G>(&session).map_err(violation)?;
            let mut moves = Vec::new();
            session.legal(&mut moves);
            if moves.is_empty() {
                match session.status() {
                    Status::Over(_, super::EndReason::Rules(_)) => stats.decided += 1,
                    Status::Over(..) => stats.draws_by_rule += 1,
                    Status::Ongoing => return Err(violation(Broken::NoMovesButOngoing)),
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

/// The inputs of [`Game::INPUT_SET`] are strictly ascending and in range,
/// the same for a copy of the position, and the heads name every seat in
/// play exactly once (a single head: the side to move).
fn check_inputs<G: Game>(position: &G) -> Result<(), Broken> {
    let Some(set) = G::INPUT_SET else {
        return Ok(());
    };
    let mut inputs = super::inputs::Inputs::new();
    position.inputs(&mut inputs);
    let list = inputs.as_slice();
    if list.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Broken::Inputs(format!("not strictly ascending: {list:?}")));
    }
    if list.iter().any(|&i| i as usize >= set.inputs) {
        return Err(Broken::Inputs(format!(
            "past {} inputs: {list:?}",
            set.inputs
        )));
    }
    let mut again = super::inputs::Inputs::new();
    position.clone().inputs(&mut again);
    if again != inputs {
        return Err(Broken::Inputs("a copy has other inputs".into()));
    }
    let mut named: Vec<Seat> = (0..set.heads)
        .filter_map(|h| position.head_seat(h))
        .collect();
    named.sort_unstable();
    // One head speaks for the mover; the other seat has the rest.
    let mut seats = if set.heads == 1 {
        vec![position.side()]
    } else {
        position.seats().to_vec()
    };
    seats.sort_unstable();
    if named != seats {
        return Err(Broken::Inputs(format!(
            "heads name seats {named:?}, in play {seats:?}"
        )));
    }
    Ok(())
}

/// Where the input set has move keys, every move a player chooses has
/// one or two below their count, in its first slots; a roll has none.
fn check_policy_keys<G: Game>(position: &G, moves: &[G::Move]) -> Result<(), Broken> {
    let Some(set) = G::INPUT_SET.filter(|set| set.moves > 0) else {
        return Ok(());
    };
    for &mv in moves {
        let keys = position.policy_keys(mv);
        let used: Vec<u16> = keys.into_iter().filter(|&k| k != NO_KEY).collect();
        let well_placed = keys[0] != NO_KEY || keys[1] == NO_KEY;
        let fits = if position.is_chance() {
            used.is_empty()
        } else {
            !used.is_empty() && used.iter().all(|&k| (k as usize) < set.moves)
        };
        if !fits || !well_placed {
            return Err(Broken::Inputs(format!(
                "move {mv} has policy keys {keys:?} (of {})",
                set.moves
            )));
        }
    }
    Ok(())
}

fn check_position<G: Game>(session: &Session<G>) -> Result<(), Broken> {
    let position = session.position();
    check_copy_and_notation(session)?;
    check_inputs(position)?;
    let mut moves = Vec::new();
    position.generate(&mut moves);
    check_moves(position, &moves)?;
    check_policy_keys(position, &moves)?;
    check_handed_turns(session)?;
    check_seat_letters(position)?;
    check_observation(position)?;
    check_most_plies(position, &moves)?;
    check_actions::<G>(&moves)?;
    check_shortcuts(position, &moves)?;
    check_outcome(session, &moves)
}

/// The bound on the game's length is a countdown: every ply lowers it,
/// a roll never raises it.
fn check_most_plies<G: Game>(position: &G, moves: &[G::Move]) -> Result<(), Broken> {
    // The clock has ended the game: nothing is played from here.
    if position.clock() >= G::NO_PROGRESS_LIMIT {
        return Ok(());
    }
    let before = position.most_plies();
    let mut child = position.clone();
    for &mv in moves {
        let undo = child.play(mv);
        let after = child.most_plies();
        child.undo(mv, undo);
        let lowered = if position.is_chance() {
            after <= before
        } else {
            after < before
        };
        if !lowered {
            return Err(Broken::MostPlies(mv.to_string(), before, after));
        }
    }
    Ok(())
}

/// For every seat of the game's geometry: the tensor has its shape, its
/// numbers lie in [0, 1], the board turned for the seat is a permutation
/// of the points, and the men's planes hold one 1 per man, where it stands.
fn check_observation<G: Game>(position: &G) -> Result<(), Broken> {
    use super::observation::{observe, place, shape};
    let broken = |what: String| Err(Broken::Observation(what));
    let shape = shape(position);
    let mut men = Vec::new();
    position.men(&mut men);
    let mut out = Vec::new();
    for seat in 0..G::SEAT_LETTERS.len() as Seat {
        observe(position, seat, &mut out);
        if out.len() != shape.len() {
            return broken(format!("{} numbers, shape {shape:?}", out.len()));
        }
        if let Some(v) = out.iter().find(|v| !(0.0..=1.0).contains(*v)) {
            return broken(format!("value {v} for seat {seat}"));
        }
        let mut seen: Vec<usize> = (0..shape.points)
            .map(|p| position.seen_from(p, seat))
            .collect();
        seen.sort_unstable();
        if seen.iter().enumerate().any(|(i, &p)| i != p) {
            return broken(format!("seat {seat}'s turned board is no permutation"));
        }
        let places = G::SEAT_LETTERS.len();
        let men_planes = &out[..G::PIECE_KINDS.len() * places * shape.points];
        let ones = men_planes.iter().filter(|&&v| v == 1.0).count();
        let placed = men.iter().all(|m| {
            let plane = m.kind * places + place::<G>(m.owner, seat);
            men_planes[plane * shape.points + position.seen_from(m.point, seat)] == 1.0
        });
        if ones != men.len() || !placed {
            return broken(format!("{ones} ones for {} men, seat {seat}", men.len()));
        }
    }
    Ok(())
}

fn check_seat_letters<G: Game>(position: &G) -> Result<(), Broken> {
    match position
        .seats()
        .iter()
        .find(|&&seat| G::SEAT_LETTERS.get(seat as usize) != Some(&G::seat_letter(seat)))
    {
        Some(&seat) => Err(Broken::SeatLetter(seat)),
        None => Ok(()),
    }
}

/// A copy equals its original; the notation reads back to the same
/// position, hash and text.
fn check_copy_and_notation<G: Game>(session: &Session<G>) -> Result<(), Broken> {
    let position = session.position();
    let copy = position.clone();
    if copy != *position || copy.hash() != position.hash() {
        return Err(Broken::CopyDiffers);
    }

    let text = position.to_string();
    let parsed = G::from_notation(session.rules(), &text)
        .map_err(|e| Broken::NotationUnparsed(e.to_string()))?;
    if parsed != *position {
        return Err(Broken::NotationChanged(parsed.to_string()));
    }
    if parsed.hash() != position.hash() {
        return Err(Broken::NotationHash);
    }
    if parsed.to_string() != text {
        return Err(Broken::NotationReprinted);
    }
    Ok(())
}

/// Each move is listed once, prints and parses back (in either case),
/// and its undo restores the position.
fn check_moves<G: Game>(position: &G, moves: &[G::Move]) -> Result<(), Broken> {
    for (i, mv) in moves.iter().enumerate() {
        if moves[..i].contains(mv) {
            return Err(Broken::MoveTwice(mv.to_string()));
        }
        let written = mv.to_string();
        for form in [written.clone(), written.to_ascii_uppercase()] {
            match G::parse_move(&form) {
                Ok(back) if back == *mv => {}
                Ok(back) => return Err(Broken::MoveParsedAs(written, back.to_string())),
                Err(e) => return Err(Broken::MoveUnparsed(written, e.to_string())),
            }
        }
        let mut child = position.clone();
        let undo = child.play(*mv);
        if position.is_chance() == child.is_chance() && G::HAS_CHANCE && position.is_chance() {
            return Err(Broken::ChanceAfterChance(mv.to_string()));
        }
        child.undo(*mv, undo);
        if child != *position || child.hash() != position.hash() {
            return Err(Broken::UndoDiffers(mv.to_string()));
        }
    }
    Ok(())
}

/// A turn handed out of order is that seat's fresh turn and is taken
/// back exactly; the hash follows the handed position.
fn check_handed_turns<G: Game>(session: &Session<G>) -> Result<(), Broken> {
    let position = session.position();
    for &seat in position.seats() {
        let mut handed = position.clone();
        if let Some(undo) = handed.hand_turn(seat) {
            let fresh = handed.side() == seat
                && (handed.is_chance() || !G::HAS_CHANCE)
                && G::from_notation(session.rules(), &handed.to_string())
                    .is_ok_and(|p| p.hash() == handed.hash());
            handed.take_back_turn(undo);
            if !fresh || handed != *position || handed.hash() != position.hash() {
                return Err(Broken::HandedTurn(seat));
            }
        }
    }
    Ok(())
}

/// Keys are in range; each move is a sequence of actions that no other
/// move's starts with (`Game::move_actions`). Sorted, a sequence that
/// starts another comes right before it or before one that it also
/// starts, so neighbours are enough.
fn check_actions<G: Game>(moves: &[G::Move]) -> Result<(), Broken> {
    let mut actions: Vec<(Vec<usize>, G::Move)> = Vec::with_capacity(moves.len());
    for &mv in moves.iter() {
        if G::move_key(mv) >= G::MOVE_KEYS {
            return Err(Broken::MoveKey(mv.to_string()));
        }
        let mut out = Vec::new();
        G::move_actions(mv, &mut out);
        if out.is_empty() || out.iter().any(|&a| a >= G::ACTIONS) {
            return Err(Broken::MoveActions(mv.to_string()));
        }
        actions.push((out, mv));
    }
    actions.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if let Some(pair) = actions.windows(2).find(|w| w[1].0.starts_with(&w[0].0)) {
        return Err(Broken::MoveActions(pair[0].1.to_string()));
    }
    Ok(())
}

/// The shortcuts of random playouts and perft agree with the list.
fn check_shortcuts<G: Game>(position: &G, moves: &[G::Move]) -> Result<(), Broken> {
    let mut scratch = Vec::new();
    if position.count_moves(&mut scratch) != moves.len() {
        return Err(Broken::CountMoves(
            position.count_moves(&mut scratch),
            moves.len(),
        ));
    }
    for depth in 1..=2 {
        if let Some(bulk) = position.perft_bulk(depth) {
            let walked = super::perft::walked(position, depth);
            if bulk != walked {
                return Err(Broken::PerftBulk(depth, bulk, walked));
            }
        }
    }
    let seed = position.hash() ^ moves.len() as u64;
    let (mut by_move, mut by_list) = (Rng::new(seed), Rng::new(seed));
    for _ in 0..4 {
        let picked = position.random_move(&mut by_move, &mut scratch);
        let listed = (!moves.is_empty()).then(|| moves[by_list.below(moves.len() as u64) as usize]);
        if picked != listed {
            return Err(Broken::RandomMove(
                format!("{picked:?}"),
                format!("{listed:?}"),
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
        return Err(Broken::PlayRandomElsewhere);
    }
    if moved == moves.is_empty() || by_play.below(1 << 20) != by_pick.below(1 << 20) {
        return Err(Broken::PlayRandomDraws);
    }
    Ok(())
}

/// An outcome exactly when there is no move; winners and the side to
/// move in play; the session's status as the rules give it.
fn check_outcome<G: Game>(session: &Session<G>, moves: &[G::Move]) -> Result<(), Broken> {
    let position = session.position();
    let outcome = position.outcome();
    match (moves.is_empty(), outcome) {
        (true, None) => return Err(Broken::NoMovesNoOutcome),
        (false, Some(o)) => return Err(Broken::MovesAndOutcome(format!("{o:?}"))),
        _ => {}
    }
    if let Some(Outcome::Win(seat)) = outcome.or_else(|| Some(position.no_progress_outcome())) {
        if !position.seats().contains(&seat) {
            return Err(Broken::WinnerNotInPlay(seat));
        }
    }
    if !position.seats().contains(&position.side()) {
        return Err(Broken::SideNotInPlay);
    }
    let status = status_of(position, session.history());
    if status != session.status() {
        return Err(Broken::StatusDiffers);
    }
    if let (Some(o), Status::Over(s, _)) = (outcome, status) {
        if o != s {
            return Err(Broken::DrawRuleOverDecision);
        }
    }
    Ok(())
}
