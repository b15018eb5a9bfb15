//! Whether the machine can give a match on a clock what it needs: the
//! cores, the engine threads the match runs at once, and the other
//! threads runnable, read at the start and at the end of every game.
//! When they add up to more than the cores, moves on a clock get less
//! time than their budget says (time losses, weaker play), and the
//! referee says so, as fastchess warns of a concurrency above the cores.
//! Matches at fixed nodes or depth are not affected.

use std::fmt;
use std::time::Duration;

use super::config::MatchConfig;
use super::spec::Limit;
use menagerie_os::load;

/// Readings of the machine's load over a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineLoad {
    pub cores: usize,
    /// Engine threads that may think at once: one engine per game at a
    /// time, with its `Threads`, times the games played at once.
    pub engine_threads: usize,
    /// Other runnable threads before the engines started (the mean over
    /// a tenth of a second); `None` where the system does not say.
    pub at_start: Option<f64>,
    /// Readings at the end of games: their sum, count and largest.
    sum: f64,
    count: u32,
    pub most: f64,
}

impl MachineLoad {
    /// Reads the machine before a match (a tenth of a second).
    pub fn at_start(config: &MatchConfig) -> MachineLoad {
        MachineLoad {
            cores: load::cores(),
            engine_threads: engine_threads(config),
            at_start: load::other_runnable(20, Duration::from_millis(5)),
            sum: 0.0,
            count: 0,
            most: 0.0,
        }
    }

    /// Adds a reading taken at the end of a game.
    pub fn add(&mut self, others: f64) {
        self.sum += others;
        self.count += 1;
        self.most = self.most.max(others);
    }

    /// The mean of the readings at game ends.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / f64::from(self.count))
    }

    /// Whether the engines' threads and the other threads runnable (at
    /// the start, or on average at game ends) are more than the cores.
    pub fn busy(&self) -> bool {
        let others = self.at_start.unwrap_or(0.0).max(self.mean().unwrap_or(0.0));
        self.engine_threads as f64 + others > self.cores as f64
    }
}

/// Other threads runnable at the end of one game of a match: the machine's
/// runnable threads, less the reader and the threads the match's other
/// games may be thinking with; `None` where the system does not say.
pub fn reading_at_game_end(config: &MatchConfig) -> Option<f64> {
    let ours = (config.concurrency.saturating_sub(1)) * threads_per_game(config);
    load::other_runnable(1, Duration::ZERO).map(|others| (others - ours as f64).max(0.0))
}

/// Whether the match's results depend on time: either engine plays on a
/// clock or a time per move.
pub fn timed(config: &MatchConfig) -> bool {
    (0..2).any(|e| {
        matches!(
            config.play.limit_of(e),
            Limit::Clock { .. } | Limit::MoveTime(_)
        )
    })
}

/// The threads one game thinks with at a time: the larger `Threads` of
/// the two engines (1 where not set).
fn threads_per_game(config: &MatchConfig) -> usize {
    config
        .play
        .engines
        .iter()
        .map(|e| {
            e.options
                .iter()
                .rev()
                .find(|(name, _)| name.eq_ignore_ascii_case("Threads"))
                .and_then(|(_, v)| v.parse::<usize>().ok())
                .unwrap_or(1)
                .max(1)
        })
        .max()
        .unwrap_or(1)
}

fn engine_threads(config: &MatchConfig) -> usize {
    config.concurrency.max(1) * threads_per_game(config)
}

impl fmt::Display for MachineLoad {
    /// `2 cores; up to 2 engine threads at once; other runnable threads:
    /// 4.1 at the start, 3.8 on average at game ends (at most 6)`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} cores; up to {} engine threads at once; other runnable threads: ",
            self.cores, self.engine_threads
        )?;
        match self.at_start {
            Some(n) => write!(f, "{n:.1} at the start")?,
            None => f.write_str("unknown at the start")?,
        }
        if let Some(mean) = self.mean() {
            write!(
                f,
                ", {mean:.1} on average at game ends (at most {:.0})",
                self.most
            )?;
        }
        Ok(())
    }
}

/// The warning for a busy machine (after the `Machine:` line of its
/// readings): why, and what to do.
pub const WARNING: &str = "Warning: this machine is busier than its cores for a match on a clock: moves get less time than their budget, so time losses and weaker play may decide games. Fixed nodes (--nodes) give results no load changes; or lower --concurrency.";

#[cfg(test)]
mod tests {
    use super::*;

    fn load(cores: usize, engine_threads: usize, at_start: f64, ends: &[f64]) -> MachineLoad {
        let mut load = MachineLoad {
            cores,
            engine_threads,
            at_start: Some(at_start),
            sum: 0.0,
            count: 0,
            most: 0.0,
        };
        for &e in ends {
            load.add(e);
        }
        load
    }

    #[test]
    fn busy_when_the_engines_and_the_others_need_more_than_the_cores() {
        assert!(!load(2, 2, 0.0, &[]).busy());
        assert!(load(2, 2, 1.0, &[]).busy());
        assert!(load(2, 4, 0.0, &[]).busy());
        assert!(!load(8, 2, 3.0, &[1.0, 2.0]).busy());
        // Quiet at the start, busy during the match.
        assert!(load(2, 1, 0.0, &[4.0, 4.0]).busy());
        let text = load(2, 1, 0.0, &[4.0, 2.0]).to_string();
        assert_eq!(
            text,
            "2 cores; up to 1 engine threads at once; other runnable threads: 0.0 at the start, 3.0 on average at game ends (at most 4)"
        );
    }
}
