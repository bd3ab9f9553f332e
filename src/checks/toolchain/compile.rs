//! `toolchain.hip-compile`: compile a tiny kernel, device-only, for each target ISA, the way
//! hipcc drives clang (`--rocm-path`, and the bitcode directory when clang would not find it).

use crate::checks::Ctx;
use crate::diag::ProblemKind;
use crate::host::CommandSpec;
use crate::inventory::clang::tail;
use crate::isa::TargetId;
use crate::report::{Finding, Fix};
use std::path::PathBuf;

/// `sqrtf` pulls in ocml, so the device-library link is exercised too.
const KERNEL: &str = "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void rocm_doctor_probe(float* x) { x[threadIdx.x] = sqrtf((float)threadIdx.x); }\n";

pub fn hip_compile(ctx: &Ctx) -> Vec<Finding> {
    let targets = ctx.inv.targets();
    if targets.isas.is_empty() {
        return vec![Finding::skip("no target ISA (--isa, AMDGPU_TARGETS, GPU_TARGETS, PYTORCH_ROCM_ARCH) and no GPU: nothing to compile")];
    }
    let Some(c) = ctx.inv.clang() else {
        return vec![super::no_clang()];
    };
    let dir = match ctx.host.scratch_dir("hip-compile") {
        Ok(d) => d,
        Err(e) => return vec![Finding::error(format!("no temp dir: {e}"))],
    };
    let src = dir.join("probe.hip");
    if let Err(e) = std::fs::write(&src, KERNEL) {
        return vec![Finding::error(format!(
            "cannot write {}: {e}",
            src.display()
        ))];
    }
    // The flags hipcc would add (hipcc.pl: --rocm-path, --hip-device-lib-path).
    let mut extra: Vec<String> = Vec::new();
    if let Some(r) = ctx
        .inv
        .primary_root()
        .filter(|r| r.parts.hip_headers.is_some())
    {
        extra.push(format!("--rocm-path={}", r.path.display()));
    }
    let view = ctx.inv.hip_driver();
    if view.bitcode_dir().is_none() {
        if let Some(d) = ctx.inv.device_libs().dirs.iter().find(|d| d.is_complete()) {
            extra.push(format!("--rocm-device-lib-path={}", d.path.display()));
        }
    }
    let isas: Vec<TargetId> = targets.isas.iter().map(|t| t.isa.clone()).collect();
    // Two at a time: each compile is CPU-bound.
    let results: Vec<Finding> = std::thread::scope(|s| {
        let chunks: Vec<Vec<TargetId>> = isas
            .chunks(isas.len().div_ceil(2).max(1))
            .map(|c| c.to_vec())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let extra = &extra;
                let dir = &dir;
                let src = &src;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|isa| compile_one(ctx, &c.path, isa, extra, dir, src))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    results
}

fn compile_one(
    ctx: &Ctx,
    clang: &PathBuf,
    isa: &TargetId,
    extra: &[String],
    dir: &std::path::Path,
    src: &std::path::Path,
) -> Finding {
    let out_file = dir.join(format!("probe-{}.o", isa.to_string().replace(':', "_")));
    let cmd = CommandSpec::new(clang)
        .args(["-x", "hip", "--cuda-device-only", "-c", "-O1"])
        .arg(format!("--offload-arch={isa}"))
        .args(extra.iter().cloned())
        .arg(src)
        .arg("-o")
        .arg(&out_file)
        .cwd(dir);
    let out = ctx.host.run(&cmd);
    let text = out.combined_text();
    let ev = format!(
        "$ {}  ({}, {} ms)",
        out.command,
        out.outcome(),
        out.duration.as_millis()
    );
    let subject = isa.to_string();
    if out.timed_out {
        return Finding::error("the HIP compile timed out")
            .subject(subject)
            .evidence(ev);
    }
    if out.success() {
        let is_bundle = ctx
            .host
            .fs
            .read_bytes_limited(&out_file, 256 << 20)
            .map(|b| {
                b.starts_with(b"__CLANG_OFFLOAD_BUNDLE__")
                    || b.starts_with(b"\x7fELF")
                    || b.starts_with(b"CCOB")
            })
            .unwrap_or(false);
        if is_bundle {
            return Finding::pass(format!("HIP kernel compiles for {isa}"))
                .subject(subject)
                .evidence(ev);
        }
        return Finding::fail("clang exited 0 but wrote no device code object")
            .subject(subject)
            .evidence(ev)
            .fix(Fix::text(
                "Run the command by hand with -v; a wrapper may swallow the output.",
            ));
    }
    let problems = crate::diag::classify(&text);
    // The first problem that explains the failure (a trailing "command failed" only echoes it).
    let kind = problems
        .iter()
        .map(|p| &p.kind)
        .find(|k| !matches!(k, ProblemKind::ToolFailed { .. }))
        .or(problems.first().map(|p| &p.kind));
    let f = match kind {
        Some(ProblemKind::DeviceLibraryMissing) => Finding::fail(format!("cannot find ROCm device library for {isa}"))
            .fix(Fix::text("Install the device libraries of this clang's release and point HIP_DEVICE_LIB_PATH (or --rocm-device-lib-path) at their amdgcn/bitcode directory; see toolchain.device-libs.")),
        Some(ProblemKind::HipRuntimeMissing) => Finding::fail("clang cannot find the HIP runtime headers")
            .fix(Fix::text("Point --rocm-path / ROCM_PATH at the root that holds include/hip (Debian: /usr with libamdhip64-dev installed).").command("sudo apt install libamdhip64-dev")),
        Some(ProblemKind::MissingHeader { header }) => Finding::fail(format!("header {header} not found")).fix(Fix::text(
            "A header directory is missing: check toolchain.resource-dir (clang's own headers) and that the HIP headers and libstdc++ headers are installed; wrappers with -nostdlibinc hide libstdc++.",
        )),
        Some(ProblemKind::InvalidTargetId { .. } | ProblemKind::UnknownTargetCpu { .. }) => {
            let known = ctx.inv.clang().map(|c| c.amdgpu_processors.join(" ")).unwrap_or_default();
            Finding::fail(format!("this clang does not know {isa}"))
                .evidence(format!("processors it knows: {known}"))
                .fix(Fix::text(format!("Use a clang that knows {} (LLVM {} or newer per checks/isa.toml), or drop it from the target list.", isa.processor, isa.info().map(|p| p.llvm.to_string()).unwrap_or_else(|| "?".into()))))
        }
        Some(ProblemKind::ExecutableNotFound { name }) => Finding::fail(format!("clang cannot run {name}")).fix(Fix::text(format!("Install the LLVM tool `{name}` of the same release as clang (lld for ld.lld/lld, clang-tools for clang-offload-bundler)."))),
        _ => Finding::fail(format!("the HIP compile for {isa} fails")).fix(Fix::text("Read clang's output below; run the command by hand to reproduce.")),
    };
    f.subject(subject).evidence(ev).evidence(tail(&text, 10))
}
