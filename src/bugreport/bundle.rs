//! `report --bundle DIR` (or `--bundle FILE.tar.gz`): the raw captures beside the analysed
//! report, with a manifest (docs/report.md, "Evidence bundle").
//!
//! What is collected, each item through the `Host` (so `--sysroot` works and nothing else of
//! the machine is touched):
//! - the doctor's own documents: the `--json` document, the human report, the Markdown report;
//! - the kernel log of this boot (`kernlog::read`, rendered one line per record);
//! - a fixed list of sysfs files per amdgpu device (the files the `health.*` and `gpu.*` checks
//!   read: identity, PCIe link and AER files of the GPU and of every PCI function above it,
//!   `gpu_metrics` kept raw, `ras/`, `fw_version/`, hwmon), the KFD topology, the amdgpu
//!   module's state and parameters, the kernel release and the distribution: read with the
//!   project's safe reads (`RootedFs`: `O_NONBLOCK`, regular files only, capped), never a walk
//!   of /sys, so a file that a part does not support is not opened (no kernel-log noise);
//! - `lspci -vvv -s ADDR` of each GPU and its upstream ports, `rocminfo`, `amd-smi static` and
//!   `amd-smi metric` (else `rocm-smi --showall`), each through `Host::run` (the run's per-call
//!   timeout, bounded output); a program that is missing, refused (a `--sysroot`'s programs
//!   without `--run-root-programs`, docs/security.md item 3), failing or timing out is recorded
//!   in the manifest and never ends the bundle.
//!
//! Every text capture passes the report's redaction (`redact::scrub_secrets` always, user and
//! host names unless `--no-redact`); `gpu_metrics` is binary (a packed C struct, amdgpu's
//! `kgd_pp_interface.h`) and kept as read. What AMD's and NVIDIA's support scripts collect and
//! what this leaves out is compared in docs/report.md.
//!
//! Writing ([`write`]) is the only part that creates files: a directory must not exist or be
//! empty (never a symbolic link), files are created `0600` and directories `0700` below a
//! descriptor of it, with `O_EXCL | O_NOFOLLOW`, so a link planted inside cannot redirect a
//! write; an archive is written into a temporary file in the target's directory and renamed
//! into place without replacing anything.

use super::redact::{self, Redactor};
use crate::host::{io_error_text, CommandSpec, Host, RunOutput};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The manifest's own name in the bundle.
pub(crate) const MANIFEST: &str = "manifest.json";
/// The format named in the manifest (`format`), with its version (`format_version`).
pub(crate) const FORMAT: &str = "rocm-doctor-bundle";
pub(crate) const FORMAT_VERSION: u32 = 1;
/// No sysfs or configuration file is copied past this size (sysfs text is at most a page,
/// `gpu_metrics` at most a few KiB).
pub(crate) const MAX_FILE: u64 = 1 << 20;
/// The whole bundle stays under this many bytes (before compression); what would pass it is
/// left out and said so.
pub(crate) const MAX_TOTAL: u64 = 256 << 20;
/// At most this many entries of one directory (`ras/`, `fw_version/`, a hwmon, the module's
/// parameters, KFD nodes) are copied.
const MAX_ENTRIES: usize = 256;
/// At most this many GPUs (and their ports) are asked about with `lspci`.
const MAX_LSPCI: usize = 64;

/// The files of a PCI function that are copied when present: identity, PCIe link state and
/// its error counters (kernel Documentation/ABI/testing/sysfs-bus-pci and
/// sysfs-bus-pci-devices-aer_stats), and amdgpu's own files (amdgpu's "Misc AMDGPU driver
/// information" sysfs docs: product and VBIOS, VRAM, partitions, `pp_dpm_pcie`,
/// `pcie_replay_count`, XGMI ids). `gpu_metrics` is in [`BINARY`].
const DEVICE_FILES: &[&str] = &[
    "vendor",
    "device",
    "subsystem_vendor",
    "subsystem_device",
    "revision",
    "class",
    "uevent",
    "current_link_speed",
    "current_link_width",
    "max_link_speed",
    "max_link_width",
    "aer_dev_correctable",
    "aer_dev_nonfatal",
    "aer_dev_fatal",
    "pcie_replay_count",
    "pp_dpm_pcie",
    "product_name",
    "product_number",
    "serial_number",
    "unique_id",
    "vbios_version",
    "mem_info_vram_total",
    "mem_info_vram_used",
    "current_compute_partition",
    "available_compute_partition",
    "current_memory_partition",
    "available_memory_partition",
    "xgmi_device_id",
    "xgmi_physical_id",
    "gpu_metrics",
];
/// The files of a PCI function above a GPU (switch ports, the root port).
const PORT_FILES: &[&str] = &[
    "vendor",
    "device",
    "class",
    "current_link_speed",
    "current_link_width",
    "max_link_speed",
    "max_link_width",
    "aer_dev_correctable",
    "aer_dev_nonfatal",
    "aer_dev_fatal",
];
/// Files kept byte for byte, never decoded or redacted.
const BINARY: &[&str] = &["gpu_metrics"];
/// Machine-wide files copied when present.
const MACHINE_FILES: &[&str] = &[
    "/sys/module/amdgpu/initstate",
    "/sys/module/amdgpu/version",
    "/proc/sys/kernel/osrelease",
    "/proc/cmdline",
    "/etc/os-release",
    "/usr/lib/os-release",
];

