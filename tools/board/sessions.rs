//! The browser board's sessions: one engine process per browser tab, the
//! lines it printed, and its restarts. Engines are started as process
//! groups of their own (killed as a whole, never signalled once reaped)
//! and read by a thread each; the HTTP side only looks and writes.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::path::PathBuf;
use std::process::ChildStdin;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use menagerie_os::group::Group;
use menagerie_os::lines::BoundedLines;
use tokio::sync::watch;

/// Every session, and what starting a new one needs.
pub struct Sessions {
    engine: PathBuf,
    max: usize,
    map: Mutex<HashMap<String, Session>>,
    /// Counts changes to any session, so event streams wake without
    /// polling; engine reader threads bump it.
    pub changed: watch::Sender<u64>,
    /// Engines are started by one long-lived thread: Linux kills a child
    /// set to die with its parent when the thread that started it ends,
    /// and the server's blocking threads come and go.
    spawner: Mutex<Sender<SpawnRequest>>,
}

impl Sessions {
    /// No sessions yet; at most `max` at once, each running `engine`.
    pub fn new(engine: PathBuf, max: usize) -> Arc<Sessions> {
        Arc::new(Sessions {
            engine,
            max: max.max(1),
            map: Mutex::new(HashMap::new()),
            changed: watch::Sender::new(0),
            spawner: Mutex::new(spawner()),
        })
    }

    pub fn engine(&self) -> &std::path::Path {
        &self.engine
    }

