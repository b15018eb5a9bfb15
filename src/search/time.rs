//! How long to think: what a search is asked for, turned into limits.
//!
//! The rule for clocks: never plan to use more than half of what the clock
//! holds now, less the move overhead (the time the move takes to reach the
//! other side: pipes, the GUI, a busy machine). The increment counts only
//! toward moves after this one, since it is added once the move is made.

/// The clock of the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub time_ms: u64,
    pub inc_ms: u64,
    /// Moves until the next time control, if the control has one.
    pub moves_to_go: Option<u32>,
}

/// What one search is asked for; absent means no limit of that kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime_ms: Option<u64>,
    pub clock: Option<Clock>,
    pub infinite: bool,
}

/// Limits of one search. `soft_ms`: start no new iteration after it;
/// `hard_ms`: abort the iteration in progress.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub soft_ms: Option<u64>,
    pub hard_ms: Option<u64>,
    pub infinite: bool,
}

/// Moves a clock without `moves_to_go` is shared out over.
const HORIZON: u64 = 20;

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// The limits of `request`, keeping `overhead_ms` (the `Move Overhead`
    /// option) back from every time budget. A request with no limit at
    /// all is an infinite one.
    pub fn plan(request: &Request, overhead_ms: u64) -> Limits {
        let mut limits = Limits {
            depth: request.depth,
            nodes: request.nodes,
            infinite: request.infinite,
            ..Limits::default()
        };
        if let Some(movetime) = request.movetime_ms {
            let budget = movetime.saturating_sub(overhead_ms).max(1);
            limits.soft_ms = Some(budget);
            limits.hard_ms = Some(budget);
        }
        if let Some(clock) = request.clock {
            let (soft, hard) = allocate(clock, overhead_ms);
            limits.soft_ms = Some(limits.soft_ms.map_or(soft, |s| s.min(soft)));
            limits.hard_ms = Some(limits.hard_ms.map_or(hard, |h| h.min(hard)));
        }
        if limits.unbounded() {
            limits.infinite = true;
        }
        limits
    }

    /// Whether nothing but `stop` ends the search.
    pub fn unbounded(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.hard_ms.is_none()
    }
}

/// Soft and hard budgets for one move on `clock`.
fn allocate(clock: Clock, overhead_ms: u64) -> (u64, u64) {
    let usable = clock.time_ms.saturating_sub(overhead_ms);
    let horizon = clock
        .moves_to_go
        .map_or(HORIZON, |m| (m as u64).clamp(1, HORIZON));
    let soft = usable / horizon + clock.inc_ms * 3 / 4;
    let hard = (soft * 3).min(usable / 2);
    // A clock at or below the overhead still needs a move: one iteration.
    (soft.min(hard).max(1), hard.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time_ms: u64, inc_ms: u64) -> Request {
        Request {
            clock: Some(Clock {
                time_ms,
                inc_ms,
                moves_to_go: None,
            }),
            ..Request::default()
        }
    }

    #[test]
    fn movetime_keeps_the_overhead_back() {
        let go = Request {
            movetime_ms: Some(100),
            ..Request::default()
        };
        assert_eq!(Limits::plan(&go, 10).hard_ms, Some(90));
        assert_eq!(Limits::plan(&go, 0).hard_ms, Some(100));
        assert_eq!(Limits::plan(&go, 500).hard_ms, Some(1));
    }

    #[test]
    fn no_limit_is_infinite() {
        assert!(Limits::plan(&Request::default(), 10).infinite);
        assert!(!Limits::plan(&clock(1000, 0), 10).infinite);
    }

    #[test]
    fn never_more_than_half_the_clock_now_less_the_overhead() {
        for time in [0u64, 1, 5, 10, 11, 20, 40, 50, 100, 1_000, 100_000] {
            for inc in [0u64, 10, 20, 1_000, 100_000] {
                for overhead in [0u64, 10, 30] {
                    let limits = Limits::plan(&clock(time, inc), overhead);
                    let (soft, hard) = (limits.soft_ms.unwrap(), limits.hard_ms.unwrap());
                    assert!(soft <= hard);
                    let cap = (time.saturating_sub(overhead) / 2).max(1);
                    assert!(hard <= cap, "time {time} inc {inc}: hard {hard}");
                }
            }
        }
        // The cases of the issue: 20 ms + 20 ms, and 50 ms + 1 s.
        assert_eq!(Limits::plan(&clock(20, 20), 10).hard_ms, Some(5));
        assert_eq!(Limits::plan(&clock(50, 1000), 10).hard_ms, Some(20));
    }

    #[test]
    fn a_long_clock_is_shared_out_and_the_increment_used() {
        let limits = Limits::plan(&clock(60_000, 0), 10);
        assert_eq!(limits.soft_ms, Some(2_999));
        assert_eq!(limits.hard_ms, Some(8_997));
        let limits = Limits::plan(&clock(10_000, 1_000), 10);
        assert_eq!(limits.soft_ms, Some(1_249));
    }
}
