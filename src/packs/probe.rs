//! The I/O side of packs: each probe's raw value, read through the `Host` (files rooted in
//! --sysroot, the environment snapshot, children with a timeout) and the shared inventory.

use super::eval::{self, RawValue, Situation};
use super::{Check, Fact, ProbeSpec};
use crate::config::Config;
use crate::host::{CommandSpec, Host};
use crate::inventory::Inventory;
use crate::report::Finding;
use std::path::{Path, PathBuf};

const READ_LIMIT: u64 = 64 * 1024;
const GLOB_LIMIT: usize = 1000;
const OUTPUT_LIMIT: usize = 64 * 1024;

/// What pack probes read: the machine (through its `Host`), the run's inventory (each fact
/// discovered once, shared with the Rust checks) and its configuration. Not the checks'
/// context: the pack engine sits below the checks (docs/architecture.md, "Layers").
#[derive(Clone, Copy)]
pub(crate) struct Machine<'a> {
    pub host: &'a Host,
    pub inv: &'a Inventory<'a>,
    pub cfg: &'a Config,
}

/// Runs one pack check: `when`, then its probes, then its rules.
pub(crate) fn run_check(ctx: &Machine, check: &Check) -> Vec<Finding> {
    let isas = if needs_gpu(check) {
        gpu_isas(ctx, false)
    } else {
        Vec::new()
    };
    let version_of = |c: &str| version_of(ctx, c);
    let situation = Situation {
        profile: ctx.cfg.profile,
        gpu_present: needs_gpu(check) && ctx.inv.gpu().has_gpu_nodes(),
        isas: &isas,
        version_of: &version_of,
    };
    if let Err(why) = eval::applies(&check.when, &situation) {
        let why = why.to_string();
        return vec![Finding::skip(format!("does not apply: {why}"))];
    }
    // Probes are read when a rule needs them, so a check that skips early runs no command.
    let n = check.probes.len();
    let mut raws: Vec<RawValue> = vec![RawValue::default(); n];
    let mut done = vec![false; n];
    for rule in &check.rules {
        for i in eval::rule_probes(check, rule) {
            if !done[i] {
                raws[i] = read(ctx, &check.probes[i].spec);
                done[i] = true;
            }
        }
        let outs = eval::finalize(&check.probes, &raws);
        if eval::holds(rule, &outs) {
            return vec![eval::verdict(check, Some(rule), &outs, &done)];
        }
    }
    let outs = eval::finalize(&check.probes, &raws);
    vec![eval::verdict(check, None, &outs, &done)]
}

/// Only read the GPU topology when the check asks about GPUs.
fn needs_gpu(check: &Check) -> bool {
    check.when.gpu.is_some() || !check.when.isa_family.is_empty()
}

fn version_of(ctx: &Machine, component: &str) -> Option<String> {
    let root = ctx.inv.primary_root();
    match component {
        "rocm" => root.and_then(|r| r.versions.rocm.as_ref().map(|v| v.version.clone())),
        "hip" => root.and_then(|r| r.versions.hip.as_ref().map(|v| v.version.clone())),
        "clang" => ctx.inv.clang().and_then(|c| c.version.clone()),
        lib => library(ctx, lib).and_then(|(_, v)| v),
    }
}

