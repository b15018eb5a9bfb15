//! `tables build|verify|status <game> [ruleset options] [men=N]
//! [dir=PATH] [slice=MvO] [threads=N]`: endgame tables from the protocol
//! (and so from the command line: `menagerie tables build ...`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::task::{once, Catalogue, Context, Made, Refused};
use menagerie_rules::catalogue::{self, Attach};
use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::session::{DynSession, Session};
use menagerie_rules::game::Game;
use menagerie_tables::file::{Expected, FileError};
use menagerie_tables::probe::Tables;
use menagerie_tables::retrograde::{self, BuildError, Event, Request};
use menagerie_tables::verify::{self, Unverified};
use menagerie_wire::{Reply, TablesAction, TablesArgs};

/// A `tables` command, checked.
#[derive(Clone, Debug)]
pub struct TablesJob {
    pub action: TablesAction,
    pub men: Option<u32>,
    pub dir: PathBuf,
    pub only: Option<Slice>,
    pub threads: usize,
    /// `verify` checks every slice again, ignoring the records of earlier
    /// verifications.
    pub fresh: bool,
}

/// Why a `tables` command cannot be carried out.
#[derive(Debug)]
pub enum TablesError {
    NoTables(&'static str),
    Build(BuildError),
    Mismatches(u64),
    Damaged(usize),
    /// The ruleset's folder cannot be read.
    Folder(FileError),
    /// `dir=` names something other than a folder.
    Dir(menagerie_os::files::PathError),
}

impl fmt::Display for TablesError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TablesError::NoTables(game) => write!(
                f,
                "{game} has no endgame tables (only games whose captures only remove men have)"
            ),
            TablesError::Build(e) => write!(f, "{e}"),
            TablesError::Mismatches(n) => write!(
                f,
                "{n} stored values differ from what their successors give"
            ),
            TablesError::Damaged(1) => {
                f.write_str("1 table file cannot be used (build again to replace it)")
            }
            TablesError::Damaged(n) => write!(
                f,
                "{n} table files cannot be used (build again to replace them)"
            ),
            TablesError::Folder(e) => write!(f, "{e}"),
            TablesError::Dir(e) => write!(f, "dir={e}"),
        }
    }
}

impl TablesError {
    /// Whether the request was refused as more than the machine can hold.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            TablesError::Build(BuildError::Memory { .. } | BuildError::Disk { .. })
        )
    }
}

impl std::error::Error for TablesError {}

/// Attaches a `tables` command to sessions of any game: the game's own
/// type builds, verifies and probes its tables.
pub struct TablesOf;

/// A session that can carry out a `tables` command on its ruleset.
pub trait TablesWork: DynSession {
    fn tables(
        &self,
        job: &TablesJob,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), TablesError>;
}

impl<G: Game> TablesWork for Session<G> {
    fn tables(
        &self,
        job: &TablesJob,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), TablesError> {
        run::<G>(self.rules(), job, stop, say)
    }
}

impl Attach for TablesOf {
    type Session = dyn TablesWork;

    fn attach<G: Game>(session: Session<G>) -> Box<dyn TablesWork> {
        Box::new(session)
    }
}

/// `tables build|verify|status|bench <game> ...`: the task, on a session
/// of the game and ruleset named (the folder, unless `dir=` gives one,
/// is the engine's `TablePath`; the threads all the cores).
pub fn task<C: Catalogue>(args: TablesArgs, ctx: &Context) -> Made {
    let session = catalogue::new_session_named(&C::games::<TablesOf>(), &args.game, &args.ruleset)
        .map_err(|e| Refused::error("tables", e))?;
    let job = TablesJob {
        action: args.action,
        men: args.men,
        dir: args.dir.map_or_else(|| ctx.tables.clone(), PathBuf::from),
        only: args.slice.map(|s| Slice::new(s.mover, s.other)),
        threads: args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        fresh: args.fresh,
    };
    Ok(once(move |out, stop| {
        match session.tables(&job, stop, &mut |reply| out.reply(&reply)) {
            Err(e) if e.is_refusal() => out.refuse("tables", &e),
            Err(e) => out.error("tables", &e),
            Ok(()) => {}
        }
        false
    }))
}

