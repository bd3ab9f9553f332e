//! The I/O side of `log`: opens a file or stdin, detects gzip/zstd by magic bytes, and feeds
//! complete lines to [`Summary::add_in`] from fixed-size buffers (bounded memory whatever the size).
//! Plain files are split into regions at line boundaries (up to 16 per core), which the
//! threads, one per core, take in turn and read with positioned reads (`pread`); the regions'
//! summaries are merged in file order. Positioned reads
//! rather than a memory map keep the resident set bounded: touched pages of a 1.5 GB mapping would
//! count in the process's RSS.

use super::summary::Summary;
// Feeding a reader to a summary is pure and lives in the parsers crate (crates/parsers).
use rocm_doctor_parsers::logscan::feed::feed;
pub use rocm_doctor_parsers::logscan::feed::scan_reader;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes a region reader asks for per call: half the per-core L2 of the benchmark machine's
/// AMD EPYC (512 KiB; newer cores have more), so the kernel copies into cache lines the parse
/// then reads hot, instead of streaming 4 MiB through to the next level and back.
const READ_CHUNK: usize = 256 << 10;
/// Regions smaller than this are not worth a thread.
const MIN_REGION: u64 = 16 << 20;
/// At most this many regions per thread: the threads take regions from a shared counter, so
/// a thread whose core is slower (a busy machine, a VM whose host takes the CPU away) takes
/// fewer of them, and all threads finish together; with one region per thread the slowest
/// would decide the time.
const REGIONS_PER_THREAD: u64 = 16;

/// A reader over `[start, end)` of a file, by positioned reads.
/// Bytes of the input read so far (all threads; compressed bytes for .gz/.zst files), for
/// the progress line only.
pub(crate) static READ_BYTES: AtomicU64 = AtomicU64::new(0);

/// A reader that adds what it reads to [`READ_BYTES`].
struct Counted<R>(R);

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        READ_BYTES.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

struct Region<'a> {
    f: &'a File,
    pos: u64,
    end: u64,
}

impl Read for Region<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want =
            (self.end.saturating_sub(self.pos)).min(buf.len().min(READ_CHUNK) as u64) as usize;
        if want == 0 {
            return Ok(0);
        }
        let n = self.f.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        READ_BYTES.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The offset just after the first `\n` at or after `from` (or `len`).
fn next_line_start(f: &File, from: u64, len: u64) -> io::Result<u64> {
    let mut buf = vec![0u8; 64 << 10];
    let mut pos = from;
    while pos < len {
        let n = f.read_at(&mut buf, pos)?;
        if n == 0 {
            break;
        }
        if let Some(p) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + p as u64 + 1);
        }
        pos += n as u64;
    }
    Ok(len)
}

/// Summarises a plain file with up to `threads` threads.
pub(crate) fn scan_plain(f: &File, len: u64, threads: usize) -> io::Result<Summary> {
    scan_plain_regions(f, len, threads, MIN_REGION)
}

/// [`scan_plain`] with the smallest region a thread gets (tests use tiny regions to prove the
/// line-boundary stitching).
pub fn scan_plain_regions(
    f: &File,
    len: u64,
    threads: usize,
    min_region: u64,
) -> io::Result<Summary> {
    let threads = threads.max(1) as u64;
    // No region below `min_region`; more regions than threads come in a multiple of the thread
    // count, so that equal cores get equal shares.
    let mut parts = (len / min_region.max(1)).clamp(1, threads * REGIONS_PER_THREAD);
    if parts > threads {
        parts -= parts % threads;
    }
    let mut bounds = vec![0u64];
    for i in 1..parts {
        let b = next_line_start(f, len * i / parts, len)?;
        if b > *bounds.last().unwrap_or(&0) && b < len {
            bounds.push(b);
        }
    }
    bounds.push(len);
    let regions = bounds.len() - 1;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let merged = std::sync::Mutex::new(InOrder::default());
    let workers = (threads as usize).min(regions);
    let results: Vec<io::Result<()>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                sc.spawn(|| {
                    let mut buf = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let (Some(&start), Some(&end)) = (bounds.get(i), bounds.get(i + 1)) else {
                            return Ok(());
                        };
                        let mut s = Summary::default();
                        feed(Region { f, pos: start, end }, &mut s, &mut buf)?;
                        if i + 1 != regions {
                            s.truncated_last_line = false;
                        }
                        merged.lock().unwrap_or_else(|e| e.into_inner()).add(i, s);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a scanning thread panicked")))
            })
            .collect()
    });
    for r in results {
        r?;
    }
    let merged = merged.into_inner().unwrap_or_else(|e| e.into_inner());
    if merged.next != regions {
        return Err(io::Error::other("a region of the file was not summarised"));
    }
    let mut all = merged.all;
    all.finish();
    Ok(all)
}

/// Region summaries folded in file order as they finish. A region that finishes before an
/// earlier one waits for it; the rest are merged at once, so the summaries alive at a time are
/// usually one per thread plus the total (and never more than the regions, 16 per thread).
#[derive(Default)]
struct InOrder {
    /// The index of the region to merge next.
    next: usize,
    waiting: std::collections::BTreeMap<usize, Summary>,
    all: Summary,
}

impl InOrder {
    fn add(&mut self, i: usize, s: Summary) {
        self.waiting.insert(i, s);
        while let Some(s) = self.waiting.remove(&self.next) {
            self.all.merge(s);
            self.next += 1;
        }
    }
}

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    Plain,
    Gzip,
    Zstd,
}

impl Compression {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Compression::Plain => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// Detects gzip (RFC 1952: 1f 8b) and zstd (RFC 8878: 28 b5 2f fd) by their magic bytes.
pub(crate) fn detect(head: &[u8]) -> Compression {
    if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::Plain
    }
}

