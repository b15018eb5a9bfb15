//! One seeded random-play test for every game and every ruleset the registry
//! holds (see `menagerie_rules::game::selfcheck` for the invariants checked).

use menagerie_rules::catalogue::GAMES;

#[test]
fn every_game_keeps_its_invariants_in_random_play() {
    for game in &GAMES {
        for ruleset in game.all_rulesets() {
            let stats = (game.self_check)(&ruleset, 0x5EED, 60).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(stats.games, 60);
            assert!(
                stats.positions > 60 * 5,
                "{} {ruleset}: games too short",
                game.id
            );
            assert_eq!(stats.decided + stats.draws_by_rule, 60);
        }
    }
}
