//! `toolchain.hip-compile`: compile a tiny kernel, device-only, for each target ISA, the way the
//! user's build does: with hipcc's own clang and flags when hipcc is installed (asked from
//! hipcc, [`crate::inventory::hipcc`]), else with bare clang as CMake's HIP language runs it.
//!
//! The HIP headers are compiled once, for the first ISA. Every further ISA costs a device-only
//! compile of a header-less kernel that still calls into ocml, so what differs per ISA (the
//! processor, its `oclc_isa_version` bitcode, the device link) is exercised; all further ISAs go
//! in one clang call (clang names the ISA in each driver error), and only when that call fails
//! is each ISA compiled on its own to say which one broke.

use crate::checks::{CheckId, Ctx};
use crate::diag::ProblemKind;
use crate::host::tail_lines;
use crate::host::CommandSpec;
use crate::isa::TargetId;
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

/// `sqrtf` pulls in ocml, so the device-library link is exercised too.
const KERNEL: &str = "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void \
    rocm_doctor_probe(float* x) { x[threadIdx.x] = sqrtf((float)threadIdx.x); }\n";

/// The same without any header (`-nogpuinc`): the ocml call keeps the device libraries linked.
const KERNEL_NO_HEADERS: &str = "extern \"C\" __attribute__((device)) float \
    __ocml_sqrt_f32(float);\nextern \"C\" __attribute__((global)) void rocm_doctor_probe(float* \
    x) { x[0] = __ocml_sqrt_f32(x[1]); }\n";

/// How the kernel is compiled: the clang, the flags added to ours, and how to say it.
struct Driver {
    clang: PathBuf,
    flags: Vec<String>,
    /// "via hipcc" or "with bare clang ..." for the summary; `detail` for the evidence.
    how: String,
    detail: String,
}

pub(crate) fn hip_compile(ctx: &Ctx) -> Vec<Finding> {
    if let Some(f) = super::foreign_skip(ctx) {
        return vec![f];
    }
    let targets = ctx.inv.targets();
    if targets.isas.is_empty() {
        return vec![Finding::skip(
            "no target ISA (--isa, AMDGPU_TARGETS, GPU_TARGETS, \
            PYTORCH_ROCM_ARCH) and no GPU: nothing to compile",
        )];
    }
    let mut out = Vec::new();
    let Some(driver) = choose_driver(ctx, &mut out) else {
        out.push(super::no_clang());
        return out;
    };
    let dir = match ctx.host.scratch_dir("hip-compile") {
        Ok(d) => d,
        Err(e) => return vec![Finding::error(format!("no temp dir: {e}"))],
    };
    let with_headers = dir.join("probe.hip");
    let without = dir.join("probe-device.hip");
    for (p, text) in [(&with_headers, KERNEL), (&without, KERNEL_NO_HEADERS)] {
        if let Err(e) = std::fs::write(p, text) {
            return vec![Finding::error(format!("cannot write {}: {e}", p.display()))];
        }
    }
    let isas: Vec<TargetId> = targets.isas.iter().map(|t| t.isa.clone()).collect();
    let Some((first, rest)) = isas.split_first() else {
        return out;
    };
    let job = Job {
        ctx,
        driver: &driver,
        dir: &dir,
    };
    // The header compile (the slow one) beside the device-only compiles of the other ISAs.
    let (head, tail_findings) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            job.compile(std::slice::from_ref(first), &with_headers, false)
                .0
        });
        let rest = job.compile_rest(rest, &without);
        (h.join().unwrap_or_default(), rest)
    });
    out.extend(head);
    out.extend(tail_findings);
    out
}

