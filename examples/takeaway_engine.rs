//! The engine over the standard games and the test-only take-away game
//! (tests/takeaway): what a new game gets by being in a catalogue.

fn main() {
    menagerie_engine::cli::main::<menagerie_takeaway::WithTakeAway>()
}
