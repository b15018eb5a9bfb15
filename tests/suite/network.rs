//! The learned evaluation: each game's inputs, the network file and its
//! refusals, `EvalFile`, `UseNetwork`, `eval`, `dataset`, and (with JAX,
//! run by .ci/run) the whole pipeline from self-play games to a network
//! the engine plays with.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use menagerie_nnue::file::{Network, QA, QB};
use menagerie_nnue::{builtin, Evaluator};
use menagerie_rules::game::inputs::Inputs;
use menagerie_rules::game::session::Session;
use menagerie_rules::game::{Game, Ruleset};
use menagerie_rules::games::awithlaknannai::Awithlaknannai;
use menagerie_rules::games::kilkenny::Kilkenny;
use menagerie_rules::games::safari::Safari;
use menagerie_rules::rng::Rng;

use crate::common::{engine, errors, temp_path};

fn inputs_of<G: Game>(position: &G) -> Vec<u16> {
    let mut inputs = Inputs::new();
    position.inputs(&mut inputs);
    inputs.as_slice().to_vec()
}

/// Positions of random games of `G`'s default ruleset.
fn random_positions<G: Game>(seed: u64, games: usize) -> Vec<G> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut session = Session::<G>::new(Ruleset::defaults(G::OPTIONS));
        while out.len() < 100_000 {
            out.push(session.position().clone());
            session.legal(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.below(moves.len() as u64) as usize];
            session.play(mv);
        }
    }
    out
}

/// A board row of a notation with its digits spelled out as dots.
fn spelled(row: &str) -> String {
    row.chars()
        .map(|c| match c.to_digit(10) {
            Some(n) => ".".repeat(n as usize),
            None => c.to_string(),
        })
        .collect()
}

/// A spelled row with its runs of dots as digits again.
fn packed(row: &str) -> String {
    let mut out = String::new();
    let mut dots = 0;
    for c in row.chars() {
        if c == '.' {
            dots += 1;
            continue;
        }
        if dots > 0 {
            out.push_str(&dots.to_string());
            dots = 0;
        }
        out.push(c);
    }
    if dots > 0 {
        out.push_str(&dots.to_string());
    }
    out
}

/// The notation of the position turned half round with the colours and
/// the side to move swapped: `swap` exchanges the two sides' letters.
fn half_turned(notation: &str, swap: impl Fn(char) -> char, sides: (&str, &str)) -> String {
    let mut fields: Vec<String> = notation.split(' ').map(String::from).collect();
    let rows: Vec<String> = fields[0]
        .split('/')
        .rev()
        .map(|row| packed(&spelled(row).chars().rev().map(&swap).collect::<String>()))
        .collect();
    fields[0] = rows.join("/");
    fields[1] = if fields[1] == sides.0 {
        sides.1
    } else {
        sides.0
    }
    .to_string();
    fields.join(" ")
}

#[test]
fn safari_inputs_are_the_same_for_a_position_and_its_half_turned_mirror() {
    let rules = ();
    let mut checked = 0;
    for position in random_positions::<Safari>(7, 40) {
        let text = position.to_string();
        let swap = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        // The armies differ (two giraffes and three elephants against three
        // and two), so only positions whose mirror has a legal army count.
        let Ok(mirror) = Safari::from_notation(&rules, &half_turned(&text, swap, ("r", "a")))
        else {
            continue;
        };
        assert_eq!(
            inputs_of(&position),
            inputs_of(&mirror),
            "{text} and {mirror}"
        );
        checked += 1;
    }
    assert!(checked > 300, "{checked} positions checked");
}

#[test]
fn awithlaknannai_inputs_are_the_same_for_a_position_and_its_half_turned_mirror() {
    let rules = Awithlaknannai::rules(&Ruleset::defaults(Awithlaknannai::OPTIONS));
    let swap = |c: char| match c {
        'W' => 'B',
        'B' => 'W',
        other => other,
    };
    let positions = random_positions::<Awithlaknannai>(8, 40);
    for position in &positions {
        let text = position.to_string();
        let mirror = Awithlaknannai::from_notation(&rules, &half_turned(&text, swap, ("w", "b")))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            inputs_of(position),
            inputs_of(&mirror),
            "{text} and {mirror}"
        );
    }
    // The clock's input: on from half the no-progress limit.
    let late = Awithlaknannai::from_notation(&rules, "BBBBBBBB/BBBB1WWWW/WWWWWWWW w 60").unwrap();
    let early = Awithlaknannai::start(&rules);
    assert_eq!(inputs_of(&late).len(), inputs_of(&early).len() + 1);
    // Each man the other side could leap over now is an input of its
    // own, beside the men and each side's safe steps: here each side's one
    // man can take the other's; below, no man can be taken.
    let count = |text: &str| inputs_of(&Awithlaknannai::from_notation(&rules, text).unwrap()).len();
    assert_eq!(
        count("8/3BW4/8 w 0"),
        2 + 2 + 2,
        "two men, both exposed, two step counts"
    );
    assert_eq!(count("8/3BW4/8 b 0"), 2 + 2 + 2);
    assert_eq!(count("8/2B1W1W2/8 w 0"), 3 + 2, "three men, none exposed");
}

