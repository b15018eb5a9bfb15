//! The engine's face of a game in progress: the rules' [`DynSession`]
//! joined to the search. It lives above both, so the rules never know the
//! search and the search never knows the protocol. The engine's catalogue
//! is the rules' one list of games, with sessions attached by
//! [`Searching`].

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use menagerie_nnue::{Evaluator, Network, NetworkError};
use menagerie_rules::catalogue::{self, Attach, GameEntry};
use menagerie_rules::game::session::{DynSession, Session};
use menagerie_rules::game::{Game, Seat};
use menagerie_search as search;

/// The one choice of a network, for the engine, `bench` and Python: the
/// one loaded for the game (`EvalFile`), else the built-in one, and only
/// where it fits the ruleset (its seats and inputs).
pub fn choose_network(
    session: &dyn EngineSession,
    loaded: Option<&Arc<Network>>,
) -> Option<Arc<Network>> {
    let net = match loaded {
        Some(net) => Arc::clone(net),
        None => menagerie_nnue::builtin::network(session.game_id(), session.seats_in_play().len())?,
    };
    session.network_fits(&net).is_ok().then_some(net)
}

pub use menagerie_tables::exact::{Solved, Unsolved};

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

/// Expansions of a proof search when `solve` gives no budget.
pub const DEFAULT_PROOF_NODES: u64 = 1_000_000;

/// Seconds between a proof search's checkpoints.
pub const CHECKPOINT_EVERY_S: u64 = 60;

/// What `solve` asks of a proof search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveRequest {
    pub nodes: u64,
    pub memory_mib: Option<u64>,
    pub keys: menagerie_tables::proof::Keys,
    /// Threads of the proof search (the `Threads` option).
    pub threads: usize,
    pub checkpoint: Option<std::path::PathBuf>,
    /// Where the proof search writes the proof of what it settles.
    pub certificate: Option<std::path::PathBuf>,
    /// The folder of endgame tables (the engine's `TablePath`).
    pub tables: std::path::PathBuf,
}

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
    /// Whether `net` can evaluate this game under this ruleset.
    fn network_fits(&self, net: &Network) -> Result<(), NetworkError>;
    /// What `net` says of the position: each seat in play with its
    /// chance (expected score with one head) and its value in search
    /// units, seats in the game's order.
    fn network_view(&self, net: &Arc<Network>) -> Vec<(Seat, f64, i32)>;
    /// The hand-written evaluation of the position for each seat in play.
    fn hand_values(&self) -> Vec<(Seat, i32)>;
    /// Builds what searches of this game want before a clock runs.
    fn prepare_search(&self, settings: &search::Settings, reporter: &mut dyn search::Reporter);
    /// The exact value of the position and of each legal move where it is
    /// known (a solved game's table, waited for only until `stop`; endgame
    /// tables); beyond them, a proof search of at most `nodes` expansions.
    /// Table files left out are named through `reporter`.
    fn solve(
        &self,
        stop: &AtomicBool,
        request: &SolveRequest,
        reporter: &mut dyn search::Reporter,
    ) -> Result<Solved<String>, Unsolved>;
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

    fn network_fits(&self, net: &Network) -> Result<(), NetworkError> {
        net.fits(G::ID, self.ruleset(), G::INPUT_SET)
    }

    fn hand_values(&self) -> Vec<(Seat, i32)> {
        let position = self.position();
        position
            .seats()
            .iter()
            .map(|&s| (s, position.evaluate_for(s)))
            .collect()
    }

    fn network_view(&self, net: &Arc<Network>) -> Vec<(Seat, f64, i32)> {
        let mut evaluator = Evaluator::new(net.clone());
        let position = self.position();
        let chances = evaluator.chances(position);
        let values = evaluator.values(position);
        position
            .seats()
            .iter()
            .map(|&s| (s, chances[s as usize], values[s as usize]))
            .collect()
    }

    fn solve(
        &self,
        stop: &AtomicBool,
        request: &SolveRequest,
        reporter: &mut dyn search::Reporter,
    ) -> Result<Solved<String>, Unsolved> {
        // One reporter for two uses: the progress line, and the files left out.
        let reporter = std::cell::RefCell::new(reporter);
        let mut progress = |p: &menagerie_tables::proof::Progress| {
            reporter.borrow_mut().text(&format!("solve: {p}"));
        };
        let proof = menagerie_tables::proof::ProofSettings {
            max_nodes: request.nodes,
            memory_bytes: request.memory_mib.map(|mib| mib << 20),
            checkpoint: request.checkpoint.as_deref(),
            checkpoint_every: std::time::Duration::from_secs(CHECKPOINT_EVERY_S),
            progress: &mut progress,
            keys: request.keys,
            threads: request.threads,
            certificate: request.certificate.as_deref().map(|path| {
                let mut start = self.boxed();
                while start.take_back() {}
                menagerie_tables::certificate::CertificateRequest {
                    path,
                    game: self.game_id(),
                    ruleset: self.ruleset().to_string(),
                    start: start.notation(),
                    moves: self.moves_played(),
                }
            }),
        };
        let folder = &request.tables;
        let solved = menagerie_tables::exact::solve(self, folder, proof, stop, &mut |problem| {
            search::exact::report_problems_of(&problem, *reporter.borrow_mut())
        })?;
        // The moves become text here, where the game is forgotten.
        Ok(solved.map_moves(|mv| mv.to_string()))
    }
}
