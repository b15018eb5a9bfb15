//! `dataset <selfplay file> out=PATH`: the positions of a self-play file
//! ([`crate::selfplay_file`]) as a network's training data: each position
//! a player or the dice move from, as the game's inputs with the search's
//! score and each head's final result, in fixed-size records that the
//! trainer (tools/train) maps straight into arrays (docs/network.md).
//!
//! The game and ruleset come from the self-play file's own settings, so
//! the line names no game.
//!
//! `rescore=tables` replaces the results by the endgame tables' values
//! where a game reaches them, as Leela Chess Zero's rescorer does with
//! Syzygy tables: every position is labelled with the exact value of the
//! first position of its game, at it or after it, that the tables hold
//! (perfect play from there on); positions after which the game never
//! meets the tables keep the game's result. The games were played with
//! the tables off, so their ends are often not what perfect play gives.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use menagerie_nnue::file::family;
use menagerie_rules::game::inputs::{Inputs, MoveKeys, MAX_ACTIVE, NO_KEY};
use menagerie_rules::game::session::{DynSession, Session};
use menagerie_rules::game::{Game, Seat};
use menagerie_tables::{Exact, Wdl};
use menagerie_wire::{DatasetArgs, Reply};

use crate::selfplay_file::{self, FileError, SeatResult};
use crate::task::{once, Catalogue, Context, Made};
use menagerie_rules::catalogue::{self, Attach};

pub const MAGIC: &[u8; 8] = b"MNGDATA2";
/// Most moves a record lists for the policy's target.
pub const POLICY_MOVES: usize = 64;
/// Bytes of one record: the inputs (`u16`, unused slots `u16::MAX`), the
/// score (`i16`), the heads in play (`u8` mask), each head's result (`u8`:
/// 0 loss, 1 draw, 2 win), the game's index (`u32`) and the ply (`u16`);
/// then the moves listed (`u8`), the one played among them (`u8`, 255 for
/// none: a roll, or a game without move keys) and each listed move's
/// policy keys (2 `u16` each, [`POLICY_MOVES`] slots, unused ones
/// `u16::MAX`).
pub const RECORD: usize = 2 * MAX_ACTIVE + 2 + 1 + 4 + 4 + 2 + 2 + 4 * POLICY_MOVES;
/// No move played among those listed.
pub const NOT_LISTED: u8 = u8::MAX;
/// An unused input slot.
pub const NO_INPUT: u16 = u16::MAX;

/// What a `dataset` line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetJob {
    pub input: PathBuf,
    pub out: PathBuf,
    /// `rescore=tables`: results from the endgame tables where the games
    /// reach them.
    pub rescore: bool,
    /// The folder of endgame tables (the engine's `TablePath`).
    pub tables: PathBuf,
}

/// Why `dataset` could not run or finish.
#[derive(Debug)]
pub enum DatasetError {
    /// The self-play file: where, and what.
    SelfPlay(PathBuf, FileError),
    /// The self-play file's settings name no game or ruleset known here.
    Settings(String),
    /// The game has no inputs for a network.
    NoInputs(&'static str),
    /// `rescore=tables`, and no tables of the game and ruleset in the
    /// folder: the game and the folder.
    NoTables(&'static str, PathBuf),
    /// A move index the rules do not have at that ply: game and ply.
    Replay(u32, usize),
    Write(PathBuf, io::Error),
    /// The output path takes no file (a device, a FIFO, a folder, ...).
    Out(menagerie_os::files::PathError),
}

impl std::fmt::Display for DatasetError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            DatasetError::SelfPlay(path, e) => write!(f, "{}: {e}", path.display()),
            DatasetError::Settings(s) => write!(f, "self-play settings '{s}' name no known game"),
            DatasetError::NoInputs(game) => write!(f, "{game} has no network inputs"),
            DatasetError::NoTables(game, dir) => write!(
                f,
                "rescore=tables: no endgame tables of {game} and this ruleset in {} (tables build, or TablePath)",
                dir.display()
            ),
            DatasetError::Replay(game, ply) => {
                write!(f, "game {game} does not replay at ply {ply}")
            }
            DatasetError::Write(path, e) => write!(f, "{}: {e}", path.display()),
            DatasetError::Out(e) => write!(f, "out={e}"),
        }
    }
}

