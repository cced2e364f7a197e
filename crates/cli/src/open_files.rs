//! The limit of open files of a batch run.
//!
//! A spilled `neardup dedup` merges its sorted runs of band entries with
//! every run open at once: one run per part of the bands (one part per
//! worker thread, at most 8) for each 4 Mi entries sorted, so about 16
//! files per million documents on two threads, 1,642 at 10^8; a
//! `neardup spans` run past its budget keeps 256 key partitions open. Many
//! systems start processes with a soft limit of 1,024 open files and a
//! hard limit far above, so batch commands raise the soft limit to the
//! hard one, as the Go runtime does for every program.

/// Open files asked for at most, whatever the hard limit.
const WANTED: u64 = 1 << 20;

/// Raises the soft limit of open files to the hard limit (at most
/// [`WANTED`]); the limit before and after, or `None` where it cannot be
/// read. Failing to raise it is not an error: a run that then opens too
/// many files says so, naming the limit (`docs/limits.md`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn raise_limit() -> Option<(u64, u64)> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes the limit into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    let before = lim.rlim_cur;
    let want = lim.rlim_max.min(WANTED);
    if want > before {
        lim.rlim_cur = want;
        // SAFETY: `setrlimit` reads the struct; a soft limit at most the
        // hard one is always allowed.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } == 0 {
            return Some((before, want));
        }
    }
    Some((before, before))
}

/// Raises the soft limit of open files where the platform allows it.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn raise_limit() -> Option<(u64, u64)> {
    None
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn the_soft_limit_reaches_the_hard_one() {
        let (_, after) = super::raise_limit().expect("a limit on Linux");
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        #[allow(unsafe_code)]
        // SAFETY: as in `raise_limit`.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
        assert_eq!(ok, 0);
        assert_eq!(lim.rlim_cur, after);
        assert_eq!(after, lim.rlim_max.min(super::WANTED));
    }
}
