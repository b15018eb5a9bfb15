//! Thread priorities: a search's helper threads step aside a little for
//! the threads that must answer at once.

/// Lowers the calling thread's priority by `steps` (nice), at most to the
/// lowest. On Linux each thread has its own; elsewhere nothing happens.
/// Failure (a sandbox that forbids it) leaves the priority as it was.
pub fn lower_this_thread(steps: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let nice = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (nice + steps).min(19));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = steps;
}