/// Where one file of the bundle came from.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum Source {
    /// Written by the doctor (its JSON, human and Markdown reports).
    Generated { what: String },
    /// A copy of a file of the diagnosed machine (its machine path).
    File { path: String },
    /// The kernel log, from the source `kernlog` read.
    KernelLog {
        boot: String,
        source: String,
        notes: Vec<String>,
    },
    /// The standard output (or error) of a program.
    Command {
        argv: Vec<String>,
        stream: &'static str,
        /// How it ended (`exit code 0`, `timed out after 2000 ms and was killed`).
        outcome: String,
        exit_code: Option<i32>,
        timed_out: bool,
        /// The output was cut at the runner's bound.
        truncated: bool,
    },
}

/// One file of the bundle.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Entry {
    /// Its path inside the bundle (`/`-separated, relative).
    pub path: String,
    pub source: Source,
    pub size: u64,
    pub sha256: String,
    /// Passed through the report's redaction (every text capture); `false` for binary files.
    pub redacted: bool,
    /// The redaction changed it.
    pub changed_by_redaction: bool,
}

/// Something that was looked for and is not in the bundle, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct LeftOut {
    pub what: String,
    pub why: String,
}

/// `manifest.json`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Manifest {
    pub format: &'static str,
    pub format_version: u32,
    pub tool_version: &'static str,
    /// The diagnosed root (`/`, or the `--sysroot`).
    pub root: String,
    /// Seconds since the epoch when the bundle was made.
    pub created_unix: u64,
    /// User and host names replaced (`--no-redact` turns it off); secrets are always.
    pub names_redacted: bool,
    pub max_file_bytes: u64,
    pub max_total_bytes: u64,
    pub files: Vec<Entry>,
    pub left_out: Vec<LeftOut>,
}

/// The bundle in memory, ready to be written.
#[derive(Debug)]
pub(crate) struct Bundle {
    pub manifest: Manifest,
    /// `(path in the bundle, bytes)`, in the manifest's order.
    pub contents: Vec<(String, Vec<u8>)>,
}

impl Bundle {
    /// The manifest as written (pretty JSON, a final newline).
    pub(crate) fn manifest_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(&self.manifest).expect("manifest serializes");
        v.push(b'\n');
        v
    }
}

/// The doctor's own documents, made by the caller from the same run.
pub(crate) struct Documents<'a> {
    /// The `--json` document.
    pub json: &'a Value,
    /// The human report (no colour).
    pub human: &'a str,
    /// The Markdown report (already redacted by `report`'s rules).
    pub markdown: &'a str,
    /// This boot's kernel log, as the report read it (`kernlog::read`).
    pub kernel_log: &'a super::KernelLogRead,
}

struct Collector<'a> {
    red: &'a Redactor,
    total: u64,
    seen: BTreeSet<String>,
    bundle: Bundle,
}

