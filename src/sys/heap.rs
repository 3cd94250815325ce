//! The bytes this process's C heap holds, as glibc's allocator counts them.
//!
//! An in-memory index (vectorlite's HNSW, allocated by C++ inside the extension) has no file
//! to measure and no function that tells its size; what the allocator handed out while it was
//! built is its size. `mallinfo2` sums every arena's allocated chunks and the blocks it
//! mapped on its own, so the difference over a build is the memory that build kept, whatever
//! the resident set (which a freed earlier index's pages can fill) says. Only glibc keeps these
//! counts; elsewhere there is no reading.

/// Bytes allocated from the C heap now (every arena, and the chunks glibc mapped directly);
/// `None` where the C library is not glibc.
pub fn allocated() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 takes no arguments and returns a plain struct by value.
        let m = unsafe { libc::mallinfo2() };
        Some((m.uordblks + m.hblkhd) as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count is the whole process's, and other tests allocate and free beside this one:
    /// a block far larger than they move (256 MiB, mapped on its own, its pages never touched)
    /// shows in it, and goes when freed, within a margin of 64 MiB.
    #[test]
    fn a_block_kept_shows_in_the_count_and_goes_when_freed() {
        const SIZE: u64 = 256 << 20;
        const MARGIN: u64 = 64 << 20;
        let before = allocated().expect("glibc counts its heap");
        // black_box: an unused malloc and free would be removed by the optimiser.
        // SAFETY: a plain malloc and free of a block this test owns.
        let p = std::hint::black_box(unsafe { libc::malloc(SIZE as usize) });
        assert!(!p.is_null());
        let during = allocated().unwrap();
        unsafe { libc::free(std::hint::black_box(p)) };
        let after = allocated().unwrap();
        assert!(during + MARGIN >= before + SIZE, "{before} -> {during}");
        assert!(after + SIZE <= during + MARGIN, "{during} -> {after}");
    }
}
