//! `gpu.runtime-init`: the HSA runtime initialises and sees the agents (in a child).

use super::gate;
use crate::checks::{CheckId, Ctx};
use crate::config::Profile;
use crate::gpu::devnodes::NodeState;
use crate::gpu::hsa;
use crate::gpu::Topology;
use crate::host::RunOutput;
use crate::report::Finding;
use std::path::{Path, PathBuf};

pub(super) fn runtime_init(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if !t.environment.wsl.is_empty() {
        return gate(ctx, t, false).unwrap_or_default();
    }
    let has_gpu = t.has_gpu_nodes();
    let runtime = ctx.cfg.profile == Profile::Runtime;
    // Decision (issue 20): hsa_init is probed on this machine and under --host-root (the
    // host's library through the host's loader, in this container, against the devices the
    // container sees: the same /dev/kfd and render nodes gpu.kfd and gpu.render open);
    // never in a fixture.
    if !ctx.host.fs.loads_libraries() {
        return vec![Finding::skip(
            "HSA runtime initialisation is only probed on a live root \
            (--sysroot is a fixture or another tree; --host-root is live)",
        )];
    }
    let preferred = ctx
        .inv
        .libraries()
        .iter()
        .find(|l| l.name == "hsa-runtime64")
        .and_then(|l| l.path.clone());
    let Some(lib) = hsa_library(ctx, preferred.as_deref()) else {
        let msg = "libhsa-runtime64 is not installed where the loader looks";
        return vec![if runtime || has_gpu {
            Finding::fail(msg).fix_text(
                "Install the HSA runtime (package hsa-rocr / \
                libhsa-runtime64-1 / rocm-hip-runtime), or add its directory to LD_LIBRARY_PATH.",
            )
        } else {
            Finding::skip(format!("{msg}; no GPU here either"))
        }];
    };
    let (run, line) = hsa::run_probe(ctx.host, &lib, &crate::checks::runtime::loader_dirs(ctx));
    let cmd = format!("$ {}", run.command);
    let Some(line) = line else {
        return vec![not_reported(ctx, &run, cmd, runtime || has_gpu)];
    };
    let ev_lib = format!("library {}", lib.display());
    if !line.loaded {
        let err = line.error.unwrap_or_default();
        let f = Finding::new(
            if runtime || has_gpu {
                crate::report::Status::Fail
            } else {
                crate::report::Status::Warn
            },
            format!("libhsa-runtime64 cannot be loaded: {err}"),
        );
        return vec![f.evidence(ev_lib).evidence(cmd).fix_text(
            "Install the library's missing \
            dependencies (`ldd` on it lists them, libhsakmt and libnuma are the usual ones).",
        )];
    }
    let st = line.init_status.unwrap_or(u32::MAX);
    if st != 0 {
        return vec![init_failed(t, &line, st, [ev_lib, cmd], runtime)];
    }
    vec![agents_seen(t, &line, [ev_lib, cmd], runtime)]
}

/// The probe printed no line: it crashed, hung, or the doctor could not start it.
fn not_reported(ctx: &Ctx, run: &RunOutput, cmd: String, must: bool) -> Finding {
    let mut f = if must {
        Finding::fail(format!("the HSA probe did not report: {}", run.outcome()))
    } else {
        Finding::warn(format!("the HSA probe did not report: {}", run.outcome()))
    };
    // Under --host-root the child runs the doctor with the host's loader and glibc
    // (Host::probe_spec): when the doctor itself cannot start there (a host glibc older
    // than the doctor's), nothing is known about the GPU: undecided, never a failure.
    let err = run.stderr_text();
    let loader_refused = ctx.host.fs.mode() == crate::host::RootMode::HostRoot
        && (err.contains("error while loading shared libraries")
            || err.contains("version `GLIBC_"));
    if run.timed_out || loader_refused {
        f.status = crate::report::Status::Error;
    }
    // Issue 25, item 4: a probe the doctor could not start (no temp dir, out of
    // descriptors or processes) says nothing about the GPU: undecided, never a failure.
    if run.doctor_failed() {
        let why = run
            .spawn_error
            .as_ref()
            .map_or(String::new(), |e| e.message.clone());
        f = Finding::error(format!("the doctor could not start the HSA probe: {why}"));
    }
    let tail: Vec<String> = run
        .stderr_text()
        .lines()
        .rev()
        .take(5)
        .map(str::to_string)
        .collect();
    f.evidence(cmd)
        .evidence_lines(tail.into_iter().rev())
        .fix_text(format!(
            "Run `rocminfo` to see the runtime's own error; a crash or hang in \
            hsa_init usually means a kernel driver / ROCm release mismatch ({}).",
            CheckId::GpuDriver.see()
        ))
}

