//! Read-only file maps that survive the file shrinking under them (issue 25, item 5).
//!
//! Touching a page of a shared file mapping that lies wholly past the end of the file raises
//! `SIGBUS` (mmap(2), "SIGBUS: Attempted access to a page of the buffer that lies beyond the end
//! of the mapped file"), so a library truncated or rewritten by another process while `inspect`
//! reads it killed the doctor. The maps stay (the readers touch only the bytes they need, and a
//! rocBLAS of hundreds of MiB is not copied), and a `SIGBUS` handler installed once makes the
//! fault harmless: when the faulting address lies in a map registered here, it maps an
//! anonymous zero page over the faulting page (`MAP_FIXED` replaces that page of the mapping)
//! and returns, so the access is retried and reads zeros. The readers check every offset and
//! treat zeros as any other corrupt data; [`SafeMap::shrank`] then tells the caller that the
//! file changed while it was read, so the result is reported as such. A fault outside these
//! maps is not ours: the handler restores the default action and returns, and the retried
//! access dies of `SIGBUS` as before.
//!
//! `mmap` is not on POSIX's list of async-signal-safe functions, but on Linux it is a plain
//! system call (no lock of the C library is taken), the same technique several databases use
//! for files they map.

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

const SLOTS: usize = 256;

/// Registered maps: start and length (0: free), and whether a fault was repaired in it.
struct Slot {
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};
static TABLE: [Slot; SLOTS] = [FREE; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();

/// A read-only shared map of a whole file, protected against `SIGBUS` while alive.
pub(crate) struct SafeMap {
    map: memmap2::Mmap,
    slot: Option<usize>,
}

impl SafeMap {
    /// Maps `file` read-only. Without a free slot (more than 256 maps alive at once) the map is
    /// still made, unprotected, as before.
    pub(crate) fn map(file: &File) -> io::Result<SafeMap> {
        install();
        // SAFETY: a read-only mapping; a file shrinking under it is handled (module doc).
        let map = unsafe { memmap2::Mmap::map(file) }?;
        let slot = register(map.as_ptr() as usize, map.len());
        Ok(SafeMap { map, slot })
    }

    /// The map itself (for `madvise`).
    pub(crate) fn inner(&self) -> &memmap2::Mmap {
        &self.map
    }

    /// Whether a page of the map was read past the end of the file (the file shrank while
    /// mapped): the bytes read there were zeros, not the file's.
    pub(crate) fn shrank(&self) -> bool {
        self.slot
            .is_some_and(|i| TABLE[i].faulted.load(Ordering::SeqCst))
    }
}

impl Deref for SafeMap {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for SafeMap {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            TABLE[i].len.store(0, Ordering::SeqCst);
            TABLE[i].start.store(0, Ordering::SeqCst);
        }
    }
}

fn register(start: usize, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    for (i, s) in TABLE.iter().enumerate() {
        if s.len
            .compare_exchange(0, usize::MAX, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            s.faulted.store(false, Ordering::SeqCst);
            s.start.store(start, Ordering::SeqCst);
            s.len.store(len, Ordering::SeqCst);
            return Some(i);
        }
    }
    None
}

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { nix::libc::sysconf(nix::libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::SeqCst);
        }
        use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
        let act = SigAction::new(
            SigHandler::SigAction(on_sigbus),
            SaFlags::SA_SIGINFO | SaFlags::SA_ONSTACK,
            SigSet::empty(),
        );
        // SAFETY: the handler only reads atomics and calls mmap/sigaction (module doc).
        let _ = unsafe { sigaction(Signal::SIGBUS, &act) };
    });
}

extern "C" fn on_sigbus(
    sig: nix::libc::c_int,
    info: *mut nix::libc::siginfo_t,
    _ctx: *mut nix::libc::c_void,
) {
    use nix::libc;
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::SeqCst);
    for s in TABLE.iter() {
        let (start, len) = (s.start.load(Ordering::SeqCst), s.len.load(Ordering::SeqCst));
        if len == 0 || len == usize::MAX || addr < start || addr - start >= len {
            continue;
        }
        let at = addr & !(page - 1);
        // SAFETY: the page lies inside a live read-only map of ours; replacing it with zeros
        // changes only what later reads of that page see.
        let r = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if r != libc::MAP_FAILED {
            s.faulted.store(true, Ordering::SeqCst);
            return;
        }
        break;
    }
    // Not ours (or the repair failed): the default action, on the retried access.
    // SAFETY: resetting a signal's disposition is async-signal-safe (sigaction(2)).
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_truncated_under_its_map_reads_zeros_and_says_so() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f");
        let mut f = File::create(&p).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        drop(f);
        let f = File::open(&p).unwrap();
        let m = SafeMap::map(&f).unwrap();
        assert!(!m.shrank());
        assert_eq!(m[0], 7);
        File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // Past the new end: would be SIGBUS without the handler.
        let tail: u64 = m[512 * 1024..].iter().map(|&b| b as u64).sum();
        assert_eq!(tail, 0);
        assert!(m.shrank());
        assert_eq!(m[0], 7, "the part still in the file is the file's");
    }
}