#[test]
fn kilkenny_inputs_see_the_board_from_the_mover_so_a_symmetric_start_looks_the_same_to_every_seat()
{
    let session = Session::<Kilkenny>::new(
        menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
            .unwrap()
            .ruleset(&["players=4"])
            .unwrap(),
    );
    let south = session.position().clone();
    let seen = inputs_of(&south);
    assert_eq!(
        seen.len(),
        32 + 4 + 4 * 5,
        "32 cats, 4 places in play, 5 measures each"
    );
    for seat in 1..4 {
        let mut handed = south.clone();
        handed
            .hand_turn(seat)
            .expect("a seat in play at the start of its turn");
        assert_eq!(handed.side(), seat);
        assert_eq!(
            inputs_of(&handed),
            seen,
            "seat {seat} sees the start as South does"
        );
        // Each head speaks for the seat `head` places after the mover.
        for head in 0..4 {
            assert_eq!(
                handed.head_seat(head),
                Some(((seat as usize + head) % 4) as u8)
            );
        }
    }
    // After the roll the roll is an input; after a move the cats moved are.
    let mut rolled = south.clone();
    let mut moves = Vec::new();
    rolled.generate(&mut moves);
    rolled.play(moves[2]);
    assert_eq!(inputs_of(&rolled).len(), seen.len() + 1);
}

/// A network of `game` with small weights from `seed`, sized for `G`.
fn made_up<G: Game>(seed: u64, rules: &str) -> Network {
    let set = G::INPUT_SET.unwrap();
    let mut rng = Rng::new(seed);
    let mut small = |range: u64| rng.below(2 * range + 1) as i16 - range as i16;
    let hidden = 8;
    Network {
        game: G::ID.to_string(),
        rules: rules.to_string(),
        input_set: set.name.to_string(),
        inputs: set.inputs,
        hidden,
        heads: set.heads,
        scale: 300,
        note: format!("made up by the test suite, seed {seed}"),
        first: (0..set.inputs * hidden).map(|_| small(60)).collect(),
        first_bias: (0..hidden).map(|_| small(100)).collect(),
        head: (0..set.heads * hidden).map(|_| small(64)).collect(),
        head_bias: vec![0; set.heads],
        moves: 0,
        policy: Vec::new(),
        policy_bias: Vec::new(),
    }
}

/// [`made_up`] with a policy head of the game's move keys.
fn made_up_with_policy<G: Game>(seed: u64, rules: &str) -> Network {
    let mut net = made_up::<G>(seed, rules);
    let mut rng = Rng::new(seed + 1000);
    let moves = G::INPUT_SET.unwrap().moves;
    net.moves = moves;
    net.policy = (0..moves * net.hidden)
        .map(|_| rng.below(129) as i16 - 64)
        .collect();
    net.policy_bias = (0..moves)
        .map(|_| rng.below(40_001) as i32 - 20_000)
        .collect();
    net
}

/// The policy's logits the plain way: each key's head on the clipped
/// first layer, summed over the move's keys.
fn policy_logit_directly(net: &Network, inputs: &[u16], keys: [u16; 2]) -> i64 {
    let hidden: Vec<i64> = (0..net.hidden)
        .map(|j| {
            let s = i32::from(net.first_bias[j])
                + inputs
                    .iter()
                    .map(|&i| i32::from(net.first[i as usize * net.hidden + j]))
                    .sum::<i32>();
            i64::from(s.clamp(0, QA))
        })
        .collect();
    keys.iter()
        .filter(|&&k| k != u16::MAX)
        .map(|&k| {
            let k = k as usize;
            let row = &net.policy[k * net.hidden..(k + 1) * net.hidden];
            let dot: i64 = hidden
                .iter()
                .zip(row)
                .map(|(&h, &w)| h * i64::from(w))
                .sum();
            dot + i64::from(net.policy_bias[k])
        })
        .sum()
}

