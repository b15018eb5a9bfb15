use menagerie::game::{Game, Ruleset};
use menagerie::games::hdk::Hdk;
use menagerie::search::solver::solve;
fn main() {
    for words in [
        vec![],
        vec!["start=apex"],
        vec!["board=large"],
        vec!["board=large", "start=apex"],
    ] {
        let r = Ruleset::parse(Hdk::OPTIONS, &words).unwrap();
        let start = Hdk::start(&Hdk::rules(&r));
        let t = std::time::Instant::now();
        let s = solve(&start);
        println!(
            "{r}: {} positions, longest {} plies, start {:?}, {:?}",
            s.len(),
            s.longest,
            s.value_of(&start),
            t.elapsed()
        );
    }
}
