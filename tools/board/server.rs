//! menagerie-board: a board in the browser that plays against the engine.
//!
//! An HTTP server (axum on hyper) on 127.0.0.1 that serves one page and
//! runs one engine process per browser session (see `sessions`). The page
//! is a client of the engine's text protocol: the server only relays lines
//! (page -> engine stdin, engine stdout -> page over a WebSocket, or as
//! server-sent events for scripts) and restarts an engine that died.
//! It knows the games through the rules' catalogue and never sees the
//! search; chance outcomes (rolls) are drawn by the engine.
//!
//! It listens on 127.0.0.1 only, yet any page the user visits could try to
//! reach it: requests from another origin or for another host are refused,
//! sessions (engine processes) and connections are capped, session ids come
//! from the operating system's randomness, requests are bounded in size and
//! time, and nothing an engine prints can stall the server.

mod sessions;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ws::{Message as WsMessage, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use clap::Parser;
use sessions::Sessions;
use tokio::sync::watch;

/// The page's files, built into the server: path, type, content.
const ASSETS: &[(&str, &str, &str)] = &[
    ("/", "text/html; charset=utf-8", include_str!("index.html")),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("style.css"),
    ),
    ("/engine.js", JS, include_str!("engine.js")),
    ("/games.js", JS, include_str!("games.js")),
    ("/record.js", JS, include_str!("record.js")),
    ("/analysis.js", JS, include_str!("analysis.js")),
    ("/sound.js", JS, include_str!("sound.js")),
    ("/app.js", JS, include_str!("app.js")),
    ("/favicon.svg", "image/svg+xml", include_str!("favicon.svg")),
    ("/favicon.ico", "image/svg+xml", include_str!("favicon.svg")),
];
const JS: &str = "text/javascript; charset=utf-8";

/// Serves a board for the four games on http://127.0.0.1:<port>/ and plays
/// against the engine through its protocol.
#[derive(Parser)]
#[command(name = "menagerie-board", version, about)]
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
    /// Most sessions (engine processes) at once.
    #[arg(long, default_value_t = 8)]
    max_sessions: usize,
    /// How long a client may take to send a request head or body, in
    /// milliseconds.
    #[arg(long, default_value_t = 10_000, hide = true)]
    io_timeout_ms: u64,
}

/// Most bytes of a request line and its headers.
const MAX_HEAD: usize = 16 * 1024;
/// Most bytes of a request body (protocol lines from the page).
const MAX_BODY: usize = 64 * 1024;
/// Most connections handled at once.
const MAX_CONNECTIONS: usize = 64;
/// What every request handler shares.
struct Server {
    sessions: Arc<Sessions>,
    game: String,
    movetime: u64,
    port: u16,
    /// How long a client may take to send a request head or body.
    io_timeout: Duration,
}

fn main() {
    // Ctrl-C or SIGTERM: engines and every helper they started are killed
    // before the server exits (the parent-death signal alone reaches only
    // the engines).
    menagerie_os::signals::exit_on_termination();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    let bundled = || menagerie_os::bundled::engine().map_err(|e| format!("{e}; or pass --engine"));
    let engine = match args.engine.clone().map(Ok).unwrap_or_else(bundled) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("menagerie-board: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = check_engine(&engine) {
        eprintln!("menagerie-board: {e}");
        std::process::exit(2);
    }
    if menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, &args.game).is_none() {
        eprintln!("menagerie-board: unknown game '{}'", args.game);
        std::process::exit(2);
    }
    // Engines are started by their own thread and read by their own
    // threads; the event loop serves HTTP only, so one thread is enough.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("menagerie-board: {e}");
            std::process::exit(2);
        }
    };
    let listener = match runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", args.port))) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "menagerie-board: cannot listen on 127.0.0.1:{}: {e}",
                args.port
            );
            std::process::exit(2);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    let server = Arc::new(Server {
        sessions: Sessions::new(engine, args.max_sessions),
        game: args.game,
        movetime: args.movetime,
        port,
        io_timeout: Duration::from_millis(args.io_timeout_ms.max(1)),
    });
    println!(
        "menagerie-board: open http://127.0.0.1:{port}/ (engine {})",
        server.sessions.engine().display()
    );
    let _ = std::io::stdout().flush();
    let reaper = Arc::clone(&server);
    std::thread::spawn(move || sessions::reap_idle(&reaper.sessions));
    runtime.block_on(serve(listener, server));
}