/// A policy head gives each move of a position the sum of its keys'
/// heads, on the same first layer as the value (kept by difference as
/// the search walks), and priors that are their softmax; none at a roll.
/// A file with a policy of another size than the game's keys is refused.
#[test]
fn the_policy_head_gives_each_move_its_keys_logit_and_the_priors_their_softmax() {
    let net = made_up_with_policy::<Kilkenny>(7, "");
    let mut evaluator = Evaluator::new(Arc::new(net.clone()));
    assert!(evaluator.has_policy());
    let (mut sums, mut priors, mut moves) = (Vec::new(), Vec::new(), Vec::new());
    let (mut player_positions, mut rolls) = (0, 0);
    for position in random_positions::<Kilkenny>(5, 6) {
        moves.clear();
        position.generate(&mut moves);
        evaluator.priors(&position, &moves, &mut sums, &mut priors);
        if position.is_chance() || moves.is_empty() {
            assert!(sums.is_empty() && priors.is_empty());
            rolls += 1;
            continue;
        }
        player_positions += 1;
        let inputs = inputs_of(&position);
        for (i, &mv) in moves.iter().enumerate() {
            let want = policy_logit_directly(&net, &inputs, position.policy_keys(mv));
            assert_eq!(sums[i], want, "move {mv}");
        }
        assert!((priors.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let top = (0..sums.len()).max_by_key(|&i| sums[i]).unwrap();
        assert!(priors.iter().all(|&p| p <= priors[top]));
    }
    assert!(
        player_positions > 20 && rolls > 20,
        "{player_positions} {rolls}"
    );

    let ruleset =
        menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
            .unwrap()
            .ruleset(&["players=3"])
            .unwrap();
    assert!(net
        .fits("kilkenny-cats", &ruleset, Kilkenny::INPUT_SET)
        .is_ok());
    let mut other = net.clone();
    other.moves -= 1;
    other.policy.truncate(other.moves * other.hidden);
    other.policy_bias.pop();
    assert!(
        net.describe().contains(" policy 513 "),
        "{}",
        net.describe()
    );
    assert!(other
        .fits("kilkenny-cats", &ruleset, Kilkenny::INPUT_SET)
        .is_err());
    // The engine takes it, names it, and searches with it.
    let path = write(&temp_path("network", "kc-policy.nnue"), &net.to_bytes());
    let out = engine(&[
        "newgame kilkenny-cats players=3",
        &format!("setoption name EvalFile value {path}"),
        "setoption name MultiSeat value puct",
        "move r3",
        "go nodes 3000",
        "isready",
    ]);
    assert!(errors(&out).is_empty(), "{out}");
    assert!(
        out.contains(&format!("policy 513 crc {:08x}", net.checksum())),
        "{out}"
    );
    assert!(out
        .lines()
        .any(|l| l.starts_with("bestmove ") && l != "bestmove (none)"));
}

fn write(path: &Path, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn eval_file_takes_a_good_network_and_refuses_bad_ones_keeping_the_one_it_has() {
    let good = made_up::<Safari>(1, "");
    let good_path = write(&temp_path("network", "good.nnue"), &good.to_bytes());
    let bytes = good.to_bytes();
    let cut = write(&temp_path("network", "cut.nnue"), &bytes[..bytes.len() / 2]);
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 0x40;
    let damaged = write(&temp_path("network", "damaged.nnue"), &flipped);
    let other_game = write(
        &temp_path("network", "am.nnue"),
        &made_up::<Awithlaknannai>(
            2,
            &menagerie_nnue::file::family(&Ruleset::defaults(Awithlaknannai::OPTIONS), &[]),
        )
        .to_bytes(),
    );
    let mut other_set = good.clone();
    other_set.input_set = "safari-dual/men-0".into();
    let old_set = write(&temp_path("network", "old.nnue"), &other_set.to_bytes());
    let not_a_network = write(&temp_path("network", "text.nnue"), b"hello");

    let set = |path: &str| format!("setoption name EvalFile value {path}");
    let out = engine(&[
        "newgame safari-dual",
        &set(&good_path),
        "eval",
        &set(&cut),
        &set(&damaged),
        &set(&old_set),
        &set(&not_a_network),
        &set("/nonexistent/net.nnue"),
        &format!("setoption name safari-dual.EvalFile value {other_game}"),
        "eval",
        "go nodes 3000",
        "isready",
    ]);
    let errors = errors(&out);
    let expected = [
        "is cut short",
        "checksum does not match",
        "reads inputs 'safari-dual/men-0'",
        "not a network file",
        "cannot read the file",
        "the network is for awithlaknannai-mosona",
    ];
    assert_eq!(errors.len(), expected.len(), "{out}");
    for (line, want) in errors.iter().zip(expected) {
        assert!(
            line.starts_with("info string error: setoption: option EvalFile: "),
            "{line}"
        );
        assert!(
            line.contains(want) && line.ends_with("the engine keeps its network"),
            "{line}"
        );
    }
    let name = format!("{:08x}", good.checksum());
    let evals: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("evaluation "))
        .collect();
    assert_eq!(evals.len(), 2);
    assert!(evals.iter().all(|l| l.contains(&name)), "{out}");
    assert!(out.lines().any(|l| l.starts_with("bestmove ")));
}

#[test]
fn eval_gives_each_seat_the_network_s_chance_and_value_and_use_network_turns_it_off() {
    let net = made_up::<Kilkenny>(3, "");
    let path = write(&temp_path("network", "kc.nnue"), &net.to_bytes());
    let out = engine(&[
        "newgame kilkenny-cats players=3",
        &format!("setoption name EvalFile value {path}"),
        "eval",
        "setoption name UseNetwork value false",
        "eval",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("evaluation network"))
        .unwrap();
    let chances: Vec<f64> = lines[first + 1..first + 4]
        .iter()
        .map(|l| l.split(' ').nth(3).unwrap().parse().unwrap())
        .collect();
    assert!(lines[first + 1].starts_with("seat s chance "), "{out}");
    assert!(
        (chances.iter().sum::<f64>() - 1.0).abs() < 1e-3,
        "{chances:?}"
    );
    // The same chances from the library, for the start position.
    let session = Session::<Kilkenny>::new(
        menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
            .unwrap()
            .ruleset(&["players=3"])
            .unwrap(),
    );
    let mut evaluator = Evaluator::new(Arc::new(net));
    let direct = evaluator.chances(session.position());
    for (i, seat) in [0usize, 1, 2].into_iter().enumerate() {
        assert!((direct[seat] - chances[i]).abs() < 1e-4);
    }
    assert!(
        out.contains("evaluation hand-written (UseNetwork is false)"),
        "{out}"
    );
}

/// A self-play file and its dataset, made by the engine.
pub(crate) fn selfplay_and_dataset(game: &str, games: u32, name: &str) -> (PathBuf, PathBuf) {
    let selfplay = temp_path("network", &format!("{name}.bin"));
    let data = temp_path("network", &format!("{name}.data"));
    let out = engine(&[&format!(
        "selfplay {game} games={games} nodes=300 seed=5 out={}",
        selfplay.display()
    )]);
    assert!(errors(&out).is_empty(), "{out}");
    let out = crate::common::cli(&[
        "dataset",
        &selfplay.to_string_lossy(),
        &format!("out={}", data.display()),
    ]);
    assert_eq!(out.0, Some(0), "{}", out.1);
    (selfplay, data)
}

/// One dataset record: inputs, score, heads in play, results, and the
/// policy's target (the listed moves' keys, the played one's place).
type Record = (Vec<u16>, i16, u8, [u8; 4], (Vec<[u16; 2]>, u8));

/// The records of a dataset file.
fn records(path: &Path) -> (String, Vec<Record>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"MNGDATA2");
    let len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let header = String::from_utf8(bytes[12..12 + len].to_vec()).unwrap();
    let body = &bytes[12 + len..];
    let size = menagerie_engine::dataset::RECORD;
    assert_eq!(body.len() % size, 0);
    let list = body
        .chunks_exact(size)
        .map(|r| {
            let at = 2 * menagerie_rules::game::inputs::MAX_ACTIVE;
            let inputs = r[..at]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .filter(|&i| i != u16::MAX)
                .collect();
            let score = i16::from_le_bytes([r[at], r[at + 1]]);
            let word = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
            let slots = menagerie_engine::dataset::POLICY_MOVES;
            let keys: Vec<[u16; 2]> = (0..slots)
                .map(|slot| [word(at + 15 + 4 * slot), word(at + 17 + 4 * slot)])
                .collect();
            let listed = r[at + 13] as usize;
            assert!(
                keys[listed..].iter().all(|k| *k == [u16::MAX; 2]),
                "unused slots hold no keys"
            );
            (
                inputs,
                score,
                r[at + 2],
                [r[at + 3], r[at + 4], r[at + 5], r[at + 6]],
                (keys[..listed].to_vec(), r[at + 14]),
            )
        })
        .collect();
    (header, list)
}

#[test]
fn dataset_writes_every_position_of_the_selfplay_games_with_its_inputs_and_results() {
    let (selfplay, data) = selfplay_and_dataset("kilkenny-cats players=3", 4, "kc3");
    let games = menagerie_engine::selfplay_file::read(&selfplay)
        .unwrap()
        .games;
    let (header, list) = records(&data);
    assert!(
        header.starts_with(
            "game=kilkenny-cats inputs=kilkenny-cats/cats-2 count=1226 heads=4 moves=513 rules="
        ),
        "{header}"
    );
    let plies: usize = games.iter().map(|g| g.plies.len()).sum();
    assert_eq!(list.len(), plies);
    // Replay the first game: each record has the position's inputs, and
    // its results name the winner by head.
    let rules = Kilkenny::rules(
        &menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
            .unwrap()
            .ruleset(&["players=3"])
            .unwrap(),
    );
    let game = &games[0];
    let mut position = Kilkenny::from_notation(&rules, &game.start).unwrap();
    let mut moves = Vec::new();
    let mut most_listed = 0;
    for (ply, &(index, score)) in game.plies.iter().enumerate() {
        let (inputs, stored, mask, results, (listed, played)) = &list[ply];
        assert_eq!(inputs, &inputs_of(&position));
        assert_eq!(*stored, score);
        for (head, &result) in results.iter().enumerate() {
            let seat = position.head_seat(head);
            assert_eq!(mask >> head & 1 == 1, seat.is_some());
            if let Some(seat) = seat {
                let at = position.seats().iter().position(|&s| s == seat).unwrap();
                assert_eq!(result, game.results[at] as u8);
            }
        }
        moves.clear();
        position.generate(&mut moves);
        // The policy's target: every move's keys, and the one played; a
        // roll has none.
        if position.is_chance() {
            assert_eq!((listed.len(), *played), (0, 255));
        } else {
            let keys: Vec<[u16; 2]> = moves.iter().map(|&m| position.policy_keys(m)).collect();
            let slots = menagerie_engine::dataset::POLICY_MOVES;
            if keys.len() <= slots {
                assert_eq!(listed, &keys);
                assert_eq!(*played as usize, index as usize);
            } else {
                // Too many to list: the played move takes the last slot.
                assert_eq!(listed.len(), slots);
                assert_eq!(listed[*played as usize], keys[index as usize]);
            }
            most_listed = most_listed.max(keys.len());
        }
        position.play(moves[index as usize]);
    }
    assert!(most_listed > 32, "{most_listed}");
    let rolls = list.iter().filter(|r| r.4 .1 == 255).count();
    assert!(rolls > 0 && rolls < list.len(), "{rolls} of {}", list.len());
    let refused = engine(&[
        "dataset /nonexistent.bin out=/tmp/x.data",
        "dataset out=/tmp/x.data",
        "isready",
    ]);
    assert_eq!(errors(&refused).len(), 2, "{refused}");
}

#[test]
fn every_builtin_network_loads_fits_its_game_and_bench_names_it() {
    let mut named = 0;
    for (game, _, net) in builtin::all() {
        let entry =
            menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, game).unwrap();
        assert_eq!(net.game, entry.id);
        assert!(net.to_bytes().len() < 1 << 20, "{game}: under 1 MiB");
        assert!(
            net.note.starts_with("tools/train/train.py "),
            "{game}: says how it was made"
        );
        named += 1;
    }
    let out = engine(&["bench"]);
    for (game, _, net) in builtin::all() {
        let name = format!("eval {}:{:08x}", net.input_set, net.checksum());
        assert!(
            out.lines().any(|l| l.contains(game) && l.ends_with(&name)),
            "{game} {name}: {out}"
        );
    }
    assert!(out
        .lines()
        .any(|l| l.contains("hat-diviyan-keliya") && l.ends_with("eval hand")));
    assert!(named >= 1 && builtin::network("safari-dual", 2).is_some());
    assert!(
        builtin::network("hat-diviyan-keliya", 2).is_none(),
        "solved: no network"
    );
}

/// Each seat count of a game is served by at most one built-in network,
/// and the engine searches with the one of the game's seat count: the
/// name `eval` gives is that network's, at every seat count of
/// Kilkenny Cats, and `EvalFile` then serves them all.
#[test]
fn the_builtin_network_is_the_one_for_the_game_s_seat_count() {
    let all: Vec<_> = builtin::all().collect();
    for (i, (game, seats, _)) in all.iter().enumerate() {
        for (other, theirs, _) in &all[..i] {
            assert!(
                game != other || seats.end() < theirs.start() || theirs.end() < seats.start(),
                "{game}: two networks for one seat count"
            );
        }
    }
    let net = made_up::<Kilkenny>(3, "");
    let path = write(&temp_path("network", "kc-all.nnue"), &net.to_bytes());
    let mut distinct = Vec::new();
    for players in 2..=4 {
        let builtin = builtin::network("kilkenny-cats", players).expect("every seat count");
        let out = engine(&[
            &format!("newgame kilkenny-cats players={players}"),
            "eval",
            &format!("setoption name EvalFile value {path}"),
            "eval",
        ]);
        let evals: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("evaluation network"))
            .collect();
        assert_eq!(
            evals.first(),
            Some(&format!("evaluation network {}", builtin.describe()).as_str()),
            "{players} players: {out}"
        );
        assert_eq!(
            evals.last(),
            Some(&format!("evaluation network {}", net.describe()).as_str()),
            "{players} players: {out}"
        );
        if !distinct.contains(&builtin.checksum()) {
            distinct.push(builtin.checksum());
        }
    }
    // Every built-in network of the game serves some seat count.
    let networks = builtin::all()
        .filter(|(game, _, _)| *game == "kilkenny-cats")
        .count();
    assert_eq!(distinct.len(), networks, "each built-in network in use");
}

