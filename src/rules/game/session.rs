//! A game in progress: a position plus the history the draw rules need, and
//! its object-safe face ([`DynSession`]) for code that does not know the
//! game's type. The face knows the rules only; the engine joins it to the
//! search (see [`crate::catalogue::Attach`]).

use std::fmt;
use std::sync::atomic::AtomicBool;

use super::{EndReason, Game, Outcome, Ruleset, Status};
use crate::notation::{MoveError, NotationError};
use crate::rng::Rng;

/// A position together with everything needed to apply the draw rules:
/// the hashes of every position since the notation that `position` or
/// `newgame` set (that one included), and the moves played since then.
#[derive(Clone)]
pub struct Session<G: Game> {
    ruleset: Ruleset,
    rules: G::Rules,
    position: G,
    history: Vec<u64>,
    played: Vec<(G::Move, G::Undo)>,
}

impl<G: Game> Session<G> {
    /// The start position of `ruleset`.
    pub fn new(ruleset: Ruleset) -> Session<G> {
        let rules = G::rules(&ruleset);
        let position = G::start(&rules);
        Session {
            history: vec![position.hash()],
            ruleset,
            rules,
            position,
            played: Vec::new(),
        }
    }

    pub fn position(&self) -> &G {
        &self.position
    }

    pub fn rules(&self) -> &G::Rules {
        &self.rules
    }

    /// Hashes of the positions since the set position, the current one last.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// Replaces the position and forgets the history.
    pub fn set(&mut self, position: G) {
        self.history.clear();
        self.history.push(position.hash());
        self.played.clear();
        self.position = position;
    }

    /// The game's state, draw rules included; a decisive result by the rules
    /// stands over a draw rule that holds at the same moment.
    pub fn status(&self) -> Status {
        status_of(&self.position, &self.history)
    }

    /// Legal moves, none when the game is over (draw rules included).
    pub fn legal(&self, moves: &mut Vec<G::Move>) {
        moves.clear();
        if self.status() == Status::Ongoing {
            self.position.generate(moves);
        }
    }

    /// Plays a move known to be legal.
    pub fn play(&mut self, mv: G::Move) {
        let undo = self.position.play(mv);
        self.played.push((mv, undo));
        self.history.push(self.position.hash());
    }

    /// Takes back the last move; false when there is none since the set position.
    pub fn undo(&mut self) -> bool {
        match self.played.pop() {
            Some((mv, undo)) => {
                self.position.undo(mv, undo);
                self.history.pop();
                true
            }
            None => false,
        }
    }

    /// Parses and plays one move if it is legal here.
    pub fn play_text(&mut self, text: &str) -> Result<G::Move, MoveError> {
        let mv = G::parse_move(text).map_err(MoveError::Syntax)?;
        if self.status() != Status::Ongoing {
            return Err(MoveError::GameOver(mv.to_string()));
        }
        let mut legal = Vec::new();
        self.position.generate(&mut legal);
        if !legal.contains(&mv) {
            return Err(MoveError::Illegal(mv.to_string()));
        }
        self.play(mv);
        Ok(mv)
    }

    /// The moves played since the set position.
    pub fn moves(&self) -> impl Iterator<Item = G::Move> + '_ {
        self.played.iter().map(|(mv, _)| *mv)
    }
}

/// `start` after `plies` moves drawn by `rng` (rolls drawn too, not
/// counted), drawn again (up to 100 times) if they end the game: the
/// random opening of a self-play game or a study's set, as the referee
/// draws its own.
pub fn random_opening<G: Game>(start: &Session<G>, rng: &mut Rng, plies: u32) -> Session<G> {
    let mut moves = Vec::new();
    let mut session = start.clone();
    for _ in 0..100 {
        session = start.clone();
        let mut played = 0;
        while played < plies && session.status() == Status::Ongoing {
            session.legal(&mut moves);
            let mv = moves[rng.below(moves.len() as u64) as usize];
            if !session.position().is_chance() {
                played += 1;
            }
            session.play(mv);
        }
        if session.status() == Status::Ongoing {
            break;
        }
    }
    session
}

/// Status of `position` given the hashes of the game so far (current last).
pub fn status_of<G: Game>(position: &G, history: &[u64]) -> Status {
    if let Some(outcome) = position.outcome() {
        return Status::Over(outcome, EndReason::Rules(position.end_reason()));
    }
    if position.clock() >= G::NO_PROGRESS_LIMIT {
        return Status::Over(position.no_progress_outcome(), EndReason::NoProgress);
    }
    if !G::HAS_CHANCE {
        let key = position.hash();
        if history.iter().filter(|&&h| h == key).count() >= 3 {
            return Status::Over(Outcome::Draw, EndReason::Repetition);
        }
    }
    Status::Ongoing
}

