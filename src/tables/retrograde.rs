//! Retrograde analysis, one slice and its mirror at a time.
//!
//! The positions of a slice (m men to move against n) and of its mirror
//! (n against m) lead into each other by every move that captures
//! nothing, and into slices of fewer men by captures, whose values are
//! already known. So the pair is built at once, from the tables of fewer
//! men only:
//!
//! 1. Every position is classified: decided by the rules (no move), or
//!    with its captures' best value (read from the smaller tables) and the
//!    number of distinct positions its other moves reach.
//! 2. For each result a side may need time to force (see [`crate::value`])
//!    a breadth-first pass by plies left on the clock: positions where the
//!    side has it with 0 plies left (decided), with 1 (a capture), then,
//!    walking moves backwards, a position where the side is to move has
//!    it with r + 1 plies once one successor has it with r, and a position
//!    where the other side is to move once all its successors have it
//!    (a counter per position, as in every retrograde solver). The first
//!    r at which a position is reached is its threshold.
//!
//! Positions are numbered up to the board's symmetries, so counters count
//! distinct successor numbers, and the walk backwards visits each distinct
//! predecessor number once per successor: both sides count the same
//! pairs.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use menagerie_rules::game::endgame::{Endgame, Slice};
use menagerie_rules::game::Game;

pub use crate::backward::Work;
use crate::backward::{self, walk, Class, Halt, Thresholds};
use crate::file::{self, Check, Expected, FileError, Header, SliceFile};
use crate::probe::Tables;
use crate::value::{Entry, Value, Wdl};

/// What to build.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The cache folder (tables go in `<dir>/<game>/<variant>/`).
    pub dir: &'a Path,
    /// Every slice of up to this many men.
    pub men: u32,
    /// Only this slice and its mirror (the smaller ones must be built):
    /// one task of a job array.
    pub only: Option<Slice>,
    pub threads: usize,
}

/// How a build is going, for a progress line.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The slice being built (with its mirror).
    pub slice: Slice,
    /// Work done and to do in the whole build, in positions.
    pub done: u64,
    pub total: u64,
    pub seconds: f64,
}

impl Progress {
    /// Seconds left at the rate so far.
    pub fn eta(&self) -> Option<f64> {
        (self.done > 0).then(|| self.seconds * (self.total - self.done) as f64 / self.done as f64)
    }
}

/// What a build says as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    Progress(&'a Progress),
    /// A file that cannot be used, which the build replaces.
    Replacing(&'a FileError),
    /// A format 1 file rewritten in format 2.
    Converted(&'a Path),
}

/// A slice built or found.
#[derive(Clone, Debug, PartialEq)]
pub struct Built {
    pub slice: Slice,
    /// Numbered positions of the slice and its mirror.
    pub positions: u64,
    pub seconds: f64,
    /// Found complete on disk: not built again.
    pub found: bool,
    /// What the build did (zero when found).
    pub work: Work,
}

#[derive(Debug)]
pub enum BuildError {
    /// The game has no tables.
    NoTables,
    /// `men` or `only` asks for slices the game cannot have.
    NoSuchSlice(Slice),
    /// Building `only` needs a smaller slice that is not built.
    Missing(Slice),
    File(FileError),
    /// The files of the build need more disk than is free.
    Disk {
        needed: u64,
        free: u64,
    },
    /// The memory a slice needs is more than the process may use.
    Memory {
        slice: Slice,
        needed: u64,
        room: menagerie_os::memory::Headroom,
    },
    Stopped,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            BuildError::NoTables => f.write_str("this game has no endgame tables"),
            BuildError::NoSuchSlice(s) => write!(f, "no slice {s} in this game"),
            BuildError::Missing(s) => write!(f, "slice {s} must be built first"),
            BuildError::File(e) => write!(f, "{e}"),
            BuildError::Memory {
                slice,
                needed,
                room,
            } => write!(
                f,
                "slice {slice} and its mirror need about {} MiB to build, and {room} (a tenth of which is kept spare)",
                needed >> 20
            ),
            BuildError::Disk { needed, free } => write!(
                f,
                "the tables asked for need about {} MiB of disk, and {} MiB is free",
                needed >> 20,
                free >> 20
            ),
            BuildError::Stopped => {
                f.write_str("stopped (built slices are kept; run again to resume)")
            }
        }
    }
}