impl std::error::Error for DatasetError {}

/// Attaches a `dataset` command to sessions of any game: the game's own
/// type replays the games and gives the inputs.
pub struct DatasetOf;

/// A session that can write the positions of a self-play file of its
/// game and ruleset.
pub trait DatasetWork: DynSession {
    fn dataset(
        &self,
        job: &DatasetJob,
        data: &selfplay_file::DataFile,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), DatasetError>;
}

impl<G: Game> DatasetWork for Session<G> {
    fn dataset(
        &self,
        job: &DatasetJob,
        data: &selfplay_file::DataFile,
        stop: &AtomicBool,
        say: &mut dyn FnMut(Reply),
    ) -> Result<(), DatasetError> {
        run(self, job, data, stop, say)
    }
}

impl Attach for DatasetOf {
    type Session = dyn DatasetWork;

    fn attach<G: Game>(session: Session<G>) -> Box<dyn DatasetWork> {
        Box::new(session)
    }
}

/// `dataset <file> out=PATH [rescore=tables]`: the task. The file names
/// its game and ruleset; the positions go where `out=` says, which must
/// take a file before the input is read.
pub fn task<C: Catalogue>(args: DatasetArgs, ctx: &Context) -> Made {
    let job = DatasetJob {
        input: PathBuf::from(args.input),
        out: PathBuf::from(args.out),
        rescore: args.rescore,
        tables: ctx.tables.clone(),
    };
    Ok(once(move |out, stop| {
        if let Err(e) = read_and_write::<C>(&job, stop, &mut |reply| out.reply(&reply)) {
            out.error("dataset", &e);
        }
        false
    }))
}

/// Reads the job's self-play file and writes its positions, on a session
/// of the game and ruleset the file names.
fn read_and_write<C: Catalogue>(
    job: &DatasetJob,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Reply),
) -> Result<(), DatasetError> {
    menagerie_os::files::write_target(&job.out).map_err(DatasetError::Out)?;
    let data = selfplay_file::read(&job.input)
        .map_err(|e| DatasetError::SelfPlay(job.input.clone(), e))?;
    let (game, rules) =
        game_of(&data.settings).ok_or_else(|| DatasetError::Settings(data.settings.clone()))?;
    let session = catalogue::new_session_named(&C::games::<DatasetOf>(), &game, &rules)
        .map_err(|_| DatasetError::Settings(data.settings.clone()))?;
    session.dataset(job, &data, stop, say)
}

/// The game id and ruleset words of a self-play file's settings line
/// (`game=<id> rules=<words> nodes=...`).
pub fn game_of(settings: &str) -> Option<(String, Vec<String>)> {
    let mut words = settings.split_whitespace();
    let game = words.next()?.strip_prefix("game=")?.to_string();
    let first = words.next()?.strip_prefix("rules=")?;
    let mut rules: Vec<String> = Vec::new();
    if !first.is_empty() {
        rules.push(first.to_string());
    }
    for word in words {
        if word.starts_with("nodes=") {
            return Some((game, rules));
        }
        rules.push(word.to_string());
    }
    None
}

