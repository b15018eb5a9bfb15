//! The referee: plays matches between two engines over the games of this
//! build, and re-checks or adds up their records (see `referee --help`).

use std::process::ExitCode;

fn main() -> ExitCode {
    menagerie_referee::cli::main(&menagerie_rules::catalogue::GAMES)
}
