//! Verifying a whole folder of tables, slice by slice, with a record of
//! each clean verification kept beside its file so that a run cut short
//! resumes where it was and a later run re-derives only what changed.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use menagerie_os::files::{self, PathError};
use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;

use crate::file::FileError;
use crate::probe::Tables;
use crate::verify::{verify_slice, Report, Unverified};

/// Which slices a verification takes, and whether earlier records count.
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection {
    /// Only slices of at most this many men.
    pub men: Option<u32>,
    /// Only this slice.
    pub only: Option<Slice>,
    /// Derive every value again, whatever the records say.
    pub fresh: bool,
}

impl Selection {
    fn takes(&self, slice: Slice, men: u32) -> bool {
        !self.men.is_some_and(|m| men > m) && !self.only.is_some_and(|o| o != slice)
    }
}

/// What became of one slice.
#[derive(Debug)]
pub enum Verdict {
    /// Not checked: its moves lead into a slice that is not there.
    Skipped { slice: Slice, missing: Slice },
    /// Its file (or one it reads) failed a check while it was read.
    Damaged { slice: Slice, problem: FileError },
    /// A record vouches for its values, and its bytes read whole again.
    VerifiedBefore { slice: Slice, record: PathBuf },
    /// Every value derived again.
    Checked {
        slice: Slice,
        path: PathBuf,
        report: Report,
        seconds: f64,
    },
    /// Checked clean, but the record of it could not be written.
    Unrecorded {
        slice: Slice,
        record: PathBuf,
        error: PathError,
    },
}

/// The counts of a whole verification.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub checked: usize,
    pub mismatches: u64,
    pub damaged: usize,
    pub skipped: usize,
    pub verified_before: usize,
}

/// Where a slice's clean verification is recorded: beside its file.
pub fn record_path(slice_file: &Path) -> PathBuf {
    let mut name = slice_file.as_os_str().to_owned();
    name.push(".verified");
    PathBuf::from(name)
}

/// What a clean verification of `slice` vouches for: its file's checksum
/// and those of the files its moves lead into. Any of those files rebuilt
/// or replaced makes the record stale.
fn stamp(tables: &Tables, slice: Slice) -> String {
    let checksum = |s: Slice| tables.slice(s).map_or(0, |f| f.header.checksum);
    let mut stamp = format!("verified {slice} {:08x}; reads", checksum(slice));
    for read in tables.reads(slice) {
        stamp.push_str(&format!(" {read} {:08x}", checksum(read)));
    }
    stamp.push('\n');
    stamp
}

/// A record is one stamp line: a file larger than any stamp, or that is
/// not a file, is no record.
const MOST_RECORD_BYTES: u64 = 64 << 10;

/// Verifies the selected slices of `tables` on `threads` threads, telling
/// `on` what became of each. Stops with `Unverified::Stopped` when asked.
pub fn verify_all<G: Game>(
    rules: &G::Rules,
    tables: &Tables,
    selection: Selection,
    threads: usize,
    stop: &AtomicBool,
    on: &mut dyn FnMut(Verdict),
) -> Result<Summary, Unverified> {
    let mut summary = Summary::default();
    for slice in tables.slices() {
        if !selection.takes(slice, tables.men_of(slice)) {
            continue;
        }
        let verdict = verify_one::<G>(rules, tables, slice, selection.fresh, threads, stop)?;
        match &verdict {
            Verdict::Skipped { .. } => summary.skipped += 1,
            Verdict::Damaged { .. } => summary.damaged += 1,
            Verdict::VerifiedBefore { .. } => {
                summary.checked += 1;
                summary.verified_before += 1;
            }
            Verdict::Checked { report, .. } => {
                summary.checked += 1;
                summary.mismatches += report.mismatches;
            }
            Verdict::Unrecorded { .. } => {}
        }
        if let Verdict::Checked { report, path, .. } = &verdict {
            if report.mismatches == 0 {
                let record = record_path(path);
                let written = files::write_replacing(&record, |out| {
                    out.write_all(stamp(tables, slice).as_bytes())
                });
                on(verdict);
                if let Err(error) = written {
                    on(Verdict::Unrecorded {
                        slice,
                        record,
                        error,
                    });
                }
                continue;
            }
        }
        on(verdict);
    }
    Ok(summary)
}

fn verify_one<G: Game>(
    rules: &G::Rules,
    tables: &Tables,
    slice: Slice,
    fresh: bool,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Verdict, Unverified> {
    if let Some(missing) = tables
        .reads(slice)
        .into_iter()
        .find(|s| tables.slice(*s).is_none())
    {
        return Ok(Verdict::Skipped { slice, missing });
    }
    let file = tables.slice(slice).expect("a listed slice is open");
    let record = record_path(&file.path);
    if !fresh {
        let recorded = files::read_text_bounded(&record, MOST_RECORD_BYTES).ok();
        if recorded.as_deref() == Some(stamp(tables, slice).as_str()) {
            // Its values were derived before; its bytes are still read
            // whole against their checksums.
            return Ok(match file.check_all() {
                Err(problem) => Verdict::Damaged { slice, problem },
                Ok(()) => Verdict::VerifiedBefore { slice, record },
            });
        }
    }
    let started = Instant::now();
    match verify_slice::<G>(rules, tables, slice, threads, stop) {
        Ok(report) => Ok(Verdict::Checked {
            slice,
            path: file.path.clone(),
            report,
            seconds: started.elapsed().as_secs_f64(),
        }),
        Err(Unverified::File(problem)) => Ok(Verdict::Damaged { slice, problem }),
        Err(Unverified::Stopped) => Err(Unverified::Stopped),
    }
}
