//! `rocm-doctor inspect FILE|DIR...`: what GPU code binaries and libraries really carry, and
//! whether the runtime would find a code object for each GPU (or `--isa`). The I/O side:
//! memory-mapped files through `host.fs`, directory walking, Tensile library directories,
//! `--symbols`. The formats are parsed by [`crate::codeobj`]; docs/inspect.md documents the
//! output.

pub mod file;
pub mod judge;
pub mod known_issues;
pub mod matching;
pub mod runtime;
pub mod symbols;
pub mod tensile;
pub mod tensile_path;

use crate::cli::RunArgs;
use crate::codeobj::{self, blob};
use crate::config::Config;
use crate::host::{Host, Limits};
use crate::inventory::Inventory;
use crate::isa::TargetId;
use crate::report::{self, exit, human, Finding};
use file::{FileKind, FileReport};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use tensile::TensileDir;

/// What `inspect` was asked for besides the paths.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub symbols: bool,
    pub kernels: bool,
    /// Check the MD5 of every compressed bundle, not only zlib ones.
    pub verify_hash: bool,
    /// Cap on one bundle's decompressed size.
    pub cap: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            symbols: false,
            kernels: false,
            verify_hash: false,
            cap: codeobj::ccob::DEFAULT_CAP,
        }
    }
}

/// A target ISA to judge code objects for, with where it came from.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    pub target: TargetId,
    pub source: String,
}

#[derive(Debug, Serialize, Default)]
pub struct InspectResult {
    pub targets: Vec<Target>,
    /// Installed versions the known issues were evaluated against.
    pub versions: BTreeMap<String, String>,
    pub files: Vec<FileReport>,
    pub tensile: Vec<TensileDir>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<symbols::SymbolReport>,
    /// Files seen while walking directories that carry no device code.
    pub files_without_device_code: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub walk_errors: Vec<String>,
    pub findings: Vec<Finding>,
}

/// Targets: `--isa` first, then the visible GPU agents, then the inventory's other targets.
pub fn targets(inv: &Inventory) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    let mut add = |t: TargetId, source: String| {
        if !out.iter().any(|o| o.target == t) {
            out.push(Target { target: t, source });
        }
    };
    for t in &inv.cfg.isas {
        add(t.clone(), "--isa".into());
    }
    if inv.cfg.isas.is_empty() {
        for a in inv.gpu().agents.iter().filter(|a| a.visible) {
            if let Some(t) = &a.target {
                add(t.clone(), format!("agent {}", a.node));
            }
        }
        for t in &inv.targets().isas {
            add(t.isa.clone(), t.source.clone());
        }
    }
    out
}

fn blob_options(o: &Options) -> blob::Options {
    blob::Options {
        cap: o.cap,
        kernel_names: o.kernels,
        verify_hash: o.verify_hash,
    }
}

/// The first bytes of a file (to decide whether to map it).
fn head(host: &Host, p: &Path) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    let n = host
        .fs
        .open(p)
        .and_then(|mut f| f.read(&mut b))
        .unwrap_or(0);
    b.truncate(n);
    b
}

/// The Tensile component a directory is the library of: by path (`.../rocblas/library`,
/// Debian's `.../rocblas/<version>/library`), else `tensile` for any directory holding
/// TensileLibrary catalogs.
fn tensile_component(host: &Host, p: &Path) -> Option<&'static str> {
    if let Some((c, _)) = tensile::component_of_path(p) {
        return Some(c);
    }
    tensile::holds_catalogs(host, p).then_some("tensile")
}

/// Inspects the paths; no findings yet.
pub fn collect(host: &Host, paths: &[PathBuf], o: &Options, res: &mut InspectResult) {
    let bo = blob_options(o);
    for p in paths {
        if host.fs.is_dir(p) {
            walk(host, p, &bo, res);
        } else {
            res.files.push(file::inspect_file(host, p, &bo));
        }
    }
}

