//! `inspect` output, streamed: each file is written as soon as it is read and judged, so memory
//! stays flat whatever the tree (docs/benchmarks.md). Human text: the listing, then the
//! findings. JSON: one document whose `files` array is written element by element; the keys
//! that depend on every file (`findings`, `exit_code`, `summary`) come after the listing
//! (docs/json.md).

use super::{finish, visit, Options, Tally};
use crate::binfacts::file::{FileKind, FileReport};
use crate::codeobj::blob;
use crate::host::Host;
use crate::report::progress::Progress;
use crate::report::{self, exit, human};
use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What one `inspect` run works on.
pub(crate) struct Run<'a> {
    pub host: &'a Host,
    pub paths: &'a [PathBuf],
    pub o: &'a Options,
    pub strict: bool,
}

/// stdout that keeps accepting writes after the reader went away (`| head`): the work goes
/// on so that the exit code still reflects every file.
struct Out<W: Write> {
    w: W,
    closed: bool,
}

impl<W: Write> Write for Out<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(b.len());
        }
        match self.w.write(b) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(b.len())
            }
            r => r,
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.w.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

fn stdout() -> Out<io::BufWriter<io::StdoutLock<'static>>> {
    Out {
        w: io::BufWriter::new(io::stdout().lock()),
        closed: false,
    }
}

fn cannot_write(e: &dyn std::fmt::Display) -> i32 {
    eprintln!("rocm-doctor: cannot write the report: {e}");
    exit::USAGE_OR_INTERNAL
}

fn tick_line(p: &Path, t: &Tally) -> String {
    format!(
        "inspect: {} with device code, {} without · {}",
        t.files,
        t.files_without_device_code,
        p.display()
    )
}

/// The human listing and findings; returns the exit code.
pub(crate) fn human(run: &Run<'_>, mut tally: Tally, color: bool, verbose: u8) -> i32 {
    let mut out = stdout();
    let mut progress = Progress::for_run(false);
    let prog = RefCell::new(&mut progress);
    let visited = {
        let out = &mut out;
        let mut emit = |r: FileReport| -> io::Result<()> {
            prog.borrow_mut().clear();
            // Straight into the buffered stdout: a file's listing (tens of thousands of
            // kernel names with --kernels) is never built as one string.
            // File and kernel names come from the tree: their control characters are shown.
            let mut w = FmtIo {
                w: &mut *out,
                err: None,
                escape: report::escape::visible,
            };
            render_file(&r, &mut w);
            w.err.map_or(Ok(()), Err)
        };
        let mut tick = |p: &Path, t: &Tally| prog.borrow_mut().tick(|| tick_line(p, t));
        visit(run.host, run.paths, run.o, &mut tally, &mut emit, &mut tick)
    };
    progress.clear();
    if let Err(e) = visited {
        return cannot_write(&e);
    }
    finish(run.host, &mut tally, run.o);
    let code = tally.kept.counts().exit_code(run.strict);
    let tail = render_tail(&tally);
    // The findings go straight to the buffered stdout, read back from where they were kept.
    let tail = report::escape::visible(&tail);
    let written = out.write_all(tail.as_bytes()).and_then(|_| {
        let mut w = FmtIo {
            w: &mut out,
            err: None,
            escape: report::escape::visible_keep_colour,
        };
        let rendered = human::render_to(&tally.kept, &human::Options { color, verbose }, &mut w);
        w.err.map_or(rendered, Err)
    });
    match written.and_then(|_| out.flush()) {
        Ok(()) => code,
        Err(e) => cannot_write(&e),
    }
}

/// The JSON document, streamed; returns the exit code.
pub(crate) fn json(run: &Run<'_>, tally: Tally) -> i32 {
    let doc = Doc {
        run,
        tally: RefCell::new(tally),
    };
    let mut out = stdout();
    let written = serde_json::to_writer_pretty(&mut out, &doc)
        .map_err(io::Error::other)
        .and_then(|_| writeln!(out))
        .and_then(|_| out.flush());
    match written {
        Ok(()) => doc.tally.borrow().kept.counts().exit_code(run.strict),
        Err(e) => cannot_write(&e),
    }
}

