//! The foresight bound of lone seating against greedy players (issue 43's
//! measurement of room, tools/multiseat-study.md).
//!
//! Greedy players (Skill 1) are deterministic, so once a set's dice are
//! known, the lone seat's game is a puzzle for one: which of its own moves,
//! with every roll and every greedy reply known in advance, lead to a win?
//! The share of games a player who knows the dice could win bounds what any
//! real player can score. This program looks for such a line in every game
//! of the sets the referee plays (`--seating lone`, the same seed, start and
//! dice as `referee --seed S --random-openings 2`) with a beam search over
//! the lone seat's turns: at each turn every move of every kept line is
//! played out through the rolls and greedy replies to the lone seat's next
//! turn, and the `--beam` best lines by the evaluation are kept (positions
//! met twice, once). A line found is a win for certain, so the share found
//! is a lower estimate of the bound; a game whose lines all die may still
//! have a win the beam missed, which the escalation to a wider beam
//! (`--wide`) narrows.
//!
//!     cargo run --release --example foresight -- --players 3 --sets 100
//!
//! Options: `--players N` (3), `--sets N` (100), `--first N` (0), `--seed S`
//! (2026), `--beam W` (32), `--wide W` (256), `--openings P` (2). With
//! `--all-greedy` first, every seat plays greedily and each game's result
//! is printed: the same games as a referee match of Skill 1 against
//! Skill 1, whose record must show the same results (the check that these
//! are the referee's sets).

use std::collections::HashSet;

use menagerie_referee::schedule::{derive, DICE, OPENING};
use menagerie_rules::game::session::{random_opening, Session};
use menagerie_rules::game::{Game, Outcome, Ruleset, Seat, Status};
use menagerie_rules::games::kilkenny::Kilkenny;
use menagerie_rules::rng::Rng;
use menagerie_search::{Limits, Settings, Shared, Silent};

/// A line of play: the game so far and what is left of the set's dice.
#[derive(Clone)]
struct Line {
    session: Session<Kilkenny>,
    dice: Rng,
}

struct Study {
    players: u32,
    sets: u32,
    first: u32,
    seed: u64,
    beam: usize,
    wide: usize,
    openings: u32,
    /// Plays every game with the lone seat greedy too and prints each
    /// result, to check against the referee's record of the same match.
    all_greedy: bool,
}

fn arguments() -> Study {
    let mut s = Study {
        players: 3,
        sets: 100,
        first: 0,
        seed: 2026,
        beam: 32,
        wide: 256,
        openings: 2,
        all_greedy: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut args = args.as_slice();
    if args.first().map(String::as_str) == Some("--all-greedy") {
        s.all_greedy = true;
        args = &args[1..];
    }
    for pair in args.chunks(2) {
        let value = || -> u64 {
            pair.get(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{} needs a number", pair[0]))
        };
        match pair[0].as_str() {
            "--players" => s.players = value() as u32,
            "--sets" => s.sets = value() as u32,
            "--first" => s.first = value() as u32,
            "--seed" => s.seed = value(),
            "--beam" => s.beam = value() as usize,
            "--wide" => s.wide = value() as usize,
            "--openings" => s.openings = value() as u32,
            other => panic!("unknown argument {other}"),
        }
    }
    s
}

/// The start of set `set`, as the referee draws its random opening.
fn set_start(rules: &Ruleset, seed: u64, set: u32, plies: u32) -> Session<Kilkenny> {
    let start: Session<Kilkenny> = Session::new(rules.clone());
    random_opening(&start, &mut Rng::new(derive(seed, set, OPENING)), plies)
}

/// Plays `line` on through rolls and greedy moves until the lone seat
/// must choose a move, or the game ends (then its result).
fn advance(line: &mut Line, lone: Seat, greedy: &Settings, shared: &Shared) -> Option<Outcome> {
    loop {
        if let Status::Over(outcome, _) = line.session.status() {
            return Some(outcome);
        }
        if line.session.position().is_chance() {
            let roll = line
                .session
                .position()
                .sample_chance(&mut line.dice, &mut Vec::new())
                .expect("a chance position rolls");
            line.session.play(roll);
        } else if line.session.position().side() == lone {
            return None;
        } else {
            let mv = menagerie_search::run(
                &line.session,
                &Limits::depth(1),
                shared,
                greedy,
                &mut Silent,
            )
            .best
            .expect("a greedy player to move has a move");
            line.session.play(mv);
        }
    }
}

/// Whether the beam search finds a win for `lone` from `start`.
fn winnable(start: &Line, lone: Seat, beam: usize, greedy: &Settings, shared: &Shared) -> bool {
    let mut first = start.clone();
    if let Some(outcome) = advance(&mut first, lone, greedy, shared) {
        return outcome == Outcome::Win(lone);
    }
    let mut lines = vec![first];
    while !lines.is_empty() {
        let mut next: Vec<(i32, Line)> = Vec::new();
        let mut seen = HashSet::new();
        for line in &lines {
            let mut moves = Vec::new();
            line.session.legal(&mut moves);
            for mv in moves {
                let mut child = line.clone();
                child.session.play(mv);
                match advance(&mut child, lone, greedy, shared) {
                    Some(Outcome::Win(w)) if w == lone => return true,
                    Some(_) => {}
                    None => {
                        let key = (
                            child.session.position().hash(),
                            child.session.history().len(),
                        );
                        if seen.insert(key) {
                            let score = child.session.position().evaluate_for(lone);
                            next.push((score, child));
                        }
                    }
                }
            }
        }
        next.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        next.truncate(beam);
        lines = next.into_iter().map(|(_, line)| line).collect();
    }
    false
}

fn main() {
    let s = arguments();
    let rules = Ruleset::parse(Kilkenny::OPTIONS, &[format!("players={}", s.players)])
        .expect("players is 2 to 4");
    // The greedy player as the referee runs it: Skill 1, the default seed.
    let greedy = Settings {
        skill: 1,
        ..Settings::default()
    };
    let shared = Shared::new(1);
    let (mut found, mut games, mut set_shares) = (0u32, 0u32, Vec::new());
    for set in s.first..s.first + s.sets {
        let start = set_start(&rules, s.seed, set, s.openings);
        let seats = start.position().seats().to_vec();
        let mut won = 0;
        let mut marks = String::new();
        for &lone in &seats {
            let line = Line {
                session: start.clone(),
                dice: Rng::new(derive(s.seed, set, DICE)),
            };
            if s.all_greedy {
                let mut line = line;
                // No seat is left to the search: every turn is greedy.
                let outcome = advance(&mut line, Seat::MAX, &greedy, &shared);
                println!("set {set} lone {lone}: {outcome:?}");
                continue;
            }
            let win = winnable(&line, lone, s.beam, &greedy, &shared)
                || (s.wide > s.beam && winnable(&line, lone, s.wide, &greedy, &shared));
            won += u32::from(win);
            marks.push(if win { 'W' } else { '.' });
        }
        found += won;
        games += seats.len() as u32;
        set_shares.push(f64::from(won) / seats.len() as f64);
        println!("set {set}: {marks}");
    }
    let n = set_shares.len() as f64;
    let mean = set_shares.iter().sum::<f64>() / n;
    let var = set_shares.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    println!(
        "players {}: a win found in {found} of {games} games: share {mean:.3} +/- {:.3} (95%, over {} sets; beam {} then {})",
        s.players,
        1.96 * (var / n).sqrt(),
        s.sets,
        s.beam,
        s.wide
    );
}