impl<'a> Collector<'a> {
    fn new(red: &'a Redactor) -> Self {
        Collector {
            red,
            total: 0,
            seen: BTreeSet::new(),
            bundle: Bundle {
                manifest: Manifest {
                    format: FORMAT,
                    format_version: FORMAT_VERSION,
                    tool_version: env!("CARGO_PKG_VERSION"),
                    root: String::new(),
                    created_unix: std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs()),
                    names_redacted: red.is_on(),
                    max_file_bytes: MAX_FILE,
                    max_total_bytes: MAX_TOTAL,
                    files: Vec::new(),
                    left_out: Vec::new(),
                },
                contents: Vec::new(),
            },
        }
    }

    /// A string of the manifest, redacted like the captures.
    fn r(&self, s: &str) -> String {
        let mut s = redact::scrub_secrets(s);
        self.red.in_place(&mut s);
        s
    }

    fn left_out(&mut self, what: &str, why: &str) {
        let (what, why) = (self.r(what), self.r(why));
        self.bundle.manifest.left_out.push(LeftOut { what, why });
    }

    /// Adds a file; text is redacted first (`binary` files are kept as they are).
    fn add(&mut self, path: &str, bytes: Vec<u8>, source: Source, binary: bool) {
        if !safe_relative(path) || self.seen.contains(path) {
            self.left_out(path, "not a safe, unique path inside the bundle");
            return;
        }
        let (bytes, changed) = if binary {
            (bytes, false)
        } else {
            let text = String::from_utf8_lossy(&bytes);
            let red = self.r(&text);
            let changed = red.as_bytes() != bytes.as_slice();
            (red.into_bytes(), changed)
        };
        let size = bytes.len() as u64;
        if self.total + size > MAX_TOTAL {
            let why = format!("the bundle would pass its bound of {MAX_TOTAL} bytes");
            self.left_out(path, &why);
            return;
        }
        self.total += size;
        self.seen.insert(path.to_string());
        self.bundle.manifest.files.push(Entry {
            path: path.to_string(),
            source,
            size,
            sha256: sha256_hex(&bytes),
            redacted: !binary,
            changed_by_redaction: changed,
        });
        self.bundle.contents.push((path.to_string(), bytes));
    }

    /// Copies a file of the machine to `files/<machine path>` when it exists; what exists
    /// but cannot be read (permission, a FIFO, too large, a fixture's `[[deny]]`) is recorded.
    fn copy(&mut self, host: &Host, fx: &crate::gpu::fixture::Fixture, machine: &Path) {
        let shown = machine.display().to_string();
        let name = format!("files/{}", shown.trim_start_matches('/'));
        if self.seen.contains(&name) {
            return;
        }
        let binary = machine
            .file_name()
            .is_some_and(|n| BINARY.iter().any(|b| n == *b));
        let read = match fx.denied(machine) {
            Some(e) => Err(e),
            None => host.fs.read_bytes_limited(machine, MAX_FILE),
        };
        match read {
            Ok(bytes) => self.add(&name, bytes, Source::File { path: shown }, binary),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                let why = match e.raw_os_error() {
                    Some(_) => io_error_text(&e),
                    None => e.to_string(),
                };
                self.left_out(&shown, &format!("could not be read: {why}"));
            }
        }
    }

    /// Copies the regular files of a directory (at most [`MAX_ENTRIES`]; links and
    /// subdirectories are not followed).
    fn copy_dir(&mut self, host: &Host, fx: &crate::gpu::fixture::Fixture, dir: &Path) {
        let names = host.fs.list_names(dir);
        if names.len() > MAX_ENTRIES {
            let why = format!("only the first {MAX_ENTRIES} of {} entries", names.len());
            self.left_out(&dir.display().to_string(), &why);
        }
        for n in names.into_iter().take(MAX_ENTRIES) {
            let p = dir.join(&n);
            match host.fs.symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() || m.is_dir() => continue,
                _ => self.copy(host, fx, &p),
            }
        }
    }
}

/// Whether a bundle path is relative, `/`-separated, without `.`/`..`/empty components or
/// NUL, so that it stays inside the bundle wherever it is written or unpacked.
pub(crate) fn safe_relative(p: &str) -> bool {
    !p.is_empty()
        && !p.contains('\0')
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

/// The lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Strings of a JSON document redacted in place (keys are the doctor's own and stay).
fn redact_value(v: &mut Value, c: &Collector<'_>) {
    match v {
        Value::String(s) => *s = c.r(s),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_value(x, c)),
        Value::Object(o) => o.values_mut().for_each(|x| redact_value(x, c)),
        _ => {}
    }
}

