//! The referee over the standard games and the test-only take-away game
//! (tests/takeaway).

use std::process::ExitCode;

fn main() -> ExitCode {
    let games = menagerie_takeaway::catalogue::<menagerie_rules::catalogue::Rules>();
    menagerie_referee::cli::main(Vec::leak(games))
}
