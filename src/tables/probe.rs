//! The tables of one ruleset, opened once, looked up by position.

use std::path::{Path, PathBuf};

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;

use crate::file::{self, Check, Expected, FileError, SliceFile};
use crate::value::{plies_left, Entry, Value, Wdl};

/// Slices of up to this many men a side are looked for.
const MOST_SIDE: usize = 16;

/// The slice files found for one game and ruleset.
pub struct Tables {
    pub folder: PathBuf,
    pub game: String,
    pub variant: String,
    slices: Vec<Option<SliceFile>>,
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

    /// Opens every slice file of the ruleset found in `dir`, checking each
    /// whole; files that cannot be used are left out and returned with
    /// why (a folder that cannot be read is one of them).
    pub fn open(dir: &Path, expected: &Expected) -> (Tables, Vec<FileError>) {
        Tables::open_with(dir, expected, Check::Checksum)
    }

    /// Opens the files as [`Tables::open`] does; with `Check::Header`,
    /// each file's header, size and block table now and each block when
    /// first read: for playing, where reading hundreds of megabytes before
    /// the first move would cost seconds on the clock. `tables build`,
    /// `verify` and `status` check every entry at once.
    pub fn open_with(dir: &Path, expected: &Expected, check: Check) -> (Tables, Vec<FileError>) {
        let mut tables = Tables::empty(dir, expected.game, expected.variant);
        let mut problems = Vec::new();
        let names = match std::fs::read_dir(&tables.folder) {
            Ok(entries) => entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<std::collections::HashSet<String>>(),
            // No tables built yet: nothing to say.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (tables, problems),
            Err(e) => {
                problems.push(FileError::Io(tables.folder.clone(), e));
                return (tables, problems);
            }
        };
        for mover in 1..MOST_SIDE as u8 {
            for other in 1..MOST_SIDE as u8 {
                let slice = Slice::new(mover, other);
                if !names.contains(&format!("{slice}.mtb")) {
                    continue;
                }
                let path = file::slice_path(&tables.folder, slice);
                match SliceFile::open(&path, expected, slice, check) {
                    Ok(opened) => tables.insert(opened),
                    Err(e) => problems.push(e),
                }
            }
        }
        (tables, problems)
    }

    pub fn insert(&mut self, opened: SliceFile) {
        if let Some(i) = slot(opened.header.slice) {
            self.slices[i] = Some(opened);
        }
    }

    /// The slice's file, unless it is missing or has failed a check.
    pub fn slice(&self, slice: Slice) -> Option<&SliceFile> {
        self.slices[slot(slice)?]
            .as_ref()
            .filter(|f| !f.has_failed())
    }

    /// Whether any file has failed a check since it was opened.
    pub fn any_failed(&self) -> bool {
        self.slices.iter().flatten().any(SliceFile::has_failed)
    }

    /// Problems found since the files were opened (a block that failed its
    /// checksum, a file cut while in use), each reported once: the file is
    /// left out from then on.
    pub fn take_problems(&self) -> Vec<FileError> {
        self.slices
            .iter()
            .flatten()
            .filter_map(SliceFile::take_problem)
            .collect()
    }

    /// The slices present, smallest first.
    pub fn slices(&self) -> Vec<Slice> {
        let mut present: Vec<Slice> = self
            .slices
            .iter()
            .flatten()
            .filter(|f| !f.has_failed())
            .map(|f| f.header.slice)
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
        self.slices
            .iter()
            .flatten()
            .filter(|f| !f.has_failed())
            .map(|f| 2 * f.entries())
            .sum()
    }

    /// The value of `position` if its slice is here, at its clock.
    #[inline]
    pub fn probe<G: Game>(&self, position: &G) -> Option<Value> {
        let (entry, timeout) = self.probe_entry(position)?;
        Some(entry.value(timeout, plies_left(position)))
    }

    /// What the table stores for `position`'s board and side, whatever its
    /// clock, with its slice's result at the clock's end: the value at
    /// any clock follows ([`Entry::value`]) without probing again.
    #[inline]
    pub fn probe_entry<G: Game>(&self, position: &G) -> Option<(Entry, Wdl)> {
        // Counting the men first: most positions of a search have more
        // than any table.
        let opened = self.slice(position.table_slice()?)?;
        let key = position.table_key()?;
        if key.variant != self.variant {
            return None;
        }
        Some((opened.entry(key.index)?, opened.header.timeout))
    }
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
