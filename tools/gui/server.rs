//! menagerie-gui: a board in the browser that plays against the engine.
//!
//! A small HTTP server on 127.0.0.1 that serves one page and runs one engine
//! process per browser session. The page is a client of the engine's text
//! protocol: the server only relays lines (page -> engine stdin, engine
//! stdout -> page as server-sent events), draws dice for Kilkenny Cats, and
//! restarts an engine that died.
//!
//! It listens on 127.0.0.1 only, yet any page the user visits could try to
//! reach it: requests from another origin or for another host are refused,
//! sessions (engine processes) and connections are capped, session ids come
//! from the operating system's randomness, requests are bounded in size and
//! time, and nothing an engine prints can stall the server.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use menagerie::referee::process::{kill_group, spawn_in_own_group};
use menagerie::rng::Rng;

const INDEX: &str = include_str!("index.html");
const APP: &str = include_str!("app.js");
const STYLE: &str = include_str!("style.css");
const ICON: &str = include_str!("favicon.svg");

/// Serves a board for the four games on http://127.0.0.1:<port>/ and plays
/// against the engine through its protocol.
#[derive(Parser)]
#[command(name = "menagerie-gui", version, about)]
struct Args {
    /// Port on 127.0.0.1.
    #[arg(long, default_value_t = 7878)]
    port: u16,
    /// The engine to run (default: menagerie next to this program).
    #[arg(long)]
    engine: Option<PathBuf>,
    /// The game the page starts with.
    #[arg(long, default_value = "hat-diviyan-keliya")]
    game: String,
    /// Engine thinking time per move, in milliseconds.
    #[arg(long, default_value_t = 500)]
    movetime: u64,
    /// Seed of the dice (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Most sessions (engine processes) at once.
    #[arg(long, default_value_t = 8)]
    max_sessions: usize,
    /// How long a client may take to send a request or take a response,
    /// in milliseconds.
    #[arg(long, default_value_t = 10_000, hide = true)]
    io_timeout_ms: u64,
}

/// Most bytes of a request line and its headers.
const MAX_HEAD: u64 = 16 * 1024;
/// Most bytes of a request body (protocol lines from the page).
const MAX_BODY: usize = 64 * 1024;
/// Most connections handled at once (each has a thread).
const MAX_CONNECTIONS: usize = 64;
/// Most bytes kept of one engine line, and most lines of one engine run:
/// an engine that floods is stopped rather than filling memory.
const MAX_LINE: usize = 64 * 1024;
const MAX_LINES: usize = 200_000;

/// One browser session: an engine process and everything it printed.
struct Session {
    child: Child,
    /// Written outside the sessions lock: an engine that stops reading
    /// blocks its own session's writes only.
    stdin: Arc<Mutex<ChildStdin>>,
    /// Engine lines so far; `epoch` changes when the engine is restarted.
    lines: Vec<String>,
    epoch: u32,
    exited: Option<String>,
    last_seen: Instant,
}

struct Server {
    engine: PathBuf,
    game: String,
    movetime: u64,
    sessions: Mutex<HashMap<String, Session>>,
    changed: Condvar,
    dice: Mutex<Rng>,
    port: u16,
    max_sessions: usize,
    connections: std::sync::atomic::AtomicUsize,
    /// Engines are started by one long-lived thread: Linux kills a child
    /// set to die with its parent when the thread that started it ends,
    /// and connection threads end after each request.
    spawner: Mutex<Sender<SpawnRequest>>,
}

/// An engine to start, and where to send the started child.
type SpawnRequest = (Vec<String>, Sender<std::io::Result<Child>>);

/// The thread that starts every engine (see `Server::spawner`).
fn spawner() -> Sender<SpawnRequest> {
    let (requests, incoming) = channel::<SpawnRequest>();
    std::thread::spawn(move || {
        for (command, reply) in incoming {
            let _ = reply.send(spawn_in_own_group(&command));
        }
    });
    requests
}

/// Ctrl-C or SIGTERM: engines and every helper they started are killed
/// before the server exits (the parent-death signal alone reaches only the
/// engines).
extern "C" fn on_terminate(signal: libc::c_int) {
    menagerie::referee::process::kill_all_groups();
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(128 + signal) };
}