/// Where a slice's clean verification is recorded: beside its file.
fn verified_record(slice_file: &Path) -> PathBuf {
    let mut name = slice_file.as_os_str().to_owned();
    name.push(".verified");
    PathBuf::from(name)
}

/// What a clean verification of `slice` vouches for: its file's checksum
/// and those of the files its moves lead into. A record that still reads
/// so lets a later `verify` skip the slice (a run cut short resumes);
/// any of those files rebuilt or replaced makes it stale.
fn verified_stamp(tables: &Tables, slice: Slice) -> String {
    let checksum = |s: Slice| tables.slice(s).map_or(0, |f| f.header.checksum);
    let mut stamp = format!("verified {slice} {:08x}; reads", checksum(slice));
    for read in retrograde::dependencies(slice)
        .into_iter()
        .chain([slice.swapped()])
    {
        stamp.push_str(&format!(" {read} {:08x}", checksum(read)));
    }
    stamp.push('\n');
    stamp
}

/// Writes `text` to `path` whole or not at all.
fn write_record(path: &Path, text: &str) -> Result<(), menagerie_os::files::PathError> {
    menagerie_os::files::write_replacing(path, |out| out.write_all(text.as_bytes()))
}

/// A progress bar of 20 marks.
pub(crate) fn bar(fraction: f64) -> String {
    let filled = (fraction * 20.0).round() as usize;
    format!(
        "[{}{}]",
        "#".repeat(filled.min(20)),
        "-".repeat(20 - filled.min(20))
    )
}

fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=9_999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

struct Bench {
    positions: usize,
    probes_per_second: f64,
    generations_per_second: f64,
}

/// Probes of random positions of every slice present against generating
/// the same positions' moves, in alternating rounds of one run, so that a
/// busy machine slows both alike.
fn bench<G: Game>(
    rules: &G::Rules,
    endgame: &menagerie_rules::game::endgame::Endgame<G>,
    tables: &Tables,
    stop: &AtomicBool,
) -> Bench {
    use std::sync::atomic::Ordering;
    let mut rng = menagerie_rules::rng::Rng::new(1);
    let mut positions = Vec::new();
    const PER_SLICE: usize = 20_000;
    for (i, slice) in tables.slices().into_iter().enumerate() {
        let size = (endgame.slice_size)(slice);
        while positions.len() < (i + 1) * PER_SLICE {
            if let Some(mut p) = (endgame.position)(rules, slice, rng.below(size)) {
                p.set_clock(rng.below(u64::from(G::NO_PROGRESS_LIMIT)) as u32);
                positions.push(p);
            }
        }
    }
    let (mut probing, mut generating) = (0.0, 0.0);
    let mut moves = Vec::new();
    let mut checksum = 0u64;
    for _ in 0..5 {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t = Instant::now();
        for p in &positions {
            checksum += tables.probe(p).map_or(0, |v| u64::from(v.plies()));
        }
        probing += t.elapsed().as_secs_f64();
        let t = Instant::now();
        for p in &positions {
            moves.clear();
            p.generate(&mut moves);
            checksum += moves.len() as u64;
        }
        generating += t.elapsed().as_secs_f64();
    }
    std::hint::black_box(checksum);
    let n = 5.0 * positions.len() as f64;
    Bench {
        positions: positions.len(),
        probes_per_second: n / probing.max(1e-9),
        generations_per_second: n / generating.max(1e-9),
    }
}

