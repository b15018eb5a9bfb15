//! Match statistics: score, Elo difference with a 95% interval, likelihood
//! of superiority, pentanomial pair counts and the sequential probability
//! ratio test.
//!
//! The SPRT is the generalised SPRT of fishtest and fastchess: the
//! log-likelihood ratio of the observed outcome frequencies under the two
//! maximum-likelihood distributions whose expected scores are those of
//! elo0 and elo1 (logistic Elo). Each constrained estimate solves a
//! one-dimensional equation (Van den Bergh's "secular equation"), which
//! stays finite and small on one-sided data, unlike the linear
//! approximation that divides by an empirical variance near zero.

use std::fmt;

/// Wins, losses and draws of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points per game of the first engine.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    pub fn draw_ratio(&self) -> f64 {
        self.draws as f64 / self.games().max(1) as f64
    }

    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Counts of losses, draws and wins, the trinomial outcomes.
    pub fn counts(&self) -> [u32; 3] {
        [self.losses, self.draws, self.wins]
    }
}

/// Elo difference for an expected score (logistic model).
pub fn elo_of_score(score: f64) -> f64 {
    let s = score.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// 97.5% quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Mean and variance of the per-game score of outcome `counts`, where
/// outcome i scores `i / (counts.len() - 1)` points per game.
fn mean_and_variance(counts: &[u32]) -> (f64, f64, f64) {
    let n: f64 = counts.iter().map(|&c| c as f64).sum();
    let step = 1.0 / (counts.len() - 1) as f64;
    let mean = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| c as f64 * i as f64 * step)
        .sum::<f64>()
        / n;
    let variance = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| c as f64 * (i as f64 * step - mean).powi(2))
        .sum::<f64>()
        / n;
    (n, mean, variance)
}

/// Elo difference and the half-width of its 95% interval from outcome
/// counts (trinomial per game, or pentanomial per pair, whose variance
/// knows that the two games of a pair are correlated), by the normal
/// approximation of the mean score mapped through the Elo curve.
pub fn elo_interval_of(counts: &[u32]) -> (f64, f64) {
    let (n, mean, variance) = mean_and_variance(counts);
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let margin = Z95 * (variance / n).sqrt();
    let low = elo_of_score(mean - margin);
    let high = elo_of_score(mean + margin);
    (elo_of_score(mean), (high - low) / 2.0)
}

/// Elo difference and half-width of its 95% interval from single games.
pub fn elo_interval(t: &Tally) -> (f64, f64) {
    elo_interval_of(&t.counts())
}

/// Likelihood of superiority: the probability that the first engine is the
/// stronger, from wins and losses (draws carry no information).
pub fn los(t: &Tally) -> f64 {
    let decisive = (t.wins + t.losses) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((t.wins as f64 - t.losses as f64) / (2.0 * decisive).sqrt()))
}

/// The error function (Abramowitz and Stegun 7.1.26 is too coarse for LOS
/// near 0 or 1, so a series / continued fraction pair is used).
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // Maclaurin series.
        let mut sum = x;
        let mut term = x;
        let x2 = x * x;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            if add.abs() < 1e-17 {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // Continued fraction for erfc.
        let mut f = 0.0;
        for k in (1..=60).rev() {
            f = (k as f64 / 2.0) / (x + f);
        }
        1.0 - (-x * x).exp() / (std::f64::consts::PI.sqrt() * (x + f))
    }
}