/// The Python that has JAX: `MENAGERIE_PYTHON`, or the virtual
/// environment .ci/run makes, or `python3`.
pub(crate) fn python() -> String {
    if let Ok(p) = std::env::var("MENAGERIE_PYTHON") {
        return p;
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/train-venv/bin/python");
    if venv.exists() {
        return venv.to_string_lossy().into_owned();
    }
    "python3".to_string()
}

#[test]
#[ignore = "needs JAX (.ci/run installs it in target/train-venv)"]
fn the_pipeline_runs_from_selfplay_to_a_network_the_engine_plays_with_and_matches_the_trainer() {
    let (_, data) = selfplay_and_dataset("safari-dual", 30, "pipeline");
    let net_path = temp_path("network", "pipeline.nnue");
    let trainer_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/train");
    let train_with = |out: &Path, extra: &[&str]| {
        let status = Command::new(python())
            .arg(trainer_dir.join("train.py"))
            .args([data.as_os_str(), "--out".as_ref(), out.as_os_str()])
            .args([
                "--epochs", "3", "--hidden", "16", "--batch", "256", "--seed", "4",
            ])
            .args(extra)
            .status()
            .expect("python runs (JAX installed: .ci/run)");
        assert!(status.success());
    };
    let train = |out: &Path| train_with(out, &[]);
    train(&net_path);
    let net = Network::load(&net_path).expect("the trainer writes a network the engine reads");
    assert_eq!((net.game.as_str(), net.hidden), ("safari-dual", 16));
    for extra in [".losses.csv", ".losses.svg"] {
        let mut name = net_path.clone().into_os_string();
        name.push(extra);
        assert!(std::fs::metadata(&name).unwrap().len() > 50, "{extra}");
    }
    // Reproducible: the same data and seed give the same file.
    let again = temp_path("network", "again.nnue");
    train(&again);
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&net_path).unwrap()
    );

    // TD returns as targets: the trainer's own checks of them, then a
    // network trained with them, which names them in its note.
    let checks = Command::new(python())
        .arg(trainer_dir.join("test_train.py"))
        .output()
        .expect("python runs");
    assert!(
        checks.status.success(),
        "{}",
        String::from_utf8_lossy(&checks.stderr)
    );
    let td_path = temp_path("network", "td.nnue");
    train_with(&td_path, &["--td", "0.7"]);
    let td_net = Network::load(&td_path).expect("a TD-trained network loads");
    assert!(td_net.note.contains("--td 0.7"), "{}", td_net.note);

    // The engine's integer network against the trainer's floats on the
    // positions the trainer wrote down.
    let (_, list) = records(&data);
    let mut check = net_path.clone().into_os_string();
    check.push(".check");
    let text = std::fs::read_to_string(check).unwrap();
    let mut evaluator = Evaluator::new(Arc::new(net.clone()));
    let mut worst: f64 = 0.0;
    let mut compared = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        let row: usize = words.next().unwrap().parse().unwrap();
        let float: f64 = words.next().unwrap().parse().unwrap();
        let mut inputs = Inputs::new();
        for &i in &list[row].0 {
            inputs.push(i as usize);
        }
        inputs.finish();
        let integer = evaluator.head_sums(&inputs)[0] as f64 / f64::from(QA * QB);
        worst = worst.max((integer - float).abs());
        compared += 1;
    }
    assert!(compared >= 32);
    // The stated tolerance (docs/network.md): 0.05 of a logit.
    assert!(worst < 0.05, "quantised logits differ by up to {worst}");

    // With a policy head: the engine's integer logits of each listed
    // move against the trainer's floats, and the engine plays with it.
    let policy_path = temp_path("network", "policy.nnue");
    train_with(&policy_path, &["--policy", "1"]);
    let policy_net = Network::load(&policy_path).expect("a network with a policy loads");
    assert_eq!(policy_net.moves, Safari::INPUT_SET.unwrap().moves);
    assert!(
        policy_net.note.contains("--policy 1"),
        "{}",
        policy_net.note
    );
    let mut check = policy_path.clone().into_os_string();
    check.push(".policy.check");
    let text = std::fs::read_to_string(check).unwrap();
    let mut evaluator = Evaluator::new(Arc::new(policy_net.clone()));
    let (mut worst, mut compared, mut sums) = (0f64, 0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        let row: usize = words.next().unwrap().parse().unwrap();
        let floats: Vec<f64> = words.map(|w| w.parse().unwrap()).collect();
        let record = &list[row];
        assert_eq!(floats.len(), record.4 .0.len());
        let mut inputs = Inputs::new();
        for &i in &record.0 {
            inputs.push(i as usize);
        }
        inputs.finish();
        sums.clear();
        evaluator.policy_sums(&inputs, record.4 .0.iter().copied(), &mut sums);
        for (&integer, float) in sums.iter().zip(floats) {
            worst = worst.max((integer as f64 / f64::from(QA * QB) - float).abs());
            compared += 1;
        }
    }
    assert!(compared >= 320, "{compared}");
    assert!(
        worst < 0.05,
        "quantised policy logits differ by up to {worst}"
    );

    // A policy added to a network whose value is known: --from it with
    // --policy-only keeps its value layers to the last bit.
    let added_path = temp_path("network", "added-policy.nnue");
    let from = net_path.to_string_lossy().into_owned();
    train_with(
        &added_path,
        &["--policy", "1", "--from", &from, "--policy-only"],
    );
    let added = Network::load(&added_path).expect("a network with an added policy loads");
    assert_eq!(added.moves, policy_net.moves);
    assert_eq!(
        (
            &added.first,
            &added.first_bias,
            &added.head,
            &added.head_bias
        ),
        (&net.first, &net.first_bias, &net.head, &net.head_bias)
    );
    assert_ne!(added.policy, policy_net.policy);

    let out = engine(&[
        "newgame safari-dual",
        &format!("setoption name EvalFile value {}", policy_path.display()),
        "go nodes 2000",
        "isready",
    ]);
    assert!(errors(&out).is_empty(), "{out}");
    assert!(
        out.contains(&format!("policy {} crc", policy_net.moves)),
        "{out}"
    );
    assert!(out
        .lines()
        .any(|l| l.starts_with("bestmove ") && l != "bestmove (none)"));

    let out = engine(&[
        "newgame safari-dual",
        &format!("setoption name EvalFile value {}", net_path.display()),
        "go nodes 2000",
        "isready",
    ]);
    assert!(errors(&out).is_empty(), "{out}");
    assert!(out.contains(&format!("crc {:08x}", net.checksum())));
    assert!(out
        .lines()
        .any(|l| l.starts_with("bestmove ") && l != "bestmove (none)"));
}

