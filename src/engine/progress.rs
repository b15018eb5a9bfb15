//! The engine's one wording of progress, for every long task: a bar of
//! 20 marks, counts with k and M, the time left as h:mm:ss, and at most
//! one line a second.

use std::time::{Duration, Instant};

/// Lets a progress line through at most once a second.
#[derive(Debug, Default)]
pub struct Throttle {
    last: Option<Instant>,
}

impl Throttle {
    const EVERY: Duration = Duration::from_secs(1);

    /// Whether a line is due now (the first always is); `last` forces one.
    pub fn due(&mut self, last: bool) -> bool {
        if !last && self.last.is_some_and(|t| t.elapsed() < Self::EVERY) {
            return false;
        }
        self.last = Some(Instant::now());
        true
    }
}

/// A progress bar of 20 marks.
pub fn bar(fraction: f64) -> String {
    let filled = ((fraction * 20.0).round() as usize).min(20);
    format!("[{}{}]", "#".repeat(filled), "-".repeat(20 - filled))
}

/// A duration as h:mm:ss.
pub fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A count, short: 9999, 10.0k, 10.0M.
pub fn count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=9_999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// One progress line: `{task}: [bar] {done}, {left} left`, where `done`
/// says how much is done in the task's own words.
pub fn line(task: &str, fraction: f64, done: &str, seconds_left: Option<f64>) -> String {
    let left = seconds_left.map_or_else(|| "?".to_string(), clock);
    format!("{task}: {} {done}, {left} left", bar(fraction))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_fraction_and_never_overflows() {
        assert_eq!(bar(0.0), format!("[{}]", "-".repeat(20)));
        assert_eq!(bar(0.5), format!("[{}{}]", "#".repeat(10), "-".repeat(10)));
        assert_eq!(bar(1.7), format!("[{}]", "#".repeat(20)));
    }

    #[test]
    fn counts_and_clocks_read_short() {
        assert_eq!(count(9_999), "9999");
        assert_eq!(count(12_345), "12.3k");
        assert_eq!(count(12_345_678), "12.3M");
        assert_eq!(clock(3_725.0), "1:02:05");
        assert_eq!(
            line("selfplay", 0.5, "5/10 games", None),
            format!("selfplay: {} 5/10 games, ? left", bar(0.5))
        );
    }

    #[test]
    fn the_throttle_lets_the_first_and_the_last_line_through() {
        let mut throttle = Throttle::default();
        assert!(throttle.due(false));
        assert!(!throttle.due(false));
        assert!(throttle.due(true));
    }
}