/// Gathers the bundle: the documents, the kernel log, the sysfs files and the tools' output.
pub(crate) fn collect(host: &Host, red: &Redactor, docs: &Documents<'_>) -> Bundle {
    let mut c = Collector::new(red);
    c.bundle.manifest.root = c.r(&host.fs.root().display().to_string());

    // The reports: JSON strings redacted one by one, so the document stays valid JSON.
    let mut json = docs.json.clone();
    redact_value(&mut json, &c);
    let mut bytes = serde_json::to_vec_pretty(&json).expect("JSON serializes");
    bytes.push(b'\n');
    let gen = |what: &str| Source::Generated { what: what.into() };
    c.add(
        "doctor.json",
        bytes,
        gen("the --json document of this run"),
        true,
    );
    c.add(
        "doctor.txt",
        docs.human.as_bytes().to_vec(),
        gen("the human report of this run"),
        false,
    );
    c.add(
        "report.md",
        docs.markdown.as_bytes().to_vec(),
        gen("the Markdown bug report of this run (rocm-doctor report)"),
        false,
    );

    kernel_logs(host, docs.kernel_log, &mut c);

    let fx = crate::gpu::fixture::load(host);
    for p in MACHINE_FILES {
        c.copy(host, &fx, Path::new(p));
    }
    let params = Path::new("/sys/module/amdgpu/parameters");
    c.copy_dir(host, &fx, params);
    kfd_topology(host, &fx, &mut c);

    let devices = crate::gpu::health::read::device_dirs(host);
    let mut lspci_targets: Vec<String> = Vec::new();
    for d in &devices {
        device_files(host, &fx, &mut c, &d.dir);
        for (i, f) in d.dir.ancestors().enumerate() {
            let Some(bdf) = f.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                break;
            };
            if !crate::gpu::health::parse::is_pci_address(&bdf) {
                break;
            }
            if i > 0 {
                for name in PORT_FILES {
                    c.copy(host, &fx, &f.join(name));
                }
            }
            if !lspci_targets.contains(&bdf) {
                lspci_targets.push(bdf);
            }
        }
    }
    if devices.is_empty() {
        c.left_out("GPU sysfs files", "no amdgpu PCI device was found");
    }
    tools(host, &mut c, &lspci_targets);
    c.bundle
}

/// The files of one amdgpu PCI function (`dir`, a canonical machine path).
fn device_files(host: &Host, fx: &crate::gpu::fixture::Fixture, c: &mut Collector, dir: &Path) {
    for name in DEVICE_FILES {
        c.copy(host, fx, &dir.join(name));
    }
    // ras/ (counters, bad pages, features) and fw_version/ are flat directories of files
    // (amdgpu RAS and firmware-version sysfs docs); hwmon has one directory per hwmon device
    // (kernel Documentation/hwmon/sysfs-interface.rst).
    for sub in ["ras", "fw_version"] {
        let p = dir.join(sub);
        if host.fs.is_dir(&p) {
            c.copy_dir(host, fx, &p);
        }
    }
    let hw = dir.join("hwmon");
    for n in host.fs.list_names(&hw).into_iter().take(MAX_ENTRIES) {
        let p = hw.join(n);
        if host.fs.is_dir(&p) {
            c.copy_dir(host, fx, &p);
        }
    }
}

/// KFD's topology: the system properties and each node's `properties`, `name` and `gpu_id`
/// (what `gpu.*` reads, kernel `drivers/gpu/drm/amd/amdkfd/kfd_topology.c`).
fn kfd_topology(host: &Host, fx: &crate::gpu::fixture::Fixture, c: &mut Collector) {
    let Some(topo) = crate::gpu::sysfs::TOPOLOGY_DIRS
        .iter()
        .map(Path::new)
        .find(|d| host.fs.is_dir(d))
    else {
        c.left_out("KFD topology", "no /sys/devices/virtual/kfd/kfd/topology");
        return;
    };
    for f in ["generation_id", "system_properties"] {
        c.copy(host, fx, &topo.join(f));
    }
    let nodes = topo.join("nodes");
    for n in host.fs.list_names(&nodes).into_iter().take(MAX_ENTRIES) {
        for f in ["properties", "name", "gpu_id"] {
            c.copy(host, fx, &nodes.join(&n).join(f));
        }
    }
}

