//! The shared game trait and the generic machinery built on it.
//!
//! Every game lives in one file under `src/rules/games/` (helper files in a
//! folder of the game's name) and implements [`Game`].
//! Search, protocol, perft and referee only ever see this trait (through the
//! object-safe [`session::DynSession`] at run time), so adding a game is one
//! file plus one line in [`crate::catalogue`].

pub mod endgame;
pub mod inputs;
pub mod observation;
pub mod perft;
pub mod playout;
pub mod ruleset;
pub mod selfcheck;
pub mod session;

use std::fmt;

pub use ruleset::{OptionSpec, Ruleset, RulesetError};

use crate::notation::{MoveSyntaxError, NotationError};
use crate::rng::Rng;

/// A seat index. Seats are numbered in turn order as the game defines them;
/// the game maps them to letters with [`Game::SEAT_LETTERS`].
pub type Seat = u8;

/// Most seats any game has (Kilkenny Cats with four players).
pub const MAX_SEATS: usize = 4;

/// The end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Seat),
    Draw,
}

impl Outcome {
    /// Score of `seat` in this outcome: 1 for the winner, 0 for a loser,
    /// and 1/2 for everyone in a draw.
    pub fn score(self, seat: Seat) -> f64 {
        match self {
            Outcome::Win(w) if w == seat => 1.0,
            Outcome::Win(_) => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// Why a game ended, for `d`, the protocol, the referee and records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Decided by the game's own rules; the word is one of the game's
    /// [`Game::END_REASONS`] (`tiger-trapped`, `lion-captured`, ...).
    Rules(&'static str),
    /// The no-progress limit of plies was reached.
    NoProgress,
    /// The same position occurred a third time.
    Repetition,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            EndReason::Rules(word) => word,
            EndReason::NoProgress => "no-progress",
            EndReason::Repetition => "repetition",
        })
    }
}

/// The reason words every game shares, with what they mean.
pub const DRAW_RULE_REASONS: &[(&str, &str)] = &[
    ("no-progress", "the no-progress limit of plies was reached"),
    ("repetition", "the same position occurred a third time"),
];

/// The state of a game as seen by the protocol: still going, or over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ongoing,
    Over(Outcome, EndReason),
}

/// [`Game::play_random`] by [`Game::random_move`] and [`Game::play`]: the
/// default, and the fallback of games that override it for part of a game.
pub fn play_random_move<G: Game>(
    position: &mut G,
    rng: &mut Rng,
    scratch: &mut Vec<G::Move>,
) -> bool {
    match position.random_move(rng, scratch) {
        Some(mv) => {
            position.play(mv);
            true
        }
        None => false,
    }
}

