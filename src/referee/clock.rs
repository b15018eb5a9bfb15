//! The clocks of one game: what each seat may use, the `go` that tells the
//! engine, and charging the time it took.

use std::fmt;

use super::spec::Limit;
use menagerie_rules::game::{Seat, MAX_SEATS};
use menagerie_wire::command::GoParams;

/// A move that took longer than its limit allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overrun {
    pub used_ms: u64,
    pub allowed_ms: u64,
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "used {} ms of {} ms", self.used_ms, self.allowed_ms)
    }
}

/// Each seat's limit and, for clocks, the time it has left.
pub struct Clocks {
    limits: [Limit; MAX_SEATS],
    left: [u64; MAX_SEATS],
    /// The seats in play, in turn order.
    order: Vec<Seat>,
    /// Time over its limit a move is forgiven (pipes, a busy machine).
    margin_ms: u64,
}

impl Clocks {
    /// `limits[seat]` is the limit of the engine on that seat.
    pub fn new(limits: [Limit; MAX_SEATS], order: &[Seat], margin_ms: u64) -> Clocks {
        let mut left = [0; MAX_SEATS];
        for &seat in order {
            if let Limit::Clock { base_ms, .. } = limits[seat as usize] {
                left[seat as usize] = base_ms;
            }
        }
        Clocks {
            limits,
            left,
            order: order.to_vec(),
            margin_ms,
        }
    }

    fn increment(&self, seat: Seat) -> u64 {
        match self.limits[seat as usize] {
            Limit::Clock { inc_ms, .. } => inc_ms,
            _ => 0,
        }
    }

    /// The `go` for `seat`: both clocks in a two-seat game (the first seat
    /// is `w`, as in UCI), the mover's clock otherwise.
    pub fn go(&self, seat: Seat) -> GoParams {
        let mut go = GoParams::default();
        match self.limits[seat as usize] {
            Limit::Clock { .. } if self.order.len() == 2 => {
                let (w, b) = (self.order[0], self.order[1]);
                go.wtime = Some(self.left[w as usize]);
                go.btime = Some(self.left[b as usize]);
                go.winc = Some(self.increment(w));
                go.binc = Some(self.increment(b));
            }
            Limit::Clock { inc_ms, .. } => {
                go.time = Some(self.left[seat as usize]);
                go.inc = Some(inc_ms);
            }
            Limit::MoveTime(ms) => go.movetime = Some(ms),
            Limit::Depth(d) => go.depth = Some(d),
            Limit::Nodes(n) => go.nodes = Some(n),
        }
        go
    }

    /// How long `seat` may take for this move, margin included, if its
    /// limit is a time.
    pub fn deadline_ms(&self, seat: Seat) -> Option<u64> {
        match self.limits[seat as usize] {
            Limit::Clock { .. } => Some(self.left[seat as usize] + self.margin_ms),
            Limit::MoveTime(ms) => Some(ms + self.margin_ms),
            Limit::Depth(_) | Limit::Nodes(_) => None,
        }
    }

    /// Charges `used_ms` to `seat`: an overrun past the limit and margin,
    /// or the clock less the time plus the increment.
    pub fn charge(&mut self, seat: Seat, used_ms: u64) -> Result<(), Overrun> {
        let s = seat as usize;
        match self.limits[s] {
            Limit::Clock { inc_ms, .. } => {
                let left = self.left[s];
                if used_ms > left + self.margin_ms {
                    return Err(Overrun {
                        used_ms,
                        allowed_ms: left,
                    });
                }
                self.left[s] = left.saturating_sub(used_ms) + inc_ms;
            }
            Limit::MoveTime(ms) if used_ms > ms + self.margin_ms => {
                return Err(Overrun {
                    used_ms,
                    allowed_ms: ms,
                })
            }
            _ => {}
        }
        Ok(())
    }

    /// The time `seat` has left, for a clock.
    pub fn left_ms(&self, seat: Seat) -> Option<u64> {
        matches!(self.limits[seat as usize], Limit::Clock { .. }).then(|| self.left[seat as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(base_ms: u64, inc_ms: u64) -> Limit {
        Limit::Clock { base_ms, inc_ms }
    }

    #[test]
    fn two_seats_see_both_clocks_and_pay_for_their_time() {
        let mut limits = [clock(1000, 10); MAX_SEATS];
        limits[1] = clock(500, 5);
        let mut clocks = Clocks::new(limits, &[0, 1], 50);
        let go = clocks.go(1);
        assert_eq!(
            (go.wtime, go.btime, go.winc, go.binc),
            (Some(1000), Some(500), Some(10), Some(5))
        );
        assert_eq!(clocks.deadline_ms(1), Some(550));
        clocks.charge(0, 300).unwrap();
        assert_eq!(clocks.left_ms(0), Some(710));
        // The margin forgives 50 ms over the clock, no more.
        assert!(clocks.charge(1, 540).is_ok());
        assert_eq!(clocks.left_ms(1), Some(5));
        assert_eq!(
            clocks.charge(1, 60),
            Err(Overrun {
                used_ms: 60,
                allowed_ms: 5
            })
        );
    }

    #[test]
    fn more_seats_see_their_own_clock() {
        let limits = [clock(2000, 20); MAX_SEATS];
        let clocks = Clocks::new(limits, &[0, 1, 2], 50);
        let go = clocks.go(2);
        assert_eq!((go.time, go.inc, go.wtime), (Some(2000), Some(20), None));
    }

    #[test]
    fn fixed_limits_have_deadlines_only_for_time() {
        let mut limits = [Limit::Depth(3); MAX_SEATS];
        limits[1] = Limit::MoveTime(100);
        let mut clocks = Clocks::new(limits, &[0, 1], 50);
        assert_eq!(clocks.deadline_ms(0), None);
        assert_eq!(clocks.go(0).depth, Some(3));
        assert_eq!(clocks.deadline_ms(1), Some(150));
        assert!(clocks.charge(0, 1_000_000).is_ok());
        assert!(clocks.charge(1, 151).is_err());
    }
}
