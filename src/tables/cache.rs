//! The process's one store of exact knowledge, per game and ruleset: the
//! solved game's tables (by the position they were solved from) and the
//! endgame tables (by folder). Each is made or opened once and shared by
//! every search, `solve` and thread; a solution being built is waited for,
//! never built twice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use menagerie_rules::game::Game;

use crate::file::{Check, Expected, FileError};
use crate::probe::Tables;
use crate::solved::{self, Solution};

/// A game and ruleset: the game's id and the ruleset as the rules print it.
pub type Key = (&'static str, String);

/// The key of a game's ruleset.
pub fn key<G: Game>(rules: &G::Rules) -> Key {
    (G::ID, format!("{rules:?}"))
}

/// What is known of one game and ruleset.
#[derive(Default)]
struct Shelf {
    /// Solved tables by the solver key of their root; a cell is filled
    /// once, and a second caller asking while it is built waits for it.
    solutions: HashMap<u64, Arc<OnceLock<Arc<Solution>>>>,
    /// Endgame tables by folder, with the problems found when they were
    /// opened and not reported yet.
    tables: HashMap<PathBuf, (Arc<Tables>, Vec<FileError>)>,
}

fn shelves() -> MutexGuard<'static, HashMap<Key, Shelf>> {
    static SHELVES: OnceLock<Mutex<HashMap<Key, Shelf>>> = OnceLock::new();
    SHELVES
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The solution rooted at `root`, built now if no one has.
fn solution<G: Game>(key: &Key, root: &G) -> Arc<Solution> {
    let root_key = root.solver_key().expect("solvable games give a solver key");
    let cell = Arc::clone(
        shelves()
            .entry(key.clone())
            .or_default()
            .solutions
            .entry(root_key)
            .or_default(),
    );
    Arc::clone(cell.get_or_init(|| {
        log::debug!("building the solved table of {} {}", key.0, key.1);
        let started = std::time::Instant::now();
        let solution = solved::solve(root);
        log::debug!(
            "built the solved table of {} {}: {} positions in {:?}",
            key.0,
            key.1,
            solution.len(),
            started.elapsed()
        );
        Arc::new(solution)
    }))
}

/// The solution rooted at `root`, if it is built; never builds.
fn built_solution<G: Game>(key: &Key, root: &G) -> Option<Arc<Solution>> {
    let root_key = root.solver_key()?;
    shelves().get(key)?.solutions.get(&root_key)?.get().cloned()
}

/// The solution holding `position`: the one from the ruleset's `start`
/// if it holds it, else the one rooted at `position`; built if `build`,
/// else only if it is there already.
pub fn solution_holding<G: Game>(
    key: &Key,
    start: &G,
    position: &G,
    build: bool,
) -> Option<Arc<Solution>> {
    let table = |root: &G| {
        if build {
            Some(solution(key, root))
        } else {
            built_solution(key, root)
        }
    };
    let wanted = position.solver_key()?;
    match table(start) {
        Some(from_start) if from_start.value(wanted).is_some() => Some(from_start),
        _ => table(position),
    }
}

/// Starts building the solution holding `position` on a thread of its
/// own, so that a search on the clock never waits for it.
pub fn build_in_background<G: Game>(key: Key, start: G, position: G) {
    let spawned = std::thread::Builder::new()
        .name("solver".into())
        .spawn(move || solution_holding(&key, &start, &position, true));
    if let Err(e) = spawned {
        log::warn!("no thread to build the solved table in: {e}");
    }
}

/// The endgame tables of a ruleset in `dir`, opened once per process;
/// files that cannot be used are left out, and [`news`] says which.
pub fn tables(key: &Key, dir: &Path, expected: &Expected) -> Arc<Tables> {
    let mut shelves = shelves();
    let shelf = shelves.entry(key.clone()).or_default();
    let (tables, _) = shelf.tables.entry(dir.to_path_buf()).or_insert_with(|| {
        let (tables, problems) = Tables::open_with(dir, expected, Check::Header);
        for problem in &problems {
            log::info!("endgame table left out: {problem}");
        }
        (Arc::new(tables), problems)
    });
    Arc::clone(tables)
}

/// What is wrong with the shared `tables` of `key` that has not been said
/// yet: files left out when they were opened, and files that failed a
/// check since. Each problem is returned once.
pub fn news(key: &Key, tables: &Tables) -> Vec<FileError> {
    let mut said = tables.take_problems();
    if let Some(shelf) = shelves().get_mut(key) {
        for (shared, problems) in shelf.tables.values_mut() {
            if shared.folder == tables.folder {
                said.append(problems);
            }
        }
    }
    said
}

/// Forgets the endgame tables of `dir`, so that the next use opens what a
/// build has written since.
pub fn forget(dir: &Path) {
    for shelf in shelves().values_mut() {
        shelf.tables.remove(dir);
    }
}