/// Pair results from the first engine's view: counts of pairs scoring 0,
/// 0.5, 1, 1.5 and 2 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    pub fn add(&mut self, pair_points: f64) {
        let i = (pair_points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[i] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Elo and half-width of its 95% interval from the pairs.
    pub fn elo_interval(&self) -> (f64, f64) {
        elo_interval_of(&self.0)
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let c = self.0;
        write!(f, "[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4])
    }
}

/// The first engine's expected share of wins alone in one of `seats` seats
/// against players of equal strength in every other, when it is `elo`
/// stronger than each: the Bradley-Terry model for one winner among
/// several, r / (r + seats - 1) with r = 10^(elo / 400). At 0 it is par,
/// 1 / seats; with two seats it is the Elo curve.
pub fn share_of_elo(elo: f64, seats: u32) -> f64 {
    let r = 10f64.powf(elo / 400.0);
    r / (r + (seats.max(2) - 1) as f64)
}

/// The Elo of [`share_of_elo`]'s model for a share of wins.
pub fn elo_of_share(share: f64, seats: u32) -> f64 {
    let s = share.clamp(1e-9, 1.0 - 1e-9);
    400.0 * (s * (seats.max(2) - 1) as f64 / (1.0 - s)).log10()
}

/// The sets of a lone seating: the first engine plays each of `seats`
/// seats once against the second engine in every other, on one start and
/// one set of dice. A game scores 1 for its win, 1 / seats for a draw
/// (shared by every seat), 0 for a loss; a set scores the mean of its
/// games. `counts[k]` is the number of sets scoring k / seats², where
/// k = seats * wins + draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetCounts {
    pub seats: u32,
    pub counts: Vec<u32>,
}

impl SetCounts {
    pub fn new(seats: u32) -> SetCounts {
        SetCounts {
            seats,
            counts: vec![0; (seats * seats + 1) as usize],
        }
    }

    /// Counts a complete set of `wins` and `draws` among its games.
    pub fn add(&mut self, wins: u32, draws: u32) {
        let k = (self.seats * wins + draws).min(self.seats * self.seats);
        self.counts[k as usize] += 1;
    }

    pub fn sets(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Par: the share of an engine no better than the others.
    pub fn par(&self) -> f64 {
        1.0 / self.seats as f64
    }

    /// The mean share of wins per game and the half-width of its 95%
    /// interval, from the variance of the sets (which knows that the games
    /// of a set share their dice).
    pub fn share_interval(&self) -> (f64, f64) {
        let (n, mean, variance) = mean_and_variance(&self.counts);
        if n == 0.0 {
            return (self.par(), 0.0);
        }
        (mean, Z95 * (variance / n).sqrt())
    }
}

/// A sequential probability ratio test between two Elo hypotheses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep playing.
    Continue,
    /// elo1 accepted: the first engine is stronger by about elo1.
    H1,
    /// elo0 accepted.
    H0,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Verdict::Continue => "continue",
            Verdict::H1 => "H1 accepted",
            Verdict::H0 => "H0 accepted",
        })
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// Weight given to an outcome never observed (fishtest's regularisation):
/// without it the estimate could put no mass there at all.
const EMPTY_CELL: f64 = 1e-3;

impl Sprt {
    /// Lower and upper bounds of the log-likelihood ratio (Wald).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio of H1 against H0 for outcome counts, outcome
    /// i scoring `i / (counts.len() - 1)` per game: N times the expected
    /// log ratio of the two constrained maximum-likelihood distributions.
    pub fn llr(&self, counts: &[u32]) -> f64 {
        llr_between(counts, score_of_elo(self.elo0), score_of_elo(self.elo1))
    }

    /// LLR from the sets of a lone seating: the Elo bounds are those of
    /// the first engine against each of the others, so the expected
    /// shares of wins are [`share_of_elo`]'s.
    pub fn llr_sets(&self, sets: &SetCounts) -> f64 {
        let n = sets.seats;
        llr_between(
            &sets.counts,
            share_of_elo(self.elo0, n),
            share_of_elo(self.elo1, n),
        )
    }