fn scan_stream<R: Read>(r: R, c: Compression) -> io::Result<Summary> {
    let mut s = Summary::default();
    let read = match c {
        Compression::Plain => return scan_reader(r, &mut s).map(|()| s),
        // Concatenated gzip members (`cat a.gz b.gz`) are one stream to gunzip, so to us too.
        Compression::Gzip => scan_reader(flate2::read::MultiGzDecoder::new(r), &mut s),
        Compression::Zstd => scan_reader(zstd::stream::read::Decoder::new(r)?, &mut s),
    };
    // A compressed log cut short (a copy interrupted, a full disk, a rotated file still being
    // written) or corrupt further on: what was decompressed before is summarised, and the
    // summary says where reading stopped rather than giving nothing.
    if let Err(e) = read {
        s.finish();
        s.read_error = Some(stream_error(c, &e, s.bytes));
    }
    Ok(s)
}

/// One line for a compressed stream that ended early or is corrupt after `bytes` bytes of
/// decompressed text.
fn stream_error(c: Compression, e: &io::Error, bytes: u64) -> String {
    let c = c.name();
    if e.kind() == io::ErrorKind::UnexpectedEof {
        format!(
            "unexpected end of {c} stream after {bytes} bytes (decompressed); the summary \
            covers what was read"
        )
    } else {
        format!(
            "{c} stream unreadable after {bytes} bytes (decompressed): {e}; the summary \
            covers what was read"
        )
    }
}

/// Summarises a path (`-` = stdin), returning the summary and the input's compression.
pub(crate) fn scan_path(path: &Path, threads: usize) -> io::Result<(Summary, Compression)> {
    if path.as_os_str() == "-" {
        let mut stdin = io::stdin().lock();
        let mut head = [0u8; 4];
        let mut n = 0;
        while n < head.len() {
            match stdin.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let c = detect(&head[..n]);
        let r = io::Cursor::new(head[..n].to_vec()).chain(stdin);
        return Ok((scan_stream(r, c)?, c));
    }
    // Issue 25, item 5: a FIFO or a device named as the log would block or never end: opened
    // without blocking, a regular file only (a stream goes through `-`).
    let crate::host::open::OpenedFile { file: f, meta } =
        crate::host::open::open_regular(path, crate::host::open::FinalLink::Follow).map_err(
            |e| match e.kind() {
                io::ErrorKind::InvalidInput => io::Error::new(
                    e.kind(),
                    format!("{e} (only regular files are read; pipe a stream into `-`)"),
                ),
                _ => e,
            },
        )?;
    let mut head = [0u8; 4];
    let n = f.read_at(&mut head, 0)?;
    let c = detect(&head[..n]);
    if c == Compression::Plain && meta.is_file() {
        return Ok((scan_plain(&f, meta.len(), threads)?, c));
    }
    Ok((scan_stream(Counted(f), c)?, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads past the cap are counted the same in one pass and in regions merged.
    #[test]
    fn threads_past_the_cap_are_counted_across_regions() {
        use std::io::Write;
        let cap = super::super::summary::MAX_THREADS as u64;
        let mut f = tempfile::tempfile().unwrap();
        let mut text = String::new();
        for t in 0..cap + 300 {
            for k in 0..2 {
                text.push_str(&format!(
                    ":3:hip_memory.cpp           :100 : {:010} us: [pid:7     tid: 0x{:x}] \
                        \x1b[32m hipMalloc ( 0x1, 64 ) \x1b[0m\n",
                    1000 + 2 * t + k,
                    t + 1
                ));
            }
        }
        f.write_all(text.as_bytes()).unwrap();
        let len = text.len() as u64;
        for min_region in [len, 64 << 10] {
            let s = scan_plain_regions(&f, len, 4, min_region).unwrap();
            assert_eq!(s.threads.len() as u64, cap, "{min_region}");
            assert_eq!(s.untracked_threads, 300, "{min_region}");
            assert_eq!(s.untracked_thread_lines, 600, "{min_region}");
            assert!(!s.untracked_threads_capped);
        }
    }

    /// Regions handed in out of order are merged in file order: the same summary as one pass,
    /// a call in one region paired with its return in the next included.
    #[test]
    fn regions_finishing_out_of_order_merge_in_file_order() {
        let lines: Vec<String> = (0..9)
            .map(|i| {
                let body = if i % 2 == 0 {
                    "\x1b[32m hipMalloc ( 0x1, 64 ) \x1b[0m".to_string()
                } else {
                    format!("hipMalloc: Returned hipErrorOutOfMemory : line {i}")
                };
                format!(
                    ":3:hip_memory.cpp           :100 : {:010} us: [pid:7     tid: 0x{:x}] {body}",
                    1000 + i,
                    1 + i % 3
                )
            })
            .collect();
        let summarise = |part: &[String]| {
            let mut s = Summary::default();
            for (n, l) in part.iter().enumerate() {
                s.add(l.as_bytes(), n as u64 + 1);
            }
            s
        };
        let mut one = summarise(&lines);
        one.finish();
        let mut merged = InOrder::default();
        // (region handed in, the region merged next after it)
        for (i, next) in [(2, 0), (0, 1), (1, 3)] {
            merged.add(i, summarise(&lines[i * 3..i * 3 + 3]));
            assert_eq!(merged.next, next);
        }
        assert!(merged.waiting.is_empty());
        merged.all.finish();
        let json = |s: &Summary| serde_json::to_string(s).unwrap_or_default();
        assert_eq!(json(&merged.all), json(&one));
        assert_eq!(merged.all.lines, 9);
    }
}