/// hipcc's clang and flags when hipcc is installed and `--clang` did not name another clang;
/// else bare clang. A hipcc that cannot say what it runs is itself a finding.
fn choose_driver(ctx: &Ctx, notes: &mut Vec<Finding>) -> Option<Driver> {
    if ctx.inv.cfg.clang.is_none() {
        if let Some(h) = ctx.inv.hipcc() {
            match (&h.clang, &h.error) {
                (Some(clang), None) => {
                    return Some(Driver {
                        clang: clang.clone(),
                        flags: h.flags.clone(),
                        how: "via hipcc".into(),
                        detail: format!(
                            "compiled as hipcc does: {} runs {} and adds: {}",
                            h.path.display(),
                            clang.display(),
                            if h.flags.is_empty() {
                                "nothing".into()
                            } else {
                                h.flags.join(" ")
                            }
                        ),
                    })
                }
                _ => notes.push(
                    Finding::fail(format!("hipcc ({}) does not run", h.path.display()))
                        .evidence(format!("$ {}  ({})", h.command, h.outcome))
                        .evidence(h.error.clone().unwrap_or_default())
                        .fix(Fix::text(
                            "Builds that use hipcc fail the same way. Run \
                            `HIPCC_VERBOSE=1 hipcc --version` by hand; reinstall hipcc (Debian: \
                            `apt install --reinstall hipcc`), or make sure what it needs (perl \
                            for HIP 5.x, its clang) is installed.",
                        )),
                ),
            }
        }
    }
    let c = ctx.inv.clang()?;
    Some(Driver {
        clang: c.path.clone(),
        flags: Vec::new(),
        how: "with bare clang".into(),
        detail: format!(
            "compiled with bare clang {} as CMake's HIP language runs it (no hipcc{})",
            c.path.display(),
            if ctx.inv.cfg.clang.is_some() {
                ": --clang given"
            } else {
                " installed"
            }
        ),
    })
}

struct Job<'a, 'b> {
    ctx: &'a Ctx<'b>,
    driver: &'a Driver,
    dir: &'a Path,
}

impl Job<'_, '_> {
    /// The ISAs after the first: one call for all of them. When it fails, the ISAs clang's
    /// errors name are judged from those errors and the others retried together; only errors
    /// that name no ISA make each one compile on its own (two at a time).
    fn compile_rest(&self, isas: &[TargetId], src: &Path) -> Vec<Finding> {
        if isas.is_empty() {
            return Vec::new();
        }
        let (all, text) = self.compile(isas, src, true);
        if isas.len() == 1 || all.iter().all(|f| f.status == crate::report::Status::Pass) {
            return all;
        }
        let named: Vec<usize> = (0..isas.len())
            .filter(|&i| error_names(&text, &isas[i]))
            .collect();
        if !named.is_empty() && named.len() < isas.len() {
            let mut out: Vec<Finding> = named.iter().map(|&i| all[i].clone()).collect();
            let others: Vec<TargetId> = (0..isas.len())
                .filter(|i| !named.contains(i))
                .map(|i| isas[i].clone())
                .collect();
            out.extend(self.compile_rest(&others, src));
            return out;
        }
        if !named.is_empty() {
            return all;
        }
        let half = isas.len().div_ceil(2);
        std::thread::scope(|s| {
            let (a, b) = isas.split_at(half);
            let h = s.spawn(|| {
                a.iter()
                    .flat_map(|i| self.compile(std::slice::from_ref(i), src, true).0)
                    .collect::<Vec<_>>()
            });
            let rb: Vec<Finding> = b
                .iter()
                .flat_map(|i| self.compile(std::slice::from_ref(i), src, true).0)
                .collect();
            let mut ra = h.join().unwrap_or_default();
            ra.extend(rb);
            ra
        })
    }

