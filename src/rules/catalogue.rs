//! The games this build knows, by id and alias: what each declares about
//! itself, and sessions of it. Adding a game is one file under `games/`
//! and one line in [`games`].
//!
//! A catalogue entry makes sessions of its game without its callers
//! knowing the type. What a session is made into is chosen by an
//! [`Attach`]: [`Rules`] gives the rules' own [`DynSession`] (the
//! referee, the board, tools); the engine attaches its search with one of
//! its own, from the same list.

use std::fmt;

use crate::game::selfcheck::{CheckStats, Violation};
use crate::game::session::{DynSession, Session};
use crate::game::{Game, OptionSpec, Ruleset, RulesetError};
use crate::games;
use crate::text::Clipped;

/// Turns a session of a known game into the face its users need.
pub trait Attach: 'static {
    /// What a session becomes (a trait object).
    type Session: ?Sized + DynSession;
    fn attach<G: Game>(session: Session<G>) -> Box<Self::Session>;
}

/// Sessions as the rules give them.
pub struct Rules;

impl Attach for Rules {
    type Session = dyn DynSession;

    fn attach<G: Game>(session: Session<G>) -> Box<dyn DynSession> {
        Box::new(session)
    }
}

/// What a catalogue knows of one game without its type.
pub struct GameEntry<A: Attach = Rules> {
    pub id: &'static str,
    /// The game's name for people.
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub options: &'static [OptionSpec],
    /// Letter and name of every seat the game can have, in turn order.
    pub seat_letters: &'static [char],
    pub seat_names: &'static [&'static str],
    pub has_chance: bool,
    pub move_syntax: &'static str,
    /// Why the game's own rules can end it, each with what it means.
    pub end_reasons: &'static [(&'static str, &'static str)],
    /// How many action numbers its moves and rolls can have
    /// ([`crate::game::session::DynSession::move_actions`]).
    pub actions: usize,
    new_session: fn(Ruleset) -> Box<A::Session>,
    /// Seeded random play checking the invariants of
    /// [`crate::game::selfcheck`].
    pub self_check: fn(&Ruleset, u64, u64) -> Result<CheckStats, Box<Violation>>,
}

impl<A: Attach> GameEntry<A> {
    /// The letter of `seat` ([`Game::seat_letter`]), known without a
    /// position.
    pub fn seat_letter(&self, seat: crate::game::Seat) -> char {
        self.seat_letters[seat as usize]
    }

    /// The entry of game `G`.
    pub const fn of<G: Game>() -> GameEntry<A> {
        GameEntry {
            id: G::ID,
            name: G::NAME,
            aliases: G::ALIASES,
            options: G::OPTIONS,
            seat_letters: G::SEAT_LETTERS,
            seat_names: G::SEAT_NAMES,
            has_chance: G::HAS_CHANCE,
            move_syntax: G::MOVE_SYNTAX,
            end_reasons: G::END_REASONS,
            actions: G::ACTIONS,
            new_session: new_session::<G, A>,
            self_check: crate::game::selfcheck::random_play::<G>,
        }
    }

    /// A session at the start position of the ruleset given by `words`.
    pub fn session<S: AsRef<str>>(&self, words: &[S]) -> Result<Box<A::Session>, RulesetError> {
        let ruleset = Ruleset::parse(self.options, words)?;
        Ok((self.new_session)(ruleset))
    }

    /// This game's ruleset given by `words`, checked.
    pub fn ruleset<S: AsRef<str>>(&self, words: &[S]) -> Result<Ruleset, RulesetError> {
        Ruleset::parse(self.options, words)
    }

    /// A session at the start position of `ruleset` (one of this game's).
    pub fn session_of(&self, ruleset: &Ruleset) -> Box<A::Session> {
        (self.new_session)(ruleset.clone())
    }

    /// Every combination of this game's option values.
    pub fn all_rulesets(&self) -> Vec<Ruleset> {
        let mut words: Vec<Vec<String>> = vec![Vec::new()];
        for option in self.options {
            words = words
                .into_iter()
                .flat_map(|w| {
                    option.values.iter().map(move |v| {
                        let mut w = w.clone();
                        w.push(format!("{}={v}", option.key));
                        w
                    })
                })
                .collect();
        }
        words
            .iter()
            .map(|w| Ruleset::parse(self.options, w).expect("declared values parse"))
            .collect()
    }