#[test]
fn bench_eval_measures_the_network_beside_the_hand_written_evaluation() {
    // Kilkenny Cats with a network of EvalFile that has a policy head:
    // its lines also measure it without the head.
    let net = made_up_with_policy::<Kilkenny>(21, "");
    let path = write(&temp_path("network", "bench-policy.nnue"), &net.to_bytes());
    let out = engine(&[
        &format!("setoption name EvalFile value {path}"),
        "bench eval",
    ]);
    let name = format!("cats-2:{:08x}", net.checksum());
    let with_policy: Vec<&str> = out.lines().filter(|l| l.contains(&name)).collect();
    assert!(with_policy.len() >= 2, "{out}");
    for line in with_policy
        .iter()
        .filter(|l| l.starts_with("info string eval "))
    {
        assert!(line.contains("kilkenny-cats"), "{line}");
        let ratio: f64 = line
            .split(" | ")
            .find_map(|part| part.strip_prefix("policy ratio "))
            .expect("a policy ratio")
            .parse()
            .unwrap();
        assert!(ratio > 0.0, "{line}");
    }
    // A built-in network's lines measure its policy exactly when it has
    // one (Safari-Dual's, from generation 2, does).
    for (_, _, built_in) in builtin::all() {
        let crc = format!("{:08x}", built_in.checksum());
        for line in out
            .lines()
            .filter(|l| l.starts_with("info string eval ") && l.contains(&crc))
        {
            assert_eq!(line.contains("policy ratio"), built_in.moves > 0, "{line}");
        }
    }

    let out = engine(&["bench eval"]);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string eval "))
        .collect();
    for game in builtin::games() {
        assert!(lines.iter().any(|l| l.contains(game)), "{game}: {out}");
    }
    let total = lines.last().expect("a total line");
    assert!(
        total.starts_with("info string eval total | hand nps "),
        "{total}"
    );
    for line in &lines {
        let ratio: f64 = line
            .split(" | ")
            .find_map(|part| part.strip_prefix("ratio "))
            .expect("a ratio")
            .parse()
            .unwrap();
        assert!(ratio > 0.0, "{line}");
    }
}

