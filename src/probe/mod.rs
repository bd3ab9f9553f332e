//! Vendor libraries are loaded only in a child process: the doctor re-executes itself with the
//! hidden `probe-library KIND PATH` subcommand, and the parent reads the child's one JSON line.
//! A crash, hang or abort in vendor code therefore ends the child, never the doctor.
//!
//! Protocol: the child prints exactly one line, a JSON object, on stdout, and exits 0 when it
//! could load the library (whatever the library then said), 3 when it could not.

mod comgr;
mod hip;
pub(crate) mod hsa;

use crate::host::Host;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) const EXIT_LOADED: i32 = 0;
pub(crate) const EXIT_NOT_LOADED: i32 = 3;

/// Entry point of the child process.
pub(crate) fn child_main(kind: &str, path: &Path) -> i32 {
    if kind == "hsa" {
        // The HSA probe prints its own line (src/probe/hsa.rs documents it).
        return hsa::child_main(path);
    }
    let result = match kind {
        "hip" => hip::probe(path),
        "comgr" => comgr::probe(path),
        other => Err(format!("unknown probe kind '{other}' (hip, comgr, hsa)")),
    };
    let (line, code) = match result {
        Ok(v) => (v, EXIT_LOADED),
        Err(e) => (json!({ "loaded": false, "error": e }), EXIT_NOT_LOADED),
    };
    println!("{line}");
    code
}

/// What the parent learnt from one child.
#[derive(Debug, Clone)]
pub(crate) struct ProbeResult {
    pub command: String,
    /// The child's JSON line, when it printed one.
    pub report: Option<Value>,
    /// How the child ended (`exit code 0`, `killed by signal SIGSEGV`, `timed out ...`).
    pub outcome: String,
    pub stderr_tail: String,
}

/// The command of a `rocm-doctor probe-library KIND PATH` child: the doctor itself (through
/// the host's loader under --host-root, `Host::probe_spec`), the library's own directory first
/// in its search path (its siblings, as its RUNPATH `$ORIGIN` finds them), then `lib_dirs`.
///
/// Under `--host-root` the library is handed over resolved inside the root (issue 25, item 2):
/// `DIR/opt/rocm/lib/libamdhip64.so` with `/opt/rocm` an absolute link would be opened through
/// this container's `/etc/alternatives`, or find the container's own `/opt/rocm-6.x`.
pub(crate) fn spec(
    host: &Host,
    kind: &str,
    lib: &Path,
    lib_dirs: &[PathBuf],
) -> crate::host::CommandSpec {
    let real = match host.fs.paths_are_native() {
        true => lib.to_path_buf(),
        false => host
            .fs
            .canonicalize(lib)
            .unwrap_or_else(|_| lib.to_path_buf()),
    };
    let dirs: Vec<PathBuf> = lib
        .parent()
        .into_iter()
        .chain(real.parent())
        .map(Path::to_path_buf)
        .chain(lib_dirs.iter().cloned())
        .collect();
    host.probe_spec(&dirs)
        .arg("probe-library")
        .arg(kind)
        .arg(host.fs.host_path(&real))
}

/// Runs `rocm-doctor probe-library KIND PATH` as a child of the doctor.
pub(crate) fn run_probe(host: &Host, kind: &str, lib: &Path, lib_dirs: &[PathBuf]) -> ProbeResult {
    let spec = spec(host, kind, lib, lib_dirs)
        .timeout(Duration::from_secs(10).min(host.limits().per_call));
    let out = host.run(&spec);
    let report = out
        .stdout_text()
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l.trim()).ok());
    ProbeResult {
        command: out.command.clone(),
        report,
        outcome: out.outcome(),
        stderr_tail: out.stderr_tail(4),
    }
}