/// Refuses to serve a board whose engine cannot be started.
fn check_engine(engine: &std::path::Path) -> Result<(), EngineFileError> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(engine)
        .map_err(|e| EngineFileError::Unreadable(engine.to_path_buf(), e))?;
    if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
        return Err(EngineFileError::NotExecutable(engine.to_path_buf()));
    }
    Ok(())
}

/// An engine the board cannot start.
#[derive(Debug)]
enum EngineFileError {
    Unreadable(PathBuf, std::io::Error),
    NotExecutable(PathBuf),
}

impl std::fmt::Display for EngineFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            EngineFileError::Unreadable(path, e) => write!(f, "engine {}: {e}", path.display()),
            EngineFileError::NotExecutable(path) => {
                write!(f, "engine {}: not an executable file", path.display())
            }
        }
    }
}

/// A plain-text answer that no cache keeps.
fn text(status: StatusCode, body: impl Into<String>) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.into(),
    )
        .into_response()
}

/// A JSON answer that no cache keeps.
fn json(value: serde_json::Value) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        value.to_string(),
    )
        .into_response()
}

/// A file of the page: revalidated by its ETag on every load (a new
/// server's files are never stale; an unchanged one costs a 304), and sent
/// gzipped to a browser that takes it.
fn asset(headers: &HeaderMap, kind: &'static str, body: &'static str) -> Response {
    let tag = format!("\"{:016x}\"", fnv(body.as_bytes()));
    let asked = |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let common = [
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (header::VARY, HeaderValue::from_static("Accept-Encoding")),
        (
            header::ETAG,
            HeaderValue::from_str(&tag).expect("hex digits"),
        ),
    ];
    if asked(header::IF_NONE_MATCH)
        .split(',')
        .any(|t| t.trim() == tag)
    {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    let gzip = asked(header::ACCEPT_ENCODING)
        .split(',')
        .any(|e| e.split(';').next().is_some_and(|e| e.trim() == "gzip"));
    if gzip {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        if encoder.write_all(body.as_bytes()).is_ok() {
            if let Ok(packed) = encoder.finish() {
                let mut response = (common, packed).into_response();
                let h = response.headers_mut();
                h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
                h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                return response;
            }
        }
    }
    let mut response = (common, body).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    response
}

/// A checksum of a file, for its ETag.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Only pages served from this address may talk to it: the host guards
/// against DNS rebinding, the origin against other sites' pages. A body
/// announced larger than any the server takes is refused before it is read.
///
/// No page may frame the board (clickjacking, or a frame of another site
/// taking the sessions: a frame's requests carry the board's own origin).
async fn guard(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
    let refusal = refusal(&server, request.headers());
    let mut response = match refusal {
        Some(refused) => refused,
        None => next.run(request).await,
    };
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn refusal(server: &Server, headers: &HeaderMap) -> Option<Response> {
    let hosts = [
        format!("127.0.0.1:{}", server.port),
        format!("localhost:{}", server.port),
    ];
    let header_text = |name| {
        headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    if !header_text(header::HOST).is_some_and(|host| hosts.contains(&host)) {
        return Some(text(StatusCode::FORBIDDEN, "wrong host"));
    }
    if let Some(origin) = header_text(header::ORIGIN) {
        if !hosts.iter().any(|h| origin == format!("http://{h}")) {
            return Some(text(StatusCode::FORBIDDEN, "cross-origin request refused"));
        }
    }
    let announced = header_text(header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > MAX_BODY as u64) {
        let mut refused = text(StatusCode::PAYLOAD_TOO_LARGE, "request body too large");
        // Nothing more is read from this connection.
        refused
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Some(refused);
    }
    None
}

/// The body of a request (protocol lines from the page), read within the
/// time a client is given; bytes that are not UTF-8 are replaced.
async fn read_body(server: &Server, body: Body) -> Result<String, Response> {
    match tokio::time::timeout(server.io_timeout, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Ok(Err(_)) => Err(text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large",
        )),
        Err(_) => Err(text(StatusCode::REQUEST_TIMEOUT, "request body too slow")),
    }
}

/// Runs blocking work (starting an engine, writing to one) off the
/// server's event loop.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work)
        .await
        .expect("blocking work does not panic")
}

fn router(server: Arc<Server>) -> Router {
    let mut router = Router::new();
    for &(path, kind, body) in ASSETS {
        router = router.route(
            path,
            get(move |headers: HeaderMap| async move { asset(&headers, kind, body) }),
        );
    }
    router
        .route("/api/config", get(config))
        .route("/api/session", post(new_session))
        .route("/api/session/{id}/send", post(send))
        .route("/api/session/{id}/restart", post(restart))
        .route("/api/session/{id}/close", post(close))
        .route("/api/session/{id}/events", get(events))
        .route("/api/session/{id}/socket", get(socket))
        .fallback(|| async { text(StatusCode::NOT_FOUND, "not found") })
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&server),
            guard,
        ))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(server)
}