/// The kernel log of this boot, and what happened in the earlier boots.
fn kernel_logs(host: &Host, this_boot: &super::KernelLogRead, c: &mut Collector) {
    match this_boot {
        Ok(log) => {
            let text = render_lines(&log.lines);
            let source = Source::KernelLog {
                boot: "current".into(),
                source: c.r(&log.described),
                notes: log.notes.iter().map(|n| c.r(n)).collect(),
            };
            c.add("kernel/boot-0.log", text.into_bytes(), source, false);
        }
        Err(e) => c.left_out("kernel log of this boot", &e.to_string()),
    }
    // Earlier boots, as `kernel.history` reads them (a persistent journal on this machine, the
    // rotated kern.log files of any root): per boot and per GPU, the events counted. The
    // history keeps the events, not the lines, so no text log of an earlier boot is written.
    let history = crate::kernlog::history::read_history(host, EARLIER_BOOTS + 1);
    match &history {
        Ok(h) => {
            let doc =
                crate::kernlog::history::to_json(std::iter::empty(), &history, EARLIER_BOOTS + 1);
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
            let source = Source::Generated {
                what: format!(
                    "the {} earlier boot(s) read by {} from {}",
                    h.boots.len(),
                    crate::checkdoc::CheckId::KernelHistory,
                    c.r(&h.source)
                ),
            };
            c.add("kernel/history.json", text.into_bytes(), source, false);
        }
        Err(e) => c.left_out("kernel log of earlier boots", &e.to_string()),
    }
}

/// How many boots before this one the bundle asks the history for (the fleet default of
/// `--boots`, 5 in all).
const EARLIER_BOOTS: usize = 4;

/// One line per record: `[seconds] message` when the record carries printk's time, else the
/// wall-clock time as printed, else the message alone.
fn render_lines(lines: &[crate::kernlog::parse::KernelLine]) -> String {
    let mut out = String::new();
    for l in lines {
        match (&l.ts, &l.wall) {
            (Some(ts), _) => out.push_str(&format!("[{ts:>12.6}] ")),
            (None, Some(w)) => out.push_str(&format!("{w} ")),
            (None, None) => {}
        }
        out.push_str(&l.text);
        out.push('\n');
    }
    out
}

/// The tools vendor support asks for, each under the run's per-call timeout.
fn tools(host: &Host, c: &mut Collector, lspci_targets: &[String]) {
    match find_tool(host, "lspci") {
        None => c.left_out("lspci -vvv", "lspci is not installed (not on PATH)"),
        Some(lspci) if lspci_targets.is_empty() => {
            let _ = lspci;
            c.left_out("lspci -vvv", "no GPU to ask about");
        }
        Some(lspci) => {
            for (i, addr) in lspci_targets.iter().enumerate() {
                if i == MAX_LSPCI {
                    let why = format!("only the first {MAX_LSPCI} PCI functions are asked about");
                    c.left_out("lspci -vvv", &why);
                    break;
                }
                let name = format!("commands/lspci-vvv-s-{}", addr.replace(':', "_"));
                let done = run_tool(host, c, &lspci, &["-vvv", "-s", addr], &name);
                if !done {
                    c.left_out(
                        "lspci -vvv",
                        "not asked again after a failure to start or a timeout",
                    );
                    break;
                }
            }
        }
    }
    match find_tool(host, "rocminfo") {
        Some(p) => {
            run_tool(host, c, &p, &[], "commands/rocminfo");
        }
        None => c.left_out(
            "rocminfo",
            "not installed (not on PATH nor in /opt/rocm/bin)",
        ),
    }
    match (find_tool(host, "amd-smi"), find_tool(host, "rocm-smi")) {
        (Some(p), _) => {
            if run_tool(host, c, &p, &["static"], "commands/amd-smi-static") {
                run_tool(host, c, &p, &["metric"], "commands/amd-smi-metric");
            } else {
                c.left_out(
                    "amd-smi metric",
                    "not run after amd-smi static failed to start or timed out",
                );
            }
        }
        (None, Some(p)) => {
            run_tool(host, c, &p, &["--showall"], "commands/rocm-smi-showall");
        }
        (None, None) => c.left_out(
            "amd-smi static/metric, rocm-smi --showall",
            "neither amd-smi nor rocm-smi is installed (not on PATH nor in /opt/rocm/bin)",
        ),
    }
}

/// A tool on PATH (the diagnosed root's, through `Host::which`), else in `/opt/rocm/bin`
/// (where ROCm installs them and `rocm_techsupport.sh` looks).
fn find_tool(host: &Host, name: &str) -> Option<PathBuf> {
    host.which(name).or_else(|| {
        let p = Path::new("/opt/rocm/bin").join(name);
        host.fs.is_file(&p).then_some(p)
    })
}

