//! The clang that compiles HIP: which one, its version, resource dir, the AMDGPU processors it
//! knows, and what its driver would do for a HIP device compile (`-###`).
//!
//! One spawn describes a clang: `--target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus -v`
//! (version banner, the processor list or an error when AMDGPU is not registered, and the job
//! line whose `-resource-dir` is the resource dir); `-print-resource-dir` is asked only when no
//! job line shows it.

use super::Inventory;
use crate::host::{CommandSpec, Host, RunOutput};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ClangInfo {
    /// The clang driver (machine path), as found.
    pub path: PathBuf,
    /// Why this clang was chosen (`--clang`, `HIP_CLANG_PATH`, ...).
    pub source: String,
    /// The file behind `path` with links resolved.
    pub real_path: Option<PathBuf>,
    /// A shell (or other) script rather than the clang binary: a wrapper that may add flags.
    pub is_script: bool,
    /// The real clang binary: `real_path`, or for a wrapper script the clang it runs (as the
    /// script names it). The directory of its resolved path is where clang looks for ld.lld.
    pub binary: Option<PathBuf>,
    pub version: Option<String>,
    pub banner: Option<String>,
    /// `-print-resource-dir`, or the same value from the job `-print-supported-cpus -v` prints.
    pub resource_dir: Option<PathBuf>,
    /// Where `resource_dir` was read: empty for `-print-resource-dir`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_dir_from: String,
    /// Processors the AMDGPU backend knows; empty when the target is not registered.
    pub amdgpu_processors: Vec<String>,
    pub amdgpu_registered: bool,
    /// Problems running the probes (timeouts, spawn errors), as evidence lines.
    pub probe_errors: Vec<String>,
    /// With `--sysroot`: the loader error that shows this root's programs cannot run on this
    /// host (they need the root's own libraries); everything that runs them is skipped.
    pub cannot_run_here: Option<String>,
    /// The exact commands run.
    pub commands: Vec<String>,
    /// Other clangs found but not judged, with why they were candidates.
    pub others: Vec<(PathBuf, String)>,
}

impl ClangInfo {
    pub(crate) fn major(&self) -> Option<u32> {
        self.version.as_deref()?.split('.').next()?.parse().ok()
    }
}

/// The candidates, in the order the doctor prefers them.
pub(crate) fn candidates(inv: &Inventory) -> Vec<(PathBuf, String)> {
    let host = inv.host;
    let mut v: Vec<(PathBuf, String)> = Vec::new();
    let mut push = |p: PathBuf, why: String| {
        if !v.iter().any(|(q, _)| *q == p) {
            v.push((p, why));
        }
    };
    if let Some(p) = &inv.cfg.clang {
        push(p.clone(), "--clang".into());
    }
    if let Some(dir) = host.env.get_nonempty("HIP_CLANG_PATH") {
        for n in ["clang++", "clang"] {
            let p = Path::new(dir.trim()).join(n);
            if crate::host::is_executable_at(host, &p) {
                push(p, "HIP_CLANG_PATH".into());
                break;
            }
        }
    }
    if let Some(r) = inv.primary_root() {
        if let Some(c) = &r.parts.clang {
            push(c.clone(), format!("ROCm root {}", r.path.display()));
        }
    }
    for n in ["amdclang++", "clang++"] {
        if let Some(p) = host.which(n) {
            push(p, format!("PATH ({n})"));
        }
    }
    if let Some(p) = hipcc_configured_clang(inv) {
        push(p, "the clang hipcc is configured to run".into());
    }
    for p in llvm_dirs_newest_first(host) {
        push(p.join("bin/clang++"), format!("{}", p.display()));
    }
    v.retain(|(p, why)| why == "--clang" || crate::host::is_executable_at(host, p));
    v
}