impl std::error::Error for BuildError {}

impl From<FileError> for BuildError {
    fn from(e: FileError) -> BuildError {
        BuildError::File(e)
    }
}

/// The pair's slices: the slice and, unless it is its own mirror, the
/// mirror.
pub fn members(pair: Slice) -> Vec<Slice> {
    pair.members()
}

/// Builds the tables asked for, skipping slices already complete on disk
/// (so a build interrupted resumes where it was).
pub fn build<G: Game>(
    rules: &G::Rules,
    request: &Request,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Event),
) -> Result<Vec<Built>, BuildError> {
    let endgame = G::endgame().ok_or(BuildError::NoTables)?;
    let expected = Expected::of::<G>(rules).ok_or(BuildError::NoTables)?;
    let wanted = wanted_pairs(&endgame, request)?;
    // The folder must take files before any work.
    let folder = file::folder(request.dir, G::ID, expected.variant);
    file::check_writable(&folder)?;
    file::remove_orphans(&folder);
    let mut tables = open_converting(request.dir, &expected, say);
    check_room(&endgame, &expected, &tables, &wanted, &folder)?;
    let mut building = Building {
        endgame: &endgame,
        rules,
        expected: &expected,
        threads: request.threads,
        total: wanted
            .iter()
            .flat_map(|&p| members(p))
            .map(|s| (endgame.slice_size)(s))
            .fold(0, u64::saturating_add),
        done_before: 0,
        started: Instant::now(),
    };
    let mut results = Vec::new();
    for pair in wanted {
        results.push(building.pair(&mut tables, pair, stop, say)?);
    }
    Ok(results)
}

/// The pairs a request names: one (its slice and mirror), or every pair
/// up to its men.
fn wanted_pairs<G: Game>(
    endgame: &Endgame<G>,
    request: &Request,
) -> Result<Vec<Slice>, BuildError> {
    Ok(match request.only {
        Some(slice) => {
            let pair = slice.pair();
            let known = (endgame.pairs)(pair.men() + endgame.fixed_men).contains(&pair);
            if !known || (endgame.slice_size)(pair) == 0 {
                return Err(BuildError::NoSuchSlice(slice));
            }
            vec![pair]
        }
        None => (endgame.pairs)(request.men),
    })
}

/// The tables on disk, old-format files converted; files that cannot be
/// used are said and left to be rebuilt.
fn open_converting(dir: &Path, expected: &Expected, say: &mut dyn FnMut(Event)) -> Tables {
    let (mut tables, problems) = Tables::open(dir, expected);
    for problem in problems {
        let converted = match &problem {
            FileError::OldFormat(path) => slice_of(path).and_then(|slice| {
                file::convert_v1(path, expected, slice).ok()?;
                SliceFile::open(path, expected, slice, Check::Checksum).ok()
            }),
            _ => None,
        };
        match converted {
            Some(opened) => {
                say(Event::Converted(&opened.path));
                tables.insert(opened);
            }
            None => say(Event::Replacing(&problem)),
        }
    }
    tables
}

/// Everything else that could refuse the build, before any work: each
/// pair still to build must fit in memory, and their files on disk.
fn check_room<G: Game>(
    endgame: &Endgame<G>,
    expected: &Expected,
    tables: &Tables,
    wanted: &[Slice],
    folder: &Path,
) -> Result<(), BuildError> {
    let to_build: Vec<Slice> = wanted
        .iter()
        .copied()
        .filter(|&p| members(p).iter().any(|&s| tables.slice(s).is_none()))
        .collect();
    for &pair in &to_build {
        let needed = memory_needed(endgame, pair);
        if let Err(room) = menagerie_os::memory::check(needed) {
            return Err(BuildError::Memory {
                slice: pair,
                needed,
                room,
            });
        }
    }
    let to_write: u64 = to_build
        .iter()
        .flat_map(|&p| members(p))
        .map(|s| file::length(expected.entries(s)))
        .fold(0, u64::saturating_add);
    if let Some(free) = menagerie_os::disk::free_bytes(folder) {
        if to_write > free {
            return Err(BuildError::Disk {
                needed: to_write,
                free,
            });
        }
    }
    Ok(())
}

