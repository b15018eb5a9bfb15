//! What the programs need from the operating system (menagerie-os): the
//! process groups of engines, forced into the failure that matters most.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use menagerie_os::group::Group;

/// Whether `pid` names a live process (not a zombie).
fn running(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
        .unwrap_or(false);
    exists && !zombie
}

/// Starts an unrelated program leading its own process group under the
/// process id `pid`, by setting the kernel's last-used id just below it;
/// `None` where that cannot be done (not root, another kernel).
fn unrelated_group_at(pid: u32) -> Option<std::process::Child> {
    use std::os::unix::process::CommandExt;
    for _ in 0..50 {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).ok()?;
        let mut child = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .stdout(Stdio::null())
            .spawn()
            .ok()?;
        if child.id() == pid {
            return Some(child);
        }
        // Another process took the number first: try again.
        let _ = child.kill();
        let _ = child.wait();
    }
    None
}

#[test]
fn a_reaped_group_is_never_signalled_even_when_its_number_comes_back() {
    // A group whose leader ends; the handle sees it and reaps it.
    let mut old = Group::spawn(&["sh".into(), "-c".into(), "exit 0".into()]).unwrap();
    let number = old.id();
    let deadline = Instant::now() + Duration::from_secs(10);
    while old.alive() {
        assert!(Instant::now() < deadline, "the leader never ended");
        std::thread::sleep(Duration::from_millis(2));
    }
    // The number is given to an unrelated group (as a busy machine, or a
    // PID namespace, soon does).
    let Some(mut victim) = unrelated_group_at(number) else {
        eprintln!("skipped: cannot choose the next process id here (needs root)");
        return;
    };
    let victim_pid = victim.id() as i32;
    // SAFETY: signal 0 only asks whether the group exists: it does, so a
    // kill of the old number's group would hit the victim.
    assert_eq!(unsafe { libc::kill(-victim_pid, 0) }, 0);
    // What the board does on restart and when it reaps idle sessions, and
    // what dropping the handle does: none of it may reach the victim.
    old.kill();
    assert!(old.exit_status().is_some());
    drop(old);
    std::thread::sleep(Duration::from_millis(50));
    let alive = running(victim_pid);
    let _ = victim.kill();
    let _ = victim.wait();
    assert!(alive, "an unrelated process group was killed");
}