/// The whole document. Serialising it does the work: `files` is written while the tree is
/// walked.
struct Doc<'a> {
    run: &'a Run<'a>,
    tally: RefCell<Tally>,
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("schema_version", &report::json::SCHEMA_VERSION)?;
        m.serialize_entry("tool", &report::json::TOOL)?;
        m.serialize_entry("command", "inspect")?;
        m.serialize_entry("inspect", &Body(self))?;
        let c = self.tally.borrow().kept.counts();
        m.serialize_entry("exit_code", &c.exit_code(self.run.strict))?;
        m.serialize_entry("summary", &c)?;
        m.end()
    }
}

/// The `inspect` object: the same keys as before streaming, `findings` last.
struct Body<'a>(&'a Doc<'a>);

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let mut m = s.serialize_map(None)?;
        {
            let t = d.tally.borrow();
            m.serialize_entry("targets", &t.targets)?;
            m.serialize_entry("versions", &t.versions)?;
        }
        m.serialize_entry("files", &Files(d))?;
        let mut t = d.tally.borrow_mut();
        finish(d.run.host, &mut t, d.run.o);
        m.serialize_entry("tensile", &t.tensile)?;
        if !t.symbols.is_empty() {
            m.serialize_entry("symbols", &t.symbols)?;
        }
        m.serialize_entry("files_without_device_code", &t.files_without_device_code)?;
        if !t.walk_errors.is_empty() {
            m.serialize_entry("walk_errors", &t.walk_errors)?;
        }
        if t.too_deep_count > 0 {
            m.serialize_entry(
                "not_descended",
                &serde_json::json!({
                    "max_depth": super::MAX_DEPTH,
                    "count": t.too_deep_count,
                    "dirs": t.too_deep,
                }),
            )?;
        }
        m.serialize_entry("findings", &Replay(&t.kept))?;
        m.end()
    }
}

/// The `findings` array, read back from where they were kept.
struct Replay<'a>(&'a dyn human::Findings);

impl Serialize for Replay<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        let mut failed: Option<S::Error> = None;
        let read = self.0.each(&mut |f| {
            if failed.is_none() {
                if let Err(e) = seq.serialize_element(f) {
                    failed = Some(e);
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        seq.end()
    }
}

/// The `files` array: walks the paths, writing each report as it comes.
struct Files<'a>(&'a Doc<'a>);

impl Serialize for Files<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let mut seq = s.serialize_seq(None)?;
        let mut failed: Option<S::Error> = None;
        let mut t = d.tally.borrow_mut();
        let mut emit = |r: FileReport| -> io::Result<()> {
            seq.serialize_element(&r).map_err(|e| {
                let msg = e.to_string();
                failed = Some(e);
                io::Error::other(msg)
            })
        };
        let visited = visit(
            d.run.host,
            d.run.paths,
            d.run.o,
            &mut t,
            &mut emit,
            &mut |_, _| {},
        );
        if let Some(e) = failed {
            return Err(e);
        }
        visited.map_err(S::Error::custom)?;
        seq.end()
    }
}

fn size(n: u64) -> String {
    if n >= 10 << 20 {
        format!("{} MiB", n >> 20)
    } else if n >= 10 << 10 {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// `fmt::Write` onto an `io::Write`, keeping the first I/O error.
struct FmtIo<'a, W: Write> {
    w: &'a mut W,
    err: Option<io::Error>,
    /// What every piece goes through on its way out (`report::escape`).
    escape: fn(&str) -> std::borrow::Cow<'_, str>,
}

impl<W: Write> std::fmt::Write for FmtIo<'_, W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.err.is_some() {
            return Err(std::fmt::Error);
        }
        self.w.write_all((self.escape)(s).as_bytes()).map_err(|e| {
            self.err = Some(e);
            std::fmt::Error
        })
    }
}

