//! The browser board's server (tools/gui/server.rs) over HTTP, and the
//! end-to-end test that drives the page in Chromium (tools/gui/e2e.mjs).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie-gui"))
        .args(["--port", "0", "--seed", "3"])
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
    while !seen.contains(wanted) {
        assert!(Instant::now() < deadline, "no '{wanted}' in:\n{seen}");
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        seen.push_str(&line);
    }
    seen
}

#[test]
fn serves_the_page_on_localhost_only() {
    let server = start();
    let (status, body) = request(&server, "GET", "/", "", None);
    assert!(status.contains("200"));
    assert!(body.contains("<title>menagerie</title>"));
    assert!(request(&server, "GET", "/app.js", "", None)
        .1
        .contains("class Engine"));
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
fn the_server_draws_the_dice() {
    let server = start();
    let id = session(&server);
    let mut rolls = std::collections::BTreeSet::new();
    for _ in 0..40 {
        let (_, body) = request(
            &server,
            "POST",
            &format!("/api/session/{id}/roll"),
            "",
            None,
        );
        let roll = body.split('"').nth(3).unwrap().to_string();
        assert!(
            ["r1", "r2", "r3", "r4", "r5", "r6"].contains(&roll.as_str()),
            "{roll}"
        );
        rolls.insert(roll);
    }
    assert_eq!(rolls.len(), 6, "every face comes up in 40 rolls");
    assert!(request(&server, "POST", "/api/session/nope/roll", "", None)
        .0
        .contains("404"));
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
/// tools/gui/node_modules (`npm ci` there); `.ci/run` installs both and
/// runs this with `--include-ignored`.
#[test]
#[ignore = "needs Chromium and playwright-core: run .ci/run"]
fn end_to_end_in_chromium() {
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_menagerie"))
        .parent()
        .unwrap();
    let status = Command::new("node")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tools/gui/e2e.mjs"))
        .env("MENAGERIE_BIN", bin_dir)
        .status()
        .expect("node runs");
    assert!(status.success(), "the browser test failed (see its output)");
}
