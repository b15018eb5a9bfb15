//! The one writer of protocol lines, shared by the input loop and the
//! worker thread so that lines never interleave. It writes only typed
//! replies ([`Reply`]).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use menagerie_search::{Info, Reporter, Score};
use menagerie_wire::reply::{InfoItem, InfoLine, Reply, ScoreText};

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    /// Error replies written so far (what a fail-fast run stops at).
    errors: Arc<AtomicUsize>,
    /// Of those, requests refused as more than the machine can hold.
    refusals: Arc<AtomicUsize>,
}

impl Output {
    pub fn stdout() -> Output {
        Output::to(Box::new(std::io::stdout()))
    }

    pub fn to(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
            errors: Arc::new(AtomicUsize::new(0)),
            refusals: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// How many error replies have been written.
    pub fn errors(&self) -> usize {
        self.errors.load(Ordering::Relaxed)
    }

    /// Writes one reply and flushes it, so pipes see it at once. A closed
    /// stdout is not an error worth dying for: the reader decides to quit.
    pub fn reply(&self, reply: &Reply) {
        if matches!(reply, Reply::Error { .. }) {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
        let text = reply.to_string();
        log::debug!("out: {text}");
        let mut sink = self
            .sink
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = writeln!(sink, "{text}");
        let _ = sink.flush();
    }

    /// Several replies written as one block, so that a search's `info`
    /// lines never land inside an answer given during it (`d`, `help`).
    pub fn replies(&self, replies: &[Reply]) {
        let mut text = String::new();
        for reply in replies {
            if matches!(reply, Reply::Error { .. }) {
                self.errors.fetch_add(1, Ordering::Relaxed);
            }
            let line = reply.to_string();
            log::debug!("out: {line}");
            text.push_str(&line);
            text.push('\n');
        }
        let mut sink = self
            .sink
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = sink.write_all(text.as_bytes());
        let _ = sink.flush();
    }

    /// Free text, one [`Reply::Line`] per line (a board drawing, help).
    pub fn text(&self, text: &str) {
        for line in text.lines() {
            self.reply(&Reply::Line(line.to_string()));
        }
    }

    /// `info string error: <command>: <message>`.
    pub fn error(&self, command: &str, message: &dyn std::fmt::Display) {
        self.reply(&Reply::error(command, message));
    }

    /// An error refusing a request the machine cannot hold (memory,
    /// disk): a run that stops at it exits with its own status.
    pub fn refuse(&self, command: &str, message: &dyn std::fmt::Display) {
        self.refusals.fetch_add(1, Ordering::Relaxed);
        self.error(command, message);
    }

    /// How many requests were refused as more than the machine can hold.
    pub fn refusals(&self) -> usize {
        self.refusals.load(Ordering::Relaxed)
    }
}

/// The search's score as the protocol writes it.
pub fn score_text(score: Score) -> ScoreText {
    match score {
        Score::Cp(cp) => ScoreText::Cp(cp),
        Score::Win(n) => ScoreText::Win(n),
        Score::Loss(n) => ScoreText::Loss(n),
    }
}

/// Search progress as an `info` line.
pub fn info_line(info: &Info) -> InfoLine {
    let mut items = vec![
        InfoItem::Depth(info.depth),
        InfoItem::SelDepth(info.seldepth),
        InfoItem::Score(score_text(info.score)),
        InfoItem::Nodes(info.nodes),
        InfoItem::Nps(info.nps()),
        InfoItem::Time(info.time_ms),
        InfoItem::HashFull(info.hashfull),
    ];
    if !info.pv.is_empty() {
        items.push(InfoItem::Pv(
            info.pv.iter().map(|m| m.to_string()).collect(),
        ));
    }
    InfoLine { items }
}

/// Formats search progress as protocol `info` lines.
pub struct InfoWriter {
    pub out: Output,
}

impl Reporter for InfoWriter {
    fn info(&mut self, info: &Info) {
        self.out.reply(&Reply::Info(info_line(info)));
    }

    fn text(&mut self, text: &str) {
        self.out.reply(&Reply::Remark(text.to_string()));
    }
}
