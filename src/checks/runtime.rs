//! Runtime checks: the HIP runtime, HSA runtime and comgr libraries as the loader resolves
//! them, and what they say when loaded (in a child process).

use super::{CheckFn, CheckId, Ctx};
use crate::inventory::libraries::LibraryResolution;
use crate::probe::ProbeResult;
use crate::report::{Finding, Fix};

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::RuntimeLibraries, libraries),
    (CheckId::RuntimeLoad, load),
];

fn libraries(ctx: &Ctx) -> Vec<Finding> {
    let libs = ctx.inv.libraries();
    let mut out = Vec::new();
    for l in libs {
        out.push(judge_library(l));
    }
    out
}

fn judge_library(l: &LibraryResolution) -> Finding {
    let name = format!("lib{}", l.name);
    let Some(path) = &l.path else {
        let mut f = Finding::fail(format!("{name} is not on the loader's search path"))
            .subject(name.clone());
        if l.others.is_empty() {
            f = f.fix(
                Fix::text(format!(
                    "Install the HIP runtime ({name}); Debian/Ubuntu: \
                libamdhip64-dev pulls in all three."
                ))
                .command("sudo apt install libamdhip64-dev"),
            );
        } else {
            let dir = l.others[0]
                .parent()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            f = f
                .evidence_lines(
                    l.others
                        .iter()
                        .map(|o| format!("found outside the loader path: {}", o.display())),
                )
                .fix(
                    Fix::text(
                        "The library exists but programs will not find it: add its \
                    directory to /etc/ld.so.conf.d/ (then run ldconfig) or to LD_LIBRARY_PATH.",
                    )
                    .command(format!(
                        "echo {dir} | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig"
                    )),
                );
        }
        return f;
    };
    let mut f = Finding::pass(format!(
        "{name} {} ({})",
        l.version.as_deref().unwrap_or("(unversioned)"),
        path.display()
    ))
    .subject(name.clone());
    f = f.evidence(format!("found via {}", l.how));
    if let Some(r) = &l.realpath {
        f = f.evidence(format!("real file: {}", r.display()));
    }
    if !l.others.is_empty() {
        let other_versions: Vec<String> =
            l.others.iter().map(|o| o.display().to_string()).collect();
        f = Finding::warn(format!(
            "{name}: {} more cop{} besides the one the loader picks",
            l.others.len(),
            if l.others.len() == 1 { "y" } else { "ies" }
        ))
        .subject(name)
        .evidence(format!("loader picks: {} (via {})", path.display(), l.how))
        .evidence_lines(other_versions.iter().map(|o| format!("also: {o}")))
        .fix(Fix::text(
            "Several copies make which one a program loads depend on \
                LD_LIBRARY_PATH and RUNPATH; remove stale installs or make sure every tool \
                resolves the same one.",
        ));
    }
    f
}

fn load(ctx: &Ctx) -> Vec<Finding> {
    // Decision (issue 20): loaded on this machine and under --host-root (the host's library,
    // through the host's loader, in this container: Host::probe_spec); not in a fixture, whose
    // libraries would resolve their dependencies from this host's loader paths and run against
    // this host's kernel: the answer would describe neither machine.
    if !ctx.host.fs.loads_libraries() {
        return vec![Finding::skip(format!(
            "the libraries of another root (--sysroot) are not \
            loaded; only their files are judged ({})",
            CheckId::RuntimeLibraries
        ))];
    }
    let libs = ctx.inv.libraries();
    let dirs = &loader_dirs(ctx);
    let mut out = Vec::new();
    let jobs: Vec<(&str, &LibraryResolution)> = libs
        .iter()
        .filter_map(|l| match l.name.as_str() {
            "amdhip64" => Some(("hip", l)),
            "amd_comgr" => Some(("comgr", l)),
            _ => None,
        })
        .collect();
    let results: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = jobs
            .iter()
            .map(|(kind, l)| {
                s.spawn(move || {
                    l.path.as_ref().map(|p| {
                        (
                            kind.to_string(),
                            l.name.clone(),
                            crate::probe::run_probe(ctx.host, kind, p, dirs),
                        )
                    })
                })
            })
            .collect();
        hs.into_iter()
            .filter_map(|h| h.join().ok().flatten())
            .collect()
    });
    if results.is_empty() {
        return vec![Finding::skip(format!(
            "no HIP runtime or comgr library to load ({})",
            CheckId::RuntimeLibraries.see()
        ))];
    }
    for (kind, name, r) in results {
        out.push(judge_load(ctx, &kind, &name, &r));
    }
    out
}