fn walk(host: &Host, dir: &Path, bo: &blob::Options, res: &mut InspectResult) {
    if let Some(c) = tensile_component(host, dir) {
        res.tensile.push(tensile::inspect_dir(host, dir, c, bo));
        return;
    }
    let start = host.fs.host_path(
        &host
            .fs
            .canonicalize(dir)
            .unwrap_or_else(|_| dir.to_path_buf()),
    );
    // Following links is loop-safe in walkdir (a loop is an error entry); inside a sysroot an
    // absolute link would leave it, so links are not followed there.
    let follow = host.fs.is_real_root();
    let mut tensile_dirs: Vec<(PathBuf, &'static str)> = Vec::new();
    let it = walkdir::WalkDir::new(&start)
        .follow_links(follow)
        .max_depth(64)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            if e.file_type().is_dir() {
                let mp = host.fs.machine_path(e.path());
                if let Some(c) = tensile_component(host, &mp) {
                    tensile_dirs.push((e.path().to_path_buf(), c));
                    return false;
                }
            }
            true
        });
    // A file reached under several names (soname links) is inspected once, its names listed.
    let mut seen: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    for e in it {
        let e = match e {
            Ok(e) => e,
            Err(err) => {
                if res.walk_errors.len() < 50 {
                    res.walk_errors.push(err.to_string());
                }
                continue;
            }
        };
        if !e.file_type().is_file() {
            continue;
        }
        let mp = host.fs.machine_path(e.path());
        let id = std::fs::metadata(e.path()).ok().map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        });
        if let Some(i) = id.and_then(|id| seen.get(&id).copied()) {
            res.files[i].also_named.push(mp);
            continue;
        }
        let h = head(host, &mp);
        if codeobj::sniff(&h) == codeobj::Magic::Unknown {
            continue;
        }
        let r = file::inspect_file(host, &mp, bo);
        let interesting = r.has_device_code()
            || matches!(r.kind, FileKind::Bundle | FileKind::CodeObject)
            || !r.problems.is_empty();
        if interesting {
            if let Some(id) = id {
                seen.insert(id, res.files.len());
            }
            res.files.push(r);
        } else {
            res.files_without_device_code += 1;
        }
    }
    for (p, c) in tensile_dirs {
        res.tensile
            .push(tensile::inspect_dir(host, &host.fs.machine_path(&p), c, bo));
    }
}

/// Whether a file is a rocBLAS whose Tensile library is missing or empty where its loader
/// looks ([`tensile_path::locate`]).
fn rocblas_without_tensile(host: &Host, r: &FileReport, res: &InspectResult) -> Option<PathBuf> {
    let name = r.path.file_name()?.to_str()?;
    if !name.starts_with("librocblas.so") {
        return None;
    }
    let loc = tensile_path::locate(host, &tensile_path::ROCBLAS, &r.path);
    let known = res.tensile.iter().find(|t| t.path == loc.dir);
    let empty = match known {
        Some(t) => t.is_empty(),
        None => !tensile::holds_catalogs(host, &loc.dir),
    };
    empty.then_some(loc.dir)
}

/// Judges everything collected: matches, Tensile coverage, known issues, symbols.
pub fn judge_all(host: &Host, res: &mut InspectResult, o: &Options) {
    let env = |k: &str| host.env.get_str(k);
    let mut findings = Vec::new();
    for r in &res.files {
        let subject = r.path.display().to_string();
        if let Some(e) = &r.error {
            findings.push(judge::stamp(
                Finding::error(format!("cannot inspect: {e}")).subject(subject.clone()),
            ));
            continue;
        }
        findings.extend(judge::read_problems(r));
        if !r.has_device_code() {
            findings.push(judge::stamp(
                Finding::skip(
                    "carries no HIP device code (.hip_fatbin, offload bundle or code object)",
                )
                .subject(subject.clone()),
            ));
        } else if res.targets.is_empty() {
            findings.push(judge::stamp(
                Finding::skip(format!(
                    "no GPU agents and no --isa: not matched (carries {})",
                    r.isas.join(", ")
                ))
                .subject(subject.clone()),
            ));
        } else {
            findings.extend(judge::file_against_targets(r, &res.targets));
        }
        let mut extra: Vec<&str> = Vec::new();
        if rocblas_without_tensile(host, r, res).is_some() {
            extra.push("dir.tensile-missing");
        }
        let undefined: Vec<String> = res
            .symbols
            .iter()
            .find(|s| s.path == r.path)
            .map(|s| s.unresolved.clone())
            .unwrap_or_default();
        findings.extend(judge::known_issues_for(
            r,
            &extra,
            &res.versions,
            &env,
            &undefined,
        ));
    }
    for t in &res.tensile {
        if res.targets.is_empty() {
            let isas: Vec<String> = t
                .lazy_isas
                .iter()
                .chain(&t.code_object_isas)
                .cloned()
                .collect();
            findings.push(judge::stamp(
                Finding::skip(format!(
                    "no GPU agents and no --isa: not matched (covers {})",
                    isas.join(", ")
                ))
                .subject(t.path.display().to_string()),
            ));
        } else {
            findings.extend(judge::tensile_against_targets(t, &res.targets));
        }
        for e in &t.errors {
            findings.push(judge::stamp(
                Finding::warn(format!("cannot read {e}"))
                    .subject(t.path.display().to_string())
                    .fix_text("reinstall the library; the runtime will reject this file too"),
            ));
        }
    }
    if o.symbols {
        for s in &res.symbols {
            findings.push(judge::stamp(symbol_finding(s)));
        }
    }
    res.findings = findings;
}