/// Writes the positions of `data` (of `template`'s game and ruleset).
pub fn run<G: Game>(
    template: &Session<G>,
    job: &DatasetJob,
    data: &selfplay_file::DataFile,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Reply),
) -> Result<(), DatasetError> {
    let set = G::INPUT_SET.ok_or(DatasetError::NoInputs(G::ID))?;
    let mut exact = None;
    if job.rescore {
        let opened = Exact::open(template, &job.tables, || true);
        if opened.tables().is_none() {
            return Err(DatasetError::NoTables(G::ID, job.tables.clone()));
        }
        exact = Some(opened);
    }
    let werr = |e| DatasetError::Write(job.out.clone(), e);
    // A link to a file is followed: the file is replaced, the link stays.
    let target = menagerie_os::files::write_target(&job.out).map_err(DatasetError::Out)?;
    let tmp = temporary(&target);
    let mut out = io::BufWriter::new(std::fs::File::create(&tmp).map_err(werr)?);
    let header = format!(
        "game={} inputs={} count={} heads={} moves={} rules={}",
        G::ID,
        set.name,
        set.inputs,
        set.heads,
        set.moves,
        family(template.ruleset(), set.covers)
    );
    out.write_all(MAGIC).map_err(werr)?;
    out.write_all(&(header.len() as u32).to_le_bytes())
        .map_err(werr)?;
    out.write_all(header.as_bytes()).map_err(werr)?;
    let mut positions = 0u64;
    let mut rescored = 0u64;
    let mut moves = Vec::new();
    let mut inputs = Inputs::new();
    for game in &data.games {
        if stop.load(Ordering::Relaxed) {
            let _ = std::fs::remove_file(&tmp);
            say(Reply::Remark("dataset stopped; nothing written".into()));
            return Ok(());
        }
        let mut session = template.clone();
        session
            .set_position(Some(&game.start), &[])
            .map_err(|_| DatasetError::Replay(game.index, 0))?;
        let seats = session.position().seats().to_vec();
        let game_result = |seat| {
            let at = seats.iter().position(|&s| s == seat);
            at.map_or(SeatResult::Loss, |i| game.results[i]) as u8
        };
        let exact_ahead = match exact.as_mut() {
            Some(exact) => table_values_ahead(&session, game, exact)?,
            None => Vec::new(),
        };
        for (ply, &(index, score)) in game.plies.iter().enumerate() {
            let position = session.position();
            position.inputs(&mut inputs);
            let mut record = [0u8; RECORD];
            for slot in 0..MAX_ACTIVE {
                let input = inputs.as_slice().get(slot).copied().unwrap_or(NO_INPUT);
                record[2 * slot..2 * slot + 2].copy_from_slice(&input.to_le_bytes());
            }
            let at = 2 * MAX_ACTIVE;
            record[at..at + 2].copy_from_slice(&score.to_le_bytes());
            let mut mask = 0u8;
            let mut results = [0u8; 4];
            let ahead = exact_ahead.get(ply).copied().flatten();
            rescored += u64::from(ahead.is_some());
            for (k, result) in results.iter_mut().enumerate().take(set.heads) {
                if let Some(seat) = position.head_seat(k) {
                    mask |= 1 << k;
                    *result = match ahead {
                        Some((wdl, mover)) if seat == mover => wdl as u8,
                        Some((wdl, _)) => wdl.flipped() as u8,
                        None => game_result(seat),
                    };
                }
            }
            record[at + 2] = mask;
            record[at + 3..at + 7].copy_from_slice(&results);
            record[at + 7..at + 11].copy_from_slice(&game.index.to_le_bytes());
            record[at + 11..at + 13].copy_from_slice(&(ply as u16).to_le_bytes());
            session.legal(&mut moves);
            let mv = *moves
                .get(index as usize)
                .ok_or(DatasetError::Replay(game.index, ply))?;
            let position = session.position();
            let keys = |mv: &G::Move| position.policy_keys(*mv);
            let (listed, played) = policy_target(&moves, index as usize, keys);
            write_policy_target(&mut record[at + 13..], &listed, played);
            out.write_all(&record).map_err(werr)?;
            positions += 1;
            session.play(mv);
        }
    }
    out.flush().map_err(werr)?;
    drop(out);
    std::fs::rename(&tmp, &target).map_err(werr)?;
    let rescored = if job.rescore {
        format!(" ({rescored} results from the tables)")
    } else {
        String::new()
    };
    say(Reply::Remark(format!(
        "dataset done: {} games, {positions} positions in {}{rescored}",
        data.games.len(),
        job.out.display()
    )));
    Ok(())
}