async fn config(State(server): State<Arc<Server>>) -> Response {
    json(serde_json::json!({"game": server.game, "movetime": server.movetime}))
}

async fn new_session(State(server): State<Arc<Server>>) -> Response {
    let started = Arc::clone(&server);
    match blocking(move || sessions::start(&started.sessions)).await {
        Ok(id) => json(serde_json::json!({ "id": id })),
        Err(e @ sessions::SessionError::Full(_)) => {
            text(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
        }
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn send(State(server): State<Arc<Server>>, Path(id): Path<String>, body: Body) -> Response {
    let lines = match read_body(&server, body).await {
        Ok(lines) => lines,
        Err(refused) => return refused,
    };
    let queued = sessions::with(&server.sessions, &id, |s| match s.exited {
        Some(_) => Err(sessions::SessionError::Stopped),
        None => Ok(s.input.try_send(lines)),
    });
    // Queued for the session's writer thread: nothing here waits for an
    // engine that does not read.
    match queued {
        Ok(Ok(())) => StatusCode::NO_CONTENT.into_response(),
        Ok(Err(std::sync::mpsc::TrySendError::Full(_))) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "the engine is not reading its input",
        ),
        Ok(Err(std::sync::mpsc::TrySendError::Disconnected(_))) => {
            text(StatusCode::GONE, "the engine has stopped")
        }
        Err(e) => text(StatusCode::GONE, e.to_string()),
    }
}

async fn restart(State(server): State<Arc<Server>>, Path(id): Path<String>) -> Response {
    let restarted = Arc::clone(&server);
    match blocking(move || sessions::restart(&restarted.sessions, &id)).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => text(StatusCode::NOT_FOUND, e.to_string()),
    }
}

/// Lines an event stream takes from its session at a time.
const STREAM_BATCH: usize = 256;
/// And at most this many bytes of them (or one longer line).
const STREAM_BATCH_BYTES: usize = 256 * 1024;

/// A tab that closes or reloads says so (`navigator.sendBeacon`): its
/// engine stops and its place is free at once.
async fn close(State(server): State<Arc<Server>>, Path(id): Path<String>) -> Response {
    let closing = Arc::clone(&server);
    match blocking(move || sessions::close(&closing.sessions, &id)).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => text(StatusCode::NOT_FOUND, e.to_string()),
    }
}

/// A new event stream of session `id`, from line `from` or after the
/// event id `resume` (`<epoch>:<lines>`); the session's older stream ends.
fn open_stream(
    server: Arc<Server>,
    id: String,
    from: usize,
    resume: Option<(Option<u32>, usize)>,
) -> Result<EventCursor, sessions::SessionError> {
    let (current, stream) = sessions::with(&server.sessions, &id, |s| {
        s.streams += 1;
        Ok((s.epoch, s.streams))
    })?;
    // An older stream of this session wakes and ends.
    server.sessions.notify();
    let (resume_epoch, sent) = resume.unwrap_or((None, from));
    Ok(EventCursor {
        changes: server.sessions.changed.subscribe(),
        server,
        id,
        stream,
        // A client that last saw an older engine hears about the restart
        // first.
        epoch: resume_epoch.unwrap_or(current),
        sent,
        exit_sent: false,
        pending: VecDeque::new(),
    })
}