    /// The sessions, locked; never held across a wait.
    pub fn lock(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn notify(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// Most bytes kept of one engine line.
const MAX_LINE: usize = 64 * 1024;
/// The engine's latest lines kept for the event streams (a stream that
/// falls further behind skips ahead): memory stays bounded however long a
/// session lives.
pub const KEPT_LINES: usize = 20_000;
/// And at most this many bytes of them.
pub const KEPT_BYTES: usize = 4 << 20;
/// Lines an engine may print in a minute: a paste of thousands of
/// commands answers with hundreds of thousands; output without end is
/// stopped.
const LINES_PER_MINUTE: usize = 1_000_000;

/// One browser session: an engine process and everything it printed.
pub struct Session {
    child: Group,
    /// The engine's input, written by a thread of its own: an engine that
    /// stops reading fills this queue ([`INPUT_QUEUE`] requests), and then
    /// its requests are refused; no thread of the server waits for it.
    pub input: SyncSender<String>,
    /// The engine's latest lines (at most [`KEPT_LINES`]); `epoch` changes
    /// when the engine is restarted.
    pub lines: std::collections::VecDeque<String>,
    /// The number, in this engine's run, of the first line kept.
    pub first: usize,
    /// Bytes of the lines kept.
    pub kept_bytes: usize,
    pub epoch: u32,
    /// Event streams opened: only the latest is served (a tab has one;
    /// a reconnect replaces it), so streams cannot fill the server's
    /// connections.
    pub streams: u64,
    pub exited: Option<String>,
    pub last_seen: Instant,
}

/// An engine to start, and where to send the started child.
type SpawnRequest = (Vec<String>, Sender<std::io::Result<Group>>);

/// The thread that starts every engine (see `Server::spawner`).
fn spawner() -> Sender<SpawnRequest> {
    let (requests, incoming) = channel::<SpawnRequest>();
    std::thread::spawn(move || {
        for (command, reply) in incoming {
            let _ = reply.send(Group::spawn(&command));
        }
    });
    requests
}

pub fn with<T>(
    sessions: &Sessions,
    id: &str,
    f: impl FnOnce(&mut Session) -> Result<T, SessionError>,
) -> Result<T, SessionError> {
    let mut map = sessions.lock();
    let session = map.get_mut(id).ok_or(SessionError::NoSuchSession)?;
    session.last_seen = Instant::now();
    f(session)
}

/// Starts an engine; its output is collected by a reader thread.
fn spawn_engine(
    sessions: &Arc<Sessions>,
    id: &str,
    epoch: u32,
) -> Result<(Group, SyncSender<String>), SessionError> {
    // Its own process group, killed with the server.
    let command = vec![sessions.engine.to_string_lossy().into_owned()];
    let (reply, started) = channel();
    sessions
        .spawner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, reply))
        .map_err(|_| SessionError::StarterGone)?;
    let mut child = started
        .recv()
        .map_err(|_| SessionError::StarterGone)?
        .map_err(SessionError::Spawn)?;
    let stdin = child.take_stdin().expect("piped");
    let stdout = child.take_stdout().expect("piped");
    let (sessions, id) = (Arc::clone(sessions), id.to_string());
    std::thread::spawn(move || relay_output(&sessions, &id, epoch, stdout));
    let (input, requests) = sync_channel::<String>(INPUT_QUEUE);
    std::thread::spawn(move || write_input(stdin, requests));
    Ok((child, input))
}

/// Requests of lines waiting for an engine that does not read.
pub const INPUT_QUEUE: usize = 16;

/// Writes the page's lines to the engine, in order; ends when the engine
/// is gone (a write fails) or the session drops its end.
fn write_input(mut stdin: ChildStdin, requests: Receiver<String>) {
    for lines in requests {
        if stdin
            .write_all(lines.as_bytes())
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Collects an engine's lines for the event streams: bytes that are not
/// UTF-8 are replaced, over-long lines cut, and an engine that prints more
/// lines than a session keeps is stopped. The lock is never held while
/// waiting for the engine.
fn relay_output(sessions: &Sessions, id: &str, epoch: u32, stdout: std::process::ChildStdout) {
    let mut why_stopped = None;
    let (mut minute, mut this_minute) = (Instant::now(), 0usize);
    // The rest of an over-long line is dropped.
    for read in BoundedLines::new(BufReader::new(stdout), MAX_LINE) {
        if minute.elapsed() >= Duration::from_secs(60) {
            (minute, this_minute) = (Instant::now(), 0);
        }
        this_minute += 1;
        let text = String::from_utf8_lossy(&read.bytes);
        let line = text.trim_end_matches('\r').to_string();
        let mut map = sessions.lock();
        match map.get_mut(id) {
            Some(s) if s.epoch == epoch => {
                if this_minute > LINES_PER_MINUTE {
                    s.child.kill();
                    why_stopped = Some(format!(
                        "stopped: printed more than {LINES_PER_MINUTE} lines in a minute"
                    ));
                    break;
                }
                s.kept_bytes += line.len();
                s.lines.push_back(line);
                while s.lines.len() > KEPT_LINES || s.kept_bytes > KEPT_BYTES {
                    let Some(dropped) = s.lines.pop_front() else {
                        break;
                    };
                    s.kept_bytes -= dropped.len();
                    s.first += 1;
                }
            }
            _ => return,
        }
        sessions.notify();
    }
    // The output is closed: the engine is ending (or was stopped). Wait for
    // it without holding the lock; one that lingers is stopped.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let mut map = sessions.lock();
        let Some(s) = map.get_mut(id).filter(|s| s.epoch == epoch) else {
            return;
        };
        // Helpers of an engine that ended go with it (`exit_status` kills
        // the group before reaping); one that lingers is stopped.
        let status = match s.child.exit_status() {
            Some(status) => Some(status),
            None if Instant::now() >= deadline => {
                s.child.kill();
                s.child.exit_status()
            }
            None => None,
        };
        if let Some(status) = status {
            let code = status.code();
            s.exited = Some(why_stopped.take().unwrap_or_else(|| {
                code.map_or("killed".to_string(), |c| format!("exit code {c}"))
            }));
            drop(map);
            sessions.notify();
            return;
        }
        drop(map);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Why a session could not be started or used.
#[derive(Debug)]
pub enum SessionError {
    /// The cap on sessions is reached (the cap).
    Full(usize),
    NoSuchSession,
    /// The session's engine has stopped.
    Stopped,
    /// The thread that starts engines has stopped.
    StarterGone,
    Spawn(std::io::Error),
    /// No randomness for a session id.
    Randomness(std::io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            SessionError::Full(n) => write!(
                f,
                "{n} {} open already, the most this server runs: close one, or wait two minutes for closed tabs to end",
                if *n == 1 { "board is" } else { "boards are" }
            ),
            SessionError::NoSuchSession => f.write_str("no such session"),
            SessionError::Stopped => f.write_str("the engine has stopped"),
            SessionError::StarterGone => f.write_str("the engine starter has stopped"),
            SessionError::Spawn(e) => write!(f, "cannot start the engine: {e}"),
            SessionError::Randomness(e) => write!(f, "no randomness for a session id: {e}"),
        }
    }
}

impl std::error::Error for SessionError {}

/// A session id nobody can guess: 128 bits from the operating system.
fn random_id() -> Result<String, SessionError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(SessionError::Randomness)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

pub fn start(sessions: &Arc<Sessions>) -> Result<String, SessionError> {
    let id = random_id()?;
    // The lock is held until the session is registered: the engine's reader
    // thread looks the session up and must find it.
    let mut map = sessions.lock();
    if map.len() >= sessions.max {
        return Err(SessionError::Full(sessions.max));
    }
    let (child, input) = spawn_engine(sessions, &id, 0)?;
    map.insert(
        id.clone(),
        Session {
            child,
            input,
            lines: std::collections::VecDeque::new(),
            first: 0,
            kept_bytes: 0,
            epoch: 0,
            streams: 0,
            exited: None,
            last_seen: Instant::now(),
        },
    );
    Ok(id)
}

pub fn restart(sessions: &Arc<Sessions>, id: &str) -> Result<(), SessionError> {
    let mut map = sessions.lock();
    let session = map.get_mut(id).ok_or(SessionError::NoSuchSession)?;
    session.child.kill();
    // A new epoch: the old reader thread's late lines are dropped.
    session.epoch += 1;
    session.lines.clear();
    session.first = 0;
    session.kept_bytes = 0;
    session.exited = None;
    session.last_seen = Instant::now();
    let (child, input) = spawn_engine(sessions, id, session.epoch)?;
    session.child = child;
    session.input = input;
    drop(map);
    sessions.notify();
    Ok(())
}

/// Ends a session at once (its tab closed or reloaded), freeing its place.
pub fn close(sessions: &Arc<Sessions>, id: &str) -> Result<(), SessionError> {
    let mut session = sessions
        .lock()
        .remove(id)
        .ok_or(SessionError::NoSuchSession)?;
    session.child.kill();
    sessions.notify();
    Ok(())
}

/// Ends sessions nobody has looked at for a while (closed tabs).
pub fn reap_idle(sessions: &Sessions) {
    loop {
        std::thread::sleep(Duration::from_secs(10));
        let mut map = sessions.lock();
        map.retain(|_, s| {
            let keep = s.last_seen.elapsed() < Duration::from_secs(120);
            if !keep {
                s.child.kill();
            }
            keep
        });
    }
}
