//! The browser board's server (tools/board/server.rs) over HTTP, and the
//! end-to-end test that drives the page in Chromium (tools/board/e2e.mjs).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    start_with(&[])
}

fn start_with(extra: &[&str]) -> Server {
    let mut child = Command::new(common::board())
        .args(["--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in '{line}'"));
    Server { child, port }
}

/// One request; returns status line and body.
fn request(
    server: &Server,
    method: &str,
    path: &str,
    body: &str,
    host: Option<&str>,
) -> (String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let host = host.map_or(format!("127.0.0.1:{}", server.port), String::from);
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

fn session(server: &Server) -> String {
    let (status, body) = request(server, "POST", "/api/session", "", None);
    assert!(status.contains("200"), "{status}");
    body.split('"').nth(3).expect("an id").to_string()
}

/// A shell-script engine in a folder of this test run: `name` with `body`
/// (after the `#!/bin/sh` line), executable.
fn script_engine(name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("menagerie-board-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let engine = dir.join(name);
    std::fs::write(&engine, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    engine
}

/// An event stream of a session opened from `from=0` and, for as long as
/// the caller wishes, never read.
fn open_events(server: &Server, id: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(
        stream,
        "GET /api/session/{id}/events?from=0 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.port
    )
    .unwrap();
    stream
}

/// Reads the event stream until `wanted` appears in it.
fn read_events_until(server: &Server, id: &str, wanted: &str) -> String {
    read_events_after(server, id, None, wanted)
}

/// The event stream as a reconnecting browser reads it, with the id of
/// the last event it saw.
fn read_events_after(
    server: &Server,
    id: &str,
    last_event_id: Option<&str>,
    wanted: &str,
) -> String {
    let resume = last_event_id
        .map(|e| format!("Last-Event-ID: {e}\r\n"))
        .unwrap_or_default();
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /api/session/{id}/events?from=0 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{resume}\r\n",
        server.port
    )
    .unwrap();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut reader = BufReader::new(stream);
    // Looked for line by line: the stream can be long.
    loop {
        let mut start = seen.len().saturating_sub(wanted.len() + 200);
        while !seen.is_char_boundary(start) {
            start -= 1;
        }
        let tail = &seen[start..];
        if tail.contains(wanted) {
            break;
        }
        assert!(Instant::now() < deadline, "no '{wanted}' in:\n{seen}");
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        seen.push_str(&line);
    }
    seen
}

/// Sends raw request text; returns the whole response (or what came
/// before the server closed or went quiet for five seconds).
fn raw(server: &Server, text: &[u8]) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = stream.write_all(text);
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn with_origin(server: &Server, method: &str, path: &str, origin: &str) -> String {
    raw(
        server,
        format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nOrigin: {origin}\r\nContent-Length: 0\r\n\r\n",
            server.port
        )
        .as_bytes(),
    )
}

#[test]
fn requests_from_other_origins_are_refused() {
    let server = start();
    let own = format!("http://127.0.0.1:{}", server.port);
    let created = with_origin(&server, "POST", "/api/session", &own);
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    let id = created.split('"').nth(3).expect("an id").to_string();
    for (method, path) in [
        ("POST", "/api/session".to_string()),
        ("POST", format!("/api/session/{id}/send")),
        ("GET", format!("/api/session/{id}/events")),
        ("GET", "/api/config".to_string()),
    ] {
        for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
            let response = with_origin(&server, method, &path, origin);
            assert!(
                response.starts_with("HTTP/1.1 403"),
                "{method} {path} from {origin}: {response}"
            );
        }
    }
    let localhost = format!("http://localhost:{}", server.port);
    assert!(with_origin(&server, "GET", "/api/config", &localhost).starts_with("HTTP/1.1 200"));
}