    /// One clang call for `isas`: a finding per ISA, and what clang printed.
    fn compile(&self, isas: &[TargetId], src: &Path, no_headers: bool) -> (Vec<Finding>, String) {
        let label = isas
            .iter()
            .map(|i| i.to_string().replace(':', "_"))
            .collect::<Vec<_>>()
            .join("+");
        let out_file = self.dir.join(format!(
            "probe-{}.o",
            if label.len() > 64 { "many" } else { &label }
        ));
        let cmd = self.command(isas, src, no_headers, &out_file);
        let out = self.ctx.host.run(&cmd);
        let text = out.combined_text();
        let ev = format!(
            "$ {}  ({}, {} ms)",
            out.command,
            out.outcome(),
            out.duration.as_millis()
        );
        if out.timed_out {
            let f = isas
                .iter()
                .map(|isa| {
                    Finding::error(format!("the HIP compile for {isa} timed out"))
                        .subject(isa.to_string())
                        .evidence(ev.clone())
                })
                .collect();
            return (f, text);
        }
        if out.success() {
            if is_device_output(&out_file) {
                return (self.compiled(isas, &ev, no_headers), text);
            }
            let f = isas
                .iter()
                .map(|isa| {
                    Finding::fail("clang exited 0 but wrote no device code object")
                        .subject(isa.to_string())
                        .evidence(ev.clone())
                        .fix(Fix::text(
                            "Run the command by hand with -v; a wrapper may swallow the output.",
                        ))
                })
                .collect();
            return (f, text);
        }
        let f = isas
            .iter()
            .map(|isa| {
                // With several ISAs in the call, each is judged by the errors that name it.
                let own: Vec<&str> = text
                    .lines()
                    .filter(|l| isas.len() > 1 && error_names(l, isa))
                    .collect();
                let judged = if own.is_empty() {
                    text.clone()
                } else {
                    own.join("\n")
                };
                explain_failure(self.ctx, isa, &judged)
                    .subject(isa.to_string())
                    .evidence(self.driver.detail.clone())
                    .evidence(ev.clone())
                    .evidence(tail_lines(&text, 10))
            })
            .collect();
        (f, text)
    }

    /// The clang call for `isas`: device code only, of `src` into `out_file`.
    fn command(
        &self,
        isas: &[TargetId],
        src: &Path,
        no_headers: bool,
        out_file: &Path,
    ) -> CommandSpec {
        let mut cmd = CommandSpec::new(&self.driver.clang)
            .args(self.driver.flags.iter().cloned())
            .args(["-x", "hip", "--cuda-device-only", "-c"]);
        if no_headers {
            cmd = cmd.arg("-nogpuinc");
        }
        for isa in isas {
            cmd = cmd.arg(format!("--offload-arch={isa}"));
        }
        cmd.arg(src).arg("-o").arg(out_file).cwd(self.dir)
    }

    /// The call wrote a device code object: a pass per ISA (`ev`: the command line).
    fn compiled(&self, isas: &[TargetId], ev: &str, no_headers: bool) -> Vec<Finding> {
        let what = |isa: &TargetId| {
            if no_headers {
                format!("device code builds for {isa} {}", self.driver.how)
            } else {
                format!("HIP kernel compiles for {isa} {}", self.driver.how)
            }
        };
        isas.iter()
            .map(|isa| {
                let mut f = Finding::pass(what(isa))
                    .subject(isa.to_string())
                    .evidence(self.driver.detail.clone())
                    .evidence(ev.to_string());
                if no_headers {
                    f = f.evidence(
                        "header-less kernel: the HIP headers are compiled \
                        once, for the first ISA",
                    );
                }
                f
            })
            .collect()
    }
}

