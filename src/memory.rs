//! How much memory the process can still have, where the system says.
//!
//! On Linux: the kernel's estimate of memory available for new work
//! (`MemAvailable`), lowered to what a control group still allows.
//! Elsewhere: unknown.

use std::fs;

/// Bytes of memory a new allocation can count on, if the system tells.
pub fn available_bytes() -> Option<u64> {
    let system = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| meminfo_available(&text));
    let group = cgroup_headroom();
    match (system, group) {
        (Some(s), Some(g)) => Some(s.min(g)),
        (s, g) => s.or(g),
    }
}

fn meminfo_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Limit minus usage of this process's control group (v2, then v1).
fn cgroup_headroom() -> Option<u64> {
    let read = |path: &str| -> Option<u64> { fs::read_to_string(path).ok()?.trim().parse().ok() };
    let pairs = [
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        ),
    ];
    pairs.iter().find_map(|(limit, usage)| {
        // "max" (no limit) does not parse, and then there is no headroom
        // to report.
        let limit = read(limit)?;
        Some(limit.saturating_sub(read(usage).unwrap_or(0)))
    })
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
}
