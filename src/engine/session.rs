//! The engine's face of a game in progress: the rules' [`DynSession`]
//! joined to the search. It lives above both, so the rules never know the
//! search and the search never knows the protocol. The engine's catalogue
//! is the rules' one list of games, with sessions attached by
//! [`Searching`].

use std::sync::atomic::AtomicBool;

use menagerie_rules::catalogue::{self, Attach, GameEntry};
use menagerie_rules::game::session::{DynSession, Session};
use menagerie_rules::game::Game;
use menagerie_search as search;
pub use menagerie_search::solved::Unsolved;

/// Attaches the search to sessions of any game.
pub struct Searching;

impl Attach for Searching {
    type Session = dyn EngineSession;

    fn attach<G: Game>(session: Session<G>) -> Box<dyn EngineSession> {
        Box::new(session)
    }
}

/// A catalogue entry whose sessions search.
pub type Entry = GameEntry<Searching>;

/// The games of this build, as the engine plays them.
pub static GAMES: [Entry; catalogue::COUNT] = catalogue::games::<Searching>();

/// A solved position: its value and each legal move's, as text.
pub type Solved = (String, Vec<(String, String)>);

/// A session of any game, with the search joined to it. Implemented once,
/// generically, for every [`Session`].
pub trait EngineSession: DynSession {
    /// The rules' face of the same session.
    fn rules(&self) -> &dyn DynSession;
    fn boxed(&self) -> Box<dyn EngineSession>;
    /// Searches the current position with the algorithm that fits the game.
    fn search(
        &self,
        limits: &search::Limits,
        shared: &search::Shared,
        settings: &search::Settings,
        reporter: &mut dyn search::Reporter,
    ) -> search::SearchResult;
    /// Builds what searches of this game want before a clock runs.
    fn prepare_search(&self, settings: &search::Settings);
    /// The solved value of the position and of each legal move, for games
    /// small enough to solve; waits for the table only until `stop`.
    fn solve(&self, stop: &AtomicBool) -> Result<Solved, Unsolved>;
}

impl<G: Game> EngineSession for Session<G> {
    fn rules(&self) -> &dyn DynSession {
        self
    }

    fn boxed(&self) -> Box<dyn EngineSession> {
        Box::new(self.clone())
    }

    fn search(
        &self,
        limits: &search::Limits,
        shared: &search::Shared,
        settings: &search::Settings,
        reporter: &mut dyn search::Reporter,
    ) -> search::SearchResult {
        search::run(self, limits, shared, settings, reporter)
    }

    fn prepare_search(&self, settings: &search::Settings) {
        search::prepare(self, settings)
    }

    fn solve(&self, stop: &AtomicBool) -> Result<Solved, Unsolved> {
        let analysis = search::solved::analyse_until(self, stop)?;
        let moves = analysis
            .moves
            .iter()
            .map(|(mv, value)| (mv.to_string(), value.to_string()))
            .collect();
        Ok((analysis.value.to_string(), moves))
    }
}
