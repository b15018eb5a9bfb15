//! Fits the Kilkenny Cats evaluation to game records. For every position
//! awaiting a roll (where the chance search judges its horizon) it takes
//! the evaluation for South and the game's result for South, and finds
//! - the scale `s` that best explains the results as
//!   `P(win) = 1 / (1 + exp(-eval / s))` (maximum likelihood over a grid);
//! - the weights of the evaluation's features that explain them best
//!   (logistic regression, as "Texel tuning" does for chess evaluations),
//!   printed in the evaluation's units.
//!
//!     cargo run --release --example calibrate -- games.txt [more.txt ...]
//!
//! The records come from the referee's `--record` (two players only), for
//! instance from the engine against itself at two fixed depths:
//!
//!     referee --engine target/release/menagerie depth=2 \
//!             --engine target/release/menagerie depth=3 \
//!             --game kilkenny-cats --games 1000 --depth 2 --record games.txt

use menagerie_referee::outcome::Reason;
use std::io::{BufRead, Write};

/// Prints a line, ending the program quietly when stdout is closed (as
/// when piped into `head`).
macro_rules! say {
    ($($arg:tt)*) => {
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    };
}

use menagerie_referee::record::Record;
use menagerie_rules::game::ruleset::Ruleset;
use menagerie_rules::game::Game;
use menagerie_rules::games::kilkenny::eval::{features, weights, FEATURES};
use menagerie_rules::games::kilkenny::{Kilkenny, NORTH, SOUTH};

struct Sample {
    eval: f64,
    /// South's features less North's.
    terms: [f64; FEATURES],
    result: f64,
}

fn main() {
    let mut samples: Vec<Sample> = Vec::new();
    for path in std::env::args().skip(1) {
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
            let game = line.ok().and_then(|line| line.parse::<Record>().ok());
            if let Some(Err(e)) = game.map(|record| add_game(&record, &mut samples)) {
                eprintln!("{path}:{}: skipped: {e}", number + 1);
            }
        }
    }
    if samples.is_empty() {
        eprintln!("usage: calibrate <records of two-player kilkenny-cats games>...");
        std::process::exit(2);
    }
    say!("{} positions", samples.len());
    let loss = |scale: f64| {
        samples
            .iter()
            .map(|s| log_loss(s.eval / scale, s.result))
            .sum::<f64>()
            / samples.len() as f64
    };
    let mut best = (f64::MAX, 0.0);
    let mut scale = 50.0;
    while scale <= 5000.0 {
        let l = loss(scale);
        if l < best.0 {
            best = (l, scale);
        }
        scale *= 1.02;
    }
    say!("scale {:.0} (log loss {:.4})", best.1, best.0);
    // Calibration by bins of the fitted probability.
    let mut bins = [(0usize, 0.0f64); 10];
    for s in &samples {
        let p = sigmoid(s.eval / best.1);
        let b = ((p * 10.0) as usize).min(9);
        bins[b].0 += 1;
        bins[b].1 += s.result;
    }
    for (i, (n, wins)) in bins.iter().enumerate() {
        if *n > 0 {
            say!(
                "predicted {:>3}-{:>3}%: {:>6} positions, won {:.1}%",
                i * 10,
                i * 10 + 10,
                n,
                100.0 * wins / *n as f64
            );
        }
    }
    fit_weights(&samples, best.1);
}

/// The positions of one two-player game that ended by the rules; other
/// records are left out quietly.
fn add_game(record: &Record, samples: &mut Vec<Sample>) -> Result<(), String> {
    if record.game != "kilkenny-cats" || record.is_forfeit() || record.reason == Reason::MaxPlies {
        return Ok(());
    }
    let ruleset = Ruleset::parse(Kilkenny::OPTIONS, &record.rules).map_err(|e| e.to_string())?;
    let rules = Kilkenny::rules(&ruleset);
    let mut position = Kilkenny::from_notation(&rules, &record.start).map_err(|e| e.to_string())?;
    if position.seats().len() != 2 {
        return Ok(());
    }
    let result = match record.seat {
        Some('s') => 1.0,
        None => 0.5,
        Some(_) => 0.0,
    };
    let mut game = Vec::new();
    for mv in &record.moves {
        if position.is_chance() && !position.is_out(SOUTH) && !position.is_out(NORTH) {
            let (s, n) = (features(&position, SOUTH), features(&position, NORTH));
            game.push(Sample {
                eval: position.evaluate_for(SOUTH) as f64,
                terms: std::array::from_fn(|i| (s[i] - n[i]) as f64),
                result,
            });
        }
        position
            .play_text(mv)
            .map_err(|e| format!("move {mv}: {e}"))?;
    }
    samples.extend(game);
    Ok(())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn log_loss(x: f64, result: f64) -> f64 {
    let p = sigmoid(x).clamp(1e-9, 1.0 - 1e-9);
    -(result * p.ln() + (1.0 - result) * (1.0 - p).ln())
}

/// Logistic regression of the results on the feature differences by
/// gradient descent (features scaled to unit spread), starting from the
/// current weights; prints them rescaled so that `scale` stays the unit.
fn fit_weights(samples: &[Sample], scale: f64) {
    let n = samples.len() as f64;
    let spread: [f64; FEATURES] = std::array::from_fn(|i| {
        let mean = samples.iter().map(|s| s.terms[i]).sum::<f64>() / n;
        let var = samples
            .iter()
            .map(|s| (s.terms[i] - mean).powi(2))
            .sum::<f64>()
            / n;
        var.sqrt().max(1e-6)
    });
    let current = weights();
    // Threat terms are weighed per sixth.
    let unit = |i: usize| if i == 3 || i == 4 { 6.0 } else { 1.0 };
    let mut theta: [f64; FEATURES] =
        std::array::from_fn(|i| current[i] as f64 / unit(i) / scale * spread[i]);
    let loss = |theta: &[f64; FEATURES]| {
        samples
            .iter()
            .map(|s| {
                let x: f64 = (0..FEATURES)
                    .map(|i| theta[i] * s.terms[i] / spread[i])
                    .sum();
                log_loss(x, s.result)
            })
            .sum::<f64>()
            / n
    };
    say!("current weights: log loss {:.4}", loss(&theta));
    for _ in 0..3000 {
        let mut grad = [0.0; FEATURES];
        for s in samples {
            let x: f64 = (0..FEATURES)
                .map(|i| theta[i] * s.terms[i] / spread[i])
                .sum();
            let err = sigmoid(x) - s.result;
            for i in 0..FEATURES {
                grad[i] += err * s.terms[i] / spread[i] / n;
            }
        }
        for i in 0..FEATURES {
            theta[i] -= 0.5 * grad[i];
        }
    }
    let fitted: Vec<String> = (0..FEATURES)
        .map(|i| format!("{:.0}", theta[i] / spread[i] * scale * unit(i)))
        .collect();
    say!("fitted weights: log loss {:.4}", loss(&theta));
    say!("  now:    {current:?}");
    say!("  fitted: [{}]", fitted.join(", "));
}
