//! `selfplay <game> [key=value ...] games=N [nodes=N] [openings=P]
//! [seed=S] [shard=I/N] out=PATH`: games of the engine against itself at a
//! fixed node count (the machine's speed decides nothing), from random
//! openings, written to a data file for training ([`crate::selfplay_file`],
//! docs/selfplay.md). Game `k` draws its opening and dice from the seed and
//! `k` alone, so a run cut at any moment and started again with the same
//! line goes on where it was and writes the file a whole run would have;
//! shards (`shard=I/N`: the games `k` with `k mod N = I - 1`) split a run
//! over machines or Slurm tasks, and `join=N` makes the whole run's file
//! from the shards' (`<out>.1` to `<out>.<N>`).
//!
//! Exact knowledge is off: the data must not depend on which tables a
//! machine has. The evaluation is the hand-written one unless
//! `network=PATH` names a network file, so that a network's own games can
//! train the next one; the file's settings line then names the network
//! by its checksum, and a run goes on only with the same network.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::progress::{self, Throttle};
use crate::task::{once, Catalogue, Context, Made, Refused};
use menagerie_nnue::{Network, NetworkError};
use menagerie_rules::catalogue::{self, Attach};
use menagerie_rules::game::session::{random_opening, DynSession, Session};
use menagerie_rules::game::{Game, Outcome, Status};
use menagerie_rules::rng::{derive_seed as derive, Rng, DICE, OPENING};
use menagerie_search::{Limits, Score, Settings, Shared, Silent};
use menagerie_wire::{Reply, SelfPlayArgs};

use crate::selfplay_file::{self, FileError, GameRecord, SeatResult, Writer, NO_SCORE};

/// What a `selfplay` line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayJob {
    pub games: u32,
    pub nodes: u64,
    pub openings: u32,
    pub seed: u64,
    pub shard: Option<(u32, u32)>,
    pub out: PathBuf,
    /// Joins the files of this many shards (`<out>.1` to `<out>.<N>`)
    /// into `out` instead of playing.
    pub join: Option<u32>,
    /// A network file both sides search with (`network=PATH`); the
    /// hand-written evaluation without one.
    pub network: Option<PathBuf>,
}

/// Why `selfplay` could not run or finish.
#[derive(Debug)]
pub enum SelfPlayError {
    File(PathBuf, FileError),
    /// The network file cannot serve this game and ruleset.
    Network(PathBuf, NetworkError),
}

impl std::fmt::Display for SelfPlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            SelfPlayError::File(path, e) => write!(f, "{}: {e}", path.display()),
            SelfPlayError::Network(path, e) => write!(f, "network {}: {e}", path.display()),
        }
    }
}

impl std::error::Error for SelfPlayError {}

/// Nodes per move when the line gives none.
const DEFAULT_NODES: u64 = 5_000;
/// Random plies of each game's opening when the line gives none.
const DEFAULT_OPENINGS: u32 = 4;
/// The seed when the line gives none.
const DEFAULT_SEED: u64 = 1;
/// Plies no game may pass (the no-progress rule ends every game long
/// before; a guard for the file's 16-bit count).
const MOST_PLIES: usize = 20_000;

/// Attaches a `selfplay` command to sessions of any game: the game's own
/// type plays it.
pub struct SelfPlayOf;

/// A session that can play a `selfplay` run of its ruleset.
pub trait SelfPlayWork: DynSession {
    fn selfplay(
        &self,
        job: &SelfPlayJob,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), SelfPlayError>;
}

impl<G: Game> SelfPlayWork for Session<G> {
    fn selfplay(
        &self,
        job: &SelfPlayJob,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), SelfPlayError> {
        run(self, job, stop, say)
    }
}

impl Attach for SelfPlayOf {
    type Session = dyn SelfPlayWork;

    fn attach<G: Game>(session: Session<G>) -> Box<dyn SelfPlayWork> {
        Box::new(session)
    }
}

/// `selfplay <game> ...`: the task, on a session of the game and ruleset
/// named.
pub fn task<C: Catalogue>(args: SelfPlayArgs, _ctx: &Context) -> Made {
    let session =
        catalogue::new_session_named(&C::games::<SelfPlayOf>(), &args.game, &args.ruleset)
            .map_err(|e| Refused::error("selfplay", e))?;
    let job = SelfPlayJob {
        games: args.games,
        nodes: args.nodes.unwrap_or(DEFAULT_NODES),
        openings: args.openings.unwrap_or(DEFAULT_OPENINGS),
        seed: args.seed.unwrap_or(DEFAULT_SEED),
        shard: args.shard,
        out: PathBuf::from(args.out),
        join: args.join,
        network: args.network.map(PathBuf::from),
    };
    Ok(once(move |out, stop| {
        if let Err(e) = session.selfplay(&job, stop, &mut |reply| out.reply(&reply)) {
            out.error("selfplay", &e);
        }
        false
    }))
}