fn main() {
    // SAFETY: the handler only kills process groups and exits.
    unsafe {
        let handler = on_terminate as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    let engine = match args.engine.clone().map(Ok).unwrap_or_else(bundled_engine) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("menagerie-gui: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = check_engine(&engine) {
        eprintln!("menagerie-gui: {e}");
        std::process::exit(2);
    }
    if menagerie::runtime::registry::find(&args.game).is_none() {
        eprintln!("menagerie-gui: unknown game '{}'", args.game);
        std::process::exit(2);
    }
    let listener = match TcpListener::bind(("127.0.0.1", args.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "menagerie-gui: cannot listen on 127.0.0.1:{}: {e}",
                args.port
            );
            std::process::exit(2);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    let io_timeout = Some(Duration::from_millis(args.io_timeout_ms.max(1)));
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(7, |d| d.as_nanos() as u64)
    });
    let server = Arc::new(Server {
        engine,
        game: args.game,
        movetime: args.movetime,
        sessions: Mutex::new(HashMap::new()),
        changed: Condvar::new(),
        dice: Mutex::new(Rng::new(seed)),
        port,
        max_sessions: args.max_sessions.max(1),
        connections: std::sync::atomic::AtomicUsize::new(0),
        spawner: Mutex::new(spawner()),
    });
    println!(
        "menagerie-gui: open http://127.0.0.1:{port}/ (engine {})",
        server.engine.display()
    );
    let _ = std::io::stdout().flush();
    let reaper = Arc::clone(&server);
    std::thread::spawn(move || reap_idle(&reaper));
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                // Out of file descriptors, say: wait for some to be freed
                // instead of spinning on the error.
                log::warn!("accept: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        use std::sync::atomic::Ordering;
        if server.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            server.connections.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(io_timeout);
            let _ = respond(
                &mut stream,
                "503 Service Unavailable",
                "text/plain",
                "too many connections",
            );
            continue;
        }
        let server = Arc::clone(&server);
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(io_timeout);
            let _ = stream.set_write_timeout(io_timeout);
            if let Err(e) = handle(&server, stream) {
                log::debug!("connection: {e}");
            }
            server.connections.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// Refuses to serve a board whose engine cannot be started.
fn check_engine(engine: &std::path::Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let meta =
        std::fs::metadata(engine).map_err(|e| format!("engine {}: {e}", engine.display()))?;
    if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
        return Err(format!(
            "engine {}: not an executable file",
            engine.display()
        ));
    }
    Ok(())
}

fn bundled_engine() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let engine = exe.with_file_name(format!("menagerie{}", std::env::consts::EXE_SUFFIX));
    if engine.exists() {
        Ok(engine)
    } else {
        Err(format!(
            "no engine at {} (build it, or pass --engine)",
            engine.display()
        ))
    }
}

/// A parsed request: method, path, query and body.
struct Request {
    method: String,
    path: String,
    query: HashMap<String, String>,
    host: String,
    /// Sent by browsers with cross-origin requests, event streams and POSTs.
    origin: Option<String>,
    /// Sent by a reconnecting event stream: the id of the last event it got.
    last_event_id: Option<String>,
    body: String,
}

/// Why a request was refused before it was handled.
enum BadRequest {
    Closed,
    HeadTooLarge,
    BodyTooLarge,
    Malformed,
    Io(std::io::Error),
}

