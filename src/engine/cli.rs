//! The engine's command line: the `menagerie` program is this module's
//! [`main`] over the games of this build.

use std::io::IsTerminal;

use crate::driver::{AUTHOR, EXIT_BUG, EXIT_FAILED, EXIT_REFUSED, NAME, VERSION};
use crate::task::Catalogue;
use crate::{command_lines, run_with, Input, Output, RunOptions};
use clap::Parser;

/// An engine for four small traditional board games, speaking a UCI-like
/// protocol on stdin/stdout (see protocol.md).
#[derive(Parser)]
#[command(name = "menagerie", version, about, long_about = None)]
#[command(after_help = concat!(
    "Examples:\n",
    "  printf 'newgame hat-diviyan-keliya\\ngo depth 4\\n' | menagerie\n",
    "  menagerie \"newgame hat-diviyan-keliya\" \"go perft 5\"   (one command per argument)\n",
    "  menagerie go perft 5                                (one command over several words)\n",
    "  menagerie bench\n",
    "\n",
    "Exit status:\n",
    "  0    done\n",
    "  1    a command failed (its error line says which): with arguments, or with --strict\n",
    "  2    bad command line, or (with arguments, or --strict) a request refused as more than\n",
    "       the process may hold: tables build, Hash (the error line gives the figures)\n",
    "  101  the engine hit a bug it survived (a search failed and was answered anyway)\n",
    "\n",
    "Set RUST_LOG=debug to log every protocol line to stderr."
))]
struct Args {
    /// Protocol lines to run in order before exiting, instead of reading
    /// stdin: one per argument, or, when no argument has a blank in it and
    /// the first is a command that takes arguments (go, perft, bench,
    /// position, move, newgame, setoption, query, solve, tables,
    /// selfplay, dataset), all of them as one
    /// line. The first command that fails ends the run with status 1.
    lines: Vec<String>,

    /// Reading stdin: end at the first command that fails, with status 1
    /// (for scripts; by default the engine answers the error and goes on).
    #[arg(long)]
    strict: bool,
}

/// The `menagerie` program over the games of catalogue `C` (the default
/// first): reads the command line, speaks the protocol, and exits with
/// the protocol's status.
pub fn main<C: Catalogue>() -> ! {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    menagerie_os::signals::report_file_size_limit();
    let args = Args::parse();
    let (input, fail_fast) = if args.lines.is_empty() {
        if std::io::stdin().is_terminal() {
            // As Stockfish does; GUIs never see it, as their pipe is no terminal.
            println!("{NAME} {VERSION} by {AUTHOR} (type 'help' for the commands)");
        }
        (Input::Stdin, args.strict)
    } else {
        (Input::Lines(command_lines(args.lines)), true)
    };
    let status = run_with::<C>(input, Output::stdout(), RunOptions { fail_fast });
    debug_assert!([0, EXIT_FAILED, EXIT_REFUSED, EXIT_BUG].contains(&status));
    std::process::exit(status);
}
