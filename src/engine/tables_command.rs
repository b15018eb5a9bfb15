//! `tables build|verify|status <game> [ruleset options] [men=N]
//! [dir=PATH] [slice=MvO] [threads=N]`: endgame tables from the protocol
//! (and so from the command line: `menagerie tables build ...`).

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::progress::{self, count, Throttle};
use crate::task::{once, Catalogue, Context, Made, Refused};
use menagerie_rules::catalogue::{self, Attach};
use menagerie_rules::game::endgame::{Army, Slice};
use menagerie_rules::game::session::{DynSession, Session};
use menagerie_rules::game::Game;
use menagerie_tables::audit::{self, Selection, Verdict};
use menagerie_tables::file::{self, Expected, FileError};
use menagerie_tables::probe::Tables;
use menagerie_tables::retrograde::{self, BuildError, Event, Request};
use menagerie_tables::speed::{memory_speed, probe_speed};
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

/// `tables build|verify|status|bench|plan <game> ...`: the task, on a session
/// of the game and ruleset named (the folder, unless `dir=` gives one,
/// is the engine's `TablePath`; the threads all the cores).
pub fn task<C: Catalogue>(args: TablesArgs, ctx: &Context) -> Made {
    let session = catalogue::new_session_named(&C::games::<TablesOf>(), &args.game, &args.ruleset)
        .map_err(|e| Refused::error("tables", e))?;
    let job = TablesJob {
        action: args.action,
        men: args.men,
        dir: args.dir.map_or_else(|| ctx.tables.clone(), PathBuf::from),
        only: args.slice.map(|s| Slice::of(Army(s.mover), Army(s.other))),
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

/// What opening the folder found: a folder that cannot be read fails
/// the command; damaged files are named one by one and counted.
fn open(
    action: &str,
    job: &TablesJob,
    expected: &Expected,
    remark: &mut dyn FnMut(String),
) -> Result<(Tables, usize), TablesError> {
    let (tables, problems) = Tables::open(&job.dir, expected);
    let mut damaged = 0;
    for problem in problems {
        if problem.path() == tables.folder {
            return Err(TablesError::Folder(problem));
        }
        remark(format!("tables {action}: {problem}"));
        damaged += 1;
    }
    Ok((tables, damaged))
}

/// Carries out a checked `tables` command for game `G`, saying how it goes
/// in `info string` lines.
pub fn run<G: Game>(
    rules: &G::Rules,
    job: &TablesJob,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Reply),
) -> Result<(), TablesError> {
    let expected = Expected::of::<G>(rules).ok_or(TablesError::NoTables(G::ID))?;
    // A folder, or none yet (a build makes it).
    menagerie_os::files::folder(&job.dir, false).map_err(TablesError::Dir)?;
    let remark = &mut |text: String| say(Reply::Remark(text));
    match job.action {
        TablesAction::Build => build::<G>(rules, job, &expected, stop, remark),
        TablesAction::Verify => verify::<G>(rules, job, &expected, stop, remark),
        TablesAction::Bench => speed::<G>(rules, job, &expected, stop, remark),
        TablesAction::Status => status(job, &expected, remark),
        TablesAction::Plan => plan::<G>(job, &expected, remark),
    }
}

/// One line per number of men: the pairs a build of that many makes
/// (each after the pairs it reads, so the lines are a cluster's job
/// arrays, one task a pair), their positions, disk and the memory of the
/// largest pair's build.
fn plan<G: Game>(
    job: &TablesJob,
    expected: &Expected,
    remark: &mut dyn FnMut(String),
) -> Result<(), TablesError> {
    let endgame = G::endgame().ok_or(TablesError::NoTables(G::ID))?;
    let men = job.men.unwrap_or(0);
    let (mut positions, mut bytes) = (0u64, 0u64);
    let mut before = 0;
    for total in 1..=men {
        let pairs = (endgame.pairs)(total);
        let new = &pairs[before..];
        before = pairs.len();
        if new.is_empty() {
            continue;
        }
        let size = |p: &Slice| {
            p.members()
                .iter()
                .map(|&s| expected.entries(s))
                .sum::<u64>()
        };
        let numbers: u64 = new.iter().map(size).sum();
        let disk: u64 = new
            .iter()
            .flat_map(|p| p.members())
            .map(|s| file::length(expected.entries(s)))
            .sum();
        let memory = new
            .iter()
            .map(|&p| retrograde::memory_needed(&endgame, p))
            .max()
            .unwrap_or(0);
        positions += numbers;
        bytes += disk;
        let names: Vec<String> = new.iter().map(Slice::to_string).collect();
        remark(format!(
            "tables plan {total} men: {} ({} pair{}, {} positions, {} MiB of disk, {} MiB to build the largest)",
            names.join(" "),
            new.len(),
            if new.len() == 1 { "" } else { "s" },
            count(numbers),
            disk >> 20,
            memory >> 20
        ));
    }
    remark(format!(
        "tables plan: up to {men} men, {} positions, {} MiB of disk",
        count(positions),
        bytes >> 20
    ));
    Ok(())
}

fn build<G: Game>(
    rules: &G::Rules,
    job: &TablesJob,
    expected: &Expected,
    stop: &AtomicBool,
    remark: &mut dyn FnMut(String),
) -> Result<(), TablesError> {
    let request = Request {
        dir: &job.dir,
        men: job.men.unwrap_or(0),
        only: job.only,
        threads: job.threads,
    };
    let started = Instant::now();
    let mut throttle = Throttle::default();
    let mut on_event = |event: Event| match event {
        Event::Progress(p) => {
            if throttle.due(false) {
                let fraction = p.done as f64 / p.total.max(1) as f64;
                let done = format!("{:.1}% of {} positions", 100.0 * fraction, count(p.total));
                remark(progress::line(
                    &format!("tables build {}", p.slice),
                    fraction,
                    &done,
                    p.eta(),
                ));
            }
        }
        Event::Replacing(problem) => remark(format!("tables build: rebuilding {problem}")),
        Event::Converted(path) => remark(format!(
            "tables build: {} converted to format 2",
            path.display()
        )),
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
            let w = &b.work;
            remark(format!(
                "tables {pair}: {} positions in {:.1} s ({} positions/s); classifying {:.1} s on {} ({} probes), walking {:.1} s on {} ({} touches, {}/s); memory at most {} MB/s",
                b.positions,
                b.seconds,
                count((b.positions as f64 / b.seconds.max(1e-3)) as u64),
                w.classify_seconds,
                threads(job.threads),
                count(w.probes),
                w.walk_seconds,
                threads(job.threads),
                count(w.touches),
                count((w.touches as f64 / w.walk_seconds.max(1e-3)) as u64),
                (w.traffic(b.positions) as f64 / b.seconds.max(1e-3) / 1e6).round()
            ));
        }
    }
    let (tables, _) = Tables::open(&job.dir, expected);
    remark(format!(
        "tables build done: {total} positions in {:.1} s; {} slices, complete to {} men, {} bytes in {}",
        started.elapsed().as_secs_f64(),
        tables.slices().len(),
        tables.complete_men(),
        tables.bytes(),
        tables.folder.display()
    ));
    Ok(())
}

