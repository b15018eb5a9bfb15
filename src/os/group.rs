//! Child processes in process groups of their own, so that a program and
//! every helper it starts (a shell script, a JVM launcher) are killed as
//! one; on Linux each is also set to die with the thread that started it
//! (`PR_SET_PDEATHSIG`), so a killed parent leaves no child behind.
//!
//! A group is signalled only while its leader is not reaped: a zombie
//! leader keeps its process id, and so the group's id, from being used
//! again, while after the reaping the same number may name an unrelated
//! group. So the leader's end is first noticed without reaping it
//! (`waitid` with `WNOWAIT`), the group killed, and only then the leader
//! reaped; afterwards the group is never signalled again, by its handle
//! or by the signal handlers of [`crate::signals`].

use std::io;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};

/// A child process leading a process group of its own.
pub struct Group {
    child: Child,
    /// How the leader ended, once reaped.
    reaped: Option<ExitStatus>,
}

impl Group {
    /// Starts `command` (program, then arguments) with piped stdin and
    /// stdout and no stderr. On Linux the child dies with the *thread*
    /// that started it: call this from a thread that lives as long as the
    /// child should.
    pub fn spawn(command: &[String]) -> io::Result<Group> {
        let program = command
            .first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an empty command"))?;
        let mut spawn = Command::new(program);
        spawn
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        Group::spawn_command(spawn)
    }

    /// Starts `command` as it is set up (its stdio included), in a group
    /// of its own, set to die with the starting thread.
    pub fn spawn_command(mut command: Command) -> io::Result<Group> {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
            #[cfg(target_os = "linux")]
            // SAFETY: prctl is async-signal-safe and touches nothing of the
            // parent's; it runs in the child between fork and exec.
            unsafe {
                command.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
        }
        let child = command.spawn()?;
        live::add(child.id() as i32);
        Ok(Group {
            child,
            reaped: None,
        })
    }

    /// The leader's process id, which is also the group's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child.stdin.take()
    }

    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// How the leader ended, if it has. When it is first seen to have
    /// ended, the rest of its group is killed, then it is reaped.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        if self.reaped.is_none() && leader_has_ended(self.child.id()) {
            self.kill();
        }
        self.reaped
    }

    /// Whether the leader is still running.
    pub fn alive(&mut self) -> bool {
        self.exit_status().is_none()
    }

    /// Kills the whole group and reaps the leader; after that, does
    /// nothing.
    pub fn kill(&mut self) {
        if self.reaped.is_some() {
            return;
        }
        let pid = self.child.id() as i32;
        #[cfg(unix)]
        // SAFETY: a plain system call; the leader is not reaped, so the
        // group id still names this group.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        // The leader is killed even if it left the group.
        let _ = self.child.kill();
        if !live::remove(pid) {
            // A signal handler has claimed the table to kill every group
            // and end the process: reaping now could let it signal a
            // number already given to another group.
            return;
        }
        self.reaped = self.child.wait().ok();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether the process `pid` (a child of this one) has ended, without
/// reaping it.
fn leader_has_ended(pid: u32) -> bool {
    #[cfg(unix)]
    {
        // SAFETY: waitid writes into the zeroed siginfo it is given;
        // WNOWAIT leaves the child waitable (unreaped).
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let found = libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            );
            // An error (no such child) means it is gone as well.
            found != 0 || info.si_pid() != 0
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}

/// Kills every group started by [`Group::spawn`] and not yet reaped, and
/// keeps them from being reaped. Async-signal-safe (atomics and `kill`),
/// for a handler that ends the process next: the parent-death signal
/// reaches a child but not the helpers it started; this reaches them all.
pub fn kill_all() {
    live::kill_all();
}

/// The groups alive, in a fixed table of atomics that a signal handler
/// can read without locks or allocation. A slot holds a group id, 0 when
/// free, or [`live::CLAIMED`] once a handler has taken it. A full table
/// only loses the signal-time cleanup for the extra groups; the
/// parent-death signal still ends their leaders.
mod live {
    use std::sync::atomic::{AtomicI32, Ordering};

    const SLOTS: usize = 512;
    /// A slot a signal handler has killed and kept.
    pub const CLAIMED: i32 = -1;
    static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

    pub fn add(group: i32) {
        for slot in &GROUPS {
            if slot
                .compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return;
            }
        }
    }

    /// Frees the group's slot before its leader is reaped; false if a
    /// handler claimed it first (then it must not be reaped).
    pub fn remove(group: i32) -> bool {
        for slot in &GROUPS {
            if slot
                .compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return true;
            }
        }
        // Not in the table (it was full): reaping is ours to decide, but
        // a claimed table means a handler is ending the process.
        !GROUPS.iter().any(|s| s.load(Ordering::SeqCst) == CLAIMED)
    }

    pub fn kill_all() {
        for slot in &GROUPS {
            let group = slot.swap(CLAIMED, Ordering::SeqCst);
            if group > 0 {
                #[cfg(unix)]
                // SAFETY: kill is async-signal-safe; the slot was taken
                // before its owner could reap the leader.
                unsafe {
                    libc::kill(-group, libc::SIGKILL);
                }
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn a_killed_group_takes_its_helpers_along() {
        // The leader prints its helper's pid, then both sleep.
        let mut group = Group::spawn(&sh("sleep 60 & echo $!; wait")).unwrap();
        let mut out = String::new();
        use std::io::BufRead;
        std::io::BufReader::new(group.take_stdout().unwrap())
            .read_line(&mut out)
            .unwrap();
        let helper: i32 = out.trim().parse().unwrap();
        assert!(group.alive());
        group.kill();
        assert!(!group.alive());
        std::thread::sleep(std::time::Duration::from_millis(50));
        // SAFETY: signal 0 only asks whether the process exists.
        let exists = unsafe { libc::kill(helper, 0) } == 0;
        assert!(
            !exists || is_zombie(helper),
            "the helper outlived its group"
        );
    }

    #[test]
    fn a_leader_that_ended_is_seen_and_its_helpers_killed() {
        let mut group = Group::spawn(&sh("sleep 60 & echo $!; exit 3")).unwrap();
        let mut out = String::new();
        use std::io::BufRead;
        std::io::BufReader::new(group.take_stdout().unwrap())
            .read_line(&mut out)
            .unwrap();
        let helper: i32 = out.trim().parse().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while group.alive() {
            assert!(std::time::Instant::now() < deadline);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(group.exit_status().unwrap().code(), Some(3));
        std::thread::sleep(std::time::Duration::from_millis(50));
        // SAFETY: signal 0 only asks whether the process exists.
        let exists = unsafe { libc::kill(helper, 0) } == 0;
        assert!(
            !exists || is_zombie(helper),
            "the helper outlived its leader"
        );
    }

    fn is_zombie(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
            .unwrap_or(true)
    }
}
