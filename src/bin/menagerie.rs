//! The engine: speaks the protocol of protocol.md on stdin and stdout.

use clap::Parser;

/// An engine for four small traditional board games, speaking a UCI-like
/// protocol on stdin/stdout (see protocol.md).
#[derive(Parser)]
#[command(name = "menagerie", version, about, long_about = None)]
#[command(after_help = "Examples:\n  \
    printf 'newgame hat-diviyan-keliya\\ngo depth 4\\n' | menagerie\n  \
    menagerie \"newgame hat-diviyan-keliya\" \"go perft 5\"\n  \
    menagerie bench\n\n\
    Set RUST_LOG=debug to log every protocol line to stderr.")]
struct Args {
    /// Protocol lines to run in order before exiting, instead of reading stdin,
    /// one per argument. `bench` takes its arguments unquoted too
    /// (`menagerie bench playouts 1000`).
    lines: Vec<String>,
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args = Args::parse();
    let input = if args.lines.is_empty() {
        menagerie::protocol::Input::Stdin
    } else {
        menagerie::protocol::Input::Lines(command_lines(args.lines))
    };
    std::process::exit(menagerie::protocol::run(
        input,
        menagerie::protocol::Output::stdout(),
    ));
}

/// The protocol lines of the command line: one per argument, except that a
/// leading `bench` takes the rest as its arguments, the way engines'
/// `bench` is usually run (`stockfish bench 16 1 13`).
fn command_lines(args: Vec<String>) -> Vec<String> {
    if args.len() > 1 && args[0] == "bench" {
        vec![args.join(" ")]
    } else {
        args
    }
}