fn read_request(stream: &mut TcpStream) -> Result<Request, BadRequest> {
    let mut reader = BufReader::new(stream.try_clone().map_err(BadRequest::Io)?).take(MAX_HEAD);
    let mut read_line = |line: &mut Vec<u8>| -> Result<usize, BadRequest> {
        let n = reader.read_until(b'\n', line).map_err(BadRequest::Io)?;
        if n > 0 && !line.ends_with(b"\n") && reader.limit() == 0 {
            return Err(BadRequest::HeadTooLarge);
        }
        Ok(n)
    };
    let mut line = Vec::new();
    if read_line(&mut line)? == 0 {
        return Err(BadRequest::Closed);
    }
    let line = String::from_utf8_lossy(&line).into_owned();
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(BadRequest::Malformed);
    };
    let (path, query_text) = target.split_once('?').unwrap_or((target, ""));
    let query = query_text
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut length = 0usize;
    let mut host = String::new();
    let (mut origin, mut last_event_id) = (None, None);
    loop {
        let mut header = Vec::new();
        if read_line(&mut header)? == 0 {
            break;
        }
        let header = String::from_utf8_lossy(&header);
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim().to_string();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => {
                    length = value.parse().map_err(|_| BadRequest::Malformed)?;
                }
                "host" => host = value,
                "origin" => origin = Some(value),
                "last-event-id" => last_event_id = Some(value),
                _ => {}
            }
        }
    }
    if length > MAX_BODY {
        return Err(BadRequest::BodyTooLarge);
    }
    let mut body = vec![0; length];
    reader
        .into_inner()
        .read_exact(&mut body)
        .map_err(BadRequest::Io)?;
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
        query,
        host,
        origin,
        last_event_id,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Answers a request refused before it was read whole, then reads (and
/// drops) what the client is still sending for a moment: closing with
/// unread input would reset the connection and lose the answer.
fn refuse(stream: &mut TcpStream, status: &str, why: &str) -> std::io::Result<()> {
    respond(stream, status, "text/plain", why)?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let _ = std::io::copy(&mut (&*stream).take(4 << 20), &mut std::io::sink());
    Ok(())
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &str) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn handle(server: &Arc<Server>, mut stream: TcpStream) -> std::io::Result<()> {
    let request = match read_request(&mut stream) {
        Ok(request) => request,
        Err(BadRequest::Closed) => return Ok(()),
        Err(BadRequest::Io(e)) => return Err(e),
        Err(BadRequest::HeadTooLarge) => {
            return refuse(
                &mut stream,
                "431 Request Header Fields Too Large",
                "request head too large",
            );
        }
        Err(BadRequest::BodyTooLarge) => {
            return refuse(
                &mut stream,
                "413 Payload Too Large",
                "request body too large",
            );
        }
        Err(BadRequest::Malformed) => {
            return refuse(&mut stream, "400 Bad Request", "malformed request")
        }
    };
    // Only pages served from this address may talk to it: the host guards
    // against DNS rebinding, the origin against other sites' pages.
    let hosts = [
        format!("127.0.0.1:{}", server.port),
        format!("localhost:{}", server.port),
    ];
    if !hosts.contains(&request.host) {
        return respond(&mut stream, "403 Forbidden", "text/plain", "wrong host");
    }
    if let Some(origin) = &request.origin {
        if !hosts.iter().any(|h| *origin == format!("http://{h}")) {
            return respond(
                &mut stream,
                "403 Forbidden",
                "text/plain",
                "cross-origin request refused",
            );
        }
    }
    let segments: Vec<&str> = request.path.trim_matches('/').split('/').collect();
    match (request.method.as_str(), segments.as_slice()) {
        ("GET", [""]) => respond(&mut stream, "200 OK", "text/html; charset=utf-8", INDEX),
        ("GET", ["app.js"]) => {
            respond(&mut stream, "200 OK", "text/javascript; charset=utf-8", APP)
        }
        ("GET", ["favicon.svg" | "favicon.ico"]) => respond(&mut stream, "200 OK", "image/svg+xml", ICON),
        ("GET", ["style.css"]) => respond(&mut stream, "200 OK", "text/css; charset=utf-8", STYLE),
        ("GET", ["api", "config"]) => {
            let body = serde_json::json!({"game": server.game, "movetime": server.movetime});
            respond(&mut stream, "200 OK", "application/json", &body.to_string())
        }
        ("POST", ["api", "session"]) => match start_session(server) {
            Ok(id) => respond(
                &mut stream,
                "200 OK",
                "application/json",
                &serde_json::json!({ "id": id }).to_string(),
            ),
            Err(SessionError::Full(n)) => respond(
                &mut stream,
                "503 Service Unavailable",
                "text/plain",
                &format!("{n} boards are open already, the most this server runs: close one, or wait two minutes for closed tabs to end"),
            ),
            Err(SessionError::Failed(e)) => {
                respond(&mut stream, "500 Internal Server Error", "text/plain", &e)
            }
        },
        ("POST", ["api", "session", id, "send"]) => {
            let result = with_session(server, id, |s| match s.exited {
                Some(_) => Err("the engine has stopped".to_string()),
                None => Ok(Arc::clone(&s.stdin)),
            })
            .and_then(|stdin| {
                let mut stdin = stdin.lock().unwrap_or_else(|p| p.into_inner());
                stdin
                    .write_all(request.body.as_bytes())
                    .and_then(|_| stdin.flush())
                    .map_err(|e| e.to_string())
            });
            match result {
                Ok(()) => respond(&mut stream, "204 No Content", "text/plain", ""),
                Err(e) => respond(&mut stream, "410 Gone", "text/plain", &e),
            }
        }
        ("POST", ["api", "session", id, "roll"]) => {
            if with_session(server, id, |_| Ok(())).is_err() {
                return respond(
                    &mut stream,
                    "404 Not Found",
                    "text/plain",
                    "no such session",
                );
            }
            let roll = server.dice.lock().unwrap_or_else(|p| p.into_inner()).die();
            respond(
                &mut stream,
                "200 OK",
                "application/json",
                &serde_json::json!({ "roll": format!("r{roll}") }).to_string(),
            )
        }
        ("POST", ["api", "session", id, "restart"]) => match restart_session(server, id) {
            Ok(()) => respond(&mut stream, "204 No Content", "text/plain", ""),
            Err(e) => respond(&mut stream, "404 Not Found", "text/plain", &e),
        },
        ("GET", ["api", "session", id, "events"]) => {
            let from = request
                .query
                .get("from")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let resume = request.last_event_id.as_deref().and_then(parse_event_id);
            stream_events(server, id, resume.unwrap_or((None, from)), stream)
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", "not found"),
    }
}

fn with_session<T>(
    server: &Server,
    id: &str,
    f: impl FnOnce(&mut Session) -> Result<T, String>,
) -> Result<T, String> {
    let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
    let session = sessions
        .get_mut(id)
        .ok_or_else(|| "no such session".to_string())?;
    session.last_seen = Instant::now();
    f(session)
}

/// Starts an engine; its output is collected by a reader thread.
fn spawn_engine(server: &Arc<Server>, id: &str, epoch: u32) -> Result<(Child, ChildStdin), String> {
    // The referee's way: its own process group, killed with the server.
    let command = vec![server.engine.to_string_lossy().into_owned()];
    let (reply, started) = channel();
    server
        .spawner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, reply))
        .map_err(|_| "the engine starter has stopped".to_string())?;
    let mut child = started
        .recv()
        .map_err(|_| "the engine starter has stopped".to_string())?
        .map_err(|e| format!("cannot start the engine: {e}"))?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (server, id) = (Arc::clone(server), id.to_string());
    std::thread::spawn(move || relay_output(&server, &id, epoch, stdout));
    Ok((child, stdin))
}

