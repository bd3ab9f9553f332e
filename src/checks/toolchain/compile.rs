//! `toolchain.hip-compile`: compile a tiny kernel, device-only, for each target ISA, the way
//! hipcc drives clang (`--rocm-path`, and the bitcode directory when clang would not find it).

use super::devicelibs::NO_DEVICE_LIB;
use crate::checks::Ctx;
use crate::host::CommandSpec;
use crate::inventory::clang::tail;
use crate::isa::TargetId;
use crate::report::{Finding, Fix};
use std::path::PathBuf;

/// `sqrtf` pulls in ocml, so the device-library link is exercised too.
const KERNEL: &str = "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void rocm_doctor_probe(float* x) { x[threadIdx.x] = sqrtf((float)threadIdx.x); }\n";

/// How a HIP compile failed, from clang's diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileFailure {
    NoDeviceLib,
    NoHipRuntime,
    MissingHeader(String),
    UnknownIsa,
    ToolMissing(String),
    Other,
}

pub fn classify(text: &str) -> CompileFailure {
    for line in text.lines() {
        if line.contains(NO_DEVICE_LIB) {
            return CompileFailure::NoDeviceLib;
        }
        if line.contains("cannot find HIP runtime") {
            return CompileFailure::NoHipRuntime;
        }
        if line.contains("invalid target ID")
            || line.contains("unknown target CPU")
            || line.contains("Unsupported CUDA gpu architecture")
        {
            return CompileFailure::UnknownIsa;
        }
        if let Some(rest) = line.split("Executable \"").nth(1) {
            return CompileFailure::ToolMissing(rest.split('"').next().unwrap_or("").to_string());
        }
        if line.contains("fatal error:") && line.contains("file not found") {
            let header = line.split('\'').nth(1).unwrap_or("a header").to_string();
            return CompileFailure::MissingHeader(header);
        }
    }
    CompileFailure::Other
}

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
    let f = match classify(&text) {
        CompileFailure::NoDeviceLib => Finding::fail(format!("cannot find ROCm device library for {isa}"))
            .fix(Fix::text("Install the device libraries of this clang's release and point HIP_DEVICE_LIB_PATH (or --rocm-device-lib-path) at their amdgcn/bitcode directory; see toolchain.device-libs.")),
        CompileFailure::NoHipRuntime => Finding::fail("clang cannot find the HIP runtime headers")
            .fix(Fix::text("Point --rocm-path / ROCM_PATH at the root that holds include/hip (Debian: /usr with libamdhip64-dev installed).").command("sudo apt install libamdhip64-dev")),
        CompileFailure::MissingHeader(h) => Finding::fail(format!("header {h} not found")).fix(Fix::text(
            "A header directory is missing: check toolchain.resource-dir (clang's own headers) and that the HIP headers and libstdc++ headers are installed; wrappers with -nostdlibinc hide libstdc++.",
        )),
        CompileFailure::UnknownIsa => {
            let known = ctx.inv.clang().map(|c| c.amdgpu_processors.join(" ")).unwrap_or_default();
            Finding::fail(format!("this clang does not know {isa}"))
                .evidence(format!("processors it knows: {known}"))
                .fix(Fix::text(format!("Use a clang that knows {} (LLVM {} or newer per checks/isa.toml), or drop it from the target list.", isa.processor, isa.info().map(|p| p.llvm.to_string()).unwrap_or_else(|| "?".into()))))
        }
        CompileFailure::ToolMissing(t) => Finding::fail(format!("clang cannot run {t}")).fix(Fix::text(format!("Install the LLVM tool `{t}` of the same release as clang (lld for ld.lld/lld, clang-tools for clang-offload-bundler)."))),
        CompileFailure::Other => Finding::fail(format!("the HIP compile for {isa} fails")).fix(Fix::text("Read clang's output below; run the command by hand to reproduce.")),
    };
    f.subject(subject).evidence(ev).evidence(tail(&text, 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_clang_diagnostics() {
        assert_eq!(
            classify("clang: error: cannot find ROCm device library; provide its path via"),
            CompileFailure::NoDeviceLib
        );
        assert_eq!(
            classify("clang: error: cannot find HIP runtime; provide its path via '--rocm-path'"),
            CompileFailure::NoHipRuntime
        );
        assert_eq!(
            classify("probe.hip:1:10: fatal error: 'hip/hip_runtime.h' file not found"),
            CompileFailure::MissingHeader("hip/hip_runtime.h".into())
        );
        assert_eq!(
            classify("clang: error: invalid target ID 'gfx942'; format is"),
            CompileFailure::UnknownIsa
        );
        assert_eq!(classify("x"), CompileFailure::Other);
    }
}
