//! Turning `go` parameters into search limits: how long to think.

use crate::protocol::command::GoParams;

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

/// Time kept in reserve on every clock for process and pipe overhead.
const MARGIN_MS: u64 = 30;

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Limits for the side to move. `seat_order` is its place in the game's
    /// seat order; `wtime/winc` belong to the first seat and `btime/binc` to
    /// the second of a two-seat game, `time/inc` to whoever is to move.
    pub fn from_go(go: &GoParams, seat_order: usize, seats: usize) -> Limits {
        let mut limits = Limits {
            depth: go.depth,
            nodes: go.nodes,
            infinite: go.infinite,
            ..Limits::default()
        };
        if let Some(movetime) = go.movetime {
            let budget = movetime
                .saturating_sub((movetime / 10).min(MARGIN_MS))
                .max(1);
            limits.soft_ms = Some(budget);
            limits.hard_ms = Some(budget);
        }
        let clock = match (go.time, seat_order, seats) {
            (Some(time), _, _) => Some((time, go.inc.unwrap_or(0))),
            (None, 0, 2) => go.wtime.map(|t| (t, go.winc.unwrap_or(0))),
            (None, 1, 2) => go.btime.map(|t| (t, go.binc.unwrap_or(0))),
            _ => None,
        };
        if let Some((time, inc)) = clock {
            let (soft, hard) = allocate(time, inc, go.movestogo);
            limits.soft_ms = Some(limits.soft_ms.map_or(soft, |s| s.min(soft)));
            limits.hard_ms = Some(limits.hard_ms.map_or(hard, |h| h.min(hard)));
        }
        limits
    }

    /// Whether nothing but `stop` ends the search.
    pub fn unbounded(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.hard_ms.is_none()
    }
}

/// Soft and hard budgets for a clock of `time` ms with `inc` per move.
fn allocate(time: u64, inc: u64, moves_to_go: Option<u32>) -> (u64, u64) {
    let reserve = MARGIN_MS.min(time / 4);
    let available = time.saturating_sub(reserve);
    let horizon = moves_to_go.map_or(20, |m| m.clamp(1, 20)) as u64;
    let soft = available / horizon + inc * 3 / 4;
    // Never plan to use more than a third of what is left in one move.
    let hard = (soft * 3).min(available / 3 + inc / 2).min(available);
    (soft.min(hard).max(1), hard.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetime_keeps_a_margin() {
        let go = GoParams {
            movetime: Some(100),
            ..GoParams::default()
        };
        let l = Limits::from_go(&go, 0, 2);
        assert_eq!(l.hard_ms, Some(90));
    }

    #[test]
    fn clock_of_the_side_to_move_is_used() {
        let go = GoParams {
            wtime: Some(60_000),
            btime: Some(1_000),
            ..GoParams::default()
        };
        let white = Limits::from_go(&go, 0, 2);
        let black = Limits::from_go(&go, 1, 2);
        assert!(white.hard_ms.unwrap() > black.hard_ms.unwrap());
        assert!(black.hard_ms.unwrap() < 1_000 / 3);
        // wtime/btime mean nothing with three seats.
        assert_eq!(Limits::from_go(&go, 1, 3).hard_ms, None);
    }

    #[test]
    fn budget_never_exceeds_the_clock() {
        for time in [0u64, 1, 5, 40, 100, 1_000, 100_000] {
            for inc in [0u64, 10, 1_000] {
                let (soft, hard) = allocate(time, inc, None);
                assert!(soft <= hard);
                assert!(hard <= time.max(1), "time {time} inc {inc}: hard {hard}");
            }
        }
    }
}
