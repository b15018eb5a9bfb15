//! The protocol's vocabulary, both directions: [`command::Command`]s a
//! client sends and [`reply::Reply`]s an engine prints, each parsed from a
//! line and printed back to the same line. The engine, the referee, the
//! browser board and the test engines all speak through these types; this
//! crate knows nothing of any of them (nor of the search, nor of the
//! rules): it depends on no other crate of the project.

pub mod command;
pub mod reply;
pub mod text;
pub mod work;

pub use command::{parse_line, BenchKind, Class, Command, GoParams, ParseError, Query};
pub use reply::Reply;
pub use work::{
    DatasetArgs, SelfPlayArgs, SliceArg, SolveArgs, SolveKeys, TablesAction, TablesArgs, WordsError,
};