#[test]
fn no_page_may_frame_the_board() {
    let server = start();
    let own = format!("http://127.0.0.1:{}", server.port);
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/app.js"),
        ("GET", "/api/config"),
        ("POST", "/api/session"),
    ] {
        let response = with_origin(&server, method, path, &own).to_ascii_lowercase();
        let head = response.split("\r\n\r\n").next().unwrap_or("");
        assert!(
            head.contains("\r\nx-frame-options: deny"),
            "{method} {path}: {head}"
        );
        assert!(
            head.contains("\r\ncontent-security-policy: frame-ancestors 'none'"),
            "{method} {path}: {head}"
        );
    }
    // Refusals too.
    let refused =
        with_origin(&server, "GET", "/api/config", "http://evil.example").to_ascii_lowercase();
    assert!(refused.contains("x-frame-options: deny"), "{refused}");
}

#[test]
fn sessions_are_capped_with_a_clear_message() {
    let server = start_with(&["--max-sessions", "2"]);
    let first = session(&server);
    let _second = session(&server);
    let (status, body) = request(&server, "POST", "/api/session", "", None);
    assert!(status.contains("503"), "{status}");
    assert!(body.contains("2 boards are open already"), "{body}");
    // The sessions that exist still work.
    request(
        &server,
        "POST",
        &format!("/api/session/{first}/send"),
        "isready\n",
        None,
    );
    read_events_until(&server, &first, "readyok");
}

#[test]
fn session_ids_are_unguessable() {
    // Two servers started alike, yet different 128-bit ids.
    let (a, b) = (start(), start());
    let (x, y) = (session(&a), session(&b));
    assert_ne!(x, y);
    for id in [&x, &y] {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    }
}

#[test]
fn oversized_slow_and_malformed_requests_are_bounded() {
    let server = start_with(&["--io-timeout-ms", "500"]);
    let port = server.port;
    // A header line of 200 MB is cut off at the limit.
    let mut huge = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Big: ").into_bytes();
    huge.extend(std::iter::repeat(b'a').take(1 << 20));
    let response = raw(&server, &huge);
    assert!(
        response.starts_with("HTTP/1.1 431"),
        "{}",
        &response[..response.len().min(200)]
    );
    // A huge announced body is refused at once, not waited for (waiting
    // would end in the 408 of a body that never came).
    let response = raw(
        &server,
        format!("POST /api/session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 1000000000000\r\n\r\n").as_bytes(),
    );
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(raw(&server, b"\x01\x02\r\n\r\n").starts_with("HTTP/1.1 400"));
    assert!(raw(
        &server,
        format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: x\r\n\r\n").as_bytes()
    )
    .starts_with("HTTP/1.1 400"));
    // An idle connection, and one that sends half a request, are closed.
    for partial in [&b""[..], b"GET / HTTP/1.1\r\nHost: 127"] {
        let mut idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
        // Far past the server's 500 ms: a read that times out here was
        // held open; the server's close ends it with the end of stream.
        idle.set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        idle.write_all(partial).unwrap();
        let mut buf = Vec::new();
        assert!(idle.read_to_end(&mut buf).is_ok(), "held open");
    }
    // An event stream asked to start past the end waits rather than fails.
    let id = session(&server);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /api/session/{id}/events?from=999999999 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // A body that never comes whole is given up on; one sent in chunks
    // past the limit is refused.
    let slow = raw(
        &server,
        format!("POST /api/session/{id}/send HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 10\r\n\r\nisr").as_bytes(),
    );
    assert!(slow.starts_with("HTTP/1.1 408"), "{slow}");
    let mut chunked = format!("POST /api/session/{id}/send HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nTransfer-Encoding: chunked\r\n\r\n").into_bytes();
    for _ in 0..20 {
        chunked.extend_from_slice(b"1000\r\n");
        chunked.extend(std::iter::repeat(b'x').take(0x1000));
        chunked.extend_from_slice(b"\r\n");
    }
    let big = raw(&server, &chunked);
    assert!(
        big.starts_with("HTTP/1.1 413"),
        "{}",
        &big[..big.len().min(200)]
    );
    // After all that the server still answers.
    assert!(request(&server, "GET", "/api/config", "", None)
        .0
        .contains("200"));
}

