//! The process's memory allocator: jemalloc, for Rust's allocations and for tree-sitter's C
//! runtime alike (the system's where jemalloc does not build, with MSVC).
//!
//! Why not the system's: with glibc's `malloc`, allocating and freeing (most of it trees,
//! their parse stacks and the documents built from them, often freed on another thread than
//! the one that allocated them) was a quarter of a cold SCIP export's CPU,
//! `malloc_consolidate` alone 4%. Why jemalloc and not mimalloc: both took a quarter off
//! that CPU, and mimalloc held half as much memory again at the peak (docs/performance.md,
//! "The allocator").
//!
//! Invariant: tree-sitter takes its allocator once, before it allocates anything
//! ([`use_for_tree_sitter`], the first thing `main` does): memory it allocated with one
//! allocator must never reach another's `free`. Processes that never call it (the test
//! binaries, which use the library directly; the bench binary calls it) keep the C library's
//! allocator for tree-sitter; nothing else depends on which one it is.

#[cfg(not(target_env = "msvc"))]
mod jemalloc {
    use std::ffi::c_void;

    use tikv_jemalloc_sys as je;

    #[global_allocator]
    static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

    /// jemalloc's options, read as it starts (its `malloc_conf`). Pages freed are given back
    /// to the system after a second (`dirty_decay_ms`; ten by default) and at once when
    /// [`release_freed_memory`] asks, not kept as "muzzy" pages the kernel may reclaim
    /// but counts as resident until it does: the memory limit reads the resident size.
    /// Given back at once (`dirty_decay_ms:0`), a cold SCIP export spent eight times the
    /// system CPU.
    #[unsafe(export_name = "_rjem_malloc_conf")]
    static MALLOC_CONF: &[u8; 37] = b"dirty_decay_ms:1000,muzzy_decay_ms:0\0";

    pub fn use_for_tree_sitter() {
        unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
            // SAFETY: any size may be asked; tree-sitter aborts on null as with libc's.
            unsafe { je::malloc(size) }
        }
        unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
            // SAFETY: as for malloc; calloc checks the product for overflow.
            unsafe { je::calloc(count, size) }
        }
        unsafe extern "C" fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
            // SAFETY: `ptr` is null or came from these functions (the module's invariant).
            unsafe { je::realloc(ptr, size) }
        }
        unsafe extern "C" fn free(ptr: *mut c_void) {
            // SAFETY: as for realloc.
            unsafe { je::free(ptr) }
        }
        // SAFETY: the four functions are one allocator's, aligned as malloc's are, and this
        // runs before tree-sitter has allocated anything (the module's invariant).
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc,
                calloc,
                realloc,
                free,
            }));
        }
    }

    pub fn release_freed_memory() {
        // Every arena's (`MALLCTL_ARENAS_ALL` is 4096): the threads allocate from several.
        const PURGE_ALL_ARENAS: &std::ffi::CStr = c"arena.4096.purge";
        // SAFETY: a purge reads and writes no value; it only returns free pages. Its status
        // is not an error worth reporting: the memory stays counted, as before the call.
        unsafe {
            je::mallctl(
                PURGE_ALL_ARENAS.as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            );
        }
    }
}

/// Makes tree-sitter allocate with the process's allocator. Call it before any other use of
/// tree-sitter in the process, once.
pub fn use_for_tree_sitter() {
    #[cfg(not(target_env = "msvc"))]
    jemalloc::use_for_tree_sitter();
}

/// Gives the allocators' free pages back to the system now. Freed memory stays with its
/// arena for a second otherwise (glibc's, until trimmed): after an index's shard, or a
/// rename's scratch database, tens to hundreds of megabytes counted as resident, which the
/// memory limit reads.
pub fn release_freed_memory() {
    #[cfg(not(target_env = "msvc"))]
    jemalloc::release_freed_memory();
    // tree-sitter's, in a process that never called `use_for_tree_sitter`.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns unused pages of the C library's own heaps.
    unsafe {
        libc::malloc_trim(0);
    }
}
