//! The tables of one ruleset, opened once, looked up by position.

use std::path::{Path, PathBuf};

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;

use crate::file::{self, Check, Expected, FileError, SliceFile};
use crate::value::{plies_left, Entry, Value, Wdl};

/// Counts up to this many of each kind and side have a slot.
const MOST_COUNT: usize = 16;
const SLOTS: usize = MOST_COUNT * MOST_COUNT * MOST_COUNT * MOST_COUNT;
const EMPTY_SLOT: u16 = u16::MAX;

/// The slice files found for one game and ruleset.
pub struct Tables {
    pub folder: PathBuf,
    pub game: String,
    pub variant: String,
    pairs: fn(u32) -> Vec<Slice>,
    dependencies: fn(Slice) -> Vec<Slice>,
    fixed_men: u32,
    /// Each slice's place in `files`, by [`slot`]: a probe finds its file
    /// by indexing, never by searching.
    slots: Vec<u16>,
    files: Vec<SliceFile>,
}

fn slot(slice: Slice) -> Option<usize> {
    let counts = [
        slice.mover.0[0],
        slice.other.0[0],
        slice.mover.0[1],
        slice.other.0[1],
    ];
    counts.iter().rev().try_fold(0, |at, &n| {
        (usize::from(n) < MOST_COUNT).then_some(at * MOST_COUNT + usize::from(n))
    })
}

impl Tables {
    /// No tables (yet) for this ruleset in `dir`.
    pub fn empty(dir: &Path, expected: &Expected) -> Tables {
        Tables {
            folder: file::folder(dir, expected.game, expected.variant),
            game: expected.game.to_string(),
            variant: expected.variant.to_string(),
            pairs: expected.pairs,
            dependencies: expected.dependencies,
            fixed_men: expected.fixed_men,
            slots: vec![EMPTY_SLOT; SLOTS],
            files: Vec::new(),
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
        let mut tables = Tables::empty(dir, expected);
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
        for slice in expected.all_slices() {
            if !names.contains(&format!("{slice}.mtb")) {
                continue;
            }
            let path = file::slice_path(&tables.folder, slice);
            match SliceFile::open(&path, expected, slice, check) {
                Ok(opened) => tables.insert(opened),
                Err(e) => problems.push(e),
            }
        }
        (tables, problems)
    }

    pub fn insert(&mut self, opened: SliceFile) {
        let Some(i) = slot(opened.header.slice) else {
            return;
        };
        match self.slots[i] {
            EMPTY_SLOT => {
                self.slots[i] = self.files.len() as u16;
                self.files.push(opened);
            }
            at => self.files[usize::from(at)] = opened,
        }
    }

    /// The slice's file, unless it is missing or has failed a check.
    pub fn slice(&self, slice: Slice) -> Option<&SliceFile> {
        match self.slots[slot(slice)?] {
            EMPTY_SLOT => None,
            at => Some(&self.files[usize::from(at)]).filter(|f| !f.has_failed()),
        }
    }

    /// The slices whose tables a slice's values are derived from: those
    /// its captures lead into, and its mirror.
    pub fn reads(&self, slice: Slice) -> Vec<Slice> {
        let mut reads = (self.dependencies)(slice);
        reads.push(slice.swapped());
        reads
    }

    /// Pieces on the board in the positions of `slice`.
    pub fn men_of(&self, slice: Slice) -> u32 {
        slice.men() + self.fixed_men
    }

    /// Whether any file has failed a check since it was opened.
    pub fn any_failed(&self) -> bool {
        self.files.iter().any(SliceFile::has_failed)
    }

    /// Problems found since the files were opened (a block that failed its
    /// checksum, a file cut while in use), each reported once: the file is
    /// left out from then on.
    pub fn take_problems(&self) -> Vec<FileError> {
        self.files
            .iter()
            .filter_map(SliceFile::take_problem)
            .collect()
    }

    /// The slices present, smallest first.
    pub fn slices(&self) -> Vec<Slice> {
        let mut present: Vec<Slice> = self
            .files
            .iter()
            .filter(|f| !f.has_failed())
            .map(|f| f.header.slice)
            .collect();
        present.sort_by_key(|s| (s.men(), s.mover));
        present
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Most pieces of the positions that every slice up to it holds:
    /// tables are complete up to this many (those every position has
    /// counted); 0 if not even the smallest slices are here.
    pub fn complete_men(&self) -> u32 {
        let mut men = 0;
        for next in 1..=file::MOST_MEN {
            let pairs = (self.pairs)(next);
            let fewer = (self.pairs)(next - 1).len();
            if pairs.len() == fewer {
                // No slice has exactly `next` pieces (fewer than the
                // pieces every position has).
                if pairs.is_empty() {
                    continue;
                }
                return men;
            }
            if !pairs
                .iter()
                .all(|&p| p.members().iter().all(|&s| self.slice(s).is_some()))
            {
                return men;
            }
            men = next;
        }
        men
    }

    /// Bytes of the mapped slices.
    pub fn bytes(&self) -> u64 {
        self.files
            .iter()
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
