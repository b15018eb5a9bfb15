//! The referee's statistics checked against known distributions, with no
//! engines: the SPRT's log-likelihood ratio against values computed another
//! way, its error rates and sample sizes over thousands of simulated tests,
//! and the coverage of the Elo interval.

use menagerie_referee::stats::{elo_of_score, score_of_elo, Pentanomial, Sprt, Verdict};
use menagerie_rules::rng::Rng;

#[test]
fn llr_matches_a_constrained_optimiser() {
    // tests/data/sprt_llr.txt comes from tools/reference/sprt_llr.py, which
    // maximises the likelihood under the score constraint with SLSQP.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sprt_llr.txt"
    ))
    .unwrap();
    let mut cases = 0;
    for line in text.lines() {
        let numbers: Vec<f64> = line
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        let (counts, rest) = numbers.split_at(numbers.len() - 3);
        let counts: Vec<u32> = counts.iter().map(|&c| c as u32).collect();
        let sprt = Sprt {
            elo0: rest[0],
            elo1: rest[1],
            alpha: 0.05,
            beta: 0.05,
        };
        let llr = sprt.llr(&counts);
        assert!(
            (llr - rest[2]).abs() < 1e-5,
            "{counts:?} elo {}..{}: {llr} against {}",
            rest[0],
            rest[1],
            rest[2]
        );
        cases += 1;
    }
    assert_eq!(cases, 7);
}