#[test]
fn a_long_paste_of_commands_does_not_end_the_session() {
    let server = start();
    let id = session(&server);
    // 64 KiB of `d`: hundreds of thousands of lines back, in seconds.
    let paste = "d\n".repeat(32 * 1024 - 8);
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        &paste,
        None,
    );
    assert!(status.contains("204"), "{status}");
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "isready\n",
        None,
    );
    assert!(status.contains("204"), "{status}");
    let events = read_events_until(&server, &id, "data: readyok");
    assert!(!events.contains("event: exit"), "the engine was stopped");
}

#[test]
fn connections_are_capped_and_idle_ones_freed() {
    let server = start_with(&["--io-timeout-ms", "1500"]);
    // 64 connections that say nothing fill every slot.
    let idle: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(("127.0.0.1", server.port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let (status, body) = request(&server, "GET", "/api/config", "", None);
    assert!(status.contains("503"), "{status}");
    assert_eq!(body, "too many connections");
    // Their deadline passes, their slots are freed.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(request(&server, "GET", "/api/config", "", None)
        .0
        .contains("200"));
    drop(idle);
}

#[test]
fn engine_output_that_is_not_text_or_never_ends_stalls_nothing() {
    // Bytes that are not UTF-8, then output without end (more lines in a
    // minute than any paste answers with), and it never reads.
    let engine = script_engine(
        "binary-engine.sh",
        "printf 'id name \\377\\376 binary\\n'\nsleep 1\nyes flood | head -n 3000000\nsleep 30\n",
    );
    let server = start_with(&["--engine", engine.to_str().unwrap()]);
    let id = session(&server);
    let events = read_events_until(&server, &id, "printed more than");
    assert!(
        events.contains("id name \u{fffd}\u{fffd} binary"),
        "{}",
        &events[..200]
    );
    assert!(
        events.contains("event: exit\ndata: stopped: printed more than"),
        "the flood stops the engine"
    );
    // Every endpoint still answers, the stopped session included.
    assert!(request(&server, "GET", "/api/config", "", None)
        .0
        .contains("200"));
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "uci\n",
        None,
    );
    assert!(status.contains("410"), "{status}");
}

/// Whether a process is running (gone, or a zombie, is not).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.split(") ").nth(1).unwrap_or("").starts_with('Z'))
        .unwrap_or(false)
}