/// Server-sent events: every engine line from index `from` on (or after
/// the event id in `Last-Event-ID`), then `event: exit` if the engine
/// stops. A restart sends `event: restart`.
async fn events(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let from = query.get("from").and_then(|v| v.parse().ok()).unwrap_or(0);
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_event_id);
    let cursor = match open_stream(server, id, from, resume) {
        Ok(cursor) => cursor,
        Err(e) => return text(StatusCode::NOT_FOUND, e.to_string()),
    };
    let stream = futures_util::stream::unfold(cursor, |mut cursor| async move {
        let event = cursor.next().await?;
        Some((Ok::<_, Infallible>(event.to_sse()), cursor))
    });
    // A comment now and then keeps the connection alive and finds closed
    // tabs.
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The same events over a WebSocket, each a JSON text message
/// (`{"event":"line"|"restart"|"exit","id":...,"data":...}`), from `from`
/// or `after=<event id>`; the page's transport, as a browser opens any
/// number of WebSockets to a host but only six HTTP connections.
async fn socket(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let from = query.get("from").and_then(|v| v.parse().ok()).unwrap_or(0);
    let resume = query.get("after").and_then(|v| parse_event_id(v));
    let mut cursor = match open_stream(server, id, from, resume) {
        Ok(cursor) => cursor,
        Err(e) => return text(StatusCode::NOT_FOUND, e.to_string()),
    };
    upgrade
        .max_message_size(MAX_BODY)
        .max_frame_size(MAX_BODY)
        .on_upgrade(move |socket| async move {
            use futures_util::{SinkExt, StreamExt};
            let (mut sender, mut receiver) = socket.split();
            // The client's frames are read, so that its pings are answered
            // with pongs and its close with a close (RFC 6455 5.5); what
            // else it sends is bounded by the sizes above and dropped.
            let closed = Arc::new(tokio::sync::Notify::new());
            let reader = tokio::spawn({
                let closed = Arc::clone(&closed);
                async move {
                    // After a close frame, the next read sends the reply
                    // and ends the stream.
                    while let Some(Ok(_)) = receiver.next().await {}
                    closed.notify_one();
                }
            });
            loop {
                // A ping now and then keeps the connection alive and finds
                // closed tabs, as the event stream's comments do.
                let next = tokio::time::timeout(Duration::from_secs(15), cursor.next());
                let message = tokio::select! {
                    _ = closed.notified() => break,
                    next = next => match next {
                        Ok(Some(event)) => WsMessage::Text(event.to_json().into()),
                        Ok(None) => {
                            let _ = sender.send(WsMessage::Close(None)).await;
                            break;
                        }
                        Err(_) => WsMessage::Ping(Default::default()),
                    },
                };
                if sender.send(message).await.is_err() {
                    break;
                }
            }
            reader.abort();
        })
}

/// One event of a session's stream, whatever carries it.
struct StreamEvent {
    /// `line`, `restart` or `exit`.
    kind: &'static str,
    id: Option<String>,
    data: String,
}

impl StreamEvent {
    /// Fields in the order the stream has always had: event, id, data.
    fn to_sse(&self) -> Event {
        let mut event = Event::default();
        if self.kind != "line" {
            event = event.event(self.kind);
        }
        if let Some(id) = &self.id {
            event = event.id(id);
        }
        event.data(&self.data)
    }

    fn to_json(&self) -> String {
        serde_json::json!({"event": self.kind, "id": self.id, "data": self.data}).to_string()
    }
}

/// Where one event stream is in its session's engine output.
struct EventCursor {
    server: Arc<Server>,
    id: String,
    /// Which of the session's streams this is (the latest is served).
    stream: u64,
    epoch: u32,
    /// Lines of this epoch delivered so far.
    sent: usize,
    exit_sent: bool,
    pending: VecDeque<StreamEvent>,
    changes: watch::Receiver<u64>,
}

