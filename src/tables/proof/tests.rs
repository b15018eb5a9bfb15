//! Proofs against the tables, under a memory bound, resumed, and on
//! several threads.

mod agree {
    use super::super::*;
    use crate::retrograde::{build, Request};
    use crate::Tables;
    use crate::Wdl;
    use menagerie_rules::game::endgame::Slice;
    use menagerie_rules::game::Game;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    use menagerie_rules::rng::Rng;
    use std::sync::atomic::AtomicBool;

    /// Proofs agree with the tables: with no tables at all (the rules
    /// decide every leaf) and with the tables of fewer men as leaves.
    #[test]
    fn proofs_agree_with_the_tables() {
        let dir = std::env::temp_dir().join(format!("menagerie-proof-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for count in [false, true] {
            let rules = AwRules {
                lined: true,
                straight: false,
                count,
            };
            let request = |men| Request {
                dir: &dir,
                men,
                only: None,
                threads: 2,
            };
            let stop = AtomicBool::new(false);
            build::<Awithlaknannai>(&rules, &request(3), &stop, &mut |_| {}).unwrap();
            let expected = crate::file::Expected::of::<Awithlaknannai>(&rules).unwrap();
            let (smaller, _) = Tables::open(&dir, &expected);
            build::<Awithlaknannai>(&rules, &request(4), &stop, &mut |_| {}).unwrap();
            let (all, _) = Tables::open(&dir, &expected);
            let endgame = Awithlaknannai::endgame().unwrap();
            let mut rng = Rng::new(11);
            // Settled with history keys (two kinds of leaves), with clock
            // keys, with clock keys on three threads.
            let (mut settled, mut seen) = ([0; 3], std::collections::HashSet::new());
            let mut repairs = 0;
            let mut batched = false;
            for slice in [Slice::new(2, 2), Slice::new(3, 1), Slice::new(1, 3)] {
                let size = (endgame.slice_size)(slice);
                let mut tried = 0;
                while tried < 20 {
                    let Some(mut p) = (endgame.position)(&rules, slice, rng.below(size)) else {
                        continue;
                    };
                    tried += 1;
                    p.set_clock(36 + rng.below(15) as u32);
                    let truth = all.probe(&p).unwrap().wdl();
                    for (leaves, keys, threads) in [
                        (None, Keys::History, 1),
                        (Some(&smaller), Keys::History, 1),
                        (Some(&smaller), Keys::Clock, 1),
                        (Some(&smaller), Keys::Clock, 3),
                    ] {
                        let mut quiet = |_: &Progress| {};
                        let settings = ProofSettings {
                            keys,
                            threads,
                            ..ProofSettings::nodes(200_000, &mut quiet)
                        };
                        let report = prove(&p, &[], leaves, settings, &stop).unwrap();
                        let expected = match truth {
                            Wdl::Win => Proven::Win,
                            Wdl::Loss => Proven::Loss,
                            Wdl::Draw => Proven::Draw,
                        };
                        let bound_holds = match report.value {
                            Proven::AtLeastDraw => truth != Wdl::Loss,
                            Proven::AtMostDraw => truth != Wdl::Win,
                            Proven::Unknown => true,
                            v => v == expected,
                        };
                        assert!(
                            bound_holds,
                            "{p}: proved {} but the table says {truth:?}",
                            report.value
                        );
                        repairs += report.repairs;
                        // A walk that fails goes on to find every failure
                        // it can: fewer walks than repairs, once a proof
                        // has failed in several places (at most two walks
                        // hold, one a goal).
                        batched |= report.repairs > report.walks.count;
                        if report.value == expected {
                            settled[keys as usize + (threads > 1) as usize] += 1;
                            seen.insert(truth);
                        }
                    }
                }
            }
            assert!(
                settled[0] >= 72,
                "only {} of 120 proofs settled",
                settled[0]
            );
            assert!(settled[1] >= 54, "clock keys: {} of 60 settled", settled[1]);
            assert!(
                settled[2] >= 54,
                "three threads: {} of 60 settled",
                settled[2]
            );
            // Numbers found on one line failed on another, and the walk
            // under the full rules caught it.
            assert!(repairs > 0, "no proof with clock keys needed repair");
            assert!(batched, "no walk found more than one failure");
            assert_eq!(seen.len(), 3, "wins, draws and losses all proved");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

mod resumable {
    use super::super::*;
    use crate::checkpoint::CheckpointError;
    use crate::retrograde::{build, Request};
    use crate::Tables;
    use menagerie_rules::game::endgame::Slice;
    use menagerie_rules::game::Game;
    use menagerie_rules::games::awithlaknannai::{AwRules, Awithlaknannai};
    use menagerie_rules::rng::Rng;
    use std::sync::atomic::AtomicBool;

    /// Positions of 4 men that a proof with the 3-men tables settles
    /// within 200,000 nodes but not at once, with their values and the
    /// nodes it took.
    fn settled_positions(dir: &Path) -> (Tables, Vec<(Awithlaknannai, Proven, u64)>) {
        let rules = AwRules {
            lined: true,
            straight: false,
            count: false,
        };
        let request = Request {
            dir,
            men: 3,
            only: None,
            threads: 2,
        };
        let stop = AtomicBool::new(false);
        build::<Awithlaknannai>(&rules, &request, &stop, &mut |_| {}).unwrap();
        let expected = crate::file::Expected::of::<Awithlaknannai>(&rules).unwrap();
        let (tables, _) = Tables::open(dir, &expected);
        let endgame = Awithlaknannai::endgame().unwrap();
        let mut rng = Rng::new(5);
        let mut found = Vec::new();
        while found.len() < 3 {
            let slice = [Slice::new(2, 2), Slice::new(3, 1)][found.len() % 2];
            let index = rng.below((endgame.slice_size)(slice));
            let Some(mut p) = (endgame.position)(&rules, slice, index) else {
                continue;
            };
            p.set_clock(40);
            let report = prove(
                &p,
                &[],
                Some(&tables),
                ProofSettings::nodes(200_000, &mut |_| {}),
                &stop,
            )
            .unwrap();
            if matches!(report.value, Proven::Win | Proven::Loss | Proven::Draw)
                && report.nodes > 2_000
            {
                found.push((p, report.value, report.nodes));
            }
        }
        (tables, found)
    }

    #[test]
    fn bounded_memory_and_resumed_checkpoints_prove_the_same_values() {
        let dir = std::env::temp_dir().join(format!("menagerie-resumable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (tables, positions) = settled_positions(&dir);
        let stop = AtomicBool::new(false);
        let mut collected = 0;
        let mut quiet = |_: &Progress| {};
        for (n, (p, value, nodes)) in positions.iter().enumerate() {
            // Room for a few hundred positions: open ones are dropped,
            // by two threads sharing the store.
            let settings = ProofSettings {
                memory_bytes: Some(800 * BYTES_PER_STORED),
                threads: 2,
                ..ProofSettings::nodes(500_000, &mut quiet)
            };
            let bounded = prove(p, &[], Some(&tables), settings, &stop).unwrap();
            let bound_holds = match bounded.value {
                Proven::AtLeastDraw => *value != Proven::Loss,
                Proven::AtMostDraw => *value != Proven::Win,
                Proven::Unknown => true,
                v => v == *value,
            };
            assert!(
                bound_holds,
                "{p}: {} with bounded memory, {value} without",
                bounded.value
            );
            assert!(
                bounded.stored <= 2 * 400 + 64,
                "{p}: {} stored",
                bounded.stored
            );
            collected += bounded.collections;

            // Cut at half its nodes, with a checkpoint after every look
            // around; then resumed to the end.
            let path = dir.join(format!("proof-{n}.ckpt"));
            let cut = ProofSettings {
                checkpoint: Some(&path),
                checkpoint_every: Duration::ZERO,
                ..ProofSettings::nodes(nodes / 2, &mut quiet)
            };
            let first = prove(p, &[], Some(&tables), cut, &stop).unwrap();
            assert!(first.resumed.is_none());
            let again = ProofSettings {
                checkpoint: Some(&path),
                ..ProofSettings::nodes(10 * nodes, &mut quiet)
            };
            let resumed = prove(p, &[], Some(&tables), again, &stop).unwrap();
            assert_eq!(resumed.value, *value, "{p}: resumed");
            let (kept, before) = resumed.resumed.expect("resumed from the checkpoint");
            assert_eq!(before, first.nodes);
            assert!(kept > 0 || first.nodes < 4096, "{p}: nothing kept");
            // Another position's search refuses the file.
            let other = &positions[(n + 1) % positions.len()].0;
            let refused = prove(
                other,
                &[],
                Some(&tables),
                ProofSettings {
                    checkpoint: Some(&path),
                    ..ProofSettings::nodes(1000, &mut quiet)
                },
                &stop,
            );
            assert!(matches!(refused, Err(CheckpointError::OtherRoot(_))));
        }
        assert!(collected > 0, "the memory bound never made a collection");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
