//! How much more memory the process may use, and which limit says so.
//!
//! On Linux, the least of: the kernel's estimate of memory available for
//! new work (`MemAvailable`); what the process's control groups still
//! allow (its own group and every group above it, where a Slurm job's or
//! a container's limit often sits), in cgroup v2 or v1; and what its
//! resource limits leave (`ulimit -v`, the address space, and `ulimit -d`,
//! the data segment), against what it already uses. Elsewhere: unknown.
//!
//! Long work asks this before it allocates, so that a request the process
//! cannot hold is refused with the figure and its source instead of
//! ending in an abort or an OOM kill.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Where control group file systems are mounted.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// What bounds the memory the process may still use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The machine's available memory.
    Machine,
    /// A memory control group (a container's, a Slurm job's).
    ControlGroup,
    /// The address-space limit (`ulimit -v`, RLIMIT_AS).
    AddressSpace,
    /// The data-segment limit (`ulimit -d`, RLIMIT_DATA).
    DataSegment,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Source::Machine => "of memory is available on this machine",
            Source::ControlGroup => "is left under the memory limit of the process's control group",
            Source::AddressSpace => "is left under the process's address-space limit (ulimit -v)",
            Source::DataSegment => "is left under the process's data-segment limit (ulimit -d)",
        })
    }
}

/// Bytes the process may still allocate, and the limit that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headroom {
    pub bytes: u64,
    pub source: Source,
}

impl fmt::Display for Headroom {
    /// "about 812 MiB is left under ..."
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "about {} MiB {}", self.bytes >> 20, self.source)
    }
}

/// The tightest bound on new allocations, if the system tells.
pub fn headroom() -> Option<Headroom> {
    let mut bounds = Vec::new();
    if let Some(bytes) = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| meminfo_available(&text))
    {
        bounds.push(Headroom {
            bytes,
            source: Source::Machine,
        });
    }
    if let Some(bytes) = fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|membership| cgroup_headroom(Path::new(CGROUP_ROOT), &membership))
    {
        bounds.push(Headroom {
            bytes,
            source: Source::ControlGroup,
        });
    }
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    for (resource, field, source) in [
        (libc::RLIMIT_AS, "VmSize:", Source::AddressSpace),
        (libc::RLIMIT_DATA, "VmData:", Source::DataSegment),
    ] {
        if let (Some(limit), Some(used)) = (soft_limit(resource), status_kib(&status, field)) {
            bounds.push(Headroom {
                bytes: limit.saturating_sub(used * 1024),
                source,
            });
        }
    }
    bounds.into_iter().min_by_key(|h| h.bytes)
}

/// Bytes of memory a new allocation can count on, if the system tells.
pub fn available_bytes() -> Option<u64> {
    headroom().map(|h| h.bytes)
}

/// Checks that `bytes` more fit in what the process may use, keeping a
/// tenth spare; the headroom that refuses it otherwise.
pub fn check(bytes: u64) -> Result<(), Headroom> {
    match headroom() {
        Some(room) if bytes > room.bytes / 10 * 9 => Err(room),
        _ => Ok(()),
    }
}

