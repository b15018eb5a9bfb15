//! menagerie-gui: a board in the browser that plays against the engine.
//!
//! A small HTTP server on 127.0.0.1 that serves one page and runs one engine
//! process per browser session. The page is a client of the engine's text
//! protocol: the server only relays lines (page -> engine stdin, engine
//! stdout -> page as server-sent events), draws dice for Kilkenny Cats, and
//! restarts an engine that died. Standard library only.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use menagerie::rng::Rng;

const INDEX: &str = include_str!("index.html");
const APP: &str = include_str!("app.js");
const STYLE: &str = include_str!("style.css");

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
}

/// One browser session: an engine process and everything it printed.
struct Session {
    child: Child,
    stdin: ChildStdin,
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
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    let engine = match args.engine.clone().map(Ok).unwrap_or_else(bundled_engine) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("menagerie-gui: {e}");
            std::process::exit(2);
        }
    };
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
    });
    println!(
        "menagerie-gui: open http://127.0.0.1:{port}/ (engine {})",
        server.engine.display()
    );
    let _ = std::io::stdout().flush();
    let reaper = Arc::clone(&server);
    std::thread::spawn(move || reap_idle(&reaper));
    for stream in listener.incoming().flatten() {
        let server = Arc::clone(&server);
        std::thread::spawn(move || {
            if let Err(e) = handle(&server, stream) {
                log::debug!("connection: {e}");
            }
        });
    }
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
    /// Sent by a reconnecting event stream: the id of the last event it got.
    last_event_id: Option<String>,
    body: String,
}

fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (path, query_text) = target.split_once('?').unwrap_or((target, ""));
    let query = query_text
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut length = 0usize;
    let mut host = String::new();
    let mut last_event_id = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "host" => host = value.trim().to_string(),
                "last-event-id" => last_event_id = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length.min(1 << 20)];
    reader.read_exact(&mut body)?;
    Ok(Some(Request {
        method: method.to_string(),
        path: path.to_string(),
        query,
        host,
        last_event_id,
        body: String::from_utf8_lossy(&body).into_owned(),
    }))
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &str) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn handle(server: &Arc<Server>, mut stream: TcpStream) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream)? else {
        return Ok(());
    };
    // Only pages served from this address may talk to it (DNS rebinding).
    let allowed = [
        format!("127.0.0.1:{}", server.port),
        format!("localhost:{}", server.port),
    ];
    if !allowed.contains(&request.host) {
        return respond(&mut stream, "403 Forbidden", "text/plain", "wrong host");
    }
    let segments: Vec<&str> = request.path.trim_matches('/').split('/').collect();
    match (request.method.as_str(), segments.as_slice()) {
        ("GET", [""]) => respond(&mut stream, "200 OK", "text/html; charset=utf-8", INDEX),
        ("GET", ["app.js"]) => {
            respond(&mut stream, "200 OK", "text/javascript; charset=utf-8", APP)
        }
        ("GET", ["style.css"]) => respond(&mut stream, "200 OK", "text/css; charset=utf-8", STYLE),
        ("GET", ["api", "config"]) => {
            let body = format!(
                "{{\"game\":{},\"movetime\":{}}}",
                json_string(&server.game),
                server.movetime
            );
            respond(&mut stream, "200 OK", "application/json", &body)
        }
        ("POST", ["api", "session"]) => match start_session(server) {
            Ok(id) => respond(
                &mut stream,
                "200 OK",
                "application/json",
                &format!("{{\"id\":{}}}", json_string(&id)),
            ),
            Err(e) => respond(&mut stream, "500 Internal Server Error", "text/plain", &e),
        },
        ("POST", ["api", "session", id, "send"]) => {
            let result = with_session(server, id, |s| {
                if s.exited.is_some() {
                    return Err("the engine has stopped".to_string());
                }
                s.stdin
                    .write_all(request.body.as_bytes())
                    .and_then(|_| s.stdin.flush())
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
                &format!("{{\"roll\":\"r{roll}\"}}"),
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
    let mut child = Command::new(&server.engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the engine: {e}"))?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (server, id) = (Arc::clone(server), id.to_string());
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
            match sessions.get_mut(&id) {
                Some(s) if s.epoch == epoch => s.lines.push(line),
                _ => return,
            }
            server.changed.notify_all();
        }
        let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = sessions.get_mut(&id) {
            if s.epoch == epoch {
                let code = s.child.wait().ok().and_then(|st| st.code());
                s.exited = Some(code.map_or("killed".to_string(), |c| format!("exit code {c}")));
            }
        }
        server.changed.notify_all();
    });
    Ok((child, stdin))
}

fn start_session(server: &Arc<Server>) -> Result<String, String> {
    let id = format!(
        "{:016x}",
        server
            .dice
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_u64()
    );
    // The lock is held until the session is registered: the engine's reader
    // thread looks the session up and must find it.
    let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
    let (child, stdin) = spawn_engine(server, &id, 0)?;
    sessions.insert(
        id.clone(),
        Session {
            child,
            stdin,
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
    let _ = session.child.kill();
    let _ = session.child.wait();
    // A new epoch: the old reader thread's late lines are dropped.
    session.epoch += 1;
    session.lines.clear();
    session.exited = None;
    session.last_seen = Instant::now();
    let (child, stdin) = spawn_engine(server, id, session.epoch)?;
    session.child = child;
    session.stdin = stdin;
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
                if s.lines.len() > sent || (s.exited.is_some() && !exit_sent) {
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
                let _ = s.child.kill();
                let _ = s.child.wait();
            }
            keep
        });
    }
}