/// Collects an engine's lines for the event streams: bytes that are not
/// UTF-8 are replaced, over-long lines cut, and an engine that prints more
/// lines than a session keeps is stopped. The lock is never held while
/// waiting for the engine.
fn relay_output(server: &Server, id: &str, epoch: u32, stdout: std::process::ChildStdout) {
    let mut reader = BufReader::new(stdout);
    let mut why_stopped = None;
    loop {
        let mut bytes = Vec::new();
        match (&mut reader)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut bytes)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !bytes.ends_with(b"\n") && bytes.len() >= MAX_LINE {
            // The rest of an over-long line is dropped.
            let mut rest = Vec::new();
            while let Ok(n) = (&mut reader)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut rest)
            {
                if n == 0 || rest.ends_with(b"\n") {
                    break;
                }
                rest.clear();
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let line = text.trim_end_matches(['\r', '\n']).to_string();
        let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
        match sessions.get_mut(id) {
            Some(s) if s.epoch == epoch => {
                if s.lines.len() >= MAX_LINES {
                    kill_group(&mut s.child);
                    why_stopped = Some(format!("stopped: printed more than {MAX_LINES} lines"));
                    break;
                }
                s.lines.push(line);
            }
            _ => return,
        }
        server.changed.notify_all();
    }
    // The output is closed: the engine is ending (or was stopped). Wait for
    // it without holding the lock; one that lingers is stopped.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let Some(s) = sessions.get_mut(id).filter(|s| s.epoch == epoch) else {
            return;
        };
        let status = match s.child.try_wait() {
            Ok(Some(status)) => {
                // Helpers of an engine that ended go with it.
                kill_group(&mut s.child);
                Some(status)
            }
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut s.child);
                s.child.try_wait().ok().flatten()
            }
            Ok(None) => None,
            Err(_) => {
                kill_group(&mut s.child);
                s.child.try_wait().ok().flatten()
            }
        };
        if let Some(status) = status {
            let code = status.code();
            s.exited = Some(why_stopped.take().unwrap_or_else(|| {
                code.map_or("killed".to_string(), |c| format!("exit code {c}"))
            }));
            drop(sessions);
            server.changed.notify_all();
            return;
        }
        drop(sessions);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Why no session was started.
enum SessionError {
    /// The cap on sessions is reached (the cap).
    Full(usize),
    Failed(String),
}