/// One probe child's answer for one library (`kind` is `hip` or `comgr`).
fn judge_load(ctx: &Ctx, kind: &str, name: &str, r: &ProbeResult) -> Finding {
    let subject = format!("lib{name}");
    let ev = vec![format!("$ {}  ({})", r.command, r.outcome)];
    let Some(rep) = r.report.clone() else {
        if r.outcome.starts_with("could not start") {
            return Finding::error(format!("the probe process for {subject} could not start"))
                .subject(subject)
                .evidence_lines(ev)
                .fix(Fix::text(
                    "rocm-doctor could not run itself as the probe child (see \
                    the evidence); the library was not judged.",
                ));
        }
        return Finding::fail(format!(
            "loading {subject} crashed or hung the probe process"
        ))
        .subject(subject)
        .evidence_lines(ev)
        .evidence(r.stderr_tail.clone())
        .fix(Fix::text(
            "The library's initialisers fail: run `LD_DEBUG=libs` with a \
                HIP program to see which dependency breaks, and reinstall the runtime.",
        ));
    };
    if rep["loaded"] != true {
        return Finding::fail(format!(
            "{subject} cannot be loaded: {}",
            rep["error"].as_str().unwrap_or("unknown error")
        ))
        .subject(subject)
        .evidence_lines(ev)
        .fix(Fix::text(
            "A dependency is missing or of the wrong version: run `ldd` on \
                the library to see which, and install it.",
        ));
    }
    match kind {
        "hip" => hip_loaded(&rep, subject, ev),
        _ => comgr_loaded(ctx, &rep, subject, ev),
    }
}

/// The HIP runtime loaded: its version and the devices it counts.
fn hip_loaded(rep: &serde_json::Value, subject: String, ev: Vec<String>) -> Finding {
    let v = rep["runtime_version"].as_i64().unwrap_or(0);
    // HIP_VERSION = major*10000000 + minor*100000 + patch (hip_version.h).
    let ver = format!("{}.{}.{}", v / 10_000_000, (v / 100_000) % 100, v % 100_000);
    let devs = rep["device_count"].as_i64().unwrap_or(0);
    let status = rep["device_count_status"]
        .as_str()
        .unwrap_or("?")
        .to_string();
    Finding::pass(format!(
        "HIP runtime {ver} loads; it sees {devs} device(s) ({status})"
    ))
    .subject(subject)
    .evidence_lines(ev)
    .evidence(format!(
        "hipRuntimeGetVersion: {v} ({})",
        rep["runtime_version_status"].as_str().unwrap_or("?")
    ))
}

/// comgr loaded: the ISAs it knows, against the targets of this machine.
fn comgr_loaded(ctx: &Ctx, rep: &serde_json::Value, subject: String, ev: Vec<String>) -> Finding {
    let isas: Vec<String> = rep["isas"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut f = Finding::pass(format!(
        "comgr {} loads and knows {} ISAs",
        rep["version"].as_str().unwrap_or("?"),
        isas.len()
    ))
    .subject(subject)
    .evidence_lines(ev.clone());
    // Target ISAs comgr cannot handle: the runtime cannot load code for them.
    let unknown: Vec<String> = ctx
        .inv
        .targets()
        .isas
        .iter()
        .filter(|t| {
            !isas.iter().any(|i| {
                i.trim_start_matches("amdgcn-amd-amdhsa--")
                    .split(':')
                    .next()
                    == Some(t.isa.processor.as_str())
            })
        })
        .map(|t| t.isa.to_string())
        .collect();
    if !isas.is_empty() && !unknown.is_empty() {
        f = Finding::fail(format!(
            "comgr {} does not know {}",
            rep["version"].as_str().unwrap_or("?"),
            unknown.join(", ")
        ))
        .subject(f.subject.clone().unwrap_or_default())
        .evidence_lines(ev)
        .fix(Fix::text(
            "The runtime compiles and loads code through comgr; this \
                one predates these ISAs. Install a newer ROCm (comgr) release.",
        ));
    }
    f.evidence(format!(
        "ISAs: {}",
        isas.iter()
            .map(|i| i.trim_start_matches("amdgcn-amd-amdhsa--"))
            .collect::<Vec<_>>()
            .join(" ")
    ))
}

/// The loader's search directories as the inventory rebuilds them (LD_LIBRARY_PATH, ld.so.conf,
/// the defaults): a probe child under --host-root loads the host's libraries from them.
pub(crate) fn loader_dirs(ctx: &Ctx) -> Vec<std::path::PathBuf> {
    crate::inventory::libraries::Search::loader(ctx.host).paths()
}
