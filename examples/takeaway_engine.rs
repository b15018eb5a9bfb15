//! The engine over the standard games and the test-only take-away game
//! (tests/takeaway): what a new game gets by being in a catalogue.

fn main() {
    let games = menagerie_takeaway::catalogue::<menagerie_engine::session::Searching>();
    menagerie_engine::cli::main(Vec::leak(games))
}