/// A session id nobody can guess: 128 bits from the operating system.
fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("no randomness for a session id: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn start_session(server: &Arc<Server>) -> Result<String, SessionError> {
    let id = random_id().map_err(SessionError::Failed)?;
    // The lock is held until the session is registered: the engine's reader
    // thread looks the session up and must find it.
    let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
    if sessions.len() >= server.max_sessions {
        return Err(SessionError::Full(server.max_sessions));
    }
    let (child, stdin) = spawn_engine(server, &id, 0).map_err(SessionError::Failed)?;
    sessions.insert(
        id.clone(),
        Session {
            child,
            stdin: Arc::new(Mutex::new(stdin)),
            lines: Vec::new(),
            epoch: 0,
            exited: None,
            last_seen: Instant::now(),
        },
    );
    Ok(id)
}

fn restart_session(server: &Arc<Server>, id: &str) -> Result<(), String> {
    let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
    let session = sessions
        .get_mut(id)
        .ok_or_else(|| "no such session".to_string())?;
    kill_group(&mut session.child);
    // A new epoch: the old reader thread's late lines are dropped.
    session.epoch += 1;
    session.lines.clear();
    session.exited = None;
    session.last_seen = Instant::now();
    let (child, stdin) = spawn_engine(server, id, session.epoch)?;
    session.child = child;
    session.stdin = Arc::new(Mutex::new(stdin));
    drop(sessions);
    server.changed.notify_all();
    Ok(())
}

/// An event id `<epoch>:<lines delivered>`; a browser that reconnects
/// sends the last one back, so it gets neither a gap nor a repeated line.
fn parse_event_id(text: &str) -> Option<(Option<u32>, usize)> {
    let (epoch, count) = text.split_once(':')?;
    Some((Some(epoch.parse().ok()?), count.parse().ok()?))
}

/// Server-sent events: every engine line from index `from` on (or after the
/// event id `resume` names), then `event: exit` if the engine stops. A
/// restart sends `event: restart`.
fn stream_events(
    server: &Arc<Server>,
    id: &str,
    (resume_epoch, from): (Option<u32>, usize),
    mut stream: TcpStream,
) -> std::io::Result<()> {
    let current = match with_session(server, id, |s| Ok(s.epoch)) {
        Ok(e) => e,
        Err(e) => return respond(&mut stream, "404 Not Found", "text/plain", &e),
    };
    // A client that last saw an older engine hears about the restart first.
    let mut epoch = resume_epoch.unwrap_or(current);
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\n"
    )?;
    stream.flush()?;
    let mut sent = from;
    let mut exit_sent = false;
    loop {
        let (batch, exited, restarted) = {
            let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                let Some(s) = sessions.get_mut(id) else {
                    return Ok(());
                };
                s.last_seen = Instant::now();
                if s.epoch != epoch {
                    epoch = s.epoch;
                    break (Vec::new(), None, true);
                }
                // A `from` past the end (a client's mistake) waits for the
                // lines to come.
                if s.lines.len() > sent || (s.exited.is_some() && !exit_sent) {
                    let sent = sent.min(s.lines.len());
                    break (s.lines[sent..].to_vec(), s.exited.clone(), false);
                }
                let (guard, timeout) = server
                    .changed
                    .wait_timeout(sessions, Duration::from_secs(15))
                    .unwrap_or_else(|p| p.into_inner());
                sessions = guard;
                if timeout.timed_out() {
                    drop(sessions);
                    // A comment keeps the connection alive and finds closed tabs.
                    stream.write_all(b": ping\n\n")?;
                    stream.flush()?;
                    sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
                }
            }
        };
        if restarted {
            sent = 0;
            exit_sent = false;
            write!(stream, "event: restart\nid: {epoch}:0\ndata: \n\n")?;
        }
        for (i, line) in batch.iter().enumerate() {
            write!(stream, "id: {epoch}:{}\ndata: {line}\n\n", sent + i + 1)?;
        }
        sent += batch.len();
        if let Some(why) = exited {
            if !exit_sent {
                write!(stream, "event: exit\ndata: {why}\n\n")?;
                exit_sent = true;
            }
        }
        stream.flush()?;
    }
}

/// Ends sessions nobody has looked at for a while (closed tabs).
fn reap_idle(server: &Server) {
    loop {
        std::thread::sleep(Duration::from_secs(10));
        let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.retain(|_, s| {
            let keep = s.last_seen.elapsed() < Duration::from_secs(120);
            if !keep {
                kill_group(&mut s.child);
            }
            keep
        });
    }
}
