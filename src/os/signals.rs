//! SIGINT and SIGTERM for programs that start process groups: whatever
//! else happens, every group they started ([`crate::group`]) is killed
//! before they exit, helpers included, which the parent-death signal
//! alone would leave running.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static SIGNALS: AtomicUsize = AtomicUsize::new(0);
static REQUESTED: AtomicBool = AtomicBool::new(false);
/// Whether the first signal only asks to stop.
static GENTLE: AtomicBool = AtomicBool::new(false);

/// The exit status after SIGINT or SIGTERM cut a program short (128 +
/// SIGINT, as shells report Ctrl-C).
pub const EXIT_INTERRUPTED: u8 = 130;

extern "C" fn on_signal(signal: libc::c_int) {
    // Only async-signal-safe work here: atomics, kill and _exit.
    let count = SIGNALS.fetch_add(1, Ordering::SeqCst);
    if GENTLE.load(Ordering::SeqCst) && count == 0 {
        REQUESTED.store(true, Ordering::SeqCst);
        return;
    }
    crate::group::kill_all();
    let status = if GENTLE.load(Ordering::SeqCst) {
        EXIT_INTERRUPTED as libc::c_int
    } else {
        128 + signal
    };
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(status) };
}

fn install() {
    #[cfg(unix)]
    // SAFETY: the handler only touches atomics, kills and calls _exit.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// SIGINT or SIGTERM kills every process group this program started and
/// exits at once with status 128 + the signal (a server).
pub fn exit_on_termination() {
    GENTLE.store(false, Ordering::SeqCst);
    install();
}

/// The first SIGINT or SIGTERM only sets the returned flag (a match
/// finishing what it can, then its summary); a second kills every process
/// group this program started and exits with [`EXIT_INTERRUPTED`].
pub fn stop_on_termination() -> &'static AtomicBool {
    GENTLE.store(true, Ordering::SeqCst);
    install();
    &REQUESTED
}

/// A write past the process's file-size limit (`ulimit -f`, a batch
/// system's) fails with an error (EFBIG) that the program reports and
/// cleans up after, instead of the default SIGXFSZ killing it with no
/// word and a part file left behind.
pub fn report_file_size_limit() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