impl EventCursor {
    /// The next event; none when the session is gone.
    async fn next(&mut self) -> Option<StreamEvent> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
            }
            // Marked seen before looking, so a change that lands between
            // the look and the wait still wakes the wait.
            self.changes.borrow_and_update();
            if !self.collect() {
                return None;
            }
            if self.pending.is_empty() {
                // Woken now and then to keep the session marked as seen.
                let _ = tokio::time::timeout(Duration::from_secs(15), self.changes.changed()).await;
            }
        }
    }

    /// Queues what the session has that this stream has not sent; false
    /// when the session is gone.
    fn collect(&mut self) -> bool {
        let mut sessions = self.server.sessions.lock();
        let Some(s) = sessions.get_mut(&self.id) else {
            return false;
        };
        if s.streams != self.stream {
            return false;
        }
        s.last_seen = Instant::now();
        if s.epoch != self.epoch {
            self.epoch = s.epoch;
            self.sent = 0;
            self.exit_sent = false;
            self.pending.push_back(StreamEvent {
                kind: "restart",
                id: Some(format!("{}:0", self.epoch)),
                // An event without data is never dispatched.
                data: "restart".to_string(),
            });
        }
        // A stream that fell behind the lines kept skips ahead; a `from`
        // past the end (a client's mistake) waits for the lines. A few
        // lines at a time: a slow reader holds no copy of the session.
        self.sent = self.sent.max(s.first);
        let end = s.first + s.lines.len();
        if end > self.sent {
            // STREAM_BATCH lines, or fewer when they are long.
            let mut bytes = 0;
            let batch = s
                .lines
                .range(self.sent - s.first..)
                .take(STREAM_BATCH)
                .take_while(|line| {
                    bytes += line.len();
                    bytes <= STREAM_BATCH_BYTES || bytes == line.len()
                })
                .count();
            for (i, line) in s.lines.range(self.sent - s.first..).take(batch).enumerate() {
                self.pending.push_back(StreamEvent {
                    kind: "line",
                    id: Some(format!("{}:{}", self.epoch, self.sent + i + 1)),
                    // One line, one event: a carriage return would split
                    // it.
                    data: line.replace('\r', "\u{fffd}"),
                });
            }
            self.sent += batch;
        }
        if let Some(why) = &s.exited {
            // After the last line.
            if !self.exit_sent && self.sent >= end {
                self.pending.push_back(StreamEvent {
                    kind: "exit",
                    id: None,
                    data: why.clone(),
                });
                self.exit_sent = true;
            }
        }
        true
    }
}

/// Serves connections until the listener fails for good: at most
/// [`MAX_CONNECTIONS`] at once, each with bounded request heads and a
/// deadline for sending them.
async fn serve(listener: tokio::net::TcpListener, server: Arc<Server>) {
    let app = router(Arc::clone(&server));
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: wait for some to be freed
                // instead of spinning on the error.
                log::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let io_timeout = server.io_timeout;
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut stream = stream;
                let refusal = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 20\r\nConnection: close\r\n\r\ntoo many connections";
                let _ = tokio::time::timeout(io_timeout, stream.write_all(refusal)).await;
                // A lingering close: closing with the request unread would
                // reset the connection and lose the answer.
                let _ = stream.shutdown().await;
                let mut sink = [0u8; 4096];
                let _ = tokio::time::timeout(Duration::from_millis(500), async {
                    while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
                })
                .await;
            });
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                // One request per connection, as the page makes them: no idle
                // connections to keep or time out.
                .keep_alive(false)
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(io_timeout)
                .max_header_size(MAX_HEAD)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                // The event socket of the page is an upgraded connection.
                .with_upgrades();
            if let Err(e) = connection.await {
                log::debug!("connection: {e}");
            }
            drop(slot);
        });
    }
}

/// An event id `<epoch>:<lines delivered>`; a browser that reconnects
/// sends the last one back, so it gets neither a gap nor a repeated line.
fn parse_event_id(text: &str) -> Option<(Option<u32>, usize)> {
    let (epoch, count) = text.split_once(':')?;
    Some((Some(epoch.parse().ok()?), count.parse().ok()?))
}