/// `dataset ... rescore=tables`: a position is labelled with the value,
/// as `solve` gives it from the tables, of the first position of its game
/// at it or after it that the tables hold (here those of up to 6 men);
/// games that never get there keep their results, and nothing else of a
/// record changes. Without tables: one error, nothing written.
#[test]
fn dataset_rescore_takes_results_from_the_tables_where_the_games_reach_them() {
    let dir = temp_path("network", "rescore-tables");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_word = format!("dir={}", dir.display());
    let built = crate::common::cli(&["tables", "build", "am", "men=6", &dir_word]);
    assert_eq!(built.0, Some(0), "{}", built.1);
    let selfplay = temp_path("network", "rescore.bin");
    let (plain, rescored) = (
        temp_path("network", "rescore-plain.data"),
        temp_path("network", "rescore-tables.data"),
    );
    let table_path = format!("setoption name TablePath value {}", dir.display());
    let out = engine(&[
        &table_path,
        &format!(
            "selfplay am games=24 nodes=200 seed=9 out={}",
            selfplay.display()
        ),
        &format!("dataset {} out={}", selfplay.display(), plain.display()),
        &format!(
            "dataset {} out={} rescore=tables",
            selfplay.display(),
            rescored.display()
        ),
    ]);
    assert!(errors(&out).is_empty(), "{out}");
    let (_, plain) = records(&plain);
    let (_, rescored) = records(&rescored);
    assert_eq!(plain.len(), rescored.len());
    let games = menagerie_engine::selfplay_file::read(&selfplay)
        .unwrap()
        .games;
    let ruleset = menagerie_rules::catalogue::find(
        &menagerie_rules::catalogue::GAMES,
        "awithlaknannai-mosona",
    )
    .unwrap()
    .ruleset::<&str>(&[])
    .unwrap();
    let rules = Awithlaknannai::rules(&ruleset);
    // Every position of the games, with whether the tables hold it.
    let mut positions: Vec<(usize, Awithlaknannai, bool)> = Vec::new();
    for (g, game) in games.iter().enumerate() {
        let mut position = Awithlaknannai::from_notation(&rules, &game.start).unwrap();
        let mut moves = Vec::new();
        for &(index, _) in &game.plies {
            let held = position.table_slice().is_some_and(|s| s.men() <= 6);
            positions.push((g, position.clone(), held));
            moves.clear();
            position.generate(&mut moves);
            position.play(moves[index as usize]);
        }
    }
    assert_eq!(positions.len(), plain.len());
    // In runs of a few hundred lines: more would wait behind the running
    // `solve` than the engine queues.
    let held: Vec<&Awithlaknannai> = positions.iter().filter(|p| p.2).map(|p| &p.1).collect();
    let mut out = String::new();
    for chunk in held.chunks(200) {
        let mut lines = vec![table_path.clone(), "newgame am".to_string()];
        for position in chunk {
            lines.push(format!("position fen {position}"));
            lines.push("solve".to_string());
        }
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        out.push_str(&engine(&refs));
    }
    assert!(errors(&out).is_empty(), "{out}");
    let mut solved = out.lines().filter_map(|l| l.strip_prefix("Value: "));
    let table_results: Vec<Option<u8>> = positions
        .iter()
        .map(|p| {
            p.2.then(|| match solved.next().and_then(|v| v.split(' ').next()) {
                Some("win") => 2,
                Some("draw") => 1,
                Some("loss") => 0,
                other => panic!("solve answered {other:?}: {out}"),
            })
        })
        .collect();
    let held = table_results.iter().flatten().count();
    assert!(held > 20, "the games reach the tables: {held}");
    let mut changed = 0;
    for i in 0..positions.len() {
        let (game, ref position, _) = positions[i];
        assert_eq!(
            (&plain[i].0, plain[i].1, plain[i].2),
            (&rescored[i].0, rescored[i].1, rescored[i].2)
        );
        // The first position at or after this one that the tables hold.
        let ahead = (i..positions.len())
            .take_while(|&j| positions[j].0 == game)
            .find(|&j| table_results[j].is_some());
        let expected = match ahead {
            Some(j) if positions[j].1.side() == position.side() => table_results[j].unwrap(),
            Some(j) => 2 - table_results[j].unwrap(),
            None => plain[i].3[0],
        };
        assert_eq!(rescored[i].3[0], expected, "position {i}: {position}");
        changed += usize::from(rescored[i].3 != plain[i].3);
    }
    assert!(changed > 0, "the tables correct some results of the games");
    let none = temp_path("network", "rescore-none.data");
    let refused = engine(&[
        &format!(
            "setoption name TablePath value {}",
            dir.join("none").display()
        ),
        &format!(
            "dataset {} out={} rescore=tables",
            selfplay.display(),
            none.display()
        ),
        &format!("dataset {} out=x.data rescore=oracle", selfplay.display()),
        "isready",
    ]);
    let errs = errors(&refused);
    assert_eq!(errs.len(), 2, "{refused}");
    assert!(
        errs[0].contains("rescore=tables: no endgame tables"),
        "{refused}"
    );
    assert!(
        errs[1].contains("rescore takes one value: tables"),
        "{refused}"
    );
    assert!(refused.contains("readyok"));
    assert!(!none.exists());
}

