//! The tables of Awithlaknannai Mosona's small slices, every ruleset:
//! built, verified, and compared with a plain search of the game tree.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use menagerie_rules::game::endgame::Slice;
use menagerie_rules::game::Game;
use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};

use crate::probe::Tables;
use crate::retrograde::{build, Request};
use crate::value::Wdl;
use crate::verify::verify_slice;

pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("menagerie-tables-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn all_rules() -> Vec<AwRules> {
    let mut all = Vec::new();
    for lined in [true, false] {
        for straight in [false, true] {
            for count in [false, true] {
                all.push(AwRules {
                    lined,
                    straight,
                    count,
                });
            }
        }
    }
    all
}

pub(crate) fn build_to(rules: &AwRules, dir: &PathBuf, men: u32) -> Tables {
    let request = Request {
        dir,
        men,
        only: None,
        threads: 2,
    };
    build::<Awithlaknannai>(rules, &request, &AtomicBool::new(false), &mut |_| {}).expect("build");
    let expected = crate::file::Expected::of::<Awithlaknannai>(rules).unwrap();
    let (tables, problems) = Tables::open(dir, &expected);
    assert!(problems.is_empty());
    tables
}

#[test]
fn every_ruleset_verifies_to_four_men() {
    for rules in all_rules() {
        let dir = temp_dir(&format!("{rules:?}").replace([' ', '{', '}', ':', ','], ""));
        let tables = build_to(&rules, &dir, 4);
        assert_eq!(tables.complete_men(), 4);
        for slice in tables.slices() {
            let report =
                verify_slice::<Awithlaknannai>(&rules, &tables, slice, 2, &AtomicBool::new(false))
                    .unwrap();
            assert!(report.positions > 0);
            assert_eq!(
                report.mismatches, 0,
                "{rules:?} {slice}: {:?}",
                report.examples
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The value by plain minimax over the game tree, clock included, with
/// memory: the definition of the value, computed without the tables'
/// numbering, symmetries or walk.
fn minimax(position: &Awithlaknannai, memo: &mut HashMap<String, Wdl>) -> Wdl {
    if let Some(outcome) = position.outcome() {
        return Wdl::of_outcome(outcome, position);
    }
    if position.clock() >= Awithlaknannai::NO_PROGRESS_LIMIT {
        return Wdl::of_outcome(position.no_progress_outcome(), position);
    }
    let key = position.to_string();
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut moves = Vec::new();
    position.generate(&mut moves);
    let mut best = Wdl::Loss;
    for mv in moves {
        let mut child = position.clone();
        child.play(mv);
        best = best.max(minimax(&child, memo).flipped());
        if best == Wdl::Win {
            break;
        }
    }
    memo.insert(key, best);
    best
}

#[test]
fn tables_agree_with_a_plain_search_of_random_positions() {
    use menagerie_rules::rng::Rng;
    for rules in [all_rules()[0], all_rules()[3], all_rules()[5]] {
        let dir = temp_dir(&format!(
            "search{}{}{}",
            rules.lined, rules.straight, rules.count
        ));
        let tables = build_to(&rules, &dir, 3);
        let mut rng = Rng::new(7);
        let mut memo = HashMap::new();
        let endgame = Awithlaknannai::endgame().unwrap();
        let mut seen = std::collections::HashSet::new();
        for slice in [Slice::new(2, 1), Slice::new(1, 2), Slice::new(1, 1)] {
            let size = (endgame.slice_size)(slice);
            let mut checked = 0;
            while checked < 40 {
                let Some(mut p) = (endgame.position)(&rules, slice, rng.below(size)) else {
                    continue;
                };
                p.set_clock(rng.below(51) as u32);
                let searched = minimax(&p, &mut memo);
                assert_eq!(tables.probe(&p).map(|v| v.wdl()), Some(searched), "{p}");
                seen.insert(searched);
                checked += 1;
            }
        }
        assert_eq!(
            seen.len(),
            3,
            "{rules:?}: wins, draws and losses all checked"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The walk's steps back are found on several threads in batches and
/// applied in the level's order: the files are the same byte for byte on
/// any number of threads (6 men has levels far larger than a batch).
#[test]
fn a_build_is_the_same_on_any_number_of_threads() {
    let rules = all_rules()[0];
    let mut files = Vec::new();
    for threads in [1, 3] {
        let dir = temp_dir(&format!("threads{threads}"));
        let request = Request {
            dir: &dir,
            men: 6,
            only: None,
            threads,
        };
        let built = build::<Awithlaknannai>(&rules, &request, &AtomicBool::new(false), &mut |_| {})
            .expect("build");
        let largest = built.iter().map(|b| b.work.walked).max().unwrap();
        assert!(largest > 3 * (1 << 14), "levels span batches: {largest}");
        let expected = crate::file::Expected::of::<Awithlaknannai>(&rules).unwrap();
        let (tables, problems) = Tables::open(&dir, &expected);
        assert!(problems.is_empty());
        let mut bytes: Vec<(Slice, Vec<u8>)> = tables
            .slices()
            .into_iter()
            .map(|s| {
                let path = crate::file::slice_path(&tables.folder, s);
                (s, std::fs::read(path).unwrap())
            })
            .collect();
        bytes.sort_by_key(|(s, _)| s.to_string());
        files.push(bytes);
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(files[0].len(), files[1].len());
    for (one, three) in files[0].iter().zip(&files[1]) {
        assert!(one == three, "{} differs", one.0);
    }
}
