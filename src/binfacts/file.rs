//! Inspecting one file: memory-mapped, bundle by bundle, pages released as we go so the
//! resident set stays independent of the file's size.

use crate::codeobj::blob::{self, BlobReport, Format, Options};
use crate::codeobj::hostelf::{self, Span};
use crate::codeobj::{amdgpu, elf, sniff, Magic};
use crate::host::{io_error_text, Host};
use crate::isa::TargetId;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// A host program or library (x86-64, aarch64...), with or without device code.
    HostElf,
    /// A bare AMDGPU code object (`.co`, `.hsaco`).
    CodeObject,
    /// A file that is one offload bundle (uncompressed or CCOB).
    Bundle,
    /// Neither ELF nor bundle.
    Other,
    /// Could not be opened or mapped.
    Unreadable,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub path: PathBuf,
    /// Other names of the same file met while walking (soname links), judged once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_named: Vec<PathBuf>,
    pub size: u64,
    pub kind: FileKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fatbin: Option<Span>,
    pub wrappers: usize,
    /// Wrappers with the `HIPK` magic: code objects live in `.kpack` files next to the library.
    #[serde(skip_serializing_if = "is_zero")]
    pub kpack_wrappers: usize,
    pub bundles: Vec<BlobReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_object: Option<amdgpu::CodeObject>,
    /// The distinct target ids of the device code found.
    pub isas: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn is_zero(v: &usize) -> bool {
    *v == 0
}

/// A code object the runtime could pick: its target and generic version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub target: TargetId,
    pub generic_version: Option<u32>,
}

impl FileReport {
    fn empty(path: &Path, size: u64, kind: FileKind) -> Self {
        FileReport {
            path: path.to_path_buf(),
            also_named: Vec::new(),
            size,
            kind,
            fatbin: None,
            wrappers: 0,
            kpack_wrappers: 0,
            bundles: Vec::new(),
            code_object: None,
            isas: Vec::new(),
            problems: Vec::new(),
            error: None,
        }
    }

    pub(crate) fn has_device_code(&self) -> bool {
        self.code_object.is_some()
            || self
                .bundles
                .iter()
                .any(|b| b.entries.iter().any(|e| e.is_device()))
            || self.kpack_wrappers > 0
    }

    pub(crate) fn candidates(&self) -> Vec<Candidate> {
        let mut v: Vec<Candidate> = Vec::new();
        if let Some(t) = self.code_object.as_ref().and_then(|c| c.target()) {
            v.push(Candidate {
                target: t,
                generic_version: self.code_object.as_ref().and_then(|c| c.generic_version),
            });
        }
        for e in self
            .bundles
            .iter()
            .flat_map(|b| &b.entries)
            .filter(|e| e.is_device() && e.error.is_none())
        {
            if let Some(t) = e.effective_target() {
                let c = Candidate {
                    target: t,
                    generic_version: e.generic_version(),
                };
                if !v.contains(&c) {
                    v.push(c);
                }
            }
        }
        v
    }

    pub(crate) fn ccob_bundles(&self) -> impl Iterator<Item = &BlobReport> {
        self.bundles.iter().filter(|b| b.format == Format::Ccob)
    }

    pub(crate) fn uncompressed_bundles(&self) -> usize {
        self.bundles
            .iter()
            .filter(|b| b.format == Format::Uncompressed)
            .count()
    }

    fn finish(mut self) -> Self {
        let mut set = BTreeSet::new();
        for c in self.candidates() {
            set.insert(c.target.to_string());
        }
        for e in self.bundles.iter().flat_map(|b| &b.entries) {
            if e.is_device() && e.effective_target().is_none() {
                if let Some(t) = &e.target {
                    set.insert(t.clone());
                }
            }
        }
        self.isas = set.into_iter().collect();
        self
    }
}

/// How far around a touched page the kernel may have mapped others: fault-around maps the
/// aligned 64 KiB around a fault, and page-cache large folios (up to 2 MiB) are mapped whole.
const FAULT_AROUND: u64 = 2 << 20;

/// Releases a bundle's range widened by [`FAULT_AROUND`] on both sides (a fault may map pages
/// reaching back into bundles already released).
fn release_around(done: &dyn Fn(u64, u64), start: u64, len: u64) {
    let from = start.saturating_sub(FAULT_AROUND);
    done(from, (start - from) + len + FAULT_AROUND);
}