/// `MultiSeat puct` takes its priors from the policy head: a policy
/// that all but names one move (both of its keys far above the rest)
/// makes the search spend its visits there and play it, whichever move
/// that is, where the same network without the head plays another.
#[test]
fn puct_follows_the_policy_head_s_priors() {
    let ruleset =
        menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
            .unwrap()
            .ruleset(&["players=3"])
            .unwrap();
    let mut session = Session::<Kilkenny>::new(ruleset);
    let mut moves = Vec::new();
    session.legal(&mut moves);
    let roll = moves[2];
    session.play(roll);
    session.legal(&mut moves);
    assert!(moves.len() > 4);
    let mut plain = made_up::<Kilkenny>(11, "");
    plain.policy_bias.clear();
    let search = |net: &Network, name: &str| {
        let path = write(&temp_path("network", name), &net.to_bytes());
        let out = engine(&[
            "newgame kilkenny-cats players=3",
            &format!("setoption name EvalFile value {path}"),
            "setoption name MultiSeat value puct",
            &format!("move {roll}"),
            "go nodes 3000",
            "isready",
        ]);
        assert!(errors(&out).is_empty(), "{out}");
        out.lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("a bestmove")
            .to_string()
    };
    let without = search(&plain, "puct-plain.nnue");
    let mut chosen = Vec::new();
    for (k, favoured) in [moves[0], moves[moves.len() - 1], moves[moves.len() / 2]]
        .into_iter()
        .enumerate()
    {
        let mut net = plain.clone();
        net.moves = Kilkenny::INPUT_SET.unwrap().moves;
        net.policy = vec![0; net.moves * net.hidden];
        net.policy_bias = vec![0; net.moves];
        for key in session.position().policy_keys(favoured) {
            net.policy_bias[key as usize] = 12 * QA * QB;
        }
        let played = search(&net, &format!("puct-policy-{k}.nnue"));
        assert_eq!(played, favoured.to_string());
        chosen.push(played);
    }
    assert!(chosen.iter().any(|m| *m != without), "{without} {chosen:?}");
}

