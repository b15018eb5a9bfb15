//! The engine: speaks the protocol of protocol.md on stdin and stdout, for
//! every game of this build (see `menagerie --help`).

fn main() {
    menagerie_engine::cli::main::<menagerie_rules::catalogue::Standard>()
}
