//! How the heap grows during batch commands.
//!
//! glibc's malloc gives each thread that allocates an arena of its own.
//! Outside the main arena, a heap grows by exactly what the allocation at
//! hand needs, with one `mprotect` call each time. A batch run keeps every
//! document's signature and shingle sequence until the end, so the worker
//! threads' heaps grow all the time: `neardup dedup` on 100,000 real-text
//! documents made 43,259 `mprotect` calls (`strace -c`), about one per
//! page of memory it kept. With a top pad of [`TOP_PAD`] the heap grows in
//! steps of that size instead (17 calls for the same run, 4% to 10% less
//! wall time in two A/B runs; `BENCHMARKS.md`).
//!
//! The pad is address space made accessible, not memory in use: pages are
//! only backed when written. It also lets a heap keep up to the pad of
//! freed memory at its top instead of returning it, so it is set for batch
//! commands only, never for `neardup serve`, whose memory bound is
//! documented per connection.

/// Bytes a heap grows by at least (glibc's `M_TOP_PAD`).
pub const TOP_PAD: usize = 64 << 20;

/// Makes heaps grow in steps of [`TOP_PAD`]; call before the worker
/// threads start. Does nothing where the allocator is not glibc's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn grow_in_large_steps() {
    // SAFETY: `mallopt` only sets a parameter of glibc's allocator; it takes
    // the allocator's own lock, is valid to call at any time, and
    // `M_TOP_PAD` accepts any non-negative size.
    let _ = unsafe { libc::mallopt(libc::M_TOP_PAD, TOP_PAD as libc::c_int) };
}

/// Makes heaps grow in steps of [`TOP_PAD`]; call before the worker
/// threads start. Does nothing where the allocator is not glibc's.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn grow_in_large_steps() {}