/// The alpha-beta family over dice (BRS, paranoid, ...) orders moves by
/// the policy head where the network has one, and past the first ply
/// searches only the moves it ranks first (with the hash move and
/// captures): with a policy that ranks eight moves first, the move
/// played is one of them, the first iteration's or a capture, though the
/// same network without the head plays another.
#[test]
fn brs_searches_the_moves_the_policy_ranks_first() {
    let ruleset =
        menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
            .unwrap()
            .ruleset(&["players=3"])
            .unwrap();
    let mut plain = made_up::<Kilkenny>(12, "");
    plain.policy_bias.clear();
    // The move played and the first iteration's, after `roll`.
    let search = |net: &Network, name: &str, roll: &str| {
        let path = write(&temp_path("network", name), &net.to_bytes());
        let out = engine(&[
            "newgame kilkenny-cats players=3",
            &format!("setoption name EvalFile value {path}"),
            &format!("move {roll}"),
            "go nodes 20000",
            "isready",
        ]);
        assert!(errors(&out).is_empty(), "{out}");
        assert!(out.contains("info depth 2 "), "{out}");
        let first = out
            .lines()
            .find_map(|l| l.strip_prefix("info depth 1 "))
            .and_then(|l| l.split(" pv ").nth(1))
            .and_then(|pv| pv.split(' ').next())
            .expect("a first iteration")
            .to_string();
        let best = out
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("a bestmove")
            .to_string();
        (best, first)
    };
    let mut tried = 0;
    for roll in 0..6 {
        let mut session = Session::<Kilkenny>::new(ruleset.clone());
        let mut moves = Vec::new();
        session.legal(&mut moves);
        let roll = moves[roll].to_string();
        session.play(
            moves
                .iter()
                .find(|m| m.to_string() == roll)
                .copied()
                .unwrap(),
        );
        session.legal(&mut moves);
        let position = session.position();
        let quiet: Vec<_> = moves.iter().filter(|&&m| !position.is_capture(m)).collect();
        let (without, _) = search(&plain, "brs-plain.nnue", &roll);
        if quiet.len() < 12 || !quiet.iter().any(|m| m.to_string() == without) {
            continue;
        }
        tried += 1;
        let favoured: Vec<_> = quiet
            .iter()
            .filter(|m| m.to_string() != without)
            .take(8)
            .map(|&&m| m)
            .collect();
        let keys: Vec<u16> = favoured
            .iter()
            .flat_map(|&m| position.policy_keys(m))
            .collect();
        let mut net = plain.clone();
        net.moves = Kilkenny::INPUT_SET.unwrap().moves;
        net.policy = vec![0; net.moves * net.hidden];
        net.policy_bias = vec![0; net.moves];
        for &key in &keys {
            net.policy_bias[key as usize] = 12 * QA * QB;
        }
        let (with, first) = search(&net, "brs-policy.nnue", &roll);
        assert_ne!(first, without, "the test needs another first move");
        // Ranked first: every move both of whose keys are favoured ones.
        let allowed: Vec<String> = moves
            .iter()
            .filter(|&&m| {
                position.is_capture(m) || position.policy_keys(m).iter().all(|k| keys.contains(k))
            })
            .map(|m| m.to_string())
            .chain([first])
            .collect();
        assert!(!allowed.contains(&without));
        assert!(allowed.contains(&with), "{with} not in {allowed:?}");
    }
    assert!(tried >= 2, "{tried}");
}

/// With a policy, `puct` grows a node without evaluating its children,
/// yet a move that ends the game is seen when the node grows: a win the
/// policy ranks last is still played at once, at 3 and 4 seats.
#[test]
fn puct_with_a_policy_takes_a_win_the_policy_ranks_last() {
    for (players, seats) in [(3, "swn"), (4, "swne")] {
        let fen =
            format!("14/14/14/7S6/14/1N12/14/14/14/3W10/3S10/14/14/14 s 4 {seats} S------- 0");
        let rules = format!("players={players}");
        let ruleset =
            menagerie_rules::catalogue::find(&menagerie_rules::catalogue::GAMES, "kilkenny-cats")
                .unwrap()
                .ruleset(&[rules.as_str()])
                .unwrap();
        let position = Kilkenny::from_notation(&Kilkenny::rules(&ruleset), &fen).unwrap();
        let mut moves = Vec::new();
        position.generate(&mut moves);
        let win = *moves.iter().find(|m| m.to_string() == "i12i16").unwrap();
        let mut net = made_up::<Kilkenny>(13, "");
        net.moves = Kilkenny::INPUT_SET.unwrap().moves;
        net.policy = vec![0; net.moves * net.hidden];
        net.policy_bias = vec![0; net.moves];
        for key in position.policy_keys(win) {
            net.policy_bias[key as usize] = -12 * QA * QB;
        }
        let path = write(
            &temp_path("network", &format!("win-last-{players}.nnue")),
            &net.to_bytes(),
        );
        let out = engine(&[
            &format!("newgame kilkenny-cats {rules}"),
            &format!("setoption name EvalFile value {path}"),
            "setoption name MultiSeat value puct",
            &format!("position fen {fen}"),
            "go nodes 300",
            "isready",
        ]);
        assert!(errors(&out).is_empty(), "{out}");
        assert!(out.contains("bestmove i12i16"), "{out}");
        assert!(out.contains("score win 1"), "{out}");
    }
}