/// Debian's hipcc is patched to run `$HIP_CLANG_PATH/clang++-15`: read that from `hipcc.pl`.
fn hipcc_configured_clang(inv: &Inventory) -> Option<PathBuf> {
    let host = inv.host;
    let hipcc = inv
        .primary_root()
        .and_then(|r| r.parts.hipcc.clone())
        .or_else(|| host.which("hipcc"))?;
    let script = hipcc.with_file_name("hipcc.pl");
    let text = host.fs.read_text(&script).ok()?;
    let idx = text.find("clang++-")?;
    let digits: String = text[idx + "clang++-".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    if digits.is_empty() {
        return None;
    }
    let name = format!("clang++-{digits}");
    hipcc
        .parent()
        .map(|d| d.join(&name))
        .filter(|p| crate::host::is_executable_at(host, p))
        .or_else(|| host.which(&name))
}

/// `/usr/lib/llvm-N` directories, the newest release first.
pub(crate) fn llvm_dirs_newest_first(host: &Host) -> Vec<PathBuf> {
    let mut v: Vec<(u32, PathBuf)> = host
        .fs
        .list_names(Path::new("/usr/lib"))
        .into_iter()
        .filter_map(|n| {
            let n = n.to_string_lossy().into_owned();
            let ver: u32 = n.strip_prefix("llvm-")?.parse().ok()?;
            Some((ver, Path::new("/usr/lib").join(n)))
        })
        .collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.0));
    v.into_iter().map(|(_, p)| p).collect()
}

/// The clang to judge (the first candidate), why, and the others; files only, nothing is run.
pub(crate) struct ClangChoice {
    pub path: PathBuf,
    pub source: String,
    pub others: Vec<(PathBuf, String)>,
}

pub(crate) fn choose(inv: &Inventory) -> Option<ClangChoice> {
    let mut cands = candidates(inv);
    if cands.is_empty() {
        return None;
    }
    let (path, source) = cands.remove(0);
    Some(ClangChoice {
        path,
        source,
        others: cands,
    })
}

pub(crate) fn discover(inv: &Inventory) -> Option<ClangInfo> {
    let c = inv.clang_choice()?;
    Some(describe(
        inv.host,
        c.path.clone(),
        c.source.clone(),
        c.others.clone(),
    ))
}

/// What one clang is before it runs: its real path, whether it is a script and the binary it
/// wraps.
fn unprobed(
    host: &Host,
    path: PathBuf,
    source: String,
    others: Vec<(PathBuf, String)>,
) -> ClangInfo {
    let real_path = host.fs.canonicalize(&path).ok();
    let is_script = real_path
        .as_deref()
        .and_then(|p| host.fs.read_head(p, 2).ok().map(|b| b.starts_with(b"#!")))
        .unwrap_or(false);
    let binary = if is_script {
        real_path.as_deref().and_then(|p| wrapped_clang(host, p))
    } else {
        real_path.clone()
    };
    ClangInfo {
        path,
        source,
        real_path,
        is_script,
        binary,
        version: None,
        banner: None,
        resource_dir: None,
        resource_dir_from: String::new(),
        amdgpu_processors: Vec::new(),
        amdgpu_registered: false,
        probe_errors: Vec::new(),
        cannot_run_here: None,
        commands: Vec::new(),
        others,
    }
}

/// Runs the two probes on one clang.
///
/// `-v` makes the driver print the job it runs, and that job's `-resource-dir` is the driver's
/// own resource dir: the value `-print-resource-dir` prints (both are `Driver::ResourceDir`,
/// after any `-resource-dir` flag: clang Driver.cpp and ToolChains/Clang.cpp), so one clang
/// start answers both (equal on Debian's clang 15, 17, 19 and 21). When no job line shows it,
/// `-print-resource-dir` is asked as before. A foreign root's clang is not run unless asked
/// (issue 25, item 3): judged from its files.
pub(crate) fn describe(
    host: &Host,
    path: PathBuf,
    source: String,
    others: Vec<(PathBuf, String)>,
) -> ClangInfo {
    let unprobed = unprobed(host, path, source, others);
    if let Some(why) = host.root_programs_refused() {
        return ClangInfo {
            cannot_run_here: Some(why.to_string()),
            ..unprobed
        };
    }
    let cpus_cmd = CommandSpec::new(&unprobed.path).args([
        "--target=amdgcn-amd-amdhsa",
        "-nogpulib",
        "-print-supported-cpus",
        "-v",
    ]);
    let rdir_cmd = CommandSpec::new(&unprobed.path).arg("-print-resource-dir");
    let cpus = host.run(&cpus_cmd);
    let from_job = resource_dir_of_job(&cpus.combined_text());
    // A clang that hung once is not given a second chance to hang.
    let rdir = (from_job.is_none() && !cpus.timed_out).then(|| host.run(&rdir_cmd));
    let mut commands = vec![cpus.command.clone()];
    commands.extend(rdir.as_ref().map(|r| r.command.clone()));
    let mut info = ClangInfo {
        commands,
        ..unprobed
    };
    read_cpus_probe(host, &cpus, &mut info);
    read_resource_dir(rdir, from_job, &rdir_cmd, &mut info);
    info
}

