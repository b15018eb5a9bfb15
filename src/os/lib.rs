//! What the programs of menagerie need from the operating system, in one
//! place, used by the engine, the referee and the browser board alike:
//!
//! - [`group`]: child processes in process groups of their own, killed as
//!   a whole and never signalled once reaped;
//! - [`lines`]: reading lines of bounded length;
//! - [`memory`]: how much more memory the process may use, and which
//!   limit (machine, control group, rlimit) says so;
//! - [`signals`]: SIGINT and SIGTERM handlers that end every process
//!   group this process started;
//! - [`bundled`]: finding the engine installed next to a program;
//! - [`disk`]: free disk space;
//! - [`priority`]: lowering a thread's priority;
//! - [`load`]: the cores and the threads runnable, how busy the machine is;
//! - [`files`]: opening paths: regular files only, bounded reads, no
//!   open that blocks, writes that replace only a regular file.

pub mod bundled;
pub mod disk;
pub mod files;
pub mod group;
pub mod lines;
pub mod load;
pub mod memory;
pub mod priority;
pub mod signals;