/// Runs one tool and adds its output; `false` when it did not start or timed out (the caller
/// then asks no more of it). A tool that could not start is recorded as left out.
fn run_tool(host: &Host, c: &mut Collector, program: &Path, args: &[&str], name: &str) -> bool {
    let spec = CommandSpec::new(program).args(args.iter().copied());
    let out: RunOutput = host.run(&spec);
    let mut argv = vec![program.display().to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let argv: Vec<String> = argv.iter().map(|a| c.r(a)).collect();
    if let Some(f) = &out.spawn_error {
        let why = if f.errno == "not-run" {
            f.message.clone()
        } else {
            out.outcome()
        };
        c.left_out(&argv.join(" "), &why);
        return false;
    }
    let source = |stream: &'static str| Source::Command {
        argv: argv.clone(),
        stream,
        outcome: out.outcome(),
        exit_code: out.code,
        timed_out: out.timed_out,
        truncated: out.truncated,
    };
    c.add(
        &format!("{name}.out"),
        out.stdout.clone(),
        source("stdout"),
        false,
    );
    if !out.stderr.is_empty() {
        c.add(
            &format!("{name}.err"),
            out.stderr.clone(),
            source("stderr"),
            false,
        );
    }
    !out.timed_out
}

/// What `--bundle` names: a directory, or an archive when the name ends in `.tar.gz`/`.tgz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Dir(PathBuf),
    TarGz(PathBuf),
}

impl Target {
    pub(crate) fn of(path: &Path) -> Target {
        let s = path.to_string_lossy();
        if s.ends_with(".tar.gz") || s.ends_with(".tgz") {
            Target::TarGz(path.to_path_buf())
        } else {
            Target::Dir(path.to_path_buf())
        }
    }

    /// Refuses a target that cannot be written, before the run (checked again when writing):
    /// a directory that exists must be an empty directory, not a link to one; an archive
    /// must not exist and its directory must.
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            Target::Dir(d) => match std::fs::symlink_metadata(d) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(format!("{}: {}", d.display(), io_error_text(&e))),
                Ok(m) if m.file_type().is_symlink() => Err(format!(
                    "{}: is a symbolic link; name a new or empty directory",
                    d.display()
                )),
                Ok(m) if !m.is_dir() => Err(format!(
                    "{}: exists and is not a directory; name a new or empty directory",
                    d.display()
                )),
                Ok(_) => match std::fs::read_dir(d).map(|mut it| it.next().is_none()) {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(format!(
                        "{}: is not empty; name a new or empty directory",
                        d.display()
                    )),
                    Err(e) => Err(format!("{}: {}", d.display(), io_error_text(&e))),
                },
            },
            Target::TarGz(f) => {
                if std::fs::symlink_metadata(f).is_ok() {
                    return Err(format!(
                        "{}: exists; the bundle is never written over a file",
                        f.display()
                    ));
                }
                let parent = parent_of(f);
                if !parent.is_dir() {
                    return Err(format!("{}: no such directory", parent.display()));
                }
                Ok(())
            }
        }
    }
}