/// The processors of the GPUs a HIP program would load code for (`visible_only`) or of all.
fn gpu_isas(ctx: &Machine, visible_only: bool) -> Vec<String> {
    let mut v: Vec<String> = ctx
        .inv
        .gpu()
        .agents
        .iter()
        .filter(|a| a.visible || !visible_only)
        .filter_map(|a| {
            a.target
                .as_ref()
                .map(|t| t.processor.clone())
                .or_else(|| a.gfx.clone())
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// `lib<name>.so` as the loader would find it: (machine path, version from the real name).
fn library(ctx: &Machine, name: &str) -> Option<(PathBuf, Option<String>)> {
    use crate::inventory::libraries as l;
    if let Some(r) = ctx.inv.libraries().iter().find(|r| r.name == name) {
        return r.path.clone().map(|p| (p, r.version.clone()));
    }
    let p = l::find(ctx.host, &l::Search::loader(ctx.host), l::Name::Stem(name))?.path;
    let real = ctx.host.fs.canonicalize(&p).unwrap_or_else(|_| p.clone());
    let file = real.file_name()?.to_string_lossy().into_owned();
    Some((p, l::version_from_file_name(&file, name)))
}

/// `${VAR}` in paths and arguments, from the environment snapshot; `Err` names an unset one.
pub(crate) fn expand(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('}') else {
            return Err(format!("unclosed '${{' in '{s}'"));
        };
        let var = &rest[i + 2..i + j];
        match env(var).filter(|v| !v.is_empty()) {
            Some(v) => out.push_str(&v),
            None => return Err(format!("{var} is not set")),
        }
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn read(ctx: &Machine, spec: &ProbeSpec) -> RawValue {
    let env = |k: &str| ctx.host.env.get_str(k);
    let spec = match expand_spec(spec, &env) {
        Ok(s) => s,
        Err(e) => return RawValue::missing(e),
    };
    read_expanded(ctx, &spec)
}

fn expand_spec(
    spec: &ProbeSpec,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProbeSpec, String> {
    Ok(match spec {
        ProbeSpec::File { path, read } => ProbeSpec::File {
            path: expand(path, env)?,
            read: *read,
        },
        ProbeSpec::Glob { path, read } => ProbeSpec::Glob {
            path: expand(path, env)?,
            read: *read,
        },
        ProbeSpec::Command { argv, timeout } => ProbeSpec::Command {
            argv: argv
                .iter()
                .map(|a| expand(a, env))
                .collect::<Result<_, _>>()?,
            timeout: *timeout,
        },
        ProbeSpec::CodeObjects(l) => ProbeSpec::CodeObjects(l.clone()),
        ProbeSpec::UndefinedSymbols => ProbeSpec::UndefinedSymbols,
        ProbeSpec::Env(v) => ProbeSpec::Env(v.clone()),
        ProbeSpec::Fact(f) => ProbeSpec::Fact(*f),
        ProbeSpec::Library(l) => ProbeSpec::Library(l.clone()),
        ProbeSpec::PythonPackage(p) => ProbeSpec::PythonPackage(p.clone()),
        ProbeSpec::Kfd(k) => ProbeSpec::Kfd(k.clone()),
    })
}

fn read_expanded(ctx: &Machine, spec: &ProbeSpec) -> RawValue {
    let host = ctx.host;
    match spec {
        ProbeSpec::Env(var) => match host.env.get_str(var) {
            Some(v) => RawValue::found(v),
            None => RawValue::missing(format!("{var} is not set")),
        },
        ProbeSpec::File { path, read } => file(host, path, *read),
        ProbeSpec::Glob {
            path: pattern,
            read,
        } => glob_values(ctx, pattern, *read),
        ProbeSpec::Command { argv, timeout } => command(ctx, argv, *timeout),
        ProbeSpec::Fact(f) => fact(ctx, *f),
        ProbeSpec::Library(name) => match library(ctx, name) {
            Some((p, Some(v))) => RawValue {
                evidence: vec![format!("lib{name}.so: {}", p.display())],
                ..RawValue::found(v)
            },
            Some((p, None)) => RawValue::missing(format!(
                "lib{name}.so: {} has no version in its file name",
                p.display()
            )),
            None => RawValue::missing(format!("lib{name}.so is not where the loader looks")),
        },
        ProbeSpec::CodeObjects(names) => code_objects(ctx, names),
        ProbeSpec::PythonPackage(name) => python_package(ctx, name),
        ProbeSpec::UndefinedSymbols => {
            RawValue::missing("undefined symbols are read by `rocm-doctor inspect --symbols`")
        }
        ProbeSpec::Kfd(key) => kfd_property(ctx, key),
    }
}

/// A `file` probe: the file exists (`read`: its text).
fn file(host: &Host, path: &str, read: bool) -> RawValue {
    let p = Path::new(path);
    if !p.is_absolute() {
        return RawValue::missing(format!("{path}: not an absolute path"));
    }
    if !read {
        return if host.fs.exists(p) {
            RawValue::found(path.to_string())
        } else {
            RawValue::missing(format!("{path}: does not exist"))
        };
    }
    match host.fs.read_bytes_limited(p, READ_LIMIT) {
        Ok(b) => RawValue::found(String::from_utf8_lossy(&b).into_owned()),
        Err(e) => RawValue::missing(format!("{path}: {}", crate::host::io_error_text(&e))),
    }
}

/// A `glob` probe: the matching paths, or (`read`) one item per line of each file.
fn glob_values(ctx: &Machine, pattern: &str, read: bool) -> RawValue {
    let host = ctx.host;
    let hits = glob(ctx, pattern);
    let mut v = if read {
        // One item per line of each file: `path: line`.
        let mut lines = Vec::new();
        for h in &hits {
            match host.fs.read_bytes_limited(h, READ_LIMIT) {
                Ok(b) => lines.extend(
                    String::from_utf8_lossy(&b)
                        .lines()
                        .map(|l| format!("{}: {l}", h.display())),
                ),
                Err(e) => lines.push(format!(
                    "{}: (unreadable: {})",
                    h.display(),
                    crate::host::io_error_text(&e)
                )),
            }
            if lines.len() > GLOB_LIMIT {
                break;
            }
        }
        RawValue::list(lines)
    } else {
        RawValue::list(hits.iter().map(|p| p.display().to_string()).collect())
    };
    if !v.found {
        v.evidence.push(format!("nothing matches {pattern}"));
    }
    v
}

/// A `kfd` probe: property `key` of every GPU node of the KFD topology.
fn kfd_property(ctx: &Machine, key: &str) -> RawValue {
    let host = ctx.host;
    let topo = ctx.inv.gpu();
    let Some(base) = &topo.path else {
        return RawValue::missing("no KFD topology");
    };
    let mut vals = Vec::new();
    let mut ev = Vec::new();
    for a in &topo.agents {
        let p = base.join(format!("nodes/{}/properties", a.node));
        match host.fs.read_text(&p) {
            Ok(t) => match crate::gpu::props::parse(&t).get(key) {
                Some(v) => vals.push(v.to_string()),
                None => ev.push(format!("node {}: no '{key}'", a.node)),
            },
            Err(e) => ev.push(format!(
                "{}: {}",
                p.display(),
                crate::host::io_error_text(&e)
            )),
        }
    }
    RawValue {
        evidence: ev,
        ..RawValue::list(vals)
    }
}

/// Found when the `python3` on `PATH` may import package `name` (the paths that say so), or
/// when its interpreter cannot be read without running it; missing when no site directory
/// has it (the directories looked in are the evidence) or there is no `python3`.
fn python_package(ctx: &Machine, name: &str) -> RawValue {
    use crate::inventory::python::{find_package, PackageSearch};
    match find_package(ctx.host, name) {
        PackageSearch::Maybe(paths) => {
            RawValue::list(paths.iter().map(|p| p.display().to_string()).collect())
        }
        PackageSearch::CannotTell(why) => RawValue {
            evidence: vec![format!("cannot tell without running python3: {why}")],
            ..RawValue::found(format!("python3 may import {name} ({why})"))
        },
        PackageSearch::Absent { looked_in } => RawValue::missing(format!(
            "no {name} package in the site directories of python3: {}",
            if looked_in.is_empty() {
                "none exists".to_string()
            } else {
                looked_in
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )),
        PackageSearch::NoInterpreter => RawValue::missing("python3 is not in PATH"),
    }
}

/// The device code each library carries, as `PATH: FLAG` items (`crate::binfacts::flags`);
/// a library that is not found, or carries no bundle, adds none. Found when a library was read.
fn code_objects(ctx: &Machine, names: &[String]) -> RawValue {
    use crate::binfacts::{file, flags};
    let mut items = Vec::new();
    let mut ev = Vec::new();
    let mut read_any = false;
    for name in names {
        let Some((path, _)) = library(ctx, name) else {
            ev.push(format!("lib{name}.so is not where the loader looks"));
            continue;
        };
        let real = ctx.host.fs.canonicalize(&path).unwrap_or(path);
        let r = file::inspect_file_shared(ctx.host, &real);
        if let Some(e) = &r.error {
            ev.push(format!("{}: cannot inspect: {e}", real.display()));
            continue;
        }
        read_any = true;
        let flags = flags::file_flags(&r);
        ev.push(format!(
            "{}: {}",
            real.display(),
            if flags.is_empty() {
                "no offload bundle".to_string()
            } else {
                flags
                    .iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ));
        items.extend(flags.iter().map(|f| format!("{}: {f}", real.display())));
    }
    RawValue {
        found: read_any,
        value: items.join("\n"),
        list: Some(items),
        evidence: ev,
    }
}

fn command(ctx: &Machine, argv: &[String], timeout: std::time::Duration) -> RawValue {
    let prog = &argv[0];
    let path = if prog.contains('/') {
        PathBuf::from(prog)
    } else {
        match ctx.host.which(prog) {
            Some(p) => p,
            None => return RawValue::missing(format!("{prog} is not in PATH")),
        }
    };
    // Only another root's programs may be unable to run here; asking would wait for the clang
    // probes, so on this machine's own root the command starts at once, beside them.
    // Decision (issue 20): --host-root's programs are the host's, run in a container: like a
    // fixture's, they may not run here.
    if !ctx.host.fs.is_own_machine() {
        if let Some(why) = ctx.host.root_programs_refused() {
            return RawValue::missing(format!("not run: {why}"));
        }
        if let Some(why) = ctx.inv.cannot_run_here() {
            return RawValue::missing(format!("programs of this root cannot run here: {why}"));
        }
    }
    let spec = CommandSpec::new(path)
        .args(argv[1..].iter())
        .timeout(timeout.min(ctx.host.limits().per_call));
    let out = ctx.host.run(&spec);
    let mut text = out.combined_text();
    if text.len() > OUTPUT_LIMIT {
        let mut cut = OUTPUT_LIMIT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    let ev = vec![
        format!("ran: {}", spec.display()),
        format!("outcome: {}", out.outcome()),
    ];
    if out.success() {
        RawValue {
            evidence: ev,
            ..RawValue::found(text)
        }
    } else {
        RawValue {
            found: false,
            value: text,
            list: None,
            evidence: ev,
        }
    }
}

fn fact(ctx: &Machine, f: Fact) -> RawValue {
    let opt = |v: Option<String>, what: &str| match v {
        Some(v) => RawValue::found(v),
        None => RawValue::missing(format!("{what} is unknown")),
    };
    let root = ctx.inv.primary_root();
    match f {
        Fact::RocmRoot => opt(root.map(|r| r.path.display().to_string()), "the ROCm root"),
        Fact::RocmVersion => opt(version_of(ctx, "rocm"), "the ROCm version"),
        Fact::HipVersion => opt(version_of(ctx, "hip"), "the HIP version"),
        Fact::ClangPath => opt(
            ctx.inv.clang().map(|c| c.path.display().to_string()),
            "the clang",
        ),
        Fact::ClangVersion => opt(version_of(ctx, "clang"), "the clang version"),
        Fact::GpuCount => RawValue::found(
            ctx.inv
                .gpu()
                .agents
                .iter()
                .filter(|a| a.visible)
                .count()
                .to_string(),
        ),
        Fact::GpuIsas => RawValue::list(gpu_isas(ctx, true)),
        Fact::Profile => RawValue::found(format!("{:?}", ctx.cfg.profile).to_lowercase()),
        Fact::Sysroot => RawValue::found(ctx.host.fs.root().display().to_string()),
    }
}

/// Walk bounds: directories `**` descends (below its start), and directory listings per glob.
const GLOB_MAX_DEPTH: usize = 16;
const GLOB_MAX_LISTINGS: usize = 4096;

/// Matching machine paths of a glob (`*`, `?`, `[...]` per component, `{a,b}`, `**` for zero
/// or more directories; crate::glob), rooted in --sysroot, sorted, at most GLOB_LIMIT. `**`
/// never follows a symbolic link to a directory (no loops) and stops at GLOB_MAX_DEPTH; every
/// glob lists at most GLOB_MAX_LISTINGS directories.
fn glob(ctx: &Machine, pattern: &str) -> Vec<PathBuf> {
    if !pattern.starts_with('/') {
        return Vec::new();
    }
    let Ok(patterns) = crate::glob::expand_braces(pattern) else {
        return Vec::new();
    };
    let mut w = Walk {
        ctx,
        listings: 0,
        out: Vec::new(),
    };
    for p in &patterns {
        let comps: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
        w.walk(PathBuf::from("/"), &comps);
    }
    w.out.sort();
    w.out.dedup();
    w.out.truncate(GLOB_LIMIT);
    w.out
}

struct Walk<'a, 'c> {
    ctx: &'a Machine<'c>,
    listings: usize,
    out: Vec<PathBuf>,
}

impl Walk<'_, '_> {
    fn full(&self) -> bool {
        self.out.len() >= GLOB_LIMIT || self.listings >= GLOB_MAX_LISTINGS
    }

    fn list(&mut self, dir: &Path) -> Vec<String> {
        self.listings += 1;
        self.ctx
            .host
            .fs
            .list_names(dir)
            .into_iter()
            .map(|n| n.to_string_lossy().into_owned())
            .collect()
    }

    /// The entry `name` of directory `dir` itself (a link is not followed), with `dir`'s own
    /// links resolved inside the root.
    fn lstat(&self, dir: &Path, name: &str) -> Option<std::fs::Metadata> {
        let fs = &self.ctx.host.fs;
        let base = fs.canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        fs.symlink_metadata(&base.join(name)).ok()
    }

    fn walk(&mut self, at: PathBuf, comps: &[&str]) {
        if self.full() {
            return;
        }
        let Some((first, rest)) = comps.split_first() else {
            self.out.push(at);
            return;
        };
        if *first == "**" {
            self.descend(at, rest, 0);
        } else if crate::glob::has_magic(first) {
            for n in self.list(&at) {
                if crate::glob::matches(first, &n) {
                    self.walk(at.join(n), rest);
                }
            }
        } else {
            if self.lstat(&at, first).is_some() {
                self.walk(at.join(first), rest);
            }
        }
    }

    /// `**`: the rest matched here, then in every real (not symlinked) sub-directory.
    fn descend(&mut self, at: PathBuf, rest: &[&str], depth: usize) {
        if self.full() {
            return;
        }
        if rest.is_empty() {
            // A trailing `**` names the directories themselves.
            self.out.push(at.clone());
        } else {
            self.walk(at.clone(), rest);
        }
        if depth >= GLOB_MAX_DEPTH {
            return;
        }
        for n in self.list(&at) {
            if n.starts_with('.') {
                continue;
            }
            if self.lstat(&at, &n).is_some_and(|m| m.is_dir()) {
                self.descend(at.join(&n), rest, depth + 1);
            }
        }
    }
}
