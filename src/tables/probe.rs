//! The tables of one ruleset, memory-mapped, looked up by position.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;

use crate::file::{self, Check, FileError, Mapped};
use crate::value::{plies_left, Probe};

/// Slices of up to this many men a side are looked for.
const MOST_SIDE: usize = 16;

/// The slice files found for one game and ruleset.
pub struct Tables {
    pub folder: PathBuf,
    pub game: String,
    pub variant: String,
    slices: Vec<Option<Mapped>>,
}

fn slot(slice: Slice) -> Option<usize> {
    let (m, o) = (slice.mover as usize, slice.other as usize);
    (m < MOST_SIDE && o < MOST_SIDE).then_some(m * MOST_SIDE + o)
}

impl Tables {
    /// No tables (yet) for this ruleset in `dir`.
    pub fn empty(dir: &Path, game: &str, variant: &str) -> Tables {
        Tables {
            folder: file::folder(dir, game, variant),
            game: game.to_string(),
            variant: variant.to_string(),
            slices: (0..MOST_SIDE * MOST_SIDE).map(|_| None).collect(),
        }
    }

    /// Maps every slice file of the ruleset found in `dir`; files that
    /// cannot be used are left out and returned with why.
    pub fn open(dir: &Path, game: &str, variant: &str) -> (Tables, Vec<FileError>) {
        Tables::open_with(dir, game, variant, Check::Checksum)
    }

    /// Maps the files as [`Tables::open`] does, checking each file's header
    /// and size but, with `Check::Header`, not its checksum: for playing,
    /// where reading hundreds of megabytes before the first move would
    /// cost seconds on the clock (Syzygy probing trusts its files too);
    /// `tables build`, `verify` and `status` check the checksums.
    pub fn open_with(
        dir: &Path,
        game: &str,
        variant: &str,
        check: Check,
    ) -> (Tables, Vec<FileError>) {
        let mut tables = Tables::empty(dir, game, variant);
        let mut problems = Vec::new();
        for mover in 1..MOST_SIDE as u8 {
            for other in 1..MOST_SIDE as u8 {
                let slice = Slice::new(mover, other);
                let path = file::slice_path(&tables.folder, slice);
                if !path.exists() {
                    continue;
                }
                match Mapped::open_with(&path, game, variant, slice, check) {
                    Ok(mapped) => tables.insert(mapped),
                    Err(e) => problems.push(e),
                }
            }
        }
        (tables, problems)
    }

    pub fn insert(&mut self, mapped: Mapped) {
        if let Some(i) = slot(mapped.header.slice) {
            self.slices[i] = Some(mapped);
        }
    }

    pub fn slice(&self, slice: Slice) -> Option<&Mapped> {
        self.slices[slot(slice)?].as_ref()
    }

    /// The slices present, smallest first.
    pub fn slices(&self) -> Vec<Slice> {
        let mut present: Vec<Slice> = self
            .slices
            .iter()
            .flatten()
            .map(|m| m.header.slice)
            .collect();
        present.sort_by_key(|s| (s.men(), s.mover));
        present
    }

    pub fn is_empty(&self) -> bool {
        self.slices.iter().all(Option::is_none)
    }

    /// Most men of the positions that every slice up to it holds: tables
    /// are complete up to this many men.
    pub fn complete_men(&self) -> u32 {
        let mut men = 1;
        loop {
            let next = men + 1;
            let all = (1..next).all(|m| {
                let s = Slice::new(m as u8, (next - m) as u8);
                self.slice(s).is_some() || slot(s).is_none()
            });
            if !all || next as usize >= 2 * MOST_SIDE {
                return men;
            }
            men = next;
        }
    }

    /// Bytes of the mapped slices.
    pub fn bytes(&self) -> u64 {
        self.slices.iter().flatten().map(|m| 2 * m.entries()).sum()
    }

    /// The value of `position` if its slice is here, at its clock.
    #[inline]
    pub fn probe<G: Game>(&self, position: &G) -> Option<Probe> {
        // Counting the men first: most positions of a search have more
        // than any table.
        let mapped = self.slice(position.table_slice()?)?;
        let key = position.table_key()?;
        if key.variant != self.variant {
            return None;
        }
        let entry = mapped.entry(key.index);
        Some(entry.value(mapped.header.timeout, plies_left(position)))
    }
}

type Cache = HashMap<(PathBuf, String, String), Arc<Tables>>;

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The tables of a ruleset in `dir`, mapped once per process and shared;
/// files that cannot be used are logged and left out.
pub fn shared(dir: &Path, game: &str, variant: &str) -> Arc<Tables> {
    let key = (dir.to_path_buf(), game.to_string(), variant.to_string());
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(key)
        .or_insert_with(|| {
            let (tables, problems) = Tables::open_with(dir, game, variant, Check::Header);
            for problem in problems {
                log::warn!("endgame table left out: {problem}");
            }
            Arc::new(tables)
        })
        .clone()
}

/// Forgets the shared tables of `dir`, so that the next use maps what a
/// build has written since.
pub fn forget(dir: &Path) {
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(d, _, _), _| d != dir);
}

fn directory_slot() -> &'static Mutex<Option<PathBuf>> {
    static DIRECTORY: OnceLock<Mutex<Option<PathBuf>>> = OnceLock::new();
    DIRECTORY.get_or_init(|| Mutex::new(None))
}

/// Where tables are kept unless told otherwise: `$MENAGERIE_TABLES`, else
/// the user's cache folder (`$XDG_CACHE_HOME/menagerie/tables`, or
/// `~/.cache/menagerie/tables`), else `menagerie-tables` here.
pub fn default_directory() -> PathBuf {
    let env = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = env("MENAGERIE_TABLES") {
        return dir;
    }
    if let Some(cache) = env("XDG_CACHE_HOME") {
        return cache.join("menagerie").join("tables");
    }
    match env("HOME") {
        Some(home) => home.join(".cache").join("menagerie").join("tables"),
        None => PathBuf::from("menagerie-tables"),
    }
}

/// The folder this process probes (the engine's `TablePath`).
pub fn directory() -> PathBuf {
    let slot = directory_slot().lock().unwrap_or_else(|e| e.into_inner());
    slot.clone().unwrap_or_else(default_directory)
}

/// Sets the folder this process probes; `None` for the default.
pub fn set_directory(dir: Option<PathBuf>) {
    *directory_slot().lock().unwrap_or_else(|e| e.into_inner()) = dir;
}