fn threads(n: usize) -> String {
    if n == 1 {
        "1 thread".to_string()
    } else {
        format!("{n} threads")
    }
}

fn verify<G: Game>(
    rules: &G::Rules,
    job: &TablesJob,
    expected: &Expected,
    stop: &AtomicBool,
    remark: &mut dyn FnMut(String),
) -> Result<(), TablesError> {
    let (tables, damaged_at_open) = open("verify", job, expected, remark)?;
    let selection = Selection {
        men: job.men,
        only: job.only,
        fresh: job.fresh,
    };
    let mut on = |verdict: Verdict| remark_verdict(verdict, remark);
    let summary = audit::verify_all::<G>(rules, &tables, selection, job.threads, stop, &mut on)
        .map_err(|_| TablesError::Build(BuildError::Stopped))?;
    let damaged = damaged_at_open + summary.damaged;
    remark(format!(
        "tables verify done: {} slices, {} mismatches, {damaged} damaged files, {} skipped, {} verified before",
        summary.checked, summary.mismatches, summary.skipped, summary.verified_before
    ));
    if summary.mismatches > 0 {
        return Err(TablesError::Mismatches(summary.mismatches));
    }
    if damaged > 0 {
        return Err(TablesError::Damaged(damaged));
    }
    Ok(())
}

