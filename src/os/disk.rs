//! Free disk space, so that long work that writes files can refuse a
//! request that would fill the disk before it starts.

use std::path::Path;

/// Bytes an unprivileged writer may still put on the file system holding
/// `path` (or its nearest existing ancestor), if the system tells.
pub fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = path.ancestors().find(|p| p.exists())?;
    let name = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct it is given from a valid C string.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::statvfs(name.as_ptr(), &mut stats) } == 0;
    ok.then(|| stats.f_bavail as u64 * stats.f_frsize as u64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_free_space_of_a_folder_not_made_yet_is_its_parents() {
        let here = super::free_bytes(&std::env::temp_dir()).expect("statvfs works here");
        let deeper = std::env::temp_dir().join("no-such-folder/nor-this");
        let there = super::free_bytes(&deeper).unwrap();
        // The same file system, read a moment apart.
        assert!(here.abs_diff(there) < 1 << 30);
    }
}