#[test]
fn helpers_of_an_engine_die_with_it_and_with_the_server() {
    let dir = std::env::temp_dir().join(format!("menagerie-board-helper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let engine = dir.join("engine-with-helper.sh");
    // Each start appends "engine-pid helper-pid".
    std::fs::write(
        &engine,
        format!(
            "#!/bin/sh\nsleep 300 &\necho $$ $! >> {}/started\nexec cat >/dev/null\n",
            dir.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = || -> Vec<(String, String)> {
        std::fs::read_to_string(dir.join("started"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(e, h)| (e.to_string(), h.to_string()))
            .collect()
    };
    let wait_for = |what: &dyn Fn() -> bool, why: &str| {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !what() {
            assert!(Instant::now() < deadline, "{why}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut server = start_with(&["--engine", engine.to_str().unwrap()]);
    let id = session(&server);
    wait_for(&|| started().len() == 1, "the engine started its helper");
    let (engine1, helper1) = started()[0].clone();
    assert!(running(&engine1) && running(&helper1));
    // A restart kills the old engine's whole group.
    request(
        &server,
        "POST",
        &format!("/api/session/{id}/restart"),
        "",
        None,
    );
    wait_for(
        &|| !running(&engine1) && !running(&helper1),
        "a restarted engine or its helper was left running",
    );
    wait_for(&|| started().len() == 2, "the new engine started");
    let (engine2, helper2) = started()[1].clone();
    // SIGTERM (or Ctrl-C): the server kills every group, then exits.
    // SAFETY: a plain system call on our own child.
    unsafe { libc::kill(server.child.id() as libc::pid_t, libc::SIGTERM) };
    let status = server.child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
    wait_for(
        &|| !running(&engine2) && !running(&helper2),
        "an engine or its helper outlived a terminated server",
    );
    drop(server);
    // SIGKILL leaves no chance to clean up: the engine still dies (its
    // parent-death signal); its helper cannot be reached, so is killed here.
    let server = start_with(&["--engine", engine.to_str().unwrap()]);
    session(&server);
    wait_for(&|| started().len() == 3, "the third engine started");
    let (engine3, helper3) = started()[2].clone();
    drop(server);
    wait_for(&|| !running(&engine3), "an engine outlived a killed server");
    // SAFETY: a plain system call; the helper is this test's grandchild.
    unsafe { libc::kill(helper3.parse::<libc::pid_t>().unwrap(), libc::SIGKILL) };
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_engine_that_does_not_exist_is_refused_at_start() {
    let dir = std::env::temp_dir().join(format!("menagerie-board-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_executable = dir.join("engine.txt");
    std::fs::write(&not_executable, "uci\n").unwrap();
    let not_executable = not_executable.to_str().unwrap().to_string();
    let directory = dir.to_str().unwrap().to_string();
    for engine in ["/nonexistent/menagerie", &not_executable, &directory] {
        let mut child = Command::new(common::board())
            .args(["--port", "0", "--engine", engine])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the server started with engine {engine}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(2), "{engine}");
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(err.contains(engine), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serves_the_page_on_localhost_only() {
    let server = start();
    let (status, body) = request(&server, "GET", "/", "", None);
    assert!(status.contains("200"));
    assert!(body.contains("<title>menagerie</title>"));
    assert!(request(&server, "GET", "/engine.js", "", None)
        .1
        .contains("class Engine"));
    // Every file the page names is served.
    let named: Vec<&str> = body
        .split(['"', '\''])
        .filter(|word| word.starts_with('/') && word.contains('.'))
        .collect();
    assert!(named.len() >= 6, "{named:?}");
    for path in named {
        let (status, text) = request(&server, "GET", path, "", None);
        assert!(
            status.contains("200") && !text.is_empty(),
            "{path}: {status}"
        );
    }
    // A page from elsewhere cannot talk to it.
    let (status, _) = request(&server, "GET", "/", "", Some("evil.example:80"));
    assert!(status.contains("403"), "{status}");
    assert!(request(&server, "GET", "/nothing", "", None)
        .0
        .contains("404"));
    let (_, config) = request(&server, "GET", "/api/config", "", None);
    assert!(
        config.contains("\"game\":\"hat-diviyan-keliya\""),
        "{config}"
    );
}

#[test]
fn relays_protocol_lines_both_ways() {
    let server = start();
    let id = session(&server);
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "newgame safari-dual\nlegal\nisready\n",
        None,
    );
    assert!(status.contains("204"), "{status}");
    let events = read_events_until(&server, &id, "data: readyok");
    assert!(events.contains("data: legal b1c2 c1d1"), "{events}");
}

#[test]
fn a_reconnecting_event_stream_resumes_where_it_left_off() {
    let server = start();
    let id = session(&server);
    let send = |body: &str| {
        let path = format!("/api/session/{id}/send");
        assert!(request(&server, "POST", &path, body, None)
            .0
            .contains("204"));
    };
    send("isready\n");
    let first = read_events_until(&server, &id, "data: readyok");
    assert!(first.contains("id: 0:1\ndata: readyok"), "{first}");
    send("newgame safari-dual\nisready\n");
    let resumed = read_events_after(&server, &id, Some("0:1"), "data: readyok");
    assert_eq!(resumed.matches("data: readyok").count(), 1, "{resumed}");
    assert!(resumed.contains("id: 0:2\ndata: readyok"), "{resumed}");
    // After a restart, a client that saw the old engine is told first.
    let path = format!("/api/session/{id}/restart");
    assert!(request(&server, "POST", &path, "", None).0.contains("204"));
    send("isready\n");
    let after = read_events_after(&server, &id, Some("0:2"), "data: readyok");
    assert!(
        after.contains("event: restart\nid: 1:0\n") && after.contains("id: 1:1\ndata: readyok"),
        "{after}"
    );
}

#[test]
fn rolls_are_drawn_by_the_engine_through_the_relay() {
    // The server draws nothing: the page asks the engine to roll.
    let server = start();
    let id = session(&server);
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/roll"),
        "",
        None,
    );
    assert!(status.contains("404"), "the server has no dice: {status}");
    let lines = "newgame kilkenny-cats\nsetoption name Seed value 11\n".to_string()
        + &"position startpos\nroll\n".repeat(40)
        // A command answered in its turn, after every roll (isready is
        // answered at once, possibly before them).
        + "perft 1\n";
    request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        &lines,
        None,
    );
    let events = read_events_until(&server, &id, "Nodes searched");
    let rolls: std::collections::BTreeSet<&str> = events
        .lines()
        .filter_map(|l| l.strip_prefix("data: rolled "))
        .collect();
    assert_eq!(
        events.matches("data: rolled ").count(),
        40,
        "every roll answered: {events}"
    );
    assert_eq!(
        rolls.len(),
        6,
        "every outcome comes up in 40 rolls: {rolls:?}"
    );
}

#[test]
fn a_stopped_engine_is_reported_and_can_be_restarted() {
    let server = start();
    let id = session(&server);
    request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "quit\n",
        None,
    );
    let events = read_events_until(&server, &id, "data: exit code");
    assert!(
        events.contains("event: exit\ndata: exit code 0"),
        "{events}"
    );
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "isready\n",
        None,
    );
    assert!(
        status.contains("410"),
        "sending to a stopped engine: {status}"
    );
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/restart"),
        "",
        None,
    );
    assert!(status.contains("204"));
    request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "isready\n",
        None,
    );
    read_events_until(&server, &id, "data: readyok");
}

/// Drives the page in headless Chromium: needs Debian's chromium and
/// tools/board/node_modules (`npm ci` there); `.ci/run` installs both and
/// runs this with `--include-ignored`.
#[test]
#[ignore = "needs Chromium and playwright-core: run .ci/run"]
fn end_to_end_in_chromium() {
    browser_test("e2e.mjs", None, "board-e2e");
}

/// The game record (export, `menagerie` replaying it, import, links),
/// analysis, variations, sounds, dark mode and the wide board
/// (tools/board/e2e-record.mjs).
#[test]
#[ignore = "needs Chromium and playwright-core: run .ci/run"]
fn game_records_and_analysis_in_chromium() {
    browser_test("e2e-record.mjs", None, "board-e2e-record");
}

/// The same against the engine that gets each `position` line late.
#[test]
#[ignore = "needs Chromium and playwright-core: run .ci/run"]
fn game_records_and_analysis_in_chromium_with_a_stalled_engine() {
    let slow = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/board/slow-engine.py");
    browser_test("e2e-record.mjs", Some(slow), "board-e2e-record-stalled");
}

/// The same page against an engine that gets each `position` line late,
/// as on a stalled machine: a page or test that acts on a state it has
/// not reached yet fails here every time, not now and then on a busy CI.
#[test]
#[ignore = "needs Chromium and playwright-core: run .ci/run"]
fn end_to_end_in_chromium_with_a_stalled_engine() {
    let slow = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/board/slow-engine.py");
    browser_test("e2e.mjs", Some(slow), "board-e2e-stalled");
}

fn browser_test(script: &str, engine: Option<&str>, screenshots: &str) {
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_menagerie"))
        .parent()
        .unwrap();
    let mut node = Command::new("node");
    node.arg(format!(
        "{}/tools/board/{script}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .env("MENAGERIE_BIN", bin_dir)
    .env("E2E_OUT", bin_dir.join("..").join(screenshots));
    if let Some(engine) = engine {
        node.env("E2E_ENGINE", engine).env("SLOW_ENGINE_MS", "100");
    }
    let status = node.status().expect("node runs");
    assert!(status.success(), "the browser test failed (see its output)");
}

#[test]
fn a_closed_tab_frees_its_place_at_once() {
    let server = start_with(&["--max-sessions", "1"]);
    let own = format!("http://127.0.0.1:{}", server.port);
    let first = session(&server);
    let refused = with_origin(&server, "POST", "/api/session", &own);
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    // What navigator.sendBeacon sends when the tab closes or reloads.
    let closed = with_origin(
        &server,
        "POST",
        &format!("/api/session/{first}/close"),
        &own,
    );
    assert!(closed.starts_with("HTTP/1.1 204"), "{closed}");
    let again = with_origin(&server, "POST", "/api/session", &own);
    assert!(again.starts_with("HTTP/1.1 200"), "{again}");
    let gone = with_origin(
        &server,
        "POST",
        &format!("/api/session/{first}/close"),
        &own,
    );
    assert!(gone.starts_with("HTTP/1.1 404"), "{gone}");
    // From another site, nothing is closed.
    let id = again.split('"').nth(3).unwrap().to_string();
    let evil = with_origin(
        &server,
        "POST",
        &format!("/api/session/{id}/close"),
        "http://evil.example",
    );
    assert!(evil.starts_with("HTTP/1.1 403"), "{evil}");
}

#[test]
fn an_engine_that_never_reads_ties_up_no_thread_of_the_server() {
    let engine = script_engine("deaf-engine.sh", "exec sleep 60\n");
    let server = start_with(&["--engine", engine.to_str().unwrap()]);
    let id = session(&server);
    let body = "d\n".repeat(30 * 1024);
    let started = Instant::now();
    let mut refused = 0;
    // Far more than the pipe and the queue hold: every answer comes at
    // once, the later ones refusals.
    for _ in 0..600 {
        let (status, text) = request(
            &server,
            "POST",
            &format!("/api/session/{id}/send"),
            &body,
            None,
        );
        if status.contains("503") {
            assert!(text.contains("not reading"), "{text}");
            refused += 1;
        } else {
            assert!(status.contains("204"), "{status}");
        }
    }
    assert!(refused > 500, "only {refused} refusals");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // Other sessions are served as before.
    let other = session(&server);
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{other}/send"),
        "uci\n",
        None,
    );
    assert!(status.contains("204"), "{status}");
}

#[test]
fn event_streams_cannot_fill_the_servers_connections() {
    let server = start();
    let id = session(&server);
    // More streams of one session than the server has connections: each
    // new one ends the one before, so the slots are never all taken.
    let streams: Vec<TcpStream> = (0..80)
        .map(|_| {
            let stream = open_events(&server, &id);
            std::thread::sleep(Duration::from_millis(5));
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, _) = request(&server, "GET", "/api/config", "", None);
    assert!(status.contains("200"), "{status}");
    // The latest stream is the one served.
    let (status, _) = request(
        &server,
        "POST",
        &format!("/api/session/{id}/send"),
        "isready\n",
        None,
    );
    assert!(status.contains("204"), "{status}");
    let mut last = streams.into_iter().last().unwrap();
    last.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut seen = String::new();
    let mut reader = BufReader::new(&mut last);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !seen.contains("data: readyok") && Instant::now() < deadline {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        seen.push_str(&line);
    }
    assert!(seen.contains("data: readyok"), "{seen}");
}

#[test]
fn the_pages_files_are_gzipped_and_revalidated_by_etag() {
    let server = start();
    let get = |extra: &str| {
        raw(
            &server,
            format!(
                "GET /engine.js HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{extra}Connection: close\r\n\r\n",
                server.port
            )
            .as_bytes(),
        )
    };
    let plain = get("");
    let head = |r: &str| {
        r.split("\r\n\r\n")
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    assert!(plain.starts_with("HTTP/1.1 200"), "{}", head(&plain));
    assert!(
        plain.contains("class Engine"),
        "sent as it is without Accept-Encoding"
    );
    let zipped = get("Accept-Encoding: br, gzip;q=0.8\r\n");
    assert!(
        head(&zipped).contains("content-encoding: gzip"),
        "{}",
        head(&zipped)
    );
    let plain_length: usize = length(&head(&plain));
    assert!(
        length(&head(&zipped)) * 2 < plain_length,
        "gzip halves it at least"
    );
    let tag = head(&plain)
        .lines()
        .find_map(|l| l.strip_prefix("etag: ").map(str::to_string))
        .expect("an etag");
    assert!(
        head(&plain).contains("cache-control: no-cache"),
        "{}",
        head(&plain)
    );
    let again = get(&format!("If-None-Match: {tag}\r\n"));
    assert!(again.starts_with("HTTP/1.1 304"), "{}", head(&again));
}

fn length(head: &str) -> usize {
    head.lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no length in {head}"))
}

#[test]
fn engines_printing_long_lines_to_readers_that_never_read_keep_the_server_small() {
    // Lines of 60,000 bytes without end.
    let engine = script_engine(
        "long-lines.sh",
        "line=$(head -c 60000 /dev/zero | tr '\\0' x)\nwhile :; do echo \"$line\"; done\n",
    );
    let server = start_with(&["--engine", engine.to_str().unwrap()]);
    // Every session, each with an event stream that is never read.
    let _readers: Vec<TcpStream> = (0..8)
        .map(|_| {
            let id = session(&server);
            open_events(&server, &id)
        })
        .collect();
    std::thread::sleep(Duration::from_secs(4));
    let peak_kb = crate::common::peak_kib(server.child.id());
    assert!(peak_kb < 200 * 1024, "the server peaked at {peak_kb} kB");
    assert!(request(&server, "GET", "/api/config", "", None)
        .0
        .contains("200"));
}

/// Opens the session's WebSocket (`query` as `from=0` or `after=<id>`)
/// with `origin`; the handshake's status line and, if upgraded, the stream.
fn open_socket(
    server: &Server,
    id: &str,
    query: &str,
    origin: &str,
) -> (String, Option<TcpStream>) {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /api/session/{id}/socket?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\n\
         Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        port = server.port
    )
    .unwrap();
    // The head, byte by byte: the frames follow it on the same stream.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let status = head.lines().next().unwrap_or("").to_string();
    let upgraded = status.contains("101");
    (status, upgraded.then_some(stream))
}

/// The next text message of a server's (unmasked) WebSocket frames,
/// control frames skipped; `None` at a close frame or the end.
fn next_message(stream: &mut TcpStream) -> Option<String> {
    loop {
        match server_frame(stream)? {
            (1, payload) => return Some(String::from_utf8(payload).unwrap()),
            (8, _) => return None,
            _ => continue,
        }
    }
}

/// Messages until one whose data is `wanted`.
fn socket_until(stream: &mut TcpStream, wanted: &str) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    while let Some(text) = next_message(stream) {
        let message: serde_json::Value = serde_json::from_str(&text).unwrap();
        let done = message["data"] == wanted;
        seen.push(message);
        if done {
            return seen;
        }
    }
    panic!("the socket ended before '{wanted}': {seen:?}");
}

#[test]
fn the_event_socket_carries_the_lines_resumes_after_an_id_and_refuses_other_origins() {
    let server = start();
    let id = session(&server);
    let origin = format!("http://127.0.0.1:{}", server.port);
    let send = |body: &str| {
        let path = format!("/api/session/{id}/send");
        assert!(request(&server, "POST", &path, body, None)
            .0
            .contains("204"));
    };
    let (status, socket) = open_socket(&server, &id, "from=0", &origin);
    let mut socket = socket.unwrap_or_else(|| panic!("not upgraded: {status}"));
    send("isready\n");
    let first = socket_until(&mut socket, "readyok");
    assert_eq!(first.last().unwrap()["id"], "0:1", "{first:?}");
    assert_eq!(first.last().unwrap()["event"], "line");
    // A second socket of the session takes over; the first one is closed.
    send("newgame safari-dual\nisready\n");
    let (_, resumed) = open_socket(&server, &id, "after=0:1", &origin);
    let resumed = socket_until(&mut resumed.unwrap(), "readyok");
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    assert_eq!(resumed[0]["id"], "0:2");
    // The older socket may still deliver what it read before the new one
    // took over, then it is closed.
    let mut late = Vec::new();
    while let Some(text) = next_message(&mut socket) {
        late.push(text);
        assert!(
            late.len() <= 1 && late[0].contains("\"0:2\""),
            "the older socket goes on: {late:?}"
        );
    }
    // A page of another site may not listen in.
    let (status, refused) = open_socket(&server, &id, "from=0", "http://evil.example");
    assert!(status.contains("403") && refused.is_none(), "{status}");
    let (status, _) = open_socket(&server, "no-such-session", "from=0", &origin);
    assert!(status.contains("404"), "{status}");
}

#[test]
fn a_stopped_engine_ends_the_socket_with_its_exit() {
    let engine = script_engine("dies.sh", "read line\necho 'id name dies'\nexit 3\n");
    let server = start_with(&["--engine", engine.to_str().unwrap()]);
    let id = session(&server);
    let origin = format!("http://127.0.0.1:{}", server.port);
    let (status, socket) = open_socket(&server, &id, "from=0", &origin);
    let mut socket = socket.unwrap_or_else(|| panic!("not upgraded: {status}"));
    let path = format!("/api/session/{id}/send");
    request(&server, "POST", &path, "uci\n", None);
    let mut exit = None;
    while let Some(text) = next_message(&mut socket) {
        let message: serde_json::Value = serde_json::from_str(&text).unwrap();
        if message["event"] == "exit" {
            exit = Some(message);
            break;
        }
    }
    let exit = exit.expect("an exit event");
    assert!(exit["data"].as_str().unwrap().contains('3'), "{exit}");
}

/// A client's WebSocket frame (masked, as RFC 6455 asks of clients).
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n < 65536 => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// The next frame the server sends: its opcode and payload; `None` at
/// the end of the stream.
fn server_frame(stream: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut header = [0u8; 2];
    stream.read_exact(&mut header).ok()?;
    let length = match header[1] & 0x7f {
        126 => {
            let mut n = [0u8; 2];
            stream.read_exact(&mut n).ok()?;
            u16::from_be_bytes(n) as usize
        }
        127 => {
            let mut n = [0u8; 8];
            stream.read_exact(&mut n).ok()?;
            u64::from_be_bytes(n) as usize
        }
        n => n as usize,
    };
    let mut payload = vec![0u8; length];
    stream.read_exact(&mut payload).ok()?;
    Some((header[0] & 0x0f, payload))
}

#[test]
fn the_event_socket_answers_pings_and_closes_and_bounds_what_the_client_sends() {
    let server = start();
    let id = session(&server);
    let origin = format!("http://127.0.0.1:{}", server.port);
    // A ping gets a pong with its payload (the engine's lines may come
    // first); a close gets a close, then the end of the stream.
    let (status, socket) = open_socket(&server, &id, "from=0", &origin);
    let mut socket = socket.unwrap_or_else(|| panic!("not upgraded: {status}"));
    socket
        .write_all(&client_frame(0x9, b"are you there"))
        .unwrap();
    let pong = std::iter::from_fn(|| server_frame(&mut socket))
        .find(|(opcode, _)| *opcode == 0xA)
        .expect("a pong");
    assert_eq!(pong.1, b"are you there");
    socket
        .write_all(&client_frame(0x8, &1000u16.to_be_bytes()))
        .unwrap();
    let close = std::iter::from_fn(|| server_frame(&mut socket))
        .find(|(opcode, _)| *opcode == 0x8)
        .expect("a close in answer");
    assert!(close.1.is_empty() || close.1.starts_with(&1000u16.to_be_bytes()));
    assert!(
        server_frame(&mut socket).is_none(),
        "the stream ends after the close"
    );
    // A message past the limit ends the connection, without holding it.
    let (status, socket) = open_socket(&server, &id, "from=0", &origin);
    let mut socket = socket.unwrap_or_else(|| panic!("not upgraded: {status}"));
    let _ = socket.write_all(&client_frame(0x2, &vec![7u8; 1 << 20]));
    // Lines and a close may come first; then the stream ends.
    while let Some((opcode, _)) = server_frame(&mut socket) {
        assert!(opcode != 0xA, "the oversized message was read as a ping");
    }
    // The server goes on serving.
    assert!(request(&server, "GET", "/api/config", "", None)
        .0
        .contains("200"));
}