/// A resource's soft limit in bytes; `None` when unlimited.
fn soft_limit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given.
    let ok = unsafe { libc::getrlimit(resource, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// A `kB` field of `/proc/self/status`.
fn status_kib(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn meminfo_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The files of one hierarchy: its mount, and the limit and usage file
/// names of each group in it.
struct Hierarchy {
    mount: PathBuf,
    group: String,
    limits: &'static [&'static str],
    usage: &'static str,
}

/// The least headroom (limit minus usage) of the process's memory groups
/// and their ancestors, given the text of `/proc/self/cgroup` and where
/// the hierarchies are mounted. A group whose directory is not there (a
/// path from outside a container's namespace) is skipped; the mount's own
/// files still count.
fn cgroup_headroom(root: &Path, membership: &str) -> Option<u64> {
    let mut hierarchies = Vec::new();
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if controllers.is_empty() {
            hierarchies.push(Hierarchy {
                mount: root.to_path_buf(),
                group: path.to_string(),
                limits: &["memory.max", "memory.high"],
                usage: "memory.current",
            });
        } else if controllers.split(',').any(|c| c == "memory") {
            hierarchies.push(Hierarchy {
                mount: root.join("memory"),
                group: path.to_string(),
                limits: &["memory.limit_in_bytes"],
                usage: "memory.usage_in_bytes",
            });
        }
    }
    hierarchies.iter().filter_map(headroom_of).min()
}

fn headroom_of(hierarchy: &Hierarchy) -> Option<u64> {
    let read =
        |path: PathBuf| -> Option<u64> { fs::read_to_string(path).ok()?.trim().parse().ok() };
    let mut least: Option<u64> = None;
    let mut dir = hierarchy
        .mount
        .join(hierarchy.group.trim_start_matches('/'));
    loop {
        if dir.is_dir() {
            for limit in hierarchy.limits {
                // "max" (no limit) does not parse, and is no bound.
                if let Some(limit) = read(dir.join(limit)) {
                    let used = read(dir.join(hierarchy.usage)).unwrap_or(0);
                    let room = limit.saturating_sub(used);
                    least = Some(least.map_or(room, |l| l.min(room)));
                }
            }
        }
        if dir == hierarchy.mount || !dir.pop() || !dir.starts_with(&hierarchy.mount) {
            break;
        }
    }
    least
}

/// Gives the whole pages inside `len` bytes at `start` back to the
/// system, which hands them out again zeroed when next touched; returns
/// the byte offsets (from `start`) they covered, empty if none or if the
/// system refused. Clearing a large table this way costs the kernel's
/// page freeing instead of writing every byte.
///
/// # Safety
/// The bytes must be private anonymous memory of the caller's own
/// allocation (heap or mmap), for which reading zero is a valid value,
/// and nothing may use them meanwhile.
pub unsafe fn hand_back(start: *mut u8, len: usize) -> std::ops::Range<usize> {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let address = start as usize;
        let first = address.next_multiple_of(PAGE);
        let last = (address + len) / PAGE * PAGE;
        if last > first + PAGE {
            // SAFETY: [first, last) lies inside the caller's allocation,
            // which it vouches for.
            let done = unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_DONTNEED,
                )
            };
            if done == 0 {
                return first - address..last - address;
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
    0..0
}

/// Makes allocations of a mebibyte or more come from the system as fresh
/// mappings, zeroed lazily by the system as they are touched, as a table
/// asked for zeroed expects. Without it glibc raises its threshold after
/// a large block is freed (up to 32 MiB), and the next table of that size
/// comes from the heap and is zeroed by hand: 0.6 ms for 16 MiB, so a
/// thousand `setoption name Hash` lines took 0.7 s. Setting the threshold
/// once turns that adjustment off. Elsewhere than glibc: nothing to do.
pub fn allocate_large_blocks_lazily() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only changes the allocator's thresholds.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_kibibytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(meminfo_available(text), Some(2048 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
    }

    /// A scratch tree of cgroup files.
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str) -> Tree {
            let dir = std::env::temp_dir()
                .join(format!("menagerie-cgroup-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Tree(dir)
        }

        fn write(&self, path: &str, text: &str) {
            let path = self.0.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_limit_on_a_parent_group_bounds_a_child_group_in_v2() {
        let tree = Tree::new("v2");
        tree.write("memory.current", "999999999999");
        tree.write("job/memory.max", "1073741824\n");
        tree.write("job/memory.current", "73741824\n");
        tree.write("job/step/memory.max", "max\n");
        tree.write("job/step/memory.current", "1000\n");
        let headroom = cgroup_headroom(&tree.0, "0::/job/step\n");
        assert_eq!(headroom, Some((1u64 << 30) - 73741824));
    }

    #[test]
    fn memory_high_counts_as_a_limit_in_v2() {
        let tree = Tree::new("high");
        tree.write("g/memory.max", "max\n");
        tree.write("g/memory.high", "500\n");
        tree.write("g/memory.current", "100\n");
        assert_eq!(cgroup_headroom(&tree.0, "0::/g\n"), Some(400));
    }

    #[test]
    fn the_memory_controller_of_v1_is_found_among_the_others() {
        let tree = Tree::new("v1");
        tree.write("memory/memory.limit_in_bytes", "9223372036854771712\n");
        tree.write("memory/memory.usage_in_bytes", "5000\n");
        tree.write("memory/slurm/job7/memory.limit_in_bytes", "2000000\n");
        tree.write("memory/slurm/job7/memory.usage_in_bytes", "500000\n");
        let membership = "5:devices:/\n4:memory:/slurm/job7\n3:cpu,cpuacct:/\n0::/\n";
        assert_eq!(cgroup_headroom(&tree.0, membership), Some(1_500_000));
    }

    #[test]
    fn a_group_outside_the_namespace_falls_back_to_the_mount() {
        let tree = Tree::new("ns");
        tree.write("memory.max", "4096\n");
        tree.write("memory.current", "96\n");
        assert_eq!(
            cgroup_headroom(&tree.0, "0::/host/path/not/here\n"),
            Some(4000)
        );
        assert_eq!(cgroup_headroom(&tree.0, "garbage\n"), None);
    }
}