/// Inspects the file at a machine path.
/// `inspect_file` with the default options, read once per root and process: the default
/// run's `libs.code-objects` and the `known-issues.*` checks judge the same installed
/// libraries (librocblas is 1 GB) in parallel threads; the first reads, the others wait.
pub(crate) fn inspect_file_shared(host: &Host, path: &Path) -> std::sync::Arc<FileReport> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Cell = Arc<OnceLock<Arc<FileReport>>>;
    static CACHE: OnceLock<Mutex<HashMap<(std::path::PathBuf, std::path::PathBuf), Cell>>> =
        OnceLock::new();
    let key = (host.fs.root().to_path_buf(), path.to_path_buf());
    let cell = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_default()
        .clone();
    cell.get_or_init(|| Arc::new(inspect_file(host, path, &Options::default())))
        .clone()
}

pub(crate) fn inspect_file(host: &Host, path: &Path, opts: &Options) -> FileReport {
    let file = match host.fs.open(path) {
        Ok(f) => f,
        Err(e) => return unreadable(path, format!("cannot open: {}", io_error_text(&e))),
    };
    let size = match file.metadata() {
        Ok(m) if m.is_file() => m.len(),
        Ok(_) => return unreadable(path, "not a regular file".into()),
        Err(e) => return unreadable(path, format!("cannot stat: {}", io_error_text(&e))),
    };
    if size == 0 {
        let mut r = FileReport::empty(path, 0, FileKind::Other);
        r.error = Some("empty file".into());
        return r;
    }
    // A file truncated by another process while mapped reads as zeros past its new end instead
    // of killing the doctor with SIGBUS (host::map); the report then says so.
    let map = match crate::host::map::SafeMap::map(&file) {
        Ok(m) => m,
        Err(e) => return unreadable(path, format!("cannot map: {}", io_error_text(&e))),
    };
    let mut r = inspect_mapped(&map, path, opts, &|off, len| release(map.inner(), off, len));
    if map.shrank() {
        let now = file.metadata().map(|m| m.len()).unwrap_or(0);
        r.error = Some(format!(
            "the file shrank while it was read ({size} bytes, now {now}): what lay past its new \
                end read as zeros, so this report is unreliable"
        ));
    }
    r
}

/// Drops the mapped pages of a range we are done with (they are re-read from the page cache if
/// touched again), so the resident set stays small on large files.
fn release(map: &memmap2::Mmap, off: u64, len: u64) {
    let (Ok(off), Ok(len)) = (usize::try_from(off), usize::try_from(len)) else {
        return;
    };
    if off >= map.len() {
        return;
    }
    let len = len.min(map.len() - off);
    // SAFETY: a shared read-only file mapping: MADV_DONTNEED only drops our page-table entries,
    // the contents stay those of the file. No slice into this range is alive here (every report
    // owns its data).
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, off, len) };
}

fn unreadable(path: &Path, why: String) -> FileReport {
    let mut r = FileReport::empty(path, 0, FileKind::Unreadable);
    r.error = Some(why);
    r
}

/// The pure part: inspects bytes (a mapped file). `done(off, len)` is called after each bundle.
pub fn inspect_mapped(
    b: &[u8],
    path: &Path,
    opts: &Options,
    done: &dyn Fn(u64, u64),
) -> FileReport {
    let size = b.len() as u64;
    match sniff(b) {
        Magic::Bundle | Magic::Ccob => {
            let mut r = FileReport::empty(path, size, FileKind::Bundle);
            r.bundles.push(blob::inspect(b, 0, opts));
            r.finish()
        }
        Magic::Elf => inspect_elf(b, path, opts, done),
        Magic::Unknown => {
            let mut r = FileReport::empty(path, size, FileKind::Other);
            r.error = Some(format!(
                "not an ELF file or offload bundle (starts {})",
                hex(b)
            ));
            r
        }
    }
}

/// Most bytes the compressed (`CCOB`) bundles of one file may decompress to in all (issue 25,
/// item 5): each bundle has its own cap (`ccob::DEFAULT_CAP`), but a small file can hold many
/// bundles that each claim just under it (a 292 KB ELF decompressed to 8 GiB). The largest real
/// fat binaries measured decompress to far less (docs/security.md, section 5).
pub(crate) const FILE_DECOMPRESS_CAP: u64 = 4 << 30;

/// The decompression budget of one file: bundles are inspected with what is left of it as
/// their cap, and the report says when it ran out.
struct Budget<'o> {
    opts: &'o Options,
    left: u64,
    capped: usize,
}

impl<'o> Budget<'o> {
    fn new(opts: &'o Options) -> Self {
        Budget {
            opts,
            left: FILE_DECOMPRESS_CAP,
            capped: 0,
        }
    }

