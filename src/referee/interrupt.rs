//! Ctrl-C: the first one asks the match to stop (games in progress are
//! abandoned, the summary of the finished ones is printed, the exit status
//! says it was interrupted); a second one exits at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The exit status of an interrupted match (128 + SIGINT, as shells do).
pub const EXIT_INTERRUPTED: u8 = 130;

extern "C" fn on_interrupt(_: libc::c_int) {
    // Only async-signal-safe work here: atomics and _exit.
    if INTERRUPTS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // Engines die with the referee (their parent-death signal); their
        // helpers by this.
        crate::referee::process::kill_all_groups();
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(EXIT_INTERRUPTED as libc::c_int) };
    }
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    #[cfg(unix)]
    // SAFETY: the handler only touches atomics and calls _exit.
    unsafe {
        let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// The flag a match watches: set by the first Ctrl-C.
pub fn requested() -> &'static AtomicBool {
    &REQUESTED
}