/// Carries out a checked `tables` command for game `G`, saying how it goes
/// in `info string` lines.
pub fn run<G: Game>(
    rules: &G::Rules,
    job: &TablesJob,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Reply),
) -> Result<(), TablesError> {
    let endgame = G::endgame().ok_or(TablesError::NoTables(G::ID))?;
    let expected = Expected::of::<G>(rules).ok_or(TablesError::NoTables(G::ID))?;
    // A folder, or none yet (a build makes it).
    menagerie_os::files::folder(&job.dir, false).map_err(TablesError::Dir)?;
    let mut remark = |text: String| say(Reply::Remark(text));
    // Problems of opening: a folder that cannot be read fails the command;
    // files are named one by one and counted.
    let opened = |action: &str, remark: &mut dyn FnMut(String)| {
        let (tables, problems) = Tables::open(&job.dir, &expected);
        let mut damaged = 0;
        for problem in problems {
            if problem.path() == tables.folder {
                return Err(TablesError::Folder(problem));
            }
            remark(format!("tables {action}: {problem}"));
            damaged += 1;
        }
        Ok((tables, damaged))
    };
    match job.action {
        TablesAction::Build => {
            let request = Request {
                dir: &job.dir,
                men: job.men.unwrap_or(0),
                only: job.only,
                threads: job.threads,
            };
            let started = Instant::now();
            let mut last: Option<Instant> = None;
            let mut on_event = |event: Event| match event {
                Event::Progress(p) => {
                    if last.is_some_and(|t| t.elapsed().as_secs_f64() < 1.0) {
                        return;
                    }
                    last = Some(Instant::now());
                    let fraction = p.done as f64 / p.total.max(1) as f64;
                    let eta = p.eta().map_or("?".to_string(), clock);
                    remark(format!(
                        "tables build {}: {} {:.1}% of {} positions, {} left",
                        p.slice,
                        bar(fraction),
                        100.0 * fraction,
                        count(p.total),
                        eta
                    ));
                }
                Event::Replacing(problem) => {
                    remark(format!("tables build: rebuilding {problem}"));
                }
                Event::Converted(path) => {
                    remark(format!(
                        "tables build: {} converted to format 2",
                        path.display()
                    ));
                }
            };
            let result = retrograde::build::<G>(rules, &request, stop, &mut on_event);
            menagerie_tables::cache::forget(&job.dir);
            let built = result.map_err(TablesError::Build)?;
            let mut total = 0;
            for b in &built {
                let pair = if b.slice.mover == b.slice.other {
                    b.slice.to_string()
                } else {
                    format!("{} and {}", b.slice, b.slice.swapped())
                };
                if b.found {
                    remark(format!("tables {pair}: already built"));
                } else {
                    total += b.positions;
                    remark(format!(
                        "tables {pair}: {} positions in {:.1} s ({} positions/s)",
                        b.positions,
                        b.seconds,
                        count((b.positions as f64 / b.seconds.max(1e-3)) as u64)
                    ));
                }
            }
            let (tables, _) = Tables::open(&job.dir, &expected);
            remark(format!(
                "tables build done: {total} positions in {:.1} s; {} slices, complete to {} men, {} bytes in {}",
                started.elapsed().as_secs_f64(),
                tables.slices().len(),
                tables.complete_men(),
                tables.bytes(),
                tables.folder.display()
            ));
        }
        TablesAction::Verify => {
            let (tables, damaged) = opened("verify", &mut remark)?;
            let mut mismatches = 0;
            let (mut checked, mut skipped, mut failed, mut before) = (0, 0, 0, 0);
            for slice in tables.slices() {
                if job.men.is_some_and(|m| slice.men() > m) || job.only.is_some_and(|o| o != slice)
                {
                    continue;
                }
                let needed = retrograde::dependencies(slice)
                    .into_iter()
                    .chain([slice.swapped()]);
                if let Some(missing) = needed.into_iter().find(|s| tables.slice(*s).is_none()) {
                    skipped += 1;
                    remark(format!("tables verify {slice}: skipped, its moves lead into {missing}, which is missing"));
                    continue;
                }
                let started = Instant::now();
                let path = tables.slice(slice).map(|f| f.path.display().to_string());
                let stamp = verified_stamp(&tables, slice);
                let record = tables.slice(slice).map(|f| verified_record(&f.path));
                if let Some(record) = record.as_ref().filter(|_| !job.fresh) {
                    // A record is one stamp line: a file larger than any
                    // stamp, or that is not a file, is no record.
                    let recorded = menagerie_os::files::read_text_bounded(record, 64 << 10).ok();
                    if recorded.as_deref() == Some(stamp.as_str()) {
                        // Its values were derived before; its bytes are
                        // still read whole against their checksums.
                        let file = tables.slice(slice).expect("a recorded slice is open");
                        if let Err(problem) = file.check_all() {
                            failed += 1;
                            remark(format!("tables verify {slice}: {problem}"));
                            continue;
                        }
                        checked += 1;
                        before += 1;
                        remark(format!(
                            "tables verify {slice}: verified before, and neither it nor the tables it reads changed since ({}); its checksums read again, its values not derived again",
                            record.display()
                        ));
                        continue;
                    }
                }
                let report =
                    match verify::verify_slice::<G>(rules, &tables, slice, job.threads, stop) {
                        Ok(report) => report,
                        Err(Unverified::Stopped) => {
                            return Err(TablesError::Build(BuildError::Stopped))
                        }
                        Err(Unverified::File(problem)) => {
                            failed += 1;
                            remark(format!("tables verify {slice}: {problem}"));
                            continue;
                        }
                    };
                checked += 1;
                mismatches += report.mismatches;
                if report.mismatches == 0 {
                    if let Some(record) = &record {
                        if let Err(e) = write_record(record, &stamp) {
                            remark(format!(
                                "tables verify {slice}: the record of this verification could not be written ({}: {e}); a later verify checks it again",
                                record.display()
                            ));
                        }
                    }
                }
                for example in &report.examples {
                    remark(format!("tables verify {slice}: mismatch: {example}"));
                }
                remark(format!(
                    "tables verify {slice} ({}): {} positions, {} values, {} mismatches in {:.1} s",
                    path.unwrap_or_default(),
                    report.positions,
                    report.values,
                    report.mismatches,
                    started.elapsed().as_secs_f64()
                ));
            }
            let damaged = damaged + failed;
            remark(format!(
                "tables verify done: {checked} slices, {mismatches} mismatches, {damaged} damaged files, {skipped} skipped, {before} verified before",
            ));
            if mismatches > 0 {
                return Err(TablesError::Mismatches(mismatches));
            }
            if damaged > 0 {
                return Err(TablesError::Damaged(damaged));
            }
        }
        TablesAction::Bench => {
            let (tables, _) = opened("bench", &mut remark)?;
            if tables.is_empty() {
                remark(format!(
                    "tables bench: no tables in {}",
                    tables.folder.display()
                ));
                return Ok(());
            }
            let b = bench::<G>(rules, &endgame, &tables, stop);
            remark(format!(
                "tables bench: {} positions of {} slices: {} probes/s, move generation {} positions/s; a probe takes {:.2} times a move generation",
                b.positions,
                tables.slices().len(),
                count(b.probes_per_second as u64),
                count(b.generations_per_second as u64),
                b.generations_per_second / b.probes_per_second.max(1.0)
            ));
        }
        TablesAction::Status => {
            let (tables, damaged) = opened("status", &mut remark)?;
            let slices: Vec<String> = tables.slices().iter().map(|s| s.to_string()).collect();
            remark(format!(
                "tables status: {} slices, complete to {} men, {} bytes in {}{}{}",
                slices.len(),
                if tables.is_empty() {
                    0
                } else {
                    tables.complete_men()
                },
                tables.bytes(),
                tables.folder.display(),
                if slices.is_empty() { "" } else { ": " },
                slices.join(" ")
            ));
            if damaged > 0 {
                return Err(TablesError::Damaged(damaged));
            }
        }
    }
    Ok(())
}