    /// LLR from game pairs.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        self.llr(&p.0)
    }

    pub fn verdict(&self, llr: f64) -> Verdict {
        let (low, high) = self.bounds();
        if llr >= high {
            Verdict::H1
        } else if llr <= low {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

/// The generalised LLR of H1 (expected score `s1`) against H0 (`s0`) for
/// outcome counts, outcome i scoring `i / (counts.len() - 1)`.
fn llr_between(counts: &[u32], s0: f64, s1: f64) -> f64 {
    if counts.iter().sum::<u32>() == 0 {
        return 0.0;
    }
    let weights: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { EMPTY_CELL } else { c as f64 })
        .collect();
    let n: f64 = weights.iter().sum();
    let step = 1.0 / (counts.len() - 1) as f64;
    let outcomes: Vec<(f64, f64)> = weights
        .iter()
        .enumerate()
        .map(|(i, &w)| (i as f64 * step, w / n))
        .collect();
    let p0 = constrained_mle(&outcomes, s0);
    let p1 = constrained_mle(&outcomes, s1);
    n * outcomes
        .iter()
        .zip(p0.iter().zip(&p1))
        .map(|(&(_, p), (&q0, &q1))| p * (q1.ln() - q0.ln()))
        .sum::<f64>()
}

/// The distribution nearest (in likelihood) to the observed `outcomes`
/// (score, frequency) whose expected score is `s`: q_i = p_i / (1 + x (a_i - s))
/// where x solves sum p_i (a_i - s) / (1 + x (a_i - s)) = 0.
///
/// The left side falls strictly in x between the poles -1 / max(a - s) and
/// -1 / min(a - s), so bisection finds the root. Needs some outcome below
/// and some above `s`, which the regularisation of empty cells ensures
/// for every s strictly between the least and the greatest score.
fn constrained_mle(outcomes: &[(f64, f64)], s: f64) -> Vec<f64> {
    let shifted: Vec<(f64, f64)> = outcomes.iter().map(|&(a, p)| (a - s, p)).collect();
    let (lowest, highest) = shifted
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &(a, _)| {
            (lo.min(a), hi.max(a))
        });
    debug_assert!(lowest < 0.0 && highest > 0.0, "s inside the scores");
    let secular = |x: f64| -> f64 { shifted.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum() };
    let (mut low, mut high) = (-1.0 / highest, -1.0 / lowest);
    // Never evaluate at the poles themselves.
    let inside = (high - low) * 1e-12;
    low += inside;
    high -= inside;
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if secular(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
        if high - low <= 1e-15 * (1.0 + mid.abs()) {
            break;
        }
    }
    let x = 0.5 * (low + high);
    shifted.iter().map(|&(a, p)| p / (1.0 + x * a)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_of_known_scores() {
        // -400 log10(1/0.75 - 1) = 400 log10(3) = 190.848...
        assert!(close(elo_of_score(0.75), 190.848_501_887, 1e-6));
        assert!(close(elo_of_score(0.5), 0.0, 1e-12));
        assert!(close(score_of_elo(190.848_501_887), 0.75, 1e-9));
        assert!(close(elo_of_score(0.25), -190.848_501_887, 1e-6));
    }

    #[test]
    fn elo_interval_by_hand() {
        // 60 wins, 20 losses, 20 draws: score 0.7. Per-game variance:
        // 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16; sigma of the mean 0.04;
        // 95%: 0.7 -+ 0.0783986 -> Elo 86.23 .. 218.25 around 147.19.
        let t = Tally {
            wins: 60,
            losses: 20,
            draws: 20,
        };
        let (elo, margin) = elo_interval(&t);
        assert!(close(elo, 147.190_714_118, 1e-6), "{elo}");
        let low = elo_of_score(0.7 - Z95 * 0.04);
        let high = elo_of_score(0.7 + Z95 * 0.04);
        assert!(close(margin, (high - low) / 2.0, 1e-9));
        assert!(
            close(low, 86.225_015, 1e-5) && close(high, 218.251_778, 1e-5),
            "{low} {high}"
        );
    }

    #[test]
    fn erf_and_los() {
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 1e-13));
        assert!(close(erf(1.0), 0.842_700_792_949_714_9, 1e-13));
        assert!(close(erf(3.0), 0.999_977_909_503_001_4, 1e-13));
        // 30 wins, 20 losses: 0.5 (1 + erf(10 / sqrt(100))) = 0.5 (1 + erf 1)
        let t = Tally {
            wins: 30,
            losses: 20,
            draws: 50,
        };
        assert!(close(los(&t), 0.5 * (1.0 + 0.842_700_792_949_714_9), 1e-12));
    }

    #[test]
    fn the_constrained_estimate_has_the_asked_mean_and_sums_to_one() {
        let outcomes = [
            (0.0, 0.1),
            (0.25, 0.2),
            (0.5, 0.3),
            (0.75, 0.25),
            (1.0, 0.15),
        ];
        for s in [0.05, 0.3, 0.5, 0.514, 0.9] {
            let q = constrained_mle(&outcomes, s);
            let total: f64 = q.iter().sum();
            let mean: f64 = q.iter().zip(&outcomes).map(|(q, (a, _))| q * a).sum();
            assert!(close(total, 1.0, 1e-9), "{s}: {total}");
            assert!(close(mean, s, 1e-9), "{s}: {mean}");
            assert!(q.iter().all(|&p| p > 0.0));
        }
        // The observed mean is its own estimate: nothing moves.
        let mean: f64 = outcomes.iter().map(|(a, p)| a * p).sum();
        let q = constrained_mle(&outcomes, mean);
        assert!(q
            .iter()
            .zip(&outcomes)
            .all(|(q, (_, p))| close(*q, *p, 1e-9)));
    }

    #[test]
    fn llr_by_hand_for_a_trinomial() {
        // One loss, one draw, one win is centred on 0.5: testing elo0 = 0
        // gives q0 = p, and the LLR is N sum p ln(q1 / p), with q1 the
        // estimate at s1; computed here by solving the three-point secular
        // equation in closed form.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let s1 = score_of_elo(50.0);
        // sum over a in {-s1, 0.5-s1, 1-s1} of (a / (1 + x a)) / 3 = 0.
        let f = |x: f64| {
            [-s1, 0.5 - s1, 1.0 - s1]
                .iter()
                .map(|a| a / (1.0 + x * a))
                .sum::<f64>()
        };
        let (mut lo, mut hi) = (-1.0 / (1.0 - s1) + 1e-12, 1.0 / s1 - 1e-12);
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if f(mid) > 0.0 {
                lo = mid
            } else {
                hi = mid
            }
        }
        let x = (lo + hi) / 2.0;
        let expected: f64 = [-s1, 0.5 - s1, 1.0 - s1]
            .iter()
            .map(|a| -(1.0 + x * a).ln())
            .sum();
        let llr = sprt.llr(&[1, 1, 1]);
        assert!(close(llr, expected, 1e-9), "{llr} {expected}");
        assert!(llr < 0.0, "a score of 0.5 favours elo0");
    }

    #[test]
    fn one_sided_results_are_no_evidence_after_a_handful_of_pairs() {
        // The linear approximation with pseudo-counts called three won
        // pairs a decision; the likelihood ratio says they are worth little.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (low, high) = sprt.bounds();
        for pairs in 1..=20 {
            let wins = sprt.llr_pentanomial(&Pentanomial([0, 0, 0, 0, pairs]));
            let losses = sprt.llr_pentanomial(&Pentanomial([pairs, 0, 0, 0, 0]));
            assert!(wins > 0.0 && wins < high, "{pairs} won pairs: llr {wins}");
            assert!(
                losses < 0.0 && losses > low,
                "{pairs} lost pairs: llr {losses}"
            );
        }
        // But a long one-sided run does decide.
        assert_eq!(
            sprt.verdict(sprt.llr_pentanomial(&Pentanomial([0, 0, 0, 0, 400]))),
            Verdict::H1
        );
    }

    #[test]
    fn pentanomial_counts() {
        let mut p = Pentanomial::default();
        for points in [2.0, 1.5, 1.0, 1.0, 0.5, 2.0] {
            p.add(points);
        }
        assert_eq!(p.0, [0, 1, 2, 1, 2]);
        assert_eq!(p.to_string(), "[0, 1, 2, 1, 2]");
        assert_eq!(p.pairs(), 6);
    }

    #[test]
    fn bounds_are_walds() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (low, high) = sprt.bounds();
        assert!(close(low, -2.944_438_979, 1e-9) && close(high, 2.944_438_979, 1e-9));
        assert_eq!(sprt.verdict(3.0), Verdict::H1);
        assert_eq!(sprt.verdict(-3.0), Verdict::H0);
        assert_eq!(sprt.verdict(0.0), Verdict::Continue);
    }
}