/// The version, banner and AMDGPU processors of `-print-supported-cpus -v`, and why it failed.
fn read_cpus_probe(host: &Host, cpus: &RunOutput, info: &mut ClangInfo) {
    let text = cpus.combined_text();
    // Another root's clang (--sysroot, or the host's under --host-root) may fail to run here.
    if !host.fs.is_own_machine() && !cpus.success() {
        info.cannot_run_here = loader_error(&text).or_else(|| {
            cpus.spawn_error
                .as_ref()
                .map(|e| format!("cannot execute: {}", e.message))
        });
    }
    info.version = super::versions::parse_clang_version(&text);
    info.banner = text
        .lines()
        .find(|l| l.contains("clang version"))
        .map(str::to_string);
    info.amdgpu_processors = parse_supported_cpus(&text);
    info.amdgpu_registered = cpus.success() && !info.amdgpu_processors.is_empty();
    if !cpus.success() {
        info.probe_errors.push(format!(
            "$ {}\n{}\n{}",
            cpus.command,
            cpus.outcome(),
            cpus.tail(6)
        ));
    }
}

/// The resource dir: from the job line, else from `-print-resource-dir` (`rdir`, not run when
/// the first probe timed out).
fn read_resource_dir(
    rdir: Option<RunOutput>,
    from_job: Option<PathBuf>,
    rdir_cmd: &CommandSpec,
    info: &mut ClangInfo,
) {
    match rdir {
        None if from_job.is_some() => {
            info.resource_dir = from_job;
            info.resource_dir_from = "the -resource-dir of the job it printed".into();
        }
        None => info.probe_errors.push(format!(
            "$ {}\nnot run: the clang probe above timed out",
            rdir_cmd.display()
        )),
        Some(rdir) if rdir.success() => {
            let d = rdir.stdout_text().trim().to_string();
            if !d.is_empty() {
                info.resource_dir = Some(PathBuf::from(d));
            }
        }
        Some(rdir) => info.probe_errors.push(format!(
            "$ {}\n{}\n{}",
            rdir.command,
            rdir.outcome(),
            rdir.tail(6)
        )),
    }
}

/// The `-resource-dir` argument of the job line `clang -v` prints (` "/usr/bin/clang" -cc1
/// ... -resource-dir /usr/lib/llvm-15/lib/clang/15.0.6 ...`). Arguments are printed bare, or
/// quoted with `\` escapes when they hold a space, `"`, `\` or `$` (llvm::sys::printArg).
pub(crate) fn resource_dir_of_job(text: &str) -> Option<PathBuf> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('"'))
        .find_map(|l| {
            let args = split_args(l);
            let i = args.iter().position(|a| a == "-resource-dir")?;
            args.get(i + 1).filter(|d| !d.is_empty()).map(PathBuf::from)
        })
}

/// Splits a printed command line into its arguments: bare words and `"..."` with escapes.
fn split_args(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut cur = String::new();
        if first == '"' {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => cur.extend(chars.next()),
                    c => cur.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                cur.push(c);
            }
        }
        out.push(cur);
    }
    out
}

/// The dynamic loader's complaint in a program's output (`error while loading shared
/// libraries: libLLVM-17.so.1: cannot open shared object file`, `version `GLIBC_2.38' not
/// found`): the program needs libraries this host does not have.
pub(crate) fn loader_error(text: &str) -> Option<String> {
    text.lines()
        .find(|l| {
            l.contains("error while loading shared libraries")
                || (l.contains("GLIBC") && l.contains("not found"))
                || l.contains("cannot execute binary file")
        })
        .map(|l| l.trim().to_string())
}