/// A build under way: what every pair shares, and the progress so far.
struct Building<'a, G: Game> {
    endgame: &'a Endgame<G>,
    rules: &'a G::Rules,
    expected: &'a Expected,
    threads: usize,
    /// Positions of every pair wanted, and of those done.
    total: u64,
    done_before: u64,
    started: Instant,
}

impl<G: Game> Building<'_, G> {
    /// Builds `pair` (or finds it built) and adds its files to `tables`.
    fn pair(
        &mut self,
        tables: &mut Tables,
        pair: Slice,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Event),
    ) -> Result<Built, BuildError> {
        let (endgame, expected) = (self.endgame, self.expected);
        let slices = members(pair);
        let positions: u64 = slices.iter().map(|&s| (endgame.slice_size)(s)).sum();
        if slices.iter().all(|&s| tables.slice(s).is_some()) {
            self.done_before += positions;
            return Ok(Built {
                slice: pair,
                positions,
                seconds: 0.0,
                found: true,
                work: Work::default(),
            });
        }
        if let Some(&missing) = (endgame.dependencies)(pair)
            .iter()
            .find(|&&s| tables.slice(s).is_none())
        {
            return Err(BuildError::Missing(missing));
        }
        let pair_started = Instant::now();
        let (done_before, total, started) = (self.done_before, self.total, self.started);
        let mut report = |done: u64| {
            say(Event::Progress(&Progress {
                slice: pair,
                done: done_before + done.min(positions),
                total,
                seconds: started.elapsed().as_secs_f64(),
            }))
        };
        let solved = solve_pair(
            endgame,
            self.rules,
            tables,
            pair,
            self.threads,
            stop,
            &mut report,
        );
        // A smaller table that failed a check while it was read: the
        // build cannot be trusted, and that file must be rebuilt.
        if let Some(problem) = tables.take_problems().into_iter().next() {
            return Err(BuildError::File(problem));
        }
        let (entries, work) = solved?;
        for (slice, (entries, timeout)) in slices.iter().zip(entries) {
            let path = file::slice_path(&tables.folder, *slice);
            let header = Header {
                game: G::ID.to_string(),
                variant: expected.variant.to_string(),
                slice: *slice,
                timeout,
                entries: 0,
                checksum: 0,
                limit: G::NO_PROGRESS_LIMIT,
            };
            file::write(&path, &header, &entries)?;
            tables.insert(SliceFile::open(&path, expected, *slice, Check::Header)?);
        }
        self.done_before += positions;
        Ok(Built {
            slice: pair,
            positions,
            seconds: pair_started.elapsed().as_secs_f64(),
            found: false,
            work,
        })
    }
}

/// `len` copies of `value` for building `pair`, or the memory error
/// instead of an abort.
fn filled<T: Clone>(len: usize, value: T, pair: Slice) -> Result<Vec<T>, BuildError> {
    backward::filled(len, value).map_err(|halt| BuildError::of(halt, pair))
}

impl BuildError {
    /// Why a walk of `pair` halted, as the build's error.
    fn of(halt: Halt, pair: Slice) -> BuildError {
        match halt {
            Halt::Stopped => BuildError::Stopped,
            Halt::Memory { needed } => BuildError::Memory {
                slice: pair,
                needed,
                room: menagerie_os::memory::headroom().unwrap_or(menagerie_os::memory::Headroom {
                    bytes: 0,
                    source: menagerie_os::memory::Source::Machine,
                }),
            },
        }
    }
}