/// Why `position` or `move` was refused; the session is left unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    Notation(NotationError),
    /// `index` counts from 1 among the moves of the command.
    Move {
        index: usize,
        error: MoveError,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            PositionError::Notation(e) => write!(f, "bad notation: {e}"),
            PositionError::Move { index, error } => write!(f, "move {index}: {error}"),
        }
    }
}

impl std::error::Error for PositionError {}

/// A session seen without its game type: what the protocol, the referee
/// and tools need. Implemented once, generically, for every `Session<G>`.
pub trait DynSession: Send + Sync {
    fn game_id(&self) -> &'static str;
    fn ruleset(&self) -> &Ruleset;
    fn boxed_clone(&self) -> Box<dyn DynSession>;
    /// Notation of the current position.
    fn notation(&self) -> String;
    /// Sets a position from a notation (or the start) and plays `moves` on
    /// it; all or nothing.
    fn set_position(
        &mut self,
        notation: Option<&str>,
        moves: &[String],
    ) -> Result<(), PositionError>;
    /// Plays `moves` on the current position; all or nothing.
    fn play_moves(&mut self, moves: &[String]) -> Result<(), PositionError>;
    /// Takes back the last move or roll; false when there is none since
    /// the set position.
    fn take_back(&mut self) -> bool;
    /// Legal moves in notation, none when the game is over.
    fn legal_moves(&self) -> Vec<String>;
    /// Legal moves as sequences of action numbers (OpenSpiel's; see
    /// [`super::Game::move_actions`]), in the order of
    /// [`DynSession::legal_moves`].
    fn move_actions(&self) -> Vec<(Vec<usize>, String)>;
    /// How an action that does not end a move is written
    /// ([`super::Game::action_text`]).
    fn action_text(&self, action: usize) -> Option<String>;
    fn status(&self) -> Status;
    fn side_letter(&self) -> char;
    /// The seat to move.
    fn side(&self) -> super::Seat;
    /// Letters of the seats in play, in turn order.
    fn seat_letters(&self) -> Vec<char>;
    /// The seats in play, in turn order.
    fn seats_in_play(&self) -> Vec<super::Seat>;
    fn seat_letter_of(&self, seat: super::Seat) -> char;
    fn awaiting_chance(&self) -> bool;
    /// The position as `seat` sees it, as planes ([`super::observation`]),
    /// and the tensor's shape.
    fn observation(&self, seat: super::Seat) -> (super::observation::Shape, Vec<f32>);
    /// The names of the observation's planes, in order.
    fn plane_names(&self) -> Vec<String>;
    /// The observation's shape, without building it.
    fn observation_shape(&self) -> super::observation::Shape;
    /// Most actions (rolls included) a game from this position can take
    /// ([`super::Game::most_actions`]).
    fn most_actions(&self) -> u64;
    /// Plies since the last progress (capture, drop or landing).
    fn clock(&self) -> u32;
    /// A point's index in the observation's planes as `seat` sees it,
    /// from its name in the game's notation.
    fn observation_point(&self, name: &str, seat: super::Seat) -> Option<usize>;
    /// The board drawing used by `d`.
    fn draw(&self) -> String;
    /// Perft split by root move (see [`super::perft::divide`]).
    fn perft_divide(
        &self,
        depth: u32,
        stop: &AtomicBool,
        each: &mut dyn FnMut(&str, u64),
    ) -> Option<u64>;
    /// Moves played since the set position.
    fn moves_played(&self) -> Vec<String>;
    /// The side to move's place in the seat order, and the number of seats.
    fn seat_order(&self) -> (usize, usize);
    /// Random games from the current position (see [`super::playout`]),
    /// fewer if `stop` is set.
    fn playouts(&self, games: u64, seed: u64, stop: &AtomicBool) -> super::playout::PlayoutStats;
    /// At a position awaiting a chance outcome: one drawn with the game's
    /// own probabilities from `rng`, played, and returned in notation.
    /// `None` (nothing drawn or played) where a player moves.
    fn play_chance(&mut self, rng: &mut Rng) -> Option<String>;
}

