//! Match statistics: score, Elo difference with a 95% interval, likelihood
//! of superiority, pentanomial pair counts and the sequential probability
//! ratio test (the generalized SPRT of fishtest, logistic Elo).

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

/// Elo difference and the half-width of its 95% interval (normal
/// approximation of the per-game score, mapped through the Elo curve).
pub fn elo_interval(t: &Tally) -> (f64, f64) {
    let n = t.games() as f64;
    let s = t.score();
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let w = t.wins as f64 / n;
    let d = t.draws as f64 / n;
    let l = t.losses as f64 / n;
    let variance = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
    let margin = 1.959_963_984_540_054 * (variance / n).sqrt();
    let low = elo_of_score(s - margin);
    let high = elo_of_score(s + margin);
    (elo_of_score(s), (high - low) / 2.0)
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
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let c = self.0;
        write!(f, "[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4])
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

impl Sprt {
    /// Lower and upper bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio from outcome counts with the given points per
    /// outcome (per game), by the generalized SPRT approximation:
    /// N (s1 - s0) (2 mean - s0 - s1) / (2 variance).
    ///
    /// Empty outcome classes count as 1/1000 of a game (fishtest's
    /// regularisation), so that one-sided results, such as only wins, give
    /// a variance above zero and a decisive ratio.
    pub fn llr_of(&self, counts: &[u32], points: &[f64]) -> f64 {
        let real: u32 = counts.iter().sum();
        if real < 2 {
            return 0.0;
        }
        let counts: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
            .collect();
        let n: f64 = counts.iter().sum();
        let mean: f64 = counts.iter().zip(points).map(|(c, p)| c * p).sum::<f64>() / n;
        let variance: f64 = counts
            .iter()
            .zip(points)
            .map(|(c, p)| c * (p - mean).powi(2))
            .sum::<f64>()
            / n;
        if variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    /// LLR from single games.
    pub fn llr_trinomial(&self, t: &Tally) -> f64 {
        self.llr_of(&[t.losses, t.draws, t.wins], &[0.0, 0.5, 1.0])
    }

    /// LLR from game pairs (points per game of each pair outcome).
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        self.llr_of(&p.0, &[0.0, 0.25, 0.5, 0.75, 1.0])
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
        let low = elo_of_score(0.7 - 1.959_963_984_540_054 * 0.04);
        let high = elo_of_score(0.7 + 1.959_963_984_540_054 * 0.04);
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
    fn sprt_bounds_and_llr_by_hand() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (low, high) = sprt.bounds();
        assert!(close(low, -2.944_438_979, 1e-9) && close(high, 2.944_438_979, 1e-9));
        // 60 W, 20 L, 20 D: mean 0.7, variance 0.16, n 100.
        // s0 = 0.5, s1 = 1/(1+10^(-10/400)) = 0.5143872
        // LLR = 100 * 0.0143872 * (1.4 - 1.0143872) / 0.32 = 1.7337133
        let t = Tally {
            wins: 60,
            losses: 20,
            draws: 20,
        };
        let s1 = score_of_elo(10.0);
        let expected = 100.0 * (s1 - 0.5) * (1.4 - 0.5 - s1) / 0.32;
        assert!(close(s1, 0.514_387_184_166, 1e-12));
        assert!(close(sprt.llr_trinomial(&t), expected, 1e-12));
        assert!(close(expected, 1.733_713_311_929, 1e-9));
        assert_eq!(sprt.verdict(expected), Verdict::Continue);
        assert_eq!(sprt.verdict(3.0), Verdict::H1);
        assert_eq!(sprt.verdict(-3.0), Verdict::H0);
    }

    #[test]
    fn one_sided_results_still_decide() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let all_wins = Pentanomial([0, 0, 0, 0, 3]);
        let llr = sprt.llr_pentanomial(&all_wins);
        assert!(llr > sprt.bounds().1, "{llr}");
        let all_losses = Pentanomial([3, 0, 0, 0, 0]);
        assert!(sprt.llr_pentanomial(&all_losses) < sprt.bounds().0);
        assert_eq!(
            sprt.llr_pentanomial(&Pentanomial([0, 0, 0, 0, 1])),
            0.0,
            "one pair says nothing"
        );
    }

    #[test]
    fn pentanomial_counts_and_llr() {
        let mut p = Pentanomial::default();
        for points in [2.0, 1.5, 1.0, 1.0, 0.5, 2.0] {
            p.add(points);
        }
        assert_eq!(p.0, [0, 1, 2, 1, 2]);
        assert_eq!(p.to_string(), "[0, 1, 2, 1, 2]");
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // Per-game pair scores 0.25, 0.5, 0.5, 0.75, 1, 1, plus the empty
        // class (0 points) counted as 0.001 of a pair.
        let eps = 1e-3;
        let n = 6.0 + eps;
        let scores = [0.25f64, 0.5, 0.5, 0.75, 1.0, 1.0];
        let mean = scores.iter().sum::<f64>() / n;
        let var = (scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() + eps * mean * mean) / n;
        let s1 = score_of_elo(5.0);
        let expected = n * (s1 - 0.5) * (2.0 * mean - 0.5 - s1) / (2.0 * var);
        assert!(close(sprt.llr_pentanomial(&p), expected, 1e-12));
    }
}