fn symbol_finding(s: &symbols::SymbolReport) -> Finding {
    let subject = s.path.display().to_string();
    let f = if let Some(e) = &s.error {
        Finding::error(format!("cannot read the dynamic symbols: {e}"))
    } else if !s.not_found.is_empty() || !s.unresolved.is_empty() {
        let mut f = Finding::fail(format!("{} needed libraries not found, {} undefined symbols no needed library defines", s.not_found.len(), s.unresolved.len()))
            .fix_text("install the missing libraries or fix the RUNPATH/LD_LIBRARY_PATH; undefined symbols mean the library was linked against something it does not list (a packaging bug: rebuild it)");
        for n in &s.not_found {
            f = f.evidence(format!("{n} => not found"));
        }
        for u in s.unresolved.iter().take(50) {
            f = f.evidence(format!("undefined symbol: {u}"));
        }
        if s.unresolved.len() > 50 {
            f = f.evidence(format!("... and {} more", s.unresolved.len() - 50));
        }
        f
    } else {
        Finding::pass(format!(
            "all {} undefined symbols resolve in {} loaded libraries",
            s.undefined_total,
            s.loaded.len()
        ))
    };
    f.subject(subject)
}

/// Runs `inspect` for a host and configuration.
pub fn inspect(host: &Host, cfg: &Config, paths: &[PathBuf], o: &Options) -> InspectResult {
    let inv = Inventory::new(host, cfg);
    let mut res = InspectResult {
        targets: targets(&inv),
        ..Default::default()
    };
    res.versions = runtime::versions(&inv).0;
    collect(host, paths, o, &mut res);
    if o.symbols {
        res.symbols = res
            .files
            .iter()
            .filter(|f| f.kind == FileKind::HostElf)
            .map(|f| symbols::resolve(host, &f.path))
            .collect();
    }
    judge_all(host, &mut res, o);
    res
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    schema_version: u32,
    tool: &'a report::json::Tool,
    command: &'static str,
    exit_code: i32,
    summary: report::Counts,
    inspect: &'a InspectResult,
}

/// `rocm-doctor inspect`: the subcommand's entry point; returns the exit code.
pub fn main(
    args: &RunArgs,
    paths: &[PathBuf],
    symbols: bool,
    kernels: bool,
    verify_hash: bool,
) -> i32 {
    let cfg = match Config::from_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rocm-doctor: {e}");
            return exit::USAGE_OR_INTERNAL;
        }
    };
    if paths.is_empty() {
        eprintln!("rocm-doctor inspect: give at least one file or directory");
        return exit::USAGE_OR_INTERNAL;
    }
    let host = match Host::for_sysroot(&args.sysroot, Limits::new(cfg.per_call, cfg.deadline)) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("rocm-doctor: {e}");
            return exit::USAGE_OR_INTERNAL;
        }
    };
    // Relative paths are the user's: make them absolute against the current directory.
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let abs: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            if p.is_absolute() {
                p.clone()
            } else {
                cwd.join(p)
            }
        })
        .collect();
    let o = Options {
        symbols,
        kernels,
        verify_hash,
        ..Default::default()
    };
    let res = inspect(&host, &cfg, &abs, &o);
    let code = report::exit_code(&res.findings, cfg.strict);
    if args.json {
        // Serialised straight from the structs: no intermediate JSON tree (large listings).
        let doc = JsonDoc {
            schema_version: report::json::SCHEMA_VERSION,
            tool: &report::json::TOOL,
            command: "inspect",
            exit_code: code,
            summary: report::Counts::of(&res.findings),
            inspect: &res,
        };
        report::write_stdout(report::Output::Json(&doc), code)
    } else {
        let color = human::use_color(args.color, &host.env);
        let mut text = render(&res);
        text.push_str(&human::render(
            &res.findings,
            &human::Options {
                color,
                verbose: args.verbose,
            },
        ));
        report::write_stdout::<()>(report::Output::Text(&text), code)
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

/// The listing part of the human output.
pub fn render(res: &InspectResult) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for f in &res.files {
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
            let _ = writeln!(s, "  bundle {} at 0x{:x}: {fmt}", i + 1, b.offset);
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
    for t in &res.tensile {
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
    if res.files_without_device_code > 0 {
        let _ = writeln!(
            s,
            "({} other ELF files without device code)",
            res.files_without_device_code
        );
    }
    if !res.targets.is_empty() {
        let t: Vec<String> = res
            .targets
            .iter()
            .map(|t| format!("{} ({})", t.target, t.source))
            .collect();
        let _ = writeln!(s, "Targets: {}", t.join(", "));
    }
    s.push('\n');
    s
}