/// For a wrapper script, the clang it runs: the first absolute path in the script to an
/// executable whose name starts with `clang`, as written there (Tensile requires the name
/// `clang++`, so the path is not resolved).
pub(crate) fn wrapped_clang(host: &Host, script: &Path) -> Option<PathBuf> {
    let text = host.fs.read_text(script).ok()?;
    text.split(|ch: char| ch.is_whitespace() || ch == '"' || ch == '\'')
        .filter(|w| w.starts_with('/'))
        .map(PathBuf::from)
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("clang"))
                && crate::host::is_executable_at(host, p)
                && p != script
        })
}

/// The names after "Available CPUs for this target:" (one per line, indented).
pub fn parse_supported_cpus(text: &str) -> Vec<String> {
    let Some(idx) = text.find("Available CPUs for this target:") else {
        return Vec::new();
    };
    text[idx..]
        .lines()
        .skip(1)
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.starts_with("Use -mcpu"))
        .filter(|l| l.starts_with("gfx"))
        .map(str::to_string)
        .collect()
}

/// What clang's HIP driver plans for a device-only compile, as `-###` shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HipDriverView {
    pub command: Option<String>,
    pub ran: bool,
    /// `clang: error: ...` lines.
    pub errors: Vec<String>,
    /// Files passed with `-mlink-builtin-bitcode`.
    pub builtin_bitcode: Vec<PathBuf>,
    pub resource_dir: Option<PathBuf>,
    /// The program of the device link step (`lld -flavor gnu` or `ld.lld`).
    pub device_linker: Option<PathBuf>,
    /// The ISA used for the dry run.
    pub isa: Option<String>,
    pub outcome: Option<String>,
}

impl HipDriverView {
    /// The directory holding the device-library bitcode clang would link.
    pub fn bitcode_dir(&self) -> Option<PathBuf> {
        self.builtin_bitcode
            .iter()
            .find(|p| p.file_name().is_some_and(|n| n == "ocml.bc"))
            .and_then(|p| p.parent().map(Path::to_path_buf))
    }
}

/// `clang++ -### -x hip --offload-arch=<isa> --cuda-device-only -c probe.hip` with the
/// environment as it is: what a bare clang (CMake's HIP language) would do.
pub(crate) fn hip_dry_run(inv: &Inventory) -> HipDriverView {
    let mut v = HipDriverView::default();
    // Only another root's programs may be unable to run here. On this machine's own root the
    // dry run needs just the chosen clang's path, so it runs beside the clang probes instead
    // of after them (the same command either way).
    if !inv.host.fs.is_own_machine() {
        if let Some(e) = inv.clang().and_then(|c| c.cannot_run_here.as_ref()) {
            v.errors.push(format!("not run: {e}"));
            return v;
        }
    }
    let Some(clang) = inv.clang_choice() else {
        return v;
    };
    let isa = inv.probe_isa();
    let dir = match inv.host.scratch_dir("hip-dry-run") {
        Ok(d) => d,
        Err(e) => {
            v.errors.push(format!("no temp dir: {e}"));
            return v;
        }
    };
    let src = dir.join("probe.hip");
    // -### never reads the source, but the driver checks that it exists.
    if let Err(e) = std::fs::write(&src, b"") {
        v.errors
            .push(format!("cannot write {}: {e}", src.display()));
        return v;
    }
    let mut cmd =
        CommandSpec::new(&clang.path).args(["-###", "-x", "hip", "--cuda-device-only", "-c"]);
    // `--rocm-path DIR` asks to judge clang with that root, as `--rocm-path` in a build's flags.
    if let Some(r) = &inv.cfg.rocm_path {
        cmd = cmd.arg(format!("--rocm-path={}", r.display()));
    }
    let cmd = cmd
        .arg(format!("--offload-arch={isa}"))
        .arg(&src)
        .arg("-o")
        .arg(dir.join("probe.o"))
        .cwd(&dir);
    let out = inv.host.run(&cmd);
    v.command = Some(out.command.clone());
    v.isa = Some(isa);
    v.ran = out.spawn_error.is_none() && !out.timed_out;
    v.outcome = Some(out.outcome());
    parse_dry_run(&out.combined_text(), &mut v);
    v
}