/// The games this run plays, in order.
fn indices(job: &SelfPlayJob) -> Vec<u32> {
    (0..job.games)
        .filter(|k| job.shard.map_or(true, |(i, n)| k % n == i - 1))
        .collect()
}

/// The data file's settings line: everything that decides its games but
/// their number, so that a run may be extended (the network by its
/// checksum, after the rest, so that files without one read as before).
fn settings_line<G: Game>(
    template: &Session<G>,
    job: &SelfPlayJob,
    network: Option<&Network>,
) -> String {
    use menagerie_rules::game::session::DynSession;
    let shard = job
        .shard
        .map_or("1/1".to_string(), |(i, n)| format!("{i}/{n}"));
    let network = network.map_or(String::new(), |net| {
        format!(" network={:08x}", net.checksum())
    });
    format!(
        "game={} rules={} nodes={} openings={} seed={} shard={shard}{network}",
        G::ID,
        template.ruleset(),
        job.nodes,
        job.openings,
        job.seed
    )
}

/// The job's network, loaded and checked against the game and ruleset.
fn load_network<G: Game>(
    template: &Session<G>,
    job: &SelfPlayJob,
) -> Result<Option<Arc<Network>>, SelfPlayError> {
    use menagerie_rules::game::session::DynSession;
    let Some(path) = &job.network else {
        return Ok(None);
    };
    let refuse = |e| SelfPlayError::Network(path.clone(), e);
    let net = Network::load(path).map_err(refuse)?;
    net.fits(G::ID, template.ruleset(), G::INPUT_SET)
        .map_err(refuse)?;
    Ok(Some(Arc::new(net)))
}

/// A score in the file's two bytes.
pub fn encode_score(score: Score) -> i16 {
    match score {
        Score::Cp(cp) => cp.clamp(-30_000, 30_000) as i16,
        Score::Win(n) => 32_767 - n.min(2_000) as i16,
        Score::Loss(n) => -32_767 + n.min(2_000) as i16,
    }
}

/// The start of game `index`: the ruleset's start after `plies` random
/// moves (rolls not counted), drawn again if they end the game.
fn opening<G: Game>(template: &Session<G>, seed: u64, index: u32, plies: u32) -> String {
    let mut rng = Rng::new(derive(seed, index, OPENING));
    random_opening(template, &mut rng, plies)
        .position()
        .to_string()
}

/// Plays game `index`; `None` when stopped.
fn play_game<G: Game>(
    template: &Session<G>,
    job: &SelfPlayJob,
    network: Option<&Arc<Network>>,
    index: u32,
    shared: &Shared,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    use menagerie_rules::game::session::DynSession;
    let start = opening(template, job.seed, index, job.openings);
    let mut session = template.clone();
    session
        .set_position(Some(&start), &[])
        .expect("an opening the rules played is a position");
    let settings = Settings {
        exact: false,
        seed: job.seed ^ u64::from(index),
        network: network.cloned(),
        ..Settings::default()
    };
    let limits = Limits {
        nodes: Some(job.nodes),
        ..Limits::default()
    };
    let mut dice = Rng::new(derive(job.seed, index, DICE));
    let seats = session.position().seats().to_vec();
    let mut plies = Vec::new();
    let mut moves = Vec::new();
    shared.tt.clear();
    let outcome = loop {
        if let Status::Over(outcome, _) = session.status() {
            break outcome;
        }
        if plies.len() >= MOST_PLIES {
            break Outcome::Draw;
        }
        session.legal(&mut moves);
        let (mv, score) = if session.position().is_chance() {
            let roll = moves[dice.below(moves.len() as u64) as usize];
            (roll, NO_SCORE)
        } else {
            let result = menagerie_search::run(&session, &limits, shared, &settings, &mut Silent);
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let mv = result.best.unwrap_or(moves[0]);
            (mv, encode_score(result.score))
        };
        let index = moves
            .iter()
            .position(|&m| m == mv)
            .expect("the search plays a legal move");
        plies.push((
            u8::try_from(index).expect("fewer than 256 legal moves"),
            score,
        ));
        session.play(mv);
    };
    let results = seats
        .iter()
        .map(|&seat| match outcome {
            Outcome::Draw => SeatResult::Draw,
            Outcome::Win(w) if w == seat => SeatResult::Win,
            Outcome::Win(_) => SeatResult::Loss,
        })
        .collect();
    Some(GameRecord {
        index,
        start,
        results,
        plies,
    })
}

/// The file of shard `i` of a run whose whole file is `out`.
pub fn shard_path(out: &std::path::Path, i: u32) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(format!(".{i}"));
    PathBuf::from(name)
}

