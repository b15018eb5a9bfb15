//! The games this build knows, by id and alias. Adding a game is one file
//! under `src/games/` and one line in [`GAMES`].

use std::fmt;

use crate::text::Clipped;

use super::EngineSession;
use crate::game::session::Session;
use crate::game::{Game, OptionSpec, Ruleset, RulesetError};
use crate::games;

/// What the registry knows of one game without its type.
pub struct GameEntry {
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
    new_session: fn(Ruleset) -> Box<dyn EngineSession>,
    /// Seeded random play checking the invariants of [`super::selfcheck`].
    pub self_check: fn(&Ruleset, u64, u64) -> Result<crate::game::selfcheck::CheckStats, String>,
}

impl GameEntry {
    const fn of<G: Game>() -> GameEntry {
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
            new_session: new_session::<G>,
            self_check: crate::game::selfcheck::random_play::<G>,
        }
    }

    /// A session at the start position of the ruleset given by `words`.
    pub fn session<S: AsRef<str>>(
        &self,
        words: &[S],
    ) -> Result<Box<dyn EngineSession>, RulesetError> {
        let ruleset = Ruleset::parse(self.options, words)?;
        Ok((self.new_session)(ruleset))
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
}

fn new_session<G: Game>(ruleset: Ruleset) -> Box<dyn EngineSession> {
    Box::new(Session::<G>::new(ruleset))
}

/// Every game, the default (used before any `newgame`) first.
pub static GAMES: &[GameEntry] = &[
    GameEntry::of::<games::hdk::Hdk>(),
    GameEntry::of::<games::awithlaknannai::Awithlaknannai>(),
    GameEntry::of::<games::safari::Safari>(),
    GameEntry::of::<games::kilkenny::Kilkenny>(),
];

/// The game named `name` (id or alias, any case).
pub fn find(name: &str) -> Option<&'static GameEntry> {
    let name = name.to_ascii_lowercase();
    GAMES
        .iter()
        .find(|g| g.id == name || g.aliases.contains(&name.as_str()))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    UnknownGame(String),
    Ruleset(RulesetError),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameError::UnknownGame(name) => write!(
                f,
                "unknown game '{}' (known: {})",
                Clipped(name),
                GAMES.iter().map(|g| g.id).collect::<Vec<_>>().join(", ")
            ),
            GameError::Ruleset(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GameError {}

/// A new session of game `name` with ruleset `words`.
pub fn new_session_named<S: AsRef<str>>(
    name: &str,
    words: &[S],
) -> Result<Box<dyn EngineSession>, GameError> {
    let entry = find(name).ok_or_else(|| GameError::UnknownGame(name.to_string()))?;
    entry.session(words).map_err(GameError::Ruleset)
}

/// The session the engine starts with.
pub fn default_session() -> Box<dyn EngineSession> {
    GAMES[0]
        .session::<&str>(&[])
        .expect("defaults are a valid ruleset")
}