fn parent_of(f: &Path) -> PathBuf {
    match f.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes the bundle and its manifest (last) to the target.
pub(crate) fn write(b: &Bundle, target: &Target) -> Result<(), String> {
    target.check()?;
    match target {
        Target::Dir(d) => write_dir(b, d).map_err(|e| format!("{}: {e}", d.display())),
        Target::TarGz(f) => write_tar_gz(b, f).map_err(|e| format!("{}: {e}", f.display())),
    }
}

fn cstr(s: impl AsRef<std::ffi::OsStr>) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(s.as_ref().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Opens a directory below `at` (or the path itself when `at` is `None`) without following a
/// final link.
fn open_dir(
    at: Option<&std::os::fd::OwnedFd>,
    name: impl AsRef<std::ffi::OsStr>,
) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let c = cstr(name)?;
    let dirfd = at.map_or(libc::AT_FDCWD, |f| f.as_raw_fd());
    // SAFETY: a valid NUL-terminated path and a descriptor we own (or AT_FDCWD).
    let fd = cvt(unsafe { libc::openat(dirfd, c.as_ptr(), flags) })?;
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

fn write_dir(b: &Bundle, dest: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::DirBuilderExt;
    let created = match std::fs::DirBuilder::new().mode(0o700).create(dest) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
        Err(e) => return Err(e),
    };
    let root = open_dir(None, dest)?;
    if !created {
        // Checked again through the descriptor: still empty.
        let listing = std::fs::read_dir(format!("/proc/self/fd/{}", root.as_raw_fd()))?;
        if listing.count() > 0 {
            return Err(io::Error::other(
                "is not empty (changed while the doctor ran)",
            ));
        }
    }
    write_below(b, &root)
}

/// Writes the files and the manifest (last) below the open directory `root`: every
/// directory made `0700` and opened without following a link, every file created `0600` with
/// `O_EXCL | O_NOFOLLOW`, so nothing already there (a planted link) is followed or replaced.
fn write_below(b: &Bundle, root: &std::os::fd::OwnedFd) -> io::Result<()> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let manifest = b.manifest_bytes();
    let files = b
        .contents
        .iter()
        .map(|(p, v)| (p.as_str(), v.as_slice()))
        .chain(std::iter::once((MANIFEST, manifest.as_slice())));
    let mut dirs: std::collections::BTreeMap<String, std::os::fd::OwnedFd> = Default::default();
    for (path, bytes) in files {
        let (parent, file) = path.rsplit_once('/').unwrap_or(("", path));
        let at = if parent.is_empty() {
            root
        } else {
            if !dirs.contains_key(parent) {
                let mut cur: Option<std::os::fd::OwnedFd> = None;
                for comp in parent.split('/') {
                    let base = cur.as_ref().unwrap_or(root);
                    let c = cstr(comp)?;
                    // SAFETY: valid descriptor and NUL-terminated name.
                    let r = unsafe { libc::mkdirat(base.as_raw_fd(), c.as_ptr(), 0o700) };
                    if r < 0 {
                        let e = io::Error::last_os_error();
                        if e.kind() != io::ErrorKind::AlreadyExists {
                            return Err(e);
                        }
                    }
                    cur = Some(open_dir(Some(base), comp)?);
                }
                dirs.insert(parent.to_string(), cur.expect("a parent has a component"));
            }
            &dirs[parent]
        };
        let c = cstr(file)?;
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: valid descriptor and NUL-terminated name; mode passed as the variadic int.
        let fd =
            cvt(unsafe { libc::openat(at.as_raw_fd(), c.as_ptr(), flags, 0o600 as libc::c_uint) })
                .map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
        f.write_all(bytes)?;
    }
    Ok(())
}

