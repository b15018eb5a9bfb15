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
use menagerie_wire::Reply;

use crate::tables_command::{TablesError, TablesJob};
pub use menagerie_search::solved_play::Unsolved;

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

/// What `solve` found.
pub enum Solved {
    /// From a table (solved game or endgame tables): the value and each
    /// legal move's, as text, and which endgame table if one.
    Exact {
        value: String,
        moves: Vec<(String, String)>,
        table: Option<String>,
    },
    /// From a proof-number search: a value or a bound, with its figures.
    Proof(search::proof::ProofReport),
}

/// Expansions of a proof search when `solve` gives no budget.
pub const DEFAULT_PROOF_NODES: u64 = 1_000_000;

/// A session of any game, with the search joined to it. Implemented once,
/// generically, for every [`Session`].
pub trait EngineSession: DynSession {
    /// The rules' face of the same session.
    fn rules(&self) -> &dyn DynSession;
    fn boxed(&self) -> Box<dyn EngineSession>;
    /// Searches the current position with the algorithm that fits the game;
    /// the best move as the protocol writes it.
    fn search(
        &self,
        limits: &search::Limits,
        shared: &search::Shared,
        settings: &search::Settings,
        reporter: &mut dyn search::Reporter,
    ) -> search::SearchResult<String>;
    /// Builds what searches of this game want before a clock runs.
    fn prepare_search(&self, settings: &search::Settings, reporter: &mut dyn search::Reporter);
    /// The solved value of the position and of each legal move, for games
    /// small enough to solve; waits for the table only until `stop`.
    /// Positions beyond the tables get a proof search of at most `nodes`
    /// expansions. Table files left out are named through `reporter`.
    fn solve(
        &self,
        stop: &AtomicBool,
        nodes: u64,
        reporter: &mut dyn search::Reporter,
    ) -> Result<Solved, Unsolved>;
    /// Builds, verifies or lists the endgame tables of this session's
    /// ruleset.
    fn tables(
        &self,
        job: &TablesJob,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), TablesError>;
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
    ) -> search::SearchResult<String> {
        // The move becomes text here, where the game is forgotten.
        let result = search::run(self, limits, shared, settings, reporter);
        search::SearchResult {
            best: result.best.map(|mv| mv.to_string()),
            score: result.score,
            nodes: result.nodes,
        }
    }

    fn prepare_search(&self, settings: &search::Settings, reporter: &mut dyn search::Reporter) {
        search::prepare(self, settings, reporter)
    }

    fn solve(
        &self,
        stop: &AtomicBool,
        nodes: u64,
        reporter: &mut dyn search::Reporter,
    ) -> Result<Solved, Unsolved> {
        let settings = search::Settings::default();
        let tables = search::table_play::tables_for(self, &settings, reporter);
        let analysis = tables
            .as_ref()
            .and_then(|tables| search::table_play::analyse(self, tables));
        if let Some(tables) = &tables {
            search::table_play::report_problems(tables, reporter);
        }
        if let Some((value, moves)) = analysis {
            return Ok(Solved::Exact {
                value: value.to_string(),
                moves: moves
                    .iter()
                    .map(|(mv, value)| (mv.to_string(), value.to_string()))
                    .collect(),
                table: self.position().table_key().map(|k| k.slice.to_string()),
            });
        }
        match search::solved_play::analyse_until(self, stop) {
            Ok(analysis) => Ok(Solved::Exact {
                value: analysis.value.to_string(),
                moves: analysis
                    .moves
                    .iter()
                    .map(|(mv, value)| (mv.to_string(), value.to_string()))
                    .collect(),
                table: None,
            }),
            Err(Unsolved::NotSolvable) if self.position().seats().len() == 2 && !G::HAS_CHANCE => {
                let history = self.history();
                let before = &history[..history.len().saturating_sub(1)];
                let report =
                    search::proof::prove(self.position(), before, tables.as_deref(), nodes, stop);
                if let Some(tables) = &tables {
                    search::table_play::report_problems(tables, reporter);
                }
                Ok(Solved::Proof(report))
            }
            Err(e) => Err(e),
        }
    }

    fn tables(
        &self,
        job: &TablesJob,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), TablesError> {
        crate::tables_command::run::<G>(self.rules(), job, stop, say)
    }
}