/// The slice a file's name gives (`4v3.mtb`).
fn slice_of(path: &Path) -> Option<Slice> {
    path.file_stem()?.to_str()?.parse().ok()
}

/// Bytes a pair takes to build at its peak: per position a class (2
/// bytes), the entries written (2), and for each result level walked a
/// threshold and a counter per role (4 per level, two levels), and the
/// walk's two queues of positions (8 bytes a node, at most every node
/// of a role at once); with a tenth more for the rest.
pub fn memory_needed<G: Game>(endgame: &Endgame<G>, pair: Slice) -> u64 {
    let positions: u64 = members(pair)
        .iter()
        .map(|&s| (endgame.slice_size)(s))
        .fold(0u64, u64::saturating_add);
    let per_position: u64 = 2 + 2 + 2 * 4 + 2 * 8;
    let bytes = positions.saturating_mul(per_position);
    bytes.saturating_add(bytes / 10)
}

/// The value for the side to move of a position a capture leads to, with
/// the clock at 0: decided by the rules, or from the smaller tables.
fn after_capture<G: Game>(tables: &Tables, position: &G) -> Option<Wdl> {
    if let Some(outcome) = position.outcome() {
        return Some(Wdl::of_outcome(outcome, position));
    }
    tables.probe(position).map(Value::wdl)
}

/// The position's class and how many captures' positions it probed;
/// `None` if a smaller table that should hold a capture's position could
/// not give it (a file that failed a check).
fn classify<G: Game>(
    position: &G,
    tables: &Tables,
    moves: &mut Vec<G::Move>,
    keys: &mut Vec<(Slice, u64)>,
) -> Option<(Class, usize)> {
    if let Some(outcome) = position.outcome() {
        return Some((Class::decided(Wdl::of_outcome(outcome, position)), 0));
    }
    let mut probed = 0;
    moves.clear();
    position.generate(moves);
    let mut best: Option<Wdl> = None;
    keys.clear();
    for &mv in moves.iter() {
        let mut child = position.clone();
        child.play(mv);
        if position.is_capture(mv) {
            probed += 1;
            let value = after_capture(tables, &child)?.flipped();
            best = best.max(Some(value));
        } else {
            let key = child
                .table_key()
                .expect("a move that captures nothing stays in the pair");
            keys.push((key.slice, key.index));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    Some((Class::playable(best, keys.len()), probed))
}

/// The classes of one slice of `pair`, in parallel over ranges of
/// numbers, counting positions done and captures probed.
#[allow(clippy::too_many_arguments)]
fn classify_slice<G: Game>(
    endgame: &Endgame<G>,
    rules: &G::Rules,
    tables: &Tables,
    (pair, slice, size): (Slice, Slice, u64),
    threads: usize,
    stop: &AtomicBool,
    (done, probes): (&AtomicU64, &AtomicU64),
    report: &mut dyn FnMut(u64),
) -> Result<Vec<Class>, BuildError> {
    let mut class = filled(size as usize, Class::INVALID, pair)?;
    let threads = threads.max(1);
    let chunk = (size as usize).div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for (c, part) in class.chunks_mut(chunk).enumerate() {
            workers.push(scope.spawn(move || {
                let (mut moves, mut keys) = (Vec::new(), Vec::new());
                let mut captures = 0;
                for (j, out) in part.iter_mut().enumerate() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = (c * chunk + j) as u64;
                    if let Some(p) = (endgame.position)(rules, slice, index) {
                        match classify(&p, tables, &mut moves, &mut keys) {
                            Some((class, probed)) => {
                                *out = class;
                                captures += probed;
                            }
                            // The caller finds why in the tables.
                            None => break,
                        }
                    }
                    if j % 4096 == 4095 {
                        done.fetch_add(4096, Ordering::Relaxed);
                    }
                }
                probes.fetch_add(captures as u64, Ordering::Relaxed);
            }));
        }
        while !workers.iter().all(|w| w.is_finished()) {
            report(done.load(Ordering::Relaxed) / 3);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    });
    // A smaller table that failed a check stopped the classifying; the
    // caller names the file.
    if stop.load(Ordering::Relaxed) || tables.any_failed() {
        return Err(BuildError::Stopped);
    }
    Ok(class)
}

