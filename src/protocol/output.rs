//! The one writer of protocol lines, shared by the input loop and the search
//! thread so that lines never interleave.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::search::{Info, Reporter};

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    pub fn stdout() -> Output {
        Output::to(Box::new(std::io::stdout()))
    }

    pub fn to(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    /// Writes one line and flushes it, so pipes see it at once. A closed
    /// stdout is not an error worth dying for: the reader decides to quit.
    pub fn line(&self, text: &str) {
        log::debug!("out: {text}");
        let mut sink = self
            .sink
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = writeln!(sink, "{text}");
        let _ = sink.flush();
    }

    /// Writes several lines at once.
    pub fn lines(&self, text: &str) {
        for line in text.lines() {
            self.line(line);
        }
    }

    pub fn error(&self, error: &dyn std::fmt::Display) {
        self.line(&format!("info string error: {error}"));
    }
}

/// Formats search progress as UCI `info` lines.
pub struct InfoWriter {
    pub out: Output,
}

impl Reporter for InfoWriter {
    fn info(&mut self, info: &Info) {
        let mut line = format!(
            "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {}",
            info.depth,
            info.seldepth,
            info.score,
            info.nodes,
            info.nps(),
            info.time_ms,
            info.hashfull
        );
        if !info.pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(&info.pv.join(" "));
        }
        self.out.line(&line);
    }

    fn text(&mut self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }
}