/// Joins the shards' files into the file one whole run writes: every
/// shard must be complete and of this run's settings.
fn join<G: Game>(
    template: &Session<G>,
    job: &SelfPlayJob,
    network: Option<&Network>,
    parts: u32,
    say: &mut dyn FnMut(Reply),
) -> Result<(), SelfPlayError> {
    let mut games = Vec::new();
    for i in 1..=parts {
        let path = shard_path(&job.out, i);
        let shard = SelfPlayJob {
            shard: Some((i, parts)),
            join: None,
            ..job.clone()
        };
        let data = selfplay_file::read(&path).map_err(|e| SelfPlayError::File(path.clone(), e))?;
        let found: Vec<u32> = data.games.iter().map(|g| g.index).collect();
        if data.settings != settings_line(template, &shard, network) || found != indices(&shard) {
            return Err(SelfPlayError::File(
                path,
                FileError::OtherSettings {
                    found: format!("{}, {} games", data.settings, found.len()),
                },
            ));
        }
        games.extend(data.games);
    }
    games.sort_by_key(|g| g.index);
    let whole = SelfPlayJob {
        shard: None,
        join: None,
        ..job.clone()
    };
    let file_error = |e| SelfPlayError::File(job.out.clone(), e);
    // A link to a file is followed: the file is replaced, the link stays.
    let target =
        menagerie_os::files::write_target(&job.out).map_err(|e| file_error(FileError::Path(e)))?;
    let partial = shard_path(&target, 0);
    let _ = std::fs::remove_file(&partial);
    let (mut writer, _) =
        Writer::open(&partial, &settings_line(template, &whole, network)).map_err(file_error)?;
    for game in &games {
        writer
            .append(game)
            .map_err(|e| file_error(FileError::Io(e)))?;
    }
    writer.sync().map_err(|e| file_error(FileError::Io(e)))?;
    // Whole or not at all: a reader never sees half a join.
    std::fs::rename(&partial, &target).map_err(|e| file_error(FileError::Io(e)))?;
    let plies: usize = games.iter().map(|g| g.plies.len()).sum();
    say(Reply::Remark(format!(
        "selfplay joined {parts} shards: {} games, {plies} plies in {}",
        games.len(),
        job.out.display()
    )));
    Ok(())
}

/// Runs a `selfplay` job on the games of `template`'s ruleset, with a
/// progress line a second through `say`.
pub fn run<G: Game>(
    template: &Session<G>,
    job: &SelfPlayJob,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Reply),
) -> Result<(), SelfPlayError> {
    let network = load_network(template, job)?;
    if let Some(parts) = job.join {
        return join(template, job, network.as_deref(), parts, say);
    }
    let file_error = |e| SelfPlayError::File(job.out.clone(), e);
    let line = settings_line(template, job, network.as_deref());
    let (mut writer, done) = Writer::open(&job.out, &line).map_err(file_error)?;
    let todo = indices(job);
    // The file must hold this run's first games (or more of them).
    let found: Vec<u32> = done.iter().map(|g| g.index).take(todo.len()).collect();
    if found[..] != todo[..found.len()] {
        return Err(file_error(FileError::OtherSettings {
            found: "games out of this run's order".to_string(),
        }));
    }
    let mut positions: usize = done.iter().map(|g| g.plies.len()).sum();
    if !done.is_empty() {
        say(Reply::Remark(format!(
            "selfplay: resuming after {} games in {}",
            done.len(),
            job.out.display()
        )));
    }
    let shared = Shared::new(16);
    let started = Instant::now();
    let mut throttle = Throttle::default();
    let total = todo.len().max(done.len());
    for (n, &index) in todo.iter().enumerate().skip(done.len()) {
        let Some(game) = play_game(template, job, network.as_ref(), index, &shared, stop) else {
            say(Reply::Remark(format!(
                "selfplay stopped: {n} of {total} games in {} (the same line goes on from there)",
                job.out.display()
            )));
            return Ok(());
        };
        writer
            .append(&game)
            .map_err(|e| file_error(FileError::Io(e)))?;
        positions += game.plies.len();
        if throttle.due(n + 1 == total) {
            let played = n + 1 - done.len();
            let rate = played as f64 / started.elapsed().as_secs_f64().max(1e-3);
            let left = (total - n - 1) as f64 / rate.max(1e-9);
            let done = format!(
                "{}/{total} games, {positions} plies, {rate:.1} games/s",
                n + 1
            );
            let fraction = (n + 1) as f64 / total as f64;
            say(Reply::Remark(progress::line(
                "selfplay",
                fraction,
                &done,
                Some(left),
            )));
        }
    }
    writer.sync().map_err(|e| file_error(FileError::Io(e)))?;
    say(Reply::Remark(format!(
        "selfplay done: {total} games, {positions} plies in {}",
        job.out.display()
    )));
    Ok(())
}

/// Reads a data file back (for training and tests).
pub use selfplay_file::read;