fn write_tar_gz(b: &Bundle, dest: &Path) -> io::Result<()> {
    let parent = parent_of(dest);
    // tempfile creates the file with O_EXCL and mode 0600 in the target's directory, so the
    // rename below stays on one file system; it is removed if anything fails before.
    let tmp = tempfile::Builder::new()
        .prefix(".rocm-doctor-bundle-")
        .suffix(".tmp")
        .tempfile_in(&parent)?;
    let top = archive_top(dest);
    {
        let gz = flate2::write::GzEncoder::new(tmp.as_file(), flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        let manifest = b.manifest_bytes();
        let files = b
            .contents
            .iter()
            .map(|(p, v)| (p.as_str(), v.as_slice()))
            .chain(std::iter::once((MANIFEST, manifest.as_slice())));
        let mtime = b.manifest.created_unix;
        let mut dirs_done: BTreeSet<String> = BTreeSet::new();
        for (path, bytes) in files {
            // Directory entries first (0700), as the directory form has them.
            let mut prefix = String::new();
            for comp in path
                .split('/')
                .collect::<Vec<_>>()
                .split_last()
                .map_or(&[][..], |(_, d)| d)
            {
                prefix = if prefix.is_empty() {
                    comp.to_string()
                } else {
                    format!("{prefix}/{comp}")
                };
                if dirs_done.insert(prefix.clone()) {
                    let mut h = tar::Header::new_gnu();
                    h.set_entry_type(tar::EntryType::Directory);
                    h.set_mode(0o700);
                    h.set_size(0);
                    h.set_mtime(mtime);
                    tar.append_data(&mut h, format!("{top}/{prefix}/"), io::empty())?;
                }
            }
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Regular);
            h.set_mode(0o600);
            h.set_size(bytes.len() as u64);
            h.set_mtime(mtime);
            tar.append_data(&mut h, format!("{top}/{path}"), bytes)?;
        }
        let gz = tar.into_inner()?;
        gz.finish()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist_noclobber(dest).map_err(|e| e.error)?;
    Ok(())
}

/// The one directory an archive unpacks into: its file name without `.tar.gz`/`.tgz`.
pub(crate) fn archive_top(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle".into());
    let stem = name
        .strip_suffix(".tar.gz")
        .or_else(|| name.strip_suffix(".tgz"))
        .unwrap_or(&name);
    if stem.is_empty() || stem == "." || stem == ".." {
        "bundle".into()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_paths_only() {
        for ok in [
            "doctor.json",
            "files/sys/x",
            "commands/lspci-vvv-s-0000_43_00.0.out",
        ] {
            assert!(safe_relative(ok), "{ok}");
        }
        for bad in ["", "/etc/x", "a//b", "a/../b", "./a", "a/", "a\0b", ".."] {
            assert!(!safe_relative(bad), "{bad:?}");
        }
    }

    #[test]
    fn sha256_known_answer() {
        // FIPS 180-2 appendix B.1: SHA-256("abc").
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn targets() {
        assert_eq!(
            Target::of(Path::new("/x/b.tar.gz")),
            Target::TarGz("/x/b.tar.gz".into())
        );
        assert_eq!(
            Target::of(Path::new("b.tgz")),
            Target::TarGz("b.tgz".into())
        );
        assert_eq!(Target::of(Path::new("out")), Target::Dir("out".into()));
        assert_eq!(archive_top(Path::new("/x/node7.tar.gz")), "node7");
        assert_eq!(archive_top(Path::new(".tgz")), "bundle");
    }

    #[test]
    fn unsafe_names_and_the_bound_are_left_out() {
        let red = Redactor::off();
        let mut c = Collector::new(&red);
        c.total = MAX_TOTAL - 3;
        let g = || Source::Generated { what: "t".into() };
        c.add("../escape", b"x".to_vec(), g(), false);
        c.add("ok", b"abc".to_vec(), g(), false);
        c.add("ok", b"".to_vec(), g(), false);
        c.add("big", b"abcd".to_vec(), g(), false);
        let names: Vec<&str> = c
            .bundle
            .manifest
            .files
            .iter()
            .map(|e| e.path.as_str())
            .collect();
        assert_eq!(names, ["ok"]);
        let out: Vec<&str> = c
            .bundle
            .manifest
            .left_out
            .iter()
            .map(|l| l.what.as_str())
            .collect();
        assert_eq!(out, ["../escape", "ok", "big"]);
        assert!(c.bundle.manifest.left_out[2].why.contains("bound"));
    }

    #[test]
    fn links_planted_in_the_target_are_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("doctor.json"), "theirs").unwrap();
        let target = t.path().join("b");
        std::fs::create_dir(&target).unwrap();
        let red = Redactor::off();
        let g = || Source::Generated { what: "t".into() };
        // A link where a file goes, and one where a directory goes.
        for (planted, name) in [
            ("doctor.json", "doctor.json"),
            ("kernel", "kernel/boot-0.log"),
        ] {
            let mut c = Collector::new(&red);
            c.add(name, b"ours".to_vec(), g(), false);
            let link = target.join(planted);
            let to = outside.join(planted);
            std::os::unix::fs::symlink(&to, &link).unwrap();
            let root = open_dir(None, &target).unwrap();
            let e = write_below(&c.bundle, &root).unwrap_err();
            // O_EXCL on the file's link (EEXIST), O_NOFOLLOW on the directory's (ELOOP).
            assert!(
                e.kind() == io::ErrorKind::AlreadyExists
                    || matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)),
                "{planted}: {e}"
            );
            std::fs::remove_file(&link).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(outside.join("doctor.json")).unwrap(),
            "theirs"
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
        // And written when nothing is planted.
        let mut c = Collector::new(&red);
        c.add("kernel/boot-0.log", b"ours".to_vec(), g(), false);
        let root = open_dir(None, &target).unwrap();
        write_below(&c.bundle, &root).unwrap();
        assert_eq!(
            std::fs::read(target.join("kernel/boot-0.log")).unwrap(),
            b"ours"
        );
    }

    #[test]
    fn secrets_scrubbed_even_without_name_redaction() {
        let red = Redactor::off();
        let c = Collector::new(&red);
        let mut v =
            serde_json::json!({"a": ["HF_TOKEN=hunter2"], "b": {"c": "https://u:hunter2@h/"}});
        redact_value(&mut v, &c);
        let t = v.to_string();
        assert!(!t.contains("hunter2"), "{t}");
        assert!(t.contains("HF_TOKEN=<redacted>"), "{t}");
    }
}