fn remark_verdict(verdict: Verdict, remark: &mut dyn FnMut(String)) {
    match verdict {
        Verdict::Skipped { slice, missing } => remark(format!(
            "tables verify {slice}: skipped, its moves lead into {missing}, which is missing"
        )),
        Verdict::Damaged { slice, problem } => remark(format!("tables verify {slice}: {problem}")),
        Verdict::VerifiedBefore { slice, record } => remark(format!(
            "tables verify {slice}: verified before, and neither it nor the tables it reads changed since ({}); its checksums read again, its values not derived again",
            record.display()
        )),
        Verdict::Checked {
            slice,
            path,
            report,
            seconds,
        } => {
            for example in &report.examples {
                remark(format!("tables verify {slice}: mismatch: {example}"));
            }
            remark(format!(
                "tables verify {slice} ({}): {} positions, {} values, {} mismatches in {seconds:.1} s",
                path.display(),
                report.positions,
                report.values,
                report.mismatches,
            ));
        }
        Verdict::Unrecorded {
            slice,
            record,
            error,
        } => remark(format!(
            "tables verify {slice}: the record of this verification could not be written ({}: {error}); a later verify checks it again",
            record.display()
        )),
    }
}

fn speed<G: Game>(
    rules: &G::Rules,
    job: &TablesJob,
    expected: &Expected,
    stop: &AtomicBool,
    remark: &mut dyn FnMut(String),
) -> Result<(), TablesError> {
    let (tables, _) = open("bench", job, expected, remark)?;
    if tables.is_empty() {
        remark(format!(
            "tables bench: no tables in {}",
            tables.folder.display()
        ));
        return Ok(());
    }
    let b = probe_speed::<G>(rules, &tables, stop).ok_or(TablesError::NoTables(G::ID))?;
    remark(format!(
        "tables bench: {} positions of {} slices: {} probes/s, move generation {} positions/s; a probe takes {:.2} times a move generation",
        b.positions,
        tables.slices().len(),
        count(b.probes_per_second as u64),
        count(b.generations_per_second as u64),
        b.ratio()
    ));
    let largest = tables
        .slices()
        .into_iter()
        .map(|s| {
            s.members()
                .iter()
                .map(|&m| expected.entries(m))
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    // The walk touches a threshold and a counter per position of a pair.
    let m = memory_speed(2 * largest as usize, stop);
    remark(format!(
        "tables bench memory, one thread: streaming copy {} MB/s (read and written), {} random byte updates/s over {} MiB (the largest pair's thresholds and counters)",
        (m.copy_bytes_per_second / 1e6).round(),
        count(m.updates_per_second as u64),
        m.bytes >> 20
    ));
    Ok(())
}

fn status(
    job: &TablesJob,
    expected: &Expected,
    remark: &mut dyn FnMut(String),
) -> Result<(), TablesError> {
    let (tables, damaged) = open("status", job, expected, remark)?;
    let slices: Vec<String> = tables.slices().iter().map(|s| s.to_string()).collect();
    let men = if tables.is_empty() {
        0
    } else {
        tables.complete_men()
    };
    remark(format!(
        "tables status: {} slices, complete to {men} men, {} bytes in {}{}{}",
        slices.len(),
        tables.bytes(),
        tables.folder.display(),
        if slices.is_empty() { "" } else { ": " },
        slices.join(" ")
    ));
    if damaged > 0 {
        return Err(TablesError::Damaged(damaged));
    }
    Ok(())
}