/// A slice's entries, and the result for its side to move when the
/// clock runs out.
type SliceEntries = (Vec<Entry>, Wdl);

/// Builds a pair: for each slice its entries and the clock's end for its
/// side to move.
fn solve_pair<G: Game>(
    endgame: &Endgame<G>,
    rules: &G::Rules,
    tables: &Tables,
    pair: Slice,
    threads: usize,
    stop: &AtomicBool,
    report: &mut dyn FnMut(u64),
) -> Result<(Vec<SliceEntries>, Work), BuildError> {
    let slices = members(pair);
    let mut work = Work::default();
    let classify_started = Instant::now();
    let probes = AtomicU64::new(0);
    let sizes: Vec<u64> = slices.iter().map(|&s| (endgame.slice_size)(s)).collect();
    let positions: u64 = sizes.iter().sum();
    // 1. Classify, in parallel over ranges of numbers.
    let done = AtomicU64::new(0);
    let mut classes: Vec<Vec<Class>> = Vec::new();
    let mut timeouts = Vec::new();
    for (&slice, &size) in slices.iter().zip(&sizes) {
        let class = classify_slice(
            endgame,
            rules,
            tables,
            (pair, slice, size),
            threads,
            stop,
            (&done, &probes),
            report,
        )?;
        let sample = (0..size)
            .find_map(|i| (endgame.position)(rules, slice, i))
            .expect("a slice holds a position");
        timeouts.push(Wdl::of_outcome(sample.no_progress_outcome(), &sample));
        classes.push(class);
    }
    report(positions / 3);
    work.classify_seconds = classify_started.elapsed().as_secs_f64();
    work.probes = probes.into_inner();
    let walk_started = Instant::now();
    // 2. Walk for each result a side needs time for.
    let by_clock = timeouts.iter().any(|&t| t != Wdl::Draw);
    // Roles whose asked side is not satisfied by the clock's end: all of
    // them when it is a draw; else the side it does not favour.
    let mut active = [[true; 2]; 2];
    if by_clock {
        for (k, &t) in timeouts.iter().enumerate() {
            active[k] = [t == Wdl::Loss, t == Wdl::Win];
        }
    }
    let levels: &[Wdl] = if by_clock {
        &[Wdl::Win, Wdl::Draw]
    } else {
        &[Wdl::Win]
    };
    work.levels = levels.len() as u64;
    let mut walks: Vec<Thresholds> = Vec::new();
    for (l, &level) in levels.iter().enumerate() {
        let base = positions / 3 + positions * l as u64 / (3 * levels.len() as u64);
        let share = positions * 2 / (3 * levels.len() as u64);
        let walk = walk(
            endgame,
            rules,
            pair,
            &sizes,
            &classes,
            level,
            active,
            threads,
            stop,
            &mut work,
            &mut |r| report(base + share * u64::from(r) / u64::from(G::NO_PROGRESS_LIMIT)),
        )
        .map_err(|halt| BuildError::of(halt, pair))?;
        walks.push(walk);
    }
    work.walk_seconds = walk_started.elapsed().as_secs_f64();
    // 3. Entries: which thresholds a slice keeps follows its clock's end.
    let mut out = Vec::new();
    for (k, &t) in timeouts.iter().enumerate() {
        let win = &walks[0][k];
        let draw = walks.get(1).map(|w| &w[k]);
        let entries = (0..sizes[k] as usize)
            .map(|i| {
                if !classes[k][i].is_valid() {
                    return Entry::UNUSED;
                }
                let (first, second) = match (t, draw) {
                    (Wdl::Win, Some(draw)) => (draw[1][i], win[1][i]),
                    (Wdl::Loss, Some(draw)) => (win[0][i], draw[0][i]),
                    _ => (win[0][i], win[1][i]),
                };
                Entry { first, second }
            })
            .collect();
        out.push((entries, t));
    }
    Ok((out, work))
}