/// One file of the human listing.
pub(crate) fn render_file(f: &FileReport, s: &mut dyn std::fmt::Write) {
    let kind = match f.kind {
        FileKind::HostElf => "host ELF",
        FileKind::CodeObject => "AMDGPU code object",
        FileKind::Bundle => "offload bundle file",
        FileKind::Other => "not ELF",
        FileKind::Unreadable => "unreadable",
    };
    let _ = writeln!(s, "{} ({kind}, {})", f.path.display(), size(f.size));
    if let Some(e) = &f.error {
        let _ = writeln!(s, "  error: {e}");
    }
    if f.wrappers > 0 {
        let _ = writeln!(
            s,
            "  {} fat-binary wrappers, {} bundles",
            f.wrappers,
            f.bundles.len()
        );
    }
    for (i, b) in f.bundles.iter().enumerate() {
        render_bundle(b, i + 1, s);
    }
    if let Some(c) = &f.code_object {
        let _ = writeln!(
            s,
            "  {}  COv{}  {} kernels",
            c.target_id(),
            c.version.map(|v| v.to_string()).unwrap_or("?".into()),
            c.metadata
                .as_ref()
                .map(|m| m.kernel_count.to_string())
                .unwrap_or("?".into())
        );
    }
    if !f.isas.is_empty() {
        let _ = writeln!(s, "  ISAs: {}", f.isas.join(", "));
    }
}

/// One bundle (the `n`th of its file) of the listing: its format and entries (kernels too
/// where they were read).
fn render_bundle(b: &blob::BlobReport, n: usize, s: &mut dyn std::fmt::Write) {
    let fmt = match (&b.format, &b.ccob) {
        (blob::Format::Ccob, Some(c)) => format!(
            "CCOB v{} {} {} -> {}{}",
            c.version,
            c.method.as_str(),
            size(b.stored_size),
            size(c.uncompressed_size),
            match c.hash_ok {
                Some(true) => ", hash ok",
                Some(false) => ", HASH MISMATCH",
                None => "",
            }
        ),
        (blob::Format::ObjectSections, _) => "object-file bundle sections".to_string(),
        _ => format!("uncompressed {}", size(b.stored_size)),
    };
    let _ = writeln!(s, "  bundle {} at 0x{:x}: {fmt}", n, b.offset);
    if let Some(e) = &b.error {
        let _ = writeln!(s, "    error: {e}");
    }
    for e in &b.entries {
        let co = match &e.code_object {
            Some(c) => format!(
                "{}  COv{}{}  {} kernels",
                c.target_id(),
                c.version.map(|v| v.to_string()).unwrap_or("?".into()),
                c.generic_version
                    .map(|g| format!(" generic v{g}"))
                    .unwrap_or_default(),
                c.metadata
                    .as_ref()
                    .map(|m| m.kernel_count.to_string())
                    .unwrap_or("?".into())
            ),
            None => e.payload.clone().or(e.error.clone()).unwrap_or_default(),
        };
        let _ = writeln!(s, "    {:<50} {:>9}  {co}", e.id, size(e.size));
        if let Some(c) = &e.code_object {
            if let Some(m) = &c.metadata {
                for k in &m.kernels {
                    let _ = writeln!(s, "        {k}");
                }
            }
        }
    }
}

/// The human listing after the files: Tensile directories, counts, targets.
pub(crate) fn render_tail(tally: &Tally) -> String {
    let mut s = String::new();
    for t in &tally.tensile {
        let _ = writeln!(s, "{} ({} Tensile library)", t.path.display(), t.component);
        let _ = writeln!(
            s,
            "  {} catalogs, lazy for: {}",
            t.dat_files,
            t.lazy_isas.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(
            s,
            "  {} code object files ({} compressed), ISAs: {}",
            t.code_object_files,
            t.compressed_files,
            t.code_object_isas
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if tally.files_without_device_code > 0 {
        let _ = writeln!(
            s,
            "({} other ELF files without device code)",
            tally.files_without_device_code
        );
    }
    if tally.too_deep_count > 0 {
        let more = tally.too_deep_count - tally.too_deep.len();
        let _ = writeln!(
            s,
            "{} directories deeper than {} levels not descended: {}{}",
            tally.too_deep_count,
            super::MAX_DEPTH,
            tally.too_deep.join(", "),
            if more > 0 {
                format!(" ... and {more} more")
            } else {
                String::new()
            }
        );
    }
    if !tally.targets.is_empty() {
        let t: Vec<String> = tally
            .targets
            .iter()
            .map(|t| format!("{} ({})", t.target, t.source))
            .collect();
        let _ = writeln!(s, "Targets: {}", t.join(", "));
    }
    s.push('\n');
    s
}