/// Parses the `-###` listing: quoted argv per job, `error:` lines.
pub fn parse_dry_run(text: &str, v: &mut HipDriverView) {
    for line in text.lines() {
        let t = line.trim();
        if t.contains("error:") && !t.starts_with('"') {
            v.errors.push(t.to_string());
            continue;
        }
        if !t.starts_with('"') {
            continue;
        }
        let argv = split_quoted(t);
        for w in argv.windows(2) {
            match w[0].as_str() {
                "-mlink-builtin-bitcode" => v.builtin_bitcode.push(PathBuf::from(&w[1])),
                "-resource-dir" if v.resource_dir.is_none() => {
                    v.resource_dir = Some(PathBuf::from(&w[1]))
                }
                _ => {}
            }
        }
        if let Some(prog) = argv.first() {
            let base = Path::new(prog)
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let is_lld = base == "ld.lld"
                || base.starts_with("ld.lld")
                || (base.starts_with("lld") && argv.iter().any(|a| a == "-flavor"));
            if is_lld {
                v.device_linker = Some(PathBuf::from(prog));
            }
        }
    }
}

/// Splits a `-###` job line (`"a" "b c" "d\"e"`) into its arguments.
pub fn split_quoted(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_q = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, in_q) {
            ('"', false) => in_q = true,
            ('"', true) => {
                out.push(std::mem::take(&mut cur));
                in_q = false;
            }
            ('\\', true) => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (c, true) => cur.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpu_lists() {
        let t = "Debian clang version 15.0.6\nTarget: amdgcn-amd-amdhsa\nAvailable CPUs for this \
            target:\n\n\tbonaire\n\tgfx1010\n\tgfx90a\n\tverde\n\nUse -mcpu or -mtune to specify";
        // A blank line follows the heading in real output.
        let cpus = parse_supported_cpus(t);
        assert_eq!(cpus, ["gfx1010", "gfx90a"]);
    }

    #[test]
    fn parses_dry_run_jobs() {
        let t = r#" "/usr/lib/llvm-15/bin/clang" "-cc1" "-mlink-builtin-bitcode" "/b/hip.bc" "-mlink-builtin-bitcode" "/b/ocml.bc" "-resource-dir" "/r"
 "/usr/lib/llvm-15/bin/lld" "-flavor" "gnu" "-shared" "-o" "x.out" "x.o"
clang: error: cannot find ROCm device library; provide its path"#;
        let mut v = HipDriverView::default();
        parse_dry_run(t, &mut v);
        assert_eq!(v.bitcode_dir().unwrap(), Path::new("/b"));
        assert_eq!(
            v.device_linker.unwrap(),
            Path::new("/usr/lib/llvm-15/bin/lld")
        );
        assert_eq!(v.resource_dir.unwrap(), Path::new("/r"));
        assert_eq!(v.errors.len(), 1);
    }

    #[test]
    fn the_resource_dir_is_read_from_the_printed_job() {
        // clang-15's `--target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus -v` (abridged).
        let t = "Debian clang version 15.0.6\nTarget: amdgcn-amd-amdhsa\nInstalledDir: /usr/bin\n \
            (in-process)\n \"/usr/lib/llvm-15/bin/clang\" -cc1 -triple amdgcn-amd-amdhsa -v \
            -resource-dir /usr/lib/llvm-15/lib/clang/15.0.6 -nogpulib -x c \
            -print-supported-cpus\nAvailable CPUs for this target:\n\n\tgfx900\n";
        assert_eq!(
            resource_dir_of_job(t).unwrap(),
            Path::new("/usr/lib/llvm-15/lib/clang/15.0.6")
        );
        assert_eq!(parse_supported_cpus(t), ["gfx900"]);
        // A path with a space is printed quoted.
        let q = r#" "/opt/my llvm/bin/clang" -cc1 -resource-dir "/opt/my llvm/lib/clang/19" -x c"#;
        assert_eq!(
            resource_dir_of_job(q).unwrap(),
            Path::new("/opt/my llvm/lib/clang/19")
        );
        // No job line (an error before it): nothing, so -print-resource-dir is asked.
        assert!(resource_dir_of_job("clang: error: unsupported option '-v'\n").is_none());
        assert!(resource_dir_of_job(" \"/x/clang\" -cc1 -resource-dir").is_none());
    }

    #[test]
    fn splits_quoted_args_with_escapes() {
        assert_eq!(split_quoted(r#""a" "b c" "d\"e""#), ["a", "b c", "d\"e"]);
    }
}