/// A pair-outcome distribution with expected score `score` per game: draws
/// and split pairs as in real matches, shifted toward wins or losses.
fn pair_distribution(score: f64) -> [f64; 5] {
    // Start from a symmetric pentanomial and tilt it exponentially until
    // its mean is `score` (the maximum-entropy tilt of the base).
    let base = [0.08, 0.22, 0.40, 0.22, 0.08];
    let values = [0.0, 0.25, 0.5, 0.75, 1.0];
    let tilted = |t: f64| -> [f64; 5] {
        let w: Vec<f64> = (0..5).map(|i| base[i] * (t * values[i]).exp()).collect();
        let sum: f64 = w.iter().sum();
        [w[0] / sum, w[1] / sum, w[2] / sum, w[3] / sum, w[4] / sum]
    };
    let mean = |p: &[f64; 5]| (0..5).map(|i| p[i] * values[i]).sum::<f64>();
    let (mut lo, mut hi) = (-50.0, 50.0);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if mean(&tilted(mid)) < score {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    tilted((lo + hi) / 2.0)
}

fn draw_pair(rng: &mut Rng, p: &[f64; 5]) -> usize {
    let u = rng.next_u64() as f64 / u64::MAX as f64;
    let mut acc = 0.0;
    for (i, &q) in p.iter().enumerate() {
        acc += q;
        if u < acc {
            return i;
        }
    }
    4
}

/// Runs one SPRT on pairs drawn from `p`; the verdict and the pairs it took.
fn one_sprt(sprt: &Sprt, p: &[f64; 5], rng: &mut Rng, max_pairs: u32) -> (Verdict, u32) {
    let mut counts = Pentanomial::default();
    for pairs in 1..=max_pairs {
        counts.0[draw_pair(rng, p)] += 1;
        let verdict = sprt.verdict(sprt.llr_pentanomial(&counts));
        if verdict != Verdict::Continue {
            return (verdict, pairs);
        }
    }
    (Verdict::Continue, max_pairs)
}

#[test]
fn error_rates_stay_within_alpha_and_beta() {
    // 2000 tests at each hypothesis; the estimated error rate has a
    // standard error of about 0.005 at 5%, so three of them are allowed.
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 30.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let runs = 2000;
    let mut rng = Rng::new(2026);
    for (true_elo, wrong, rate_allowed) in [(0.0, Verdict::H1, 0.05), (30.0, Verdict::H0, 0.05)] {
        let p = pair_distribution(score_of_elo(true_elo));
        let mut errors = 0;
        let mut undecided = 0;
        let mut fewest = u32::MAX;
        for _ in 0..runs {
            let (verdict, pairs) = one_sprt(&sprt, &p, &mut rng, 20_000);
            errors += u32::from(verdict == wrong);
            undecided += u32::from(verdict == Verdict::Continue);
            fewest = fewest.min(pairs);
        }
        let rate = errors as f64 / runs as f64;
        eprintln!("true elo {true_elo}: wrong verdicts {rate:.4}, fewest pairs {fewest}");
        assert!(
            rate <= rate_allowed + 3.0 * 0.005,
            "true elo {true_elo}: {rate}"
        );
        assert_eq!(undecided, 0);
        // No decision after a handful of games, even in the luckiest run.
        assert!(
            fewest >= 10,
            "true elo {true_elo}: decided after {fewest} pairs"
        );
    }
}

#[test]
fn equal_engines_are_not_called_different_after_a_few_games() {
    // The case: elo0 = 0, elo1 = 10 between equal engines stopped
    // after 2-3 games in 10 of 16 seeds. Over 500 seeds, no test decides
    // within 50 pairs (100 games).
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let p = pair_distribution(0.5);
    for seed in 0..500 {
        let mut rng = Rng::new(seed);
        let (verdict, pairs) = one_sprt(&sprt, &p, &mut rng, 50);
        assert_eq!(
            verdict,
            Verdict::Continue,
            "seed {seed}: {verdict} after {pairs} pairs"
        );
    }
}

#[test]
fn the_elo_interval_covers_the_true_elo_95_times_in_100() {
    // 2000 matches of 200 pairs each; the interval from the pentanomial
    // counts should hold the true Elo about 95% of the time (binomial
    // standard error 0.5%).
    let mut rng = Rng::new(7);
    for true_elo in [0.0, 40.0, -120.0] {
        let p = pair_distribution(score_of_elo(true_elo));
        let mut covered = 0;
        let matches = 2000;
        for _ in 0..matches {
            let mut counts = Pentanomial::default();
            for _ in 0..200 {
                counts.0[draw_pair(&mut rng, &p)] += 1;
            }
            let (elo, margin) = counts.elo_interval();
            if (elo - true_elo).abs() <= margin {
                covered += 1;
            }
        }
        let coverage = covered as f64 / matches as f64;
        eprintln!("true elo {true_elo}: coverage {coverage:.4}");
        assert!(
            (0.93..=0.97).contains(&coverage),
            "true elo {true_elo}: {coverage}"
        );
    }
    // And the Elo scale itself.
    assert!((elo_of_score(score_of_elo(40.0)) - 40.0).abs() < 1e-9);
}

// ---- Lone seating: the first engine alone against every other seat ----

use menagerie_referee::stats::{elo_of_share, share_of_elo, SetCounts};

/// One set of a lone seating in a game of `seats` seats: the first engine
/// plays each seat once on the same dice. Wins are correlated within a set
/// (good dice for the lone engine in half of the sets, bad in the other
/// half), draws are shared by every seat. Returns (wins, draws).
fn draw_set(rng: &mut Rng, seats: u32, share: f64, draw: f64) -> (u32, u32) {
    // The share is win + draw / seats per game.
    let win = share - draw / seats as f64;
    let lucky = rng.next_u64() & 1 == 0;
    let swing = win.min(1.0 - draw - win) * 0.6;
    let win = if lucky { win + swing } else { win - swing };
    let (mut wins, mut draws) = (0, 0);
    for _ in 0..seats {
        let u = rng.next_u64() as f64 / u64::MAX as f64;
        if u < win {
            wins += 1;
        } else if u < win + draw {
            draws += 1;
        }
    }
    (wins, draws)
}

fn one_lone_sprt(sprt: &Sprt, seats: u32, share: f64, rng: &mut Rng, max: u32) -> (Verdict, u32) {
    let mut sets = SetCounts::new(seats);
    for n in 1..=max {
        let (wins, draws) = draw_set(rng, seats, share, 0.04);
        sets.add(wins, draws);
        let verdict = sprt.verdict(sprt.llr_sets(&sets));
        if verdict != Verdict::Continue {
            return (verdict, n);
        }
    }
    (Verdict::Continue, max)
}

#[test]
fn the_lone_share_model_is_par_at_zero_and_inverts() {
    for seats in [2, 3, 4] {
        assert!((share_of_elo(0.0, seats) - 1.0 / seats as f64).abs() < 1e-12);
        for elo in [-200.0, -30.0, 15.0, 120.0] {
            let share = share_of_elo(elo, seats);
            assert!((elo_of_share(share, seats) - elo).abs() < 1e-9);
        }
    }
    // With two seats it is the Elo curve of pairs.
    assert!((share_of_elo(70.0, 2) - score_of_elo(70.0)).abs() < 1e-12);
}

#[test]
fn lone_seating_error_rates_stay_within_alpha_and_beta() {
    // 1500 tests at each hypothesis and number of seats; three standard
    // errors of the estimated rate are allowed over the nominal 5%.
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 40.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let runs = 1500;
    let mut rng = Rng::new(36);
    for seats in [3, 4] {
        for (true_elo, wrong) in [(0.0, Verdict::H1), (40.0, Verdict::H0)] {
            let share = share_of_elo(true_elo, seats);
            let (mut errors, mut undecided, mut fewest) = (0, 0, u32::MAX);
            for _ in 0..runs {
                let (verdict, sets) = one_lone_sprt(&sprt, seats, share, &mut rng, 50_000);
                errors += u32::from(verdict == wrong);
                undecided += u32::from(verdict == Verdict::Continue);
                fewest = fewest.min(sets);
            }
            let rate = errors as f64 / runs as f64;
            let allowed = 0.05 + 3.0 * (0.05f64 * 0.95 / runs as f64).sqrt();
            eprintln!("{seats} seats, true elo {true_elo}: wrong {rate:.4}, fewest sets {fewest}");
            assert!(
                rate <= allowed,
                "{seats} seats, true elo {true_elo}: {rate}"
            );
            assert_eq!(undecided, 0);
            assert!(fewest >= 5, "decided after {fewest} sets");
        }
    }
}

#[test]
fn the_lone_share_interval_covers_the_true_share_95_times_in_100() {
    let mut rng = Rng::new(3);
    for seats in [3, 4] {
        for true_elo in [0.0, 60.0, -80.0] {
            let share = share_of_elo(true_elo, seats);
            let matches = 2000;
            let mut covered = 0;
            for _ in 0..matches {
                let mut sets = SetCounts::new(seats);
                for _ in 0..150 {
                    let (wins, draws) = draw_set(&mut rng, seats, share, 0.04);
                    sets.add(wins, draws);
                }
                let (mean, margin) = sets.share_interval();
                covered += u32::from((mean - share).abs() <= margin);
            }
            let coverage = covered as f64 / matches as f64;
            eprintln!("{seats} seats, true elo {true_elo}: coverage {coverage:.4}");
            assert!(
                (0.93..=0.97).contains(&coverage),
                "{seats} seats, true elo {true_elo}: {coverage}"
            );
        }
    }
}