    fn inspect(&mut self, b: &[u8], base: u64) -> BlobReport {
        let mut o = *self.opts;
        o.cap = o.cap.min(self.left);
        let mut rep = blob::inspect(b, base, &o);
        if let Some(c) = &rep.ccob {
            if c.uncompressed_size <= o.cap {
                // Decompressed (or tried: a stream that lies still cost up to its size).
                self.left = self.left.saturating_sub(c.uncompressed_size);
            } else if o.cap < self.opts.cap {
                self.capped += 1;
                rep.error = Some(format!(
                    "not decompressed (capped): it would decompress to {} bytes, and {} of the \
                        {FILE_DECOMPRESS_CAP} bytes one file may decompress to are used",
                    c.uncompressed_size,
                    FILE_DECOMPRESS_CAP - self.left
                ));
            }
        }
        rep
    }

    fn note(&self) -> Option<String> {
        (self.capped > 0).then(|| {
            format!(
                "decompression capped: the compressed bundles of this file decompress to more \
                    than {} bytes in all; {} bundles past the cap were not decompressed",
                FILE_DECOMPRESS_CAP, self.capped
            )
        })
    }
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .take(8)
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn inspect_elf(b: &[u8], path: &Path, opts: &Options, done: &dyn Fn(u64, u64)) -> FileReport {
    let size = b.len() as u64;
    let h = match elf::parse_header(b) {
        Ok(h) => h,
        Err(e) => {
            let mut r = FileReport::empty(path, size, FileKind::Other);
            r.error = Some(e.to_string());
            return r;
        }
    };
    if h.e_machine == elf::EM_AMDGPU {
        let mut r = FileReport::empty(path, size, FileKind::CodeObject);
        match amdgpu::parse(b, opts.kernel_names) {
            Ok(c) => r.code_object = Some(c),
            Err(e) => r.error = Some(e.to_string()),
        }
        return r.finish();
    }
    let mut r = FileReport::empty(path, size, FileKind::HostElf);
    let layout = match hostelf::locate_with(b, false) {
        Ok(l) => l,
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    r.wrappers = layout.wrappers.len();
    r.kpack_wrappers = layout.wrappers.iter().filter(|w| w.magic == "HIPK").count();
    r.fatbin = layout.fatbin.clone();
    r.problems = layout.problems.clone();
    // Walk .hip_fatbin and read each bundle in the same pass, giving its pages back at once
    // (with the kernel's fault-around, touching a header maps up to 64 KiB around it).
    let mut seen = Vec::new();
    let mut budget = Budget::new(opts);
    if let Some(f) = &layout.fatbin {
        let sec = crate::codeobj::slice(b, f.offset, f.size, ".hip_fatbin").unwrap_or(&[]);
        let mut pos = 0u64;
        while let Some(at) = blob::next_magic(sec, pos) {
            let rep = budget.inspect(&sec[at as usize..], f.offset + at);
            release_around(done, f.offset + at, rep.stored_size);
            if rep.stored_size == 0 {
                // Not a bundle after all (a magic in padding or a corrupt header): note and move on.
                r.problems.push(format!(
                    ".hip_fatbin+0x{at:x}: {}",
                    rep.error.clone().unwrap_or_default()
                ));
                pos = at + 1;
                continue;
            }
            pos = at + rep.stored_size;
            seen.push(f.offset + at);
            r.bundles.push(rep);
        }
    }
    // Wrapper targets the walk did not reach (bundles outside .hip_fatbin, odd alignment).
    for &off in layout.bundles.iter().filter(|o| !seen.contains(o)) {
        let Some(at) = b.get(off as usize..) else {
            continue;
        };
        let rep = budget.inspect(at, off);
        release_around(done, off, rep.stored_size);
        r.bundles.push(rep);
    }
    if let Some(note) = budget.note() {
        r.problems.push(note);
    }
    for (id, span) in &layout.object_sections {
        let data = crate::codeobj::slice(b, span.offset, span.size, "offload bundle section")
            .unwrap_or(&[]);
        let entry = blob::entry(id, span.offset, data, opts);
        match r
            .bundles
            .last_mut()
            .filter(|l| l.format == Format::ObjectSections)
        {
            Some(last) => last.entries.push(entry),
            None => r.bundles.push(BlobReport {
                offset: span.offset,
                format: Format::ObjectSections,
                stored_size: span.size,
                ccob: None,
                entries: vec![entry],
                error: None,
            }),
        }
    }
    r.finish()
}