/// One board game: its positions, rules, moves and notation.
///
/// Conventions every implementation keeps:
/// - [`Game::generate`] yields the legal moves ignoring the two draw rules
///   (no-progress clock and repetition, which [`session::Session`] applies);
///   it yields nothing exactly when [`Game::outcome`] is `Some`.
/// - At a chance node ([`Game::is_chance`]) the moves are the chance
///   outcomes, all equally likely; they are applied by [`Game::play`] like
///   any other move (OpenSpiel's chance player).
/// - [`Game::hash`] is a Zobrist key kept incrementally; it covers the board,
///   the side to move, the hands and any pending roll, never the clock.
pub trait Game: Clone + PartialEq + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// A move, a drop, a leap chain or a die roll; `Display` prints it in the
    /// protocol's notation.
    type Move: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static;
    /// What [`Game::undo`] needs besides the move to restore the position.
    type Undo: Copy + Send + Sync;
    /// The ruleset options resolved into what the move generator needs.
    type Rules: Clone + fmt::Debug + PartialEq + Send + Sync + 'static;

    /// Canonical id, as in RULES.md.
    const ID: &'static str;
    /// The game's name for people.
    const NAME: &'static str;
    /// Each seat's name for people, indexed by [`Seat`] (like the letters).
    const SEAT_NAMES: &'static [&'static str];
    /// How moves are written, in one line for people and GUIs.
    const MOVE_SYNTAX: &'static str;
    /// The words [`Game::end_reason`] can give, each with what it means
    /// (for people: "the tiger cannot move").
    const END_REASONS: &'static [(&'static str, &'static str)];
    /// Short names accepted by `newgame`.
    const ALIASES: &'static [&'static str];
    /// Ruleset options accepted by `newgame`, each with its default.
    const OPTIONS: &'static [OptionSpec];
    /// Letter of each seat, indexed by [`Seat`].
    const SEAT_LETTERS: &'static [char];
    /// Whether the game has chance nodes (dice).
    const HAS_CHANCE: bool;
    /// Plies without progress after which the game ends.
    const NO_PROGRESS_LIMIT: u32;

    /// Resolves chosen options into rules.
    fn rules(ruleset: &Ruleset) -> Self::Rules;
    /// The start position of a ruleset.
    fn start(rules: &Self::Rules) -> Self;
    /// Parses a position notation (the `Display` of a position is its notation).
    fn from_notation(rules: &Self::Rules, text: &str) -> Result<Self, NotationError>;
    /// Parses a move's written form, without judging legality.
    fn parse_move(text: &str) -> Result<Self::Move, MoveSyntaxError>;

    /// The seats in play, in turn order.
    fn seats(&self) -> &[Seat];
    /// The seat to move (at a chance node: the seat about to roll).
    fn side(&self) -> Seat;
    /// Whether the next move is a chance outcome rather than a player's choice.
    fn is_chance(&self) -> bool {
        false
    }

    /// Appends the legal moves (see the trait conventions) to `moves`.
    fn generate(&self, moves: &mut Vec<Self::Move>);
    /// How many moves [`Game::generate`] yields. Perft's last ply and
    /// random playouts only need the number; games that can count without
    /// listing (population counts of target masks) override it.
    fn count_moves(&self, scratch: &mut Vec<Self::Move>) -> usize {
        scratch.clear();
        self.generate(scratch);
        scratch.len()
    }
    /// Perft of this position `depth` (1 or 2) player plies deep, where the
    /// game can count it without playing the moves (the leaves past a
    /// dice roll from per-roll masks; the grandchildren of a node from the
    /// change each move makes). `None`, the default, sends perft down the
    /// tree. The random-play check compares it with the tree walk.
    #[inline(always)]
    fn perft_bulk(&self, depth: u32) -> Option<u64> {
        let _ = depth;
        None
    }
    /// A uniformly random legal move: the move at `rng.below(count)` in
    /// [`Game::generate`]'s order, drawing exactly one number, or `None`
    /// (drawing nothing) without moves. Games that can find the n-th move
    /// without listing the others override it; either way the same seed
    /// gives the same game.
    fn random_move(&self, rng: &mut Rng, scratch: &mut Vec<Self::Move>) -> Option<Self::Move> {
        scratch.clear();
        self.generate(scratch);
        if scratch.is_empty() {
            return None;
        }
        Some(scratch[rng.below(scratch.len() as u64) as usize])
    }
    /// Plays the move [`Game::random_move`] would pick with the same draw
    /// and returns true, or returns false (drawing nothing) without moves.
    /// Random playouts use it; a game that can play a move straight from
    /// its index (no move value to build and decode) overrides it.
    fn play_random(&mut self, rng: &mut Rng, scratch: &mut Vec<Self::Move>) -> bool {
        play_random_move(self, rng, scratch)
    }
    /// At a chance node, an outcome drawn with its probability (the
    /// game owns its chance device, as OpenSpiel's chance player does; by
    /// default every outcome is equally likely, drawn as
    /// [`Game::random_move`] draws); `None` (drawing nothing) where a
    /// player moves.
    fn sample_chance(&self, rng: &mut Rng, scratch: &mut Vec<Self::Move>) -> Option<Self::Move> {
        if !self.is_chance() {
            return None;
        }
        self.random_move(rng, scratch)
    }
    /// Hands the turn to `seat` out of the rules' order, at the start of
    /// its turn (before any roll), keeping the board: Best-Reply Search
    /// lets any one opponent reply to the root this way. What
    /// [`Game::take_back_turn`] needs to restore the position, or `None`
    /// where the game cannot (the default), the seat cannot move (it is
    /// out) or the game is over.
    fn hand_turn(&mut self, seat: Seat) -> Option<Self::Undo> {
        let _ = seat;
        None
    }
    /// Restores the position as it was before [`Game::hand_turn`].
    fn take_back_turn(&mut self, undo: Self::Undo) {
        let _ = undo;
    }
    /// Plays a move that [`Game::generate`] produced.
    fn play(&mut self, mv: Self::Move) -> Self::Undo;
    /// Takes back the last move played.
    fn undo(&mut self, mv: Self::Move, undo: Self::Undo);
    /// The result by the game's own rules, ignoring the draw rules.
    fn outcome(&self) -> Option<Outcome>;
    /// Why the game's own rules ended it: one of [`Game::END_REASONS`].
    /// Asked only when [`Game::outcome`] is `Some`.
    fn end_reason(&self) -> &'static str;

    /// Plies since the last progress (capture, drop or landing).
    fn clock(&self) -> u32;

    /// Sets the no-progress clock (no part of the hash), as a notation
    /// with another clock field would.
    fn set_clock(&mut self, clock: u32);
    /// The result when the no-progress limit is reached.
    fn no_progress_outcome(&self) -> Outcome {
        Outcome::Draw
    }
    /// Zobrist key of everything but the clock.
    fn hash(&self) -> u64;

    /// An ASCII drawing of the board for `d`, lines ending in `\n`.
    fn draw(&self) -> String;

    /// Whether a move captures (or otherwise changes the material balance
    /// at once); searched first and in quiescence.
    fn is_capture(&self, mv: Self::Move) -> bool;

    /// Static evaluation in centipawn-like units for the side to move.
    /// Only consulted by searches of two-seat deterministic games.
    fn evaluate(&self) -> i32 {
        0
    }

    /// For games small enough to solve by retrograde analysis: an exact,
    /// compact key of everything but the clock (positions with equal keys
    /// are the same position). `None`, the default, means "do not solve".
    fn solver_key(&self) -> Option<u64> {
        None
    }

    /// For games whose captures only remove men: how to number the
    /// positions of each material slice, for endgame tables. `None`, the
    /// default, means the game has no tables.
    fn endgame() -> Option<endgame::Endgame<Self>> {
        None
    }

    /// Where this position sits in its game's endgame tables (see
    /// [`Game::endgame`]); `None` for a game without tables or a position
    /// outside every slice (a side without men).
    fn table_key(&self) -> Option<endgame::TableKey> {
        None
    }

    /// The slice of [`Game::table_key`] alone, which a game may give more
    /// cheaply: a prober asks it first, so that positions with more men
    /// than any table cost a count, not a numbering.
    fn table_slice(&self) -> Option<endgame::Slice> {
        self.table_key().map(|key| key.slice)
    }

    /// Names of the piece kinds, in the order of [`observation::Man::kind`].
    const PIECE_KINDS: &'static [&'static str];

    /// How many points the board has (a tensor plane's length,
    /// [`observation`]).
    fn points(&self) -> usize;

    /// Every man on the board, appended to `out`.
    fn men(&self, out: &mut Vec<observation::Man>);

    /// A point's name in the game's notation (`a1`).
    fn point_name(&self, point: usize) -> String;

    /// Most plies from here on that can restart the no-progress clock: by
    /// default one per man on the board (captures only remove men). A game
    /// with drops or landings counts those too.
    fn progress_left(&self) -> u32 {
        let mut men = Vec::new();
        self.men(&mut men);
        men.len() as u32
    }

    /// Most plies the game can last from here: the clock ends it after
    /// [`Game::NO_PROGRESS_LIMIT`] plies without progress, and progress
    /// comes at most [`Game::progress_left`] times. Every ply lowers it by
    /// one at least (the random-play check holds each game to that).
    fn most_plies(&self) -> u64 {
        let limit = u64::from(Self::NO_PROGRESS_LIMIT);
        let now = limit.saturating_sub(u64::from(self.clock()));
        now + u64::from(self.progress_left()) * (limit + 1)
    }

    /// Most actions ([`Game::move_actions`]) the game can take from here:
    /// a roll before every ply where there is chance, and a move of
    /// several actions takes one more per man it captures.
    fn most_actions(&self) -> u64 {
        let actions = u64::from(self.progress_left());
        if !Self::HAS_CHANCE {
            return self.most_plies() + actions;
        }
        // Where a player moves, this ply's roll is already made.
        let rolled = u64::from(!self.is_chance());
        2 * self.most_plies() - rolled + actions
    }

    /// `point` as `seat` sees it: by default as it is; a game whose board
    /// is symmetric under a turn that takes one seat's side to another's
    /// turns it, as its network inputs do.
    fn seen_from(&self, point: usize, seat: Seat) -> usize {
        let _ = seat;
        point
    }

    /// Names of the game's own tensor planes, after the common ones
    /// ([`observation`]).
    const EXTRA_PLANES: &'static [&'static str] = &[];

    /// Fills the game's own planes as `seat` sees them: `out` holds
    /// `EXTRA_PLANES.len()` planes of [`Game::points`] numbers, zeroed.
    fn extra_planes(&self, seat: Seat, out: &mut [f32]) {
        let _ = (seat, out);
    }

    /// The inputs of a learned evaluation ([`inputs`]); `None`, the
    /// default, for a game without one (the search then uses
    /// [`Game::evaluate`]).
    const INPUT_SET: Option<inputs::InputSet> = None;

    /// Fills `out` with this position's inputs of [`Game::INPUT_SET`],
    /// seen from the side to move, and sorts them ([`inputs::Inputs::finish`]).
    fn inputs(&self, out: &mut inputs::Inputs) {
        out.clear();
    }

    /// The seat a network's value head speaks for (see
    /// [`inputs::InputSet::heads`]), or `None` for a head of a seat not in
    /// play: by default one head, the side to move's.
    fn head_seat(&self, head: usize) -> Option<Seat> {
        (head == 0).then(|| self.side())
    }

    /// A move of this position as a learned policy sees it: keys below
    /// the input set's [`inputs::InputSet::moves`], from the side to
    /// move's view as [`Game::inputs`] gives the position (one set of
    /// weights learns for every seat). None for a roll: the dice's own
    /// chances are exact. By default no keys.
    fn policy_keys(&self, mv: Self::Move) -> inputs::MoveKeys {
        let _ = mv;
        [inputs::NO_KEY; 2]
    }

    /// Index of a move for history tables, below [`Game::MOVE_KEYS`].
    fn move_key(mv: Self::Move) -> usize;
    /// Size of the history table of a seat.
    const MOVE_KEYS: usize;
    /// How many distinct numbers [`Game::move_actions`] uses.
    const ACTIONS: usize = Self::MOVE_KEYS;

    /// A move as a sequence of actions, the choices one at a time, for
    /// interfaces that number them (OpenSpiel): numbers below
    /// [`Game::ACTIONS`], appended to `out`. Within a position the
    /// sequences are distinct and none is the start of another, so a
    /// sequence chosen action by action ends on exactly one move. By
    /// default one action, the move's key, for games where a key names one
    /// move of a position.
    fn move_actions(mv: Self::Move, out: &mut Vec<usize>) {
        out.push(Self::move_key(mv));
    }

    /// How an action that does not end a move is written (the part of
    /// the move it chooses), for games whose moves are several actions;
    /// `None` for a number that is no such action.
    fn action_text(action: usize) -> Option<String> {
        let _ = action;
        None
    }

    /// Static evaluation from the point of view of `seat`, for searches
    /// over more than two seats or with chance: by default the two-seat
    /// evaluation, negated for the side not to move.
    fn evaluate_for(&self, seat: Seat) -> i32 {
        if seat == self.side() {
            self.evaluate()
        } else {
            -self.evaluate()
        }
    }

    /// Letter of a seat.
    fn seat_letter(seat: Seat) -> char {
        Self::SEAT_LETTERS[seat as usize]
    }

    /// Checked play: parses `text` and plays it if it is legal here.
    fn play_text(&mut self, text: &str) -> Result<Self::Move, crate::notation::MoveError> {
        let mv = Self::parse_move(text).map_err(crate::notation::MoveError::Syntax)?;
        let mut legal = Vec::new();
        self.generate(&mut legal);
        if legal.contains(&mv) {
            self.play(mv);
            Ok(mv)
        } else {
            Err(crate::notation::MoveError::Illegal(mv.to_string()))
        }
    }
}

/// Parses a seat letter (either case) into a seat of `G`.
pub fn seat_from_letter<G: Game>(letter: char) -> Option<Seat> {
    let lower = letter.to_ascii_lowercase();
    G::SEAT_LETTERS
        .iter()
        .position(|&c| c == lower)
        .map(|i| i as Seat)
}