/// Whether one of clang's error lines names this ISA (`cannot find ROCm device library for
/// gfx1100`, `invalid target ID 'gfx942'`).
/// The whole target id must stand alone: clang's message also shows an example
/// (`'gfx908:sramecc+:xnack-'`), which names no ISA of ours.
fn error_names(text: &str, isa: &TargetId) -> bool {
    let p = isa.to_string();
    text.lines().filter(|l| l.contains("error:")).any(|l| {
        l.match_indices(p.as_str()).any(|(i, _)| {
            let after = l[i + p.len()..].chars().next();
            let before = l[..i].chars().next_back();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-')
                && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    })
}

/// `out_file` is in the doctor's scratch dir, a path on this machine (inside the root only when
/// the root's clang runs chrooted, and then still named from here): read as such, never
/// re-rooted.
fn is_device_output(out_file: &Path) -> bool {
    crate::host::open::read_regular_head(out_file, 24)
        .map(|b| {
            b.starts_with(b"__CLANG_OFFLOAD_BUNDLE__")
                || b.starts_with(b"\x7fELF")
                || b.starts_with(b"CCOB")
        })
        .unwrap_or(false)
}

/// The verdict for a failed compile, from what clang printed.
fn explain_failure(ctx: &Ctx, isa: &TargetId, text: &str) -> Finding {
    let problems = crate::diag::classify(text);
    // The first problem that explains the failure (a trailing "command failed" only echoes it).
    let kind = problems
        .iter()
        .map(|p| &p.kind)
        .find(|k| !matches!(k, ProblemKind::ToolFailed { .. }))
        .or(problems.first().map(|p| &p.kind));
    match kind {
        Some(ProblemKind::DeviceLibraryMissing) => Finding::fail(format!(
            "cannot find ROCm device \
            library for {isa}"
        ))
        .fix(Fix::text(format!(
            "clang finds no device-library bitcode for this ISA: {} for \
                where it looked and what to set (HIP_DEVICE_LIB_PATH, or --rocm-device-lib-path \
                in the build's flags); install the device libraries of this clang's release if \
                they are missing.",
            CheckId::ToolchainDeviceLibs.see()
        ))),
        Some(ProblemKind::HipRuntimeMissing) => Finding::fail(
            "clang cannot find the HIP runtime \
            headers",
        )
        .fix(
            Fix::text(
                "Point --rocm-path / ROCM_PATH at the root that holds include/hip \
                (Debian: /usr with libamdhip64-dev installed).",
            )
            .command("sudo apt install libamdhip64-dev"),
        ),
        Some(ProblemKind::MissingHeader { header }) => Finding::fail(format!(
            "header {header} not \
            found"
        ))
        .fix(Fix::text(format!(
            "A header directory is missing: check {} (clang's own headers) and that the HIP \
                headers and libstdc++ headers are installed; wrappers with -nostdlibinc hide \
                libstdc++.",
            CheckId::ToolchainResourceDir
        ))),
        Some(ProblemKind::InvalidTargetId { .. } | ProblemKind::UnknownTargetCpu { .. }) => {
            let known = ctx
                .inv
                .clang()
                .map(|c| c.amdgpu_processors.join(" "))
                .unwrap_or_default();
            Finding::fail(format!("this clang does not know {isa}"))
                .evidence(format!("processors it knows: {known}"))
                .fix(Fix::text(format!(
                    "Use a clang that knows {} (LLVM {} or newer per \
                    checks/isa.toml), or drop it from the target list.",
                    isa.processor,
                    isa.info()
                        .map(|p| p.llvm.to_string())
                        .unwrap_or_else(|| "?".into())
                )))
        }
        Some(ProblemKind::ExecutableNotFound { name }) => {
            Finding::fail(format!("clang cannot run {name}")).fix(Fix::text(format!(
                "Install the LLVM tool \
            `{name}` of the same release as clang (lld for ld.lld/lld, clang-tools for \
            clang-offload-bundler)."
            )))
        }
        _ => Finding::fail(format!("the HIP compile for {isa} fails")).fix(Fix::text(
            "Read clang's output below; \
            run the command by hand to reproduce.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_isas_exactly() {
        // clang-15's own words (a multi-ISA call).
        let t = "clang: error: invalid target ID 'gfx942'; format is a processor name followed by \
            an optional colon-delimited list of features followed by an enable/disable sign \
            (e.g., 'gfx908:sramecc+:xnack-')\nclang: error: cannot find ROCm device library for \
            gfx1100; provide its path via '--rocm-path'";
        let id = |s: &str| TargetId::parse(s).unwrap();
        assert!(error_names(t, &id("gfx942")));
        assert!(error_names(t, &id("gfx1100")));
        assert!(!error_names(t, &id("gfx908")), "the example names no ISA");
        assert!(!error_names(t, &id("gfx1030")));
    }
}