/// The moves a record lists for the policy and the place of the one
/// played among them: every move with keys, up to [`POLICY_MOVES`] (past
/// that, the played one takes the last slot). Nothing at a roll or where
/// the game gives no keys.
fn policy_target<M>(
    moves: &[M],
    played: usize,
    keys: impl Fn(&M) -> MoveKeys,
) -> (Vec<MoveKeys>, u8) {
    let mut listed: Vec<MoveKeys> = moves.iter().map(&keys).collect();
    if listed.iter().any(|k| k[0] == NO_KEY) {
        return (Vec::new(), NOT_LISTED);
    }
    let mut at = played;
    if listed.len() > POLICY_MOVES {
        listed.swap(played.min(POLICY_MOVES - 1), played);
        listed.truncate(POLICY_MOVES);
        at = played.min(POLICY_MOVES - 1);
    }
    (listed, at as u8)
}

/// Writes the policy's part of a record (from its count of moves on).
fn write_policy_target(part: &mut [u8], listed: &[MoveKeys], played: u8) {
    part[0] = listed.len() as u8;
    part[1] = played;
    for (slot, pair) in listed.iter().enumerate() {
        for (half, key) in pair.iter().enumerate() {
            let byte = 2 + 4 * slot + 2 * half;
            part[byte..byte + 2].copy_from_slice(&key.to_le_bytes());
        }
    }
    part[2 + 4 * listed.len()..].fill(0xff);
}

/// For each ply of `game`, the tables' value of the first position at it
/// or after it that they hold, for that position's mover, with the
/// mover; `None` where no later position is in the tables.
fn table_values_ahead<G: Game>(
    start: &Session<G>,
    game: &selfplay_file::GameRecord,
    exact: &mut Exact<G>,
) -> Result<Vec<Option<(Wdl, Seat)>>, DatasetError> {
    let mut session = start.clone();
    let mut moves = Vec::new();
    let mut values = Vec::with_capacity(game.plies.len());
    for (ply, &(index, _)) in game.plies.iter().enumerate() {
        let position = session.position();
        let value = match position.outcome() {
            None => exact.probe(position),
            Some(_) => None,
        };
        values.push(value.map(|v| (v.wdl(), position.side())));
        session.legal(&mut moves);
        let mv = *moves
            .get(index as usize)
            .ok_or(DatasetError::Replay(game.index, ply))?;
        session.play(mv);
    }
    for ply in (0..values.len().saturating_sub(1)).rev() {
        if values[ply].is_none() {
            values[ply] = values[ply + 1];
        }
    }
    Ok(values)
}

/// Where the file is written before it is whole.
fn temporary(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize) -> impl Fn(&usize) -> MoveKeys {
        move |&m| [m as u16, if m % 2 == 0 { NO_KEY } else { n as u16 }]
    }

    #[test]
    fn the_policy_target_lists_every_move_or_keeps_the_played_one_in_the_last_slot() {
        let moves: Vec<usize> = (0..10).collect();
        let (listed, played) = policy_target(&moves, 7, keys(99));
        assert_eq!(listed.len(), 10);
        assert_eq!((played, listed[7]), (7, [7, 99]));

        let many: Vec<usize> = (0..POLICY_MOVES + 9).collect();
        let (listed, played) = policy_target(&many, POLICY_MOVES + 4, keys(99));
        assert_eq!(listed.len(), POLICY_MOVES);
        assert_eq!(played as usize, POLICY_MOVES - 1);
        assert_eq!(listed[POLICY_MOVES - 1][0] as usize, POLICY_MOVES + 4);
        let (listed, played) = policy_target(&many, 3, keys(99));
        assert_eq!((listed.len(), played, listed[3][0]), (POLICY_MOVES, 3, 3));

        // A roll's moves have no keys: nothing listed.
        let rolls = |_: &usize| [NO_KEY; 2];
        assert_eq!(policy_target(&moves, 2, rolls), (Vec::new(), NOT_LISTED));
    }
}