    /// Every reason this game can end for, with what it means: its own,
    /// then the draw rules that apply to it (repetition only without dice).
    pub fn all_end_reasons(&self) -> impl Iterator<Item = &'static (&'static str, &'static str)> {
        let has_chance = self.has_chance;
        self.end_reasons.iter().chain(
            crate::game::DRAW_RULE_REASONS
                .iter()
                .filter(move |(word, _)| !(has_chance && *word == "repetition")),
        )
    }

    /// Whether `word` is a reason this game can end for.
    pub fn is_end_reason(&self, word: &str) -> bool {
        self.all_end_reasons().any(|(w, _)| *w == word)
    }

    /// `key=v1|v2` for each option, default first.
    pub fn options_summary(&self) -> String {
        self.options
            .iter()
            .map(|o| format!("{}={}", o.key, o.values.join("|")))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether `name` (any case) is this game's id or one of its aliases.
    pub fn is_named(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.id == name || self.aliases.contains(&name.as_str())
    }
}

fn new_session<G: Game, A: Attach>(ruleset: Ruleset) -> Box<A::Session> {
    A::attach(Session::<G>::new(ruleset))
}

/// Writes [`COUNT`] and [`games`] from one list of game types.
macro_rules! game_list {
    ($($game:ty),+ $(,)?) => {
        /// How many games this build has.
        pub const COUNT: usize = [$(stringify!($game)),+].len();

        /// Every game of this build, the default (used before any
        /// `newgame`) first, as sessions attached by `A`.
        pub const fn games<A: Attach>() -> [GameEntry<A>; COUNT] {
            [$(GameEntry::of::<$game>()),+]
        }
    };
}

// The one list of games: a new game is one line here.
game_list!(
    games::hdk::Hdk,
    games::awithlaknannai::Awithlaknannai,
    games::safari::Safari,
    games::kilkenny::Kilkenny,
);

/// The games with the rules' own sessions.
pub static GAMES: [GameEntry; COUNT] = games::<Rules>();

/// A list of games that any [`Attach`] can take: the engine attaches
/// the search to its games, and a long command that needs a game's own
/// type (building its tables, playing it against itself) attaches its
/// own work to the same list, as one module.
pub trait Catalogue: 'static {
    /// The games, the default first, as sessions attached by `A`.
    fn games<A: Attach>() -> Vec<GameEntry<A>>;
}

/// The games of this build ([`games`]).
pub struct Standard;

impl Catalogue for Standard {
    fn games<A: Attach>() -> Vec<GameEntry<A>> {
        games::<A>().into()
    }
}

/// The game named `name` (id or alias, any case) in `catalogue`.
pub fn find<'a, A: Attach>(catalogue: &'a [GameEntry<A>], name: &str) -> Option<&'a GameEntry<A>> {
    catalogue.iter().find(|g| g.is_named(name))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The name given, and the ids known.
    UnknownGame(String, Vec<&'static str>),
    Ruleset(RulesetError),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameError::UnknownGame(name, known) => write!(
                f,
                "unknown game '{}' (known: {})",
                Clipped(name),
                known.join(", ")
            ),
            GameError::Ruleset(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GameError {}

/// The entry of game `name` in `catalogue`, or the error naming the games
/// it knows.
pub fn entry<'a, A: Attach>(
    catalogue: &'a [GameEntry<A>],
    name: &str,
) -> Result<&'a GameEntry<A>, GameError> {
    find(catalogue, name).ok_or_else(|| {
        GameError::UnknownGame(name.to_string(), catalogue.iter().map(|g| g.id).collect())
    })
}

/// A new session of game `name` with ruleset `words`.
pub fn new_session_named<A: Attach, S: AsRef<str>>(
    catalogue: &[GameEntry<A>],
    name: &str,
    words: &[S],
) -> Result<Box<A::Session>, GameError> {
    entry(catalogue, name)?
        .session(words)
        .map_err(GameError::Ruleset)
}