/// hsa_init returned an error status `st`.
fn init_failed(
    t: &Topology,
    line: &hsa::ProbeLine,
    st: u32,
    evidence: [String; 2],
    runtime: bool,
) -> Finding {
    let has_gpu = t.has_gpu_nodes();
    let [ev_lib, cmd] = evidence;
    let label = hsa::status_label(st);
    let text = line.status_string.clone().unwrap_or_default();
    if !has_gpu && !runtime {
        return Finding::skip(format!(
            "hsa_init returned {label}: expected here, KFD shows no GPU{}",
            if matches!(t.kfd, Some(NodeState::Missing)) {
                " and /dev/kfd does not exist"
            } else {
                ""
            }
        ))
        .evidence(ev_lib)
        .evidence(cmd)
        .evidence(text);
    }
    let mut f = Finding::fail(format!("hsa_init failed: {label}"))
        .evidence(ev_lib)
        .evidence(cmd)
        .evidence(text);
    for b in &t.runtime_blocked {
        f = f.evidence(format!("likely cause: {b}"));
    }
    f.fix_text(if t.runtime_blocked.is_empty() && has_gpu {
        format!(
            "Run `rocminfo` for the runtime's own message; compare the kernel driver with \
            the ROCm release ({}), and check RLIMIT_MEMLOCK (`ulimit -l`).",
            CheckId::GpuDriver
        )
    } else {
        format!(
            "Fix what {}, {} and {} report; hsa_init fails until /dev/kfd and the render \
            nodes open.",
            CheckId::GpuKfd,
            CheckId::GpuRender,
            CheckId::GpuOverrides
        )
    })
}

/// hsa_init succeeded: the GPU agents the runtime lists, against what KFD sysfs predicts.
fn agents_seen(
    t: &Topology,
    line: &hsa::ProbeLine,
    evidence: [String; 2],
    runtime: bool,
) -> Finding {
    let has_gpu = t.has_gpu_nodes();
    let [ev_lib, cmd] = evidence;
    let gpus: Vec<String> = line
        .agents
        .iter()
        .filter(|a| a.device_type == serde_json::json!("gpu"))
        .filter_map(|a| a.name.clone())
        .collect();
    let predicted = t
        .agents
        .iter()
        .filter(|a| a.rocr_index.is_some() && t.visibility.after_rocr.contains(&a.node))
        .count();
    let summary = format!(
        "hsa_init succeeded: {} GPU agent(s) {}",
        gpus.len(),
        gpus.join(", ")
    );
    let agents_line = format!(
        "agents: {}",
        line.agents
            .iter()
            .map(|a| format!("{}({})", a.name.clone().unwrap_or_default(), a.device_type))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if gpus.is_empty() && (runtime || has_gpu) {
        return Finding::fail("hsa_init succeeded but the runtime exposes no GPU agent")
            .evidence(ev_lib)
            .evidence(cmd)
            .evidence(agents_line)
            .fix_text(format!(
                "Check ROCR_VISIBLE_DEVICES ({}) and the render nodes ({}).",
                CheckId::GpuVisibility,
                CheckId::GpuRender
            ));
    }
    let mut f = Finding::pass(summary)
        .evidence(ev_lib)
        .evidence(cmd)
        .evidence(agents_line);
    if has_gpu && gpus.len() != predicted {
        f = Finding::warn(format!(
            "the runtime shows {} GPU agent(s), KFD sysfs predicts \
            {predicted}",
            gpus.len()
        ))
        .evidence_lines(f.evidence.clone())
        .fix_text(format!(
            "Compare `rocminfo` with {}; a difference means a node the doctor \
                considered usable is not (or the reverse).",
            CheckId::GpuAgents
        ));
    }
    f
}

/// The HSA runtime to probe: the inventory's (where the loader finds it), else its soname
/// through the one library lookup, in the loader's directories and then in `$ROCM_PATH/lib`,
/// `$HIP_PATH/lib` and `/opt/rocm/lib` (an install the loader is not told about).
fn hsa_library(ctx: &Ctx, preferred: Option<&Path>) -> Option<PathBuf> {
    use crate::inventory::libraries::{find, Name, Search};
    let host = ctx.host;
    if let Some(p) = preferred.filter(|p| host.fs.is_file(p)) {
        return Some(p.to_path_buf());
    }
    let mut more: Vec<(PathBuf, String)> = Vec::new();
    for var in ["ROCM_PATH", "HIP_PATH"] {
        if let Some(r) = host.env.get_nonempty(var).filter(|r| r.starts_with('/')) {
            more.push((Path::new(&r).join("lib"), var.to_string()));
        }
    }
    more.push((PathBuf::from("/opt/rocm/lib"), "/opt/rocm".to_string()));
    let search = Search::loader(host).then(more);
    ["libhsa-runtime64.so.1", "libhsa-runtime64.so"]
        .into_iter()
        .find_map(|n| find(host, &search, Name::File(n)))
        .map(|f| f.path)
}