impl<G: Game> DynSession for Session<G> {
    fn game_id(&self) -> &'static str {
        G::ID
    }

    fn ruleset(&self) -> &Ruleset {
        &self.ruleset
    }

    fn boxed_clone(&self) -> Box<dyn DynSession> {
        Box::new(self.clone())
    }

    fn notation(&self) -> String {
        self.position.to_string()
    }

    fn set_position(
        &mut self,
        notation: Option<&str>,
        moves: &[String],
    ) -> Result<(), PositionError> {
        let position = match notation {
            Some(text) => G::from_notation(&self.rules, text).map_err(PositionError::Notation)?,
            None => G::start(&self.rules),
        };
        let mut next = self.clone();
        next.set(position);
        next.play_moves(moves)?;
        *self = next;
        Ok(())
    }

    fn play_moves(&mut self, moves: &[String]) -> Result<(), PositionError> {
        let mut next = self.clone();
        for (i, text) in moves.iter().enumerate() {
            next.play_text(text).map_err(|error| PositionError::Move {
                index: i + 1,
                error,
            })?;
        }
        *self = next;
        Ok(())
    }

    fn take_back(&mut self) -> bool {
        self.undo()
    }

    fn legal_moves(&self) -> Vec<String> {
        let mut moves = Vec::new();
        self.legal(&mut moves);
        moves.iter().map(|m| m.to_string()).collect()
    }

    fn move_actions(&self) -> Vec<(Vec<usize>, String)> {
        let mut moves = Vec::new();
        self.legal(&mut moves);
        moves
            .iter()
            .map(|&m| {
                let mut actions = Vec::new();
                G::move_actions(m, &mut actions);
                (actions, m.to_string())
            })
            .collect()
    }

    fn action_text(&self, action: usize) -> Option<String> {
        G::action_text(action)
    }

    fn status(&self) -> Status {
        Session::status(self)
    }

    fn side(&self) -> super::Seat {
        self.position.side()
    }

    fn side_letter(&self) -> char {
        G::seat_letter(self.position.side())
    }

    fn seat_letters(&self) -> Vec<char> {
        self.position
            .seats()
            .iter()
            .map(|&s| G::seat_letter(s))
            .collect()
    }

    fn seats_in_play(&self) -> Vec<super::Seat> {
        self.position.seats().to_vec()
    }

    fn seat_letter_of(&self, seat: super::Seat) -> char {
        G::seat_letter(seat)
    }

    fn observation(&self, seat: super::Seat) -> (super::observation::Shape, Vec<f32>) {
        let mut out = Vec::new();
        super::observation::observe(&self.position, seat, &mut out);
        (super::observation::shape(&self.position), out)
    }

    fn plane_names(&self) -> Vec<String> {
        super::observation::plane_names::<G>()
    }

    fn observation_shape(&self) -> super::observation::Shape {
        super::observation::shape(&self.position)
    }

    fn most_actions(&self) -> u64 {
        self.position.most_actions()
    }

    fn clock(&self) -> u32 {
        self.position.clock()
    }

    fn observation_point(&self, name: &str, seat: super::Seat) -> Option<usize> {
        let position = &self.position;
        let point = (0..position.points()).find(|&p| position.point_name(p) == name)?;
        Some(position.seen_from(point, seat))
    }

    fn awaiting_chance(&self) -> bool {
        self.position.is_chance()
    }

    fn draw(&self) -> String {
        self.position.draw()
    }

    fn perft_divide(
        &self,
        depth: u32,
        stop: &AtomicBool,
        each: &mut dyn FnMut(&str, u64),
    ) -> Option<u64> {
        super::perft::divide(&self.position, depth, stop, each)
    }

    fn moves_played(&self) -> Vec<String> {
        self.moves().map(|m| m.to_string()).collect()
    }

    fn seat_order(&self) -> (usize, usize) {
        let seats = self.position.seats();
        let side = self.position.side();
        (
            seats
                .iter()
                .position(|&s| s == side)
                .expect("the side to move has a seat at the table"),
            seats.len(),
        )
    }

    fn playouts(&self, games: u64, seed: u64, stop: &AtomicBool) -> super::playout::PlayoutStats {
        super::playout::playouts(&self.position, games, seed, stop)
    }

    fn play_chance(&mut self, rng: &mut Rng) -> Option<String> {
        if self.status() != Status::Ongoing {
            return None;
        }
        let outcome = self.position.sample_chance(rng, &mut Vec::new())?;
        self.play(outcome);
        Some(outcome.to_string())
    }
}
