//! Rules over families of library and build lines (issue 28, item 4). Pure.
//!
//! Each rule holds for every text that prints a variant of one failure, and reasons from facts:
//! where the line comes from (its format as its source prints it), what the GPU is (its ISA, from
//! the text's [`Facts`]) and what it has (`checks/why-families.toml`: the processors with matrix
//! cores, the names only CUDA has):
//! - MIGraphX's compiler throwing on its own invariant: an internal error of that version;
//! - a library's internal error on an ISA ROCm does not build (hipBLAS, rocBLAS): the kernels
//!   are missing, and the same-family override (or what else runs it) is the answer;
//! - Composable Kernel's matrix-core (`Xdl`) operations on a GPU without matrix cores;
//! - CUDA-only names in HIP code;
//! - PyTorch's amd-smi path without the amdsmi Python package;
//! - a tool looking for ROCm's `ld.lld` at a fixed path;
//! - two target lists for one processor, one with a feature and one without;
//! - an application's "no kernel for compute capability X.Y" on a HIP device.
//!
//! `why::recognise` joins them to the answer after the other rules over facts.

use super::facts::{isa_verdict, line_of, re, unsupported_words, Derived, Facts, IsaVerdict};
use super::Symptom;
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

/// `checks/why-families.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Table {
    pub mfma: Vec<String>,
    pub cuda_only: Vec<CudaOnly>,
    pub nvcc_only: Vec<NvccOnly>,
    pub cuda_header: Vec<CudaHeader>,
    pub hardware: Vec<Hardware>,
}

/// A header only NVIDIA's CUDA toolkit ships, and the one hipify puts in its place.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CudaHeader {
    pub name: String,
    pub hip: String,
}

/// A command-line option only nvcc takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NvccOnly {
    pub option: String,
    pub what: String,
}

/// A name only CUDA's headers have.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CudaOnly {
    pub name: String,
    pub what: String,
}

/// An amdgpu message showing the GPU not answering during its initialisation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Hardware {
    pub line: String,
    pub function: String,
    pub means: String,
    pub unless: String,
}

pub(crate) fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded(
            "checks/why-families.toml",
            include_str!("../../checks/why-families.toml"),
        )
    })
}

/// The symptom of a rule of this module or of `driver.rs` (no pattern of its own).
pub(super) fn family_symptom(
    cell: &'static OnceLock<Symptom>,
    id: &str,
    title: &str,
    class: &str,
    cause: &str,
    fix: &str,
) -> &'static Symptom {
    super::facts::cached_symptom(
        cell,
        [
            id,
            title,
            class,
            cause,
            fix,
            "rule over families of lines and their facts (src/packs/libfamilies.rs, \
             src/packs/driver.rs, checks/why-families.toml)",
        ],
    )
}

/// MIGraphX throws its errors as `<file>:<line>: <function>: <message>` (`MIGRAPHX_THROW`,
/// `src/include/migraphx/errors.hpp`, which prefixes the source location). A throw from its
/// compiler (`src/targets/gpu/`, `src/program.cpp`, `src/module.cpp`, the passes) is an invariant
/// of MIGraphX's own that failed on a model it accepted: a bug of that version (its parsers,
/// `src/onnx/` and `src/tf/`, and its API, `src/api/` and `src/py/`, throw on the user's input
/// instead, and are left out).
fn migraphx_internal(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static THROW: OnceLock<Regex> = OnceLock::new();
    let throw = re(
        &THROW,
        concat!(
            r"(?:AMDMIGraphX|migraphx)\S*/src/((?:targets/gpu/\S+|program|module|pass_manager",
            r"|simplify_\w+|eliminate_\w+|propagate_\w+|fuse_\w+|dead_code_elimination)",
            r"\.cpp):(\d+): (\w+): ([^\n]+)",
        ),
    );
    let c = throw.captures(text)?;
    let (file, func, msg) = (&c[1], &c[3], c[4].trim());
    let line = line_of(text, throw)?;
    let sy = family_symptom(
        &S,
        "families.migraphx-internal",
        "MIGraphX's compiler failed on its own invariant: a bug of that MIGraphX version",
        "lib-bug-fixed-later",
        "MIGraphX accepted the model and then its compiler (not its parser) threw on a condition \
         of its own: an internal error of that MIGraphX version, not something on the machine.",
        "Use a newer MIGraphX (or ROCm release) where the compiler failure is fixed, and report \
         it to MIGraphX with the model if it persists; the ROCm install needs no change.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "MIGraphX's compiler threw in src/{file} ({func}): \"{msg}\" (its throws name their \
             source location; {FROM})"
        ),
    ))
}

/// The ISA a text names, with its verdict, when ROCm does not build it and the release the text
/// names (if any) did not either.
fn unsupported_isa(f: &Facts) -> Option<(String, String, IsaVerdict)> {
    let (isa, named) = f.isas.first()?;
    let rocm = f
        .versions
        .iter()
        .find(|(w, _)| w == "rocm" || w == "torch-rocm");
    if let Some((_, v)) = rocm {
        if super::facts::supported_in(isa, v) == Some(true) {
            return None;
        }
    }
    let v = isa_verdict(isa);
    if !matches!(
        v,
        IsaVerdict::Override { .. } | IsaVerdict::NoOverride { .. }
    ) {
        return None;
    }
    let shown = match named {
        Some(n) => format!("{n} ({isa})"),
        None => isa.clone(),
    };
    Some((isa.clone(), shown, v))
}

/// A BLAS library's internal error or "not supported" status on an ISA ROCm does not build:
/// rocBLAS and hipBLASLt ship Tensile kernels only for the ISAs of their target lists, and a call
/// on another ISA finds none and fails inside the library (hipBLAS returns
/// HIPBLAS_STATUS_INTERNAL_ERROR for rocBLAS' internal errors, `hipblas.cpp`
/// `rocBLASStatusToHIPStatus`). The ISA's verdict comes from `checks/why-facts.toml`.
fn blas_on_unsupported_isa(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static ERR: OnceLock<Regex> = OnceLock::new();
    let err = re(
        &ERR,
        concat!(
            r"HIPBLAS_STATUS_(?:INTERNAL_ERROR|NOT_SUPPORTED|ARCH_MISMATCH)",
            r"|rocblas_status_(?:internal_error|arch_mismatch)|HIPBLASLT_STATUS_NOT_SUPPORTED",
        ),
    );
    let line = line_of(text, err)?;
    let (isa, shown, v) = unsupported_isa(f)?;
    let sy = family_symptom(
        &S,
        "families.blas-unsupported-isa",
        "a BLAS library fails inside on an ISA ROCm does not build",
        "gpu-unsupported-asic",
        "The BLAS library (rocBLAS/hipBLAS/hipBLASLt) ships kernels only for the ISAs it is built \
         for; the GPU's ISA is not one ROCm builds, so the call finds no kernel and fails inside \
         the library.",
        "See the reasoning: the exact HSA_OVERRIDE_GFX_VERSION of the same family, at its risk, \
         or what runs this ISA when no override does.",
    );
    Some(Derived {
        captures: vec![
            ("isa".into(), isa),
            (
                "reasoning".into(),
                format!(
                    "{shown}: {} ({FROM})",
                    unsupported_words(&v).unwrap_or_default()
                ),
            ),
        ],
        ..Derived::reasoned(sy, line, String::new())
    })
}

/// Composable Kernel's `Xdl` device operations use matrix-core (MFMA) instructions; on a GPU
/// without them `IsSupportedArgument` is false (CK `is_xdl_supported()`) and the caller reports
/// that the operation "does not support this problem". The processors with MFMA are
/// `mfma` of `checks/why-families.toml`; on one of them the message is about the problem's shape
/// instead, and the rule stays silent.
fn ck_xdl_without_mfma(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static XDL: OnceLock<Regex> = OnceLock::new();
    let xdl = re(
        &XDL,
        r"\b\w*_Xdl\w*(?:<[^\n]*>)?\s*(?:does not support this problem|is not supported)",
    );
    let line = line_of(text, xdl)?;
    let (isa, named) = f.isas.first()?;
    if table().mfma.iter().any(|m| m == isa) {
        return None;
    }
    let shown = named
        .as_deref()
        .map_or(isa.clone(), |n| format!("{n} ({isa})"));
    let sy = family_symptom(
        &S,
        "families.ck-xdl-no-mfma",
        "a matrix-core (Xdl) kernel of Composable Kernel on a GPU without matrix cores",
        "gpu-unsupported-asic",
        "Composable Kernel's Xdl operations (flash attention, fused GEMMs) need the matrix-core \
         (MFMA) instructions of the Instinct GPUs from MI100 on; the GPU has none, so the \
         operation refuses every problem.",
        "Use an implementation without matrix-core kernels for this GPU (a Triton or plain \
         attention path, the library's non-Xdl instances), or a GPU with matrix cores.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "{shown} has no matrix-core (MFMA) instructions (only {} do), which Composable \
             Kernel's Xdl operations need ({FROM})",
            table().mfma.join(", ")
        ),
    ))
}

/// A name only CUDA has, refused by the compiler in HIP code (`[[cuda_only]]` of
/// `checks/why-families.toml`): the code (or its hipified copy) still uses a CUDA-only API.
fn cuda_only_code(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static ERR: OnceLock<Regex> = OnceLock::new();
    static HIP: OnceLock<Regex> = OnceLock::new();
    let err = re(
        &ERR,
        concat!(
            r"error: (?:use of undeclared identifier|unknown type name|no type named",
            r"|use of undeclared label|no member named '\w+' in namespace) '(\w+)'",
        ),
    );
    let hip = re(
        &HIP,
        r"(?i)\.hip\b|\bhipcc\b|\bamdclang|/opt/rocm|\bamd_hip_|\bhipify|--offload-arch",
    );
    if !hip.is_match(text) {
        return None;
    }
    let (line, c) = text.lines().find_map(|l| {
        let c = err.captures(l)?;
        let name = c.get(1)?.as_str();
        let e = table().cuda_only.iter().find(|e| e.name == name)?;
        Some((l.trim().chars().take(300).collect::<String>(), e))
    })?;
    let sy = family_symptom(
        &S,
        "families.cuda-only-code",
        "HIP code still uses a name that only CUDA has",
        "build-cuda-only-code",
        "The code being compiled for ROCm uses a CUDA-only type or intrinsic that HIP does not \
         provide (hipify leaves such names as they are): the project's source is not ported to \
         HIP there; the ROCm install is not at fault.",
        "Use a release of the project that supports ROCm for this code (or keep the CUDA-only \
         kernels out of the ROCm build), or port the code to the HIP counterpart the reasoning \
         names.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "'{}' is {} (checks/why-families.toml), used in a HIP compile ({FROM})",
            c.name, c.what
        ),
    ))
}

/// A header only CUDA's toolkit ships (`[[cuda_header]]` of `checks/why-families.toml`) not found
/// in a compile for an AMD GPU: clang's "fatal error: 'X' file not found" or GCC's "fatal error:
/// X: No such file or directory" (the preprocessors' missing-include errors), where the text
/// shows the compile targets AMD's GPUs (a `gfx` target, `--offload-arch`, hipcc, amdclang, a
/// `.hip` file, ROCm's root) and not HIP's NVIDIA platform (where CUDA's headers belong).
fn cuda_header(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static ERR: OnceLock<Regex> = OnceLock::new();
    static AMD: OnceLock<Regex> = OnceLock::new();
    static NVIDIA: OnceLock<Regex> = OnceLock::new();
    if !text.contains("fatal error") {
        return None;
    }
    let err = re(
        &ERR,
        r"fatal error: (?:'([\w/.+-]+)' file not found|([\w/.+-]+): No such file or directory)",
    );
    let amd = re(
        &AMD,
        concat!(
            r"(?i)when compiling for gfx|--offload-arch|--amdgpu-target|\.hip\b|\bhipcc\b",
            r"|\bamdclang|/opt/rocm|\bBuilding HIP object",
        ),
    );
    let nvidia = re(
        &NVIDIA,
        r"(?i)HIP_PLATFORM[= ]+(?:nvidia|nvcc)|__HIP_PLATFORM_(?:NVIDIA|NVCC)__|\bnvcc\b",
    );
    if !amd.is_match(text) || nvidia.is_match(text) {
        return None;
    }
    let (line, h) = text.lines().find_map(|l| {
        let c = err.captures(l)?;
        let name = c.get(1).or(c.get(2))?.as_str();
        let h = table().cuda_header.iter().find(|h| h.name == name)?;
        Some((l.trim().chars().take(300).collect::<String>(), h))
    })?;
    let sy = family_symptom(
        &S,
        "families.cuda-header",
        "HIP code still includes a header only CUDA has",
        "build-cuda-only-code",
        "The code compiled for an AMD GPU includes a header of NVIDIA's CUDA toolkit, which no \
         ROCm install has: the include was not ported to HIP (hipify replaces it with HIP's \
         header); the ROCm install is not at fault.",
        "Include the HIP counterpart the reasoning names (or the project's own header that picks \
         CUDA's or HIP's by platform), or use a release of the project whose ROCm build does so.",
    );
    let instead = if h.hip.is_empty() {
        "hipify drops the include, HIP needs none".to_string()
    } else {
        format!("hipify puts <{}> in its place", h.hip)
    };
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "<{}> is a header of NVIDIA's CUDA toolkit, included in a compile for an AMD GPU; \
             {instead} (checks/why-families.toml [[cuda_header]]; {FROM})",
            h.name
        ),
    ))
}

/// An option only nvcc takes, refused by clang (`[[nvcc_only]]` of `checks/why-families.toml`):
/// clang's driver prints "unknown argument: 'X'" (clang 19 on; "unknown argument 'X'; did you
/// mean 'Y'?" where it has a guess) or "unsupported option 'X'" (clang 15) for an option it does
/// not take (clang `DiagnosticDriverKinds.td`, err_drv_unknown_argument,
/// err_drv_unknown_argument_with_suggestion, err_drv_unsupported_opt). A build that passes nvcc's
/// options to clang still builds for CUDA in its flags: the CUDA build's options were carried
/// into the HIP one (hipify translates sources, not build files).
fn nvcc_option(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static ERR: OnceLock<Regex> = OnceLock::new();
    if !text.contains("unknown argument") && !text.contains("unsupported option") {
        return None;
    }
    let err = re(
        &ERR,
        r"error: (?:unknown argument:? |unsupported option )'([^'\s]+)'",
    );
    let (line, arg, e) = text.lines().find_map(|l| {
        let c = err.captures(l)?;
        let arg = c.get(1)?.as_str();
        let e = table().nvcc_only.iter().find(|e| {
            arg.strip_prefix(e.option.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
        })?;
        Some((
            l.trim().chars().take(300).collect::<String>(),
            arg.to_string(),
            e,
        ))
    })?;
    let sy = family_symptom(
        &S,
        "families.nvcc-option",
        "clang is given an option only NVIDIA's nvcc takes",
        "build-cuda-only-code",
        "The build passes an nvcc option to clang (hipcc, amdclang++ or a HIP-enabled CMake): its \
         flags are still the CUDA build's. Porting the sources to HIP (hipify) does not touch \
         the build files, so the CUDA compiler's options reach a compiler that does not take \
         them; the ROCm install is not at fault.",
        "Give the HIP build its own flags: drop the nvcc option or use clang's counterpart the \
         reasoning names (setup.py's or CMake's CUDA-only flags guarded by a check for ROCm, as \
         torch.utils.cpp_extension's IS_HIP_EXTENSION or CMake's HIP language allow), or use a \
         release of the project whose ROCm build does so.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "'{arg}' is {} (checks/why-families.toml), refused by clang ({FROM})",
            e.what
        ),
    ))
}

/// PyTorch's ROCm build counts and names devices through amd-smi's Python package when it can
/// import it (`torch/cuda/__init__.py`, `_raw_device_count_amdsmi`, PyTorch 2.4 on); a traceback
/// there that says the package is not defined or not found means it is not installed in the
/// environment torch runs in.
fn amdsmi_module(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static MISSING: OnceLock<Regex> = OnceLock::new();
    let line = line_of(
        text,
        re(
            &MISSING,
            r"NameError: name 'amdsmi' is not defined|No module named '?amdsmi'?",
        ),
    )?;
    let sy = family_symptom(
        &S,
        "families.amdsmi-module",
        "the amdsmi Python package is not installed where the ROCm PyTorch runs",
        "lib-missing",
        "The ROCm build of PyTorch asks amd-smi's Python package (amdsmi) for the devices, and \
         the package is not installed in the environment the program runs in.",
        "Install amd-smi (amd-smi-lib) and its Python package (from /opt/rocm/share/amd_smi, \
         copied to a writable place, `pip install .`) into the same environment, or use a torch \
         whose device query does not need it.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "the amdsmi Python package is not importable in the program's environment ({FROM})"
        ),
    ))
}

/// A tool that links AMDGPU code looks for ROCm's `ld.lld` at a fixed place and does not find it
/// there (Triton's AMD backend: "ROCm linker ... not found. Set 'TRITON_HIP_LLD_PATH'"); the
/// ROCm in use lives elsewhere (Python wheels, another prefix) or has no lld.
fn lld_at_fixed_path(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static MISSING: OnceLock<Regex> = OnceLock::new();
    static WHEELS: OnceLock<Regex> = OnceLock::new();
    let missing = re(&MISSING, r"(\S*/)?ld\.lld\b[^\n]{0,20}\bnot found\b");
    let line = line_of(text, missing)?;
    let wheels = re(
        &WHEELS,
        r"_rocm_sdk_\w+|\brocm-sdk\b|site-packages/rocm|/venv\S*/lib\S*/site-packages",
    );
    let place = if wheels.is_match(text) {
        "; the text's ROCm comes from Python packages, which keep their lld elsewhere"
    } else {
        ""
    };
    let sy = family_symptom(
        &S,
        "families.lld-fixed-path",
        "a tool looks for ROCm's ld.lld where this ROCm has none",
        "build-lld",
        "The tool links GPU code with ROCm's ld.lld and looks for it at one place (usually \
         /opt/rocm/llvm/bin); the ROCm in use keeps it elsewhere or has none there.",
        "Point the tool at the ld.lld of the ROCm in use (Triton: TRITON_HIP_LLD_PATH, e.g. \
         \"$(rocm-sdk path --root)/llvm/bin/ld.lld\" for TheRock's Python packages) or install \
         the lld of that ROCm.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("ld.lld is not at the path the tool looked in{place} ({FROM})"),
    ))
}

/// clang refuses target lists that name one processor with a feature and without it
/// (`err_drv_invalid_offload_arch_combination`, "Invalid offload arch combinations: A and
/// A:feature"): two target lists were merged into one compile. The projects of one release agree
/// on the form of their targets (ROCm 4.1 moved the libraries' default lists to target ids with
/// `:xnack-`), so a bare and a featured id of one processor come from packages of two releases
/// (a package config that adds its own targets) or from two of the project's variables.
fn offload_arch_mix(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static MIX: OnceLock<Regex> = OnceLock::new();
    let mix = re(
        &MIX,
        r"(?i)Invalid offload arch combinations: '?(gfx\w+)'? and '?(gfx\w+:[\w+:-]+)'?",
    );
    let c = mix.captures(text)?;
    let (a, b) = (c[1].to_string(), c[2].to_string());
    let line = line_of(text, mix)?;
    let sy = family_symptom(
        &S,
        "families.offload-arch-mix",
        "two target lists for one processor, from packages of two releases",
        "lib-mixed-releases",
        "The compile line names one processor both with and without a feature (gfx900 and \
         gfx900:xnack-): two target lists were merged, typically the project's and one a \
         package config of another ROCm release adds (the releases disagree on the form).",
        "Update every ROCm package (the HIP runtime and the libraries) to the same release and \
         remove the leftovers of the old one, or give the targets in one form only \
         (AMDGPU_TARGETS / GPU_TARGETS).",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("the targets {a} and {b} name one processor in two forms ({FROM})"),
    ))
}

/// An application's "HIP binary kernel for this graphics card compute capability (M.m) not
/// found" (Blender Cycles and its forks, `device/hip/device_impl.cpp`): HIP reports a device's
/// compute capability as the major and minor of its `gfx` ISA (gfx1101 is 11.0), so the ISA's
/// family is known; where ROCm supports a member of it the build lacks code it could have.
fn compute_capability(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static CC: OnceLock<Regex> = OnceLock::new();
    let cc = re(
        &CC,
        r"HIP binary kernel for this graphics card compute capability \((\d+)\.(\d+)\) not found",
    );
    let c = cc.captures(text)?;
    let prefix = format!("gfx{}{}", &c[1], &c[2]);
    let line = line_of(text, cc)?;
    let supported: Vec<&String> = super::facts::supported()
        .iter()
        .filter(|i| i.starts_with(&prefix) && i.len() == prefix.len() + 1)
        .collect();
    if supported.is_empty() {
        return None;
    }
    let sy = family_symptom(
        &S,
        "families.app-no-kernel-for-family",
        "the application's build has no HIP kernels for a GPU family ROCm supports",
        "codeobj-no-binary",
        "The application ships precompiled HIP kernels per GPU; the build at hand has none for \
         this GPU's family, which ROCm supports: the build is incomplete, not the GPU.",
        "Install a build of the application that includes the HIP kernels for this GPU (the \
         upstream build, or a fixed release), or build it with the GPU's ISA in its targets.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "compute capability {}.{} is the ISA family {prefix}x, of which ROCm supports {} \
             ({FROM})",
            &c[1],
            &c[2],
            supported
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// An exception out of Tensile's toolchain search (`Tensile/Utilities/Toolchain.py`:
/// TensileCreateLibrary looks for clang, the assembler and the offload bundler under ROCM_PATH,
/// HIP_PATH and the standard ROCm locations, choosing among versioned directories): whatever
/// the exception, the build's toolchain was not found where Tensile looked. A ROCm directory that
/// exists but is empty (a leftover of an uninstalled ROCm) is the case Tensile did not handle
/// (rocm-libraries PR #2032).
fn tensile_toolchain(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static FILE: OnceLock<Regex> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    static EMPTY: OnceLock<Regex> = OnceLock::new();
    if !text.contains("Tensile") {
        return None;
    }
    let file = re(&FILE, r"(?i)(?:\bTensile\S*[\\/])?\btoolchain\.py\b");
    let line = line_of(text, file)?;
    if !re(&FAIL, r"(?i)\bexception\b|\berror\b|Traceback|\bfails?\b").is_match(text) {
        return None;
    }
    let empty = re(
        &EMPTY,
        concat!(
            r"(?i)exists, but has no subdirectories|\bempty\b[^\n]{0,40}\bROCm\b[^\n]{0,20}",
            r"director|\bROCm\b[^\n]{0,40}director(?:y|ies) (?:is|are) empty",
        ),
    );
    let why = if empty.is_match(text) {
        "; the text shows an empty ROCm directory, which the search took for an installation"
    } else {
        ""
    };
    let sy = family_symptom(
        &S,
        "families.tensile-toolchain",
        "Tensile's search for its compiler and assembler failed",
        "tensile-assembler",
        "TensileCreateLibrary looks for clang, the assembler and the bundler along ROCM_PATH, \
         HIP_PATH and the standard ROCm locations, and its search (Toolchain.py) failed: a \
         directory it looked in is missing, empty or stale.",
        "Remove the stale or empty ROCm directory, or point ROCM_PATH (and \
         TENSILE_ROCM_ASSEMBLER_PATH) at the toolchain the build should use; a Tensile with \
         rocm-libraries PR #2032 skips an empty directory.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("the failure comes from Tensile's toolchain search{why} ({FROM})"),
    ))
}

/// A ROCm package (HIP's NVIDIA platform: hip-nvcc, hip-runtime-nvidia) that depends on a
/// package only NVIDIA's CUDA repository provides: `cuda` and the `cuda-*` meta packages
/// (NVIDIA's CUDA Installation Guide for Linux, "Meta Packages"); a distribution's own CUDA
/// packages (Debian's and Ubuntu's nvidia-cuda-toolkit) have other names, so apt finds the
/// dependency "not installable" with them installed.
fn cuda_repository_package(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static DEP: OnceLock<Regex> = OnceLock::new();
    static ROCM: OnceLock<Regex> = OnceLock::new();
    let dep = re(
        &DEP,
        r"Depends(?: on)?: (cuda(?:-[a-z][\w.-]*)?)(?: \([^)]*\))? but (?:it )?is not installable",
    );
    if !re(&ROCM, r"(?i)\bhip|\brocm").is_match(text) {
        return None;
    }
    let c = dep.captures(text)?;
    let pkg = c[1].to_string();
    let line = line_of(text, dep)?;
    let sy = family_symptom(
        &S,
        "families.cuda-repository-package",
        "a HIP package needs NVIDIA's CUDA repository, not the distribution's CUDA",
        "platform-package-conflict",
        "The ROCm package depends on a package that only NVIDIA's CUDA repository provides \
         (`cuda` and its meta packages); the distribution's CUDA packages have other names, \
         so the dependency cannot be met from the configured sources.",
        "Install CUDA from NVIDIA's repository (the `cuda` package) instead of the \
         distribution's nvidia-cuda-* packages, then install the HIP package again.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("the package `{pkg}` comes only from NVIDIA's CUDA repository ({FROM})"),
    ))
}

/// PyTorch raising where it should fall back: its ROCm build uses hipBLAS instead of hipBLASLt on
/// a GPU hipBLASLt has no kernels for (aten/src/ATen/Context.cpp, blasPreferredBackend: the
/// warning "Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to
/// hipblas", pytorch/pytorch#128753). The check in aten/src/ATen/native/cuda/Blas.cpp
/// (isSupportedHipLtROCmArch) raises instead, "RuntimeError: Attempting to use hipBLASLt on a
/// unsupported architecture!", when a build reaches hipBLASLt's path on such a GPU: pytorch/
/// pytorch#137604 removed the fallback by accident and #138267 restored it (October 2024,
/// pytorch/pytorch#138067, ROCm/hipBLASLt#1243). The raising form is that bug; the warning form
/// is the fallback working.
fn torch_hipblaslt_raises(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static RAISED: OnceLock<Regex> = OnceLock::new();
    if !text.contains("hipBLASLt on a unsupported") {
        return None;
    }
    let line = line_of(
        text,
        re(
            &RAISED,
            r"Attempting to use hipBLASLt on a unsupported architecture!\s*$",
        ),
    )?;
    let sy = family_symptom(
        &S,
        "families.torch-hipblaslt-raises",
        "PyTorch raises on a GPU without hipBLASLt instead of falling back to hipBLAS",
        "lib-bug-fixed-later",
        "This PyTorch build takes hipBLASLt's path on a GPU that hipBLASLt has no kernels for and \
         raises, where PyTorch's ROCm build is meant to use hipBLAS there: a regression of \
         PyTorch's October 2024 sources (pytorch/pytorch#137604), fixed by #138267.",
        "Use a PyTorch release from after the fix (2.6 on, or a nightly from 2024-10-21 on); \
         meanwhile TORCH_BLAS_PREFER_HIPBLASLT=0 keeps this build on hipBLAS.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "PyTorch's Blas.cpp check raised \"Attempting to use hipBLASLt on a unsupported \
             architecture!\" (pytorch/pytorch#138067; its fallback prints \"... an unsupported \
             architecture! Overriding blas backend to hipblas\" instead) ({FROM})"
        ),
    ))
}

/// TheRock's Python packages carry their own test (`rocm-sdk test`: `rocm_sdk/tests`, which
/// loads the libraries and runs the console scripts of what is installed). It failing on a
/// dated nightly (`7.11.0a20260112`, the nightly index rocm.nightlies.amd.com) is that nightly's
/// packaging, fixed in a later one; the machine is not involved.
fn nightly_self_test(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NIGHTLY: OnceLock<Regex> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    let fail = re(&FAIL, r"(?:ERROR|FAIL): test\w* \(rocm_sdk\.tests\.");
    let line = line_of(text, fail)?;
    let nightly = re(
        &NIGHTLY,
        r"\b\d+\.\d+\.\d+(?:a|rc|\.dev)\d{8}\b|rocm\.nightlies\.amd\.com",
    );
    let n = nightly.find(text)?.as_str().to_string();
    let sy = family_symptom(
        &S,
        "families.nightly-self-test",
        "the ROCm Python packages' own test fails on a nightly: that nightly's packaging",
        "lib-bug-fixed-later",
        "`rocm-sdk test` checks the installed packages themselves (their libraries and console \
         scripts); it failing on a nightly build is a packaging fault of that nightly, not of \
         the machine.",
        "Install a later nightly (or a release) in which the test passes; report it to TheRock \
         if it persists.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("the packages' own test fails on the nightly \"{n}\" ({FROM})"),
    ))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    [
        migraphx_internal(text),
        ck_xdl_without_mfma(text, f),
        blas_on_unsupported_isa(text, f),
        cuda_only_code(text),
        cuda_header(text),
        nvcc_option(text),
        torch_hipblaslt_raises(text),
        amdsmi_module(text),
        lld_at_fixed_path(text),
        offload_arch_mix(text),
        compute_capability(text),
        tensile_toolchain(text),
        cuda_repository_package(text),
        nightly_self_test(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String, String)> {
        rules(text, &Facts::of(text))
            .into_iter()
            .map(|d| {
                let r = d
                    .captures
                    .iter()
                    .find(|(k, _)| k == "reasoning")
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                (
                    d.symptom.id.clone(),
                    d.symptom.class.clone().unwrap_or_default(),
                    r,
                )
            })
            .collect()
    }

    fn ids(text: &str) -> Vec<String> {
        fired(text).into_iter().map(|(i, _, _)| i).collect()
    }

    #[test]
    fn a_throw_of_migraphxs_compiler_is_a_bug_of_that_version_its_parsers_are_not() {
        let t = "  what():  /src/AMDMIGraphX/src/targets/gpu/fuse_mlir.cpp:412: apply: \
                 unexpected input shape\n";
        let f = fired(t);
        assert_eq!(f[0].1, "lib-bug-fixed-later", "{f:?}");
        assert!(
            f[0].2.contains("src/targets/gpu/fuse_mlir.cpp (apply)"),
            "{f:?}"
        );
        let parser = "RuntimeError: /src/AMDMIGraphX/src/onnx/onnx_parser.cpp:401: \
                      parse_graph: Unknown operator: GridSample\n";
        assert!(ids(parser).is_empty());
    }

    #[test]
    fn a_blas_error_on_an_isa_rocm_does_not_build_says_what_runs_it() {
        let t = "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling \
                 `hipblasLtMatmul`\nGPU: AMD Radeon RX 6600\n";
        let f = fired(t);
        assert_eq!(f[0].1, "gpu-unsupported-asic", "{f:?}");
        assert!(f[0].2.contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"), "{f:?}");
        let rdna1 = "rocblas_status_internal_error\nName: gfx1012\n";
        let f = fired(rdna1);
        assert!(
            f[0].2.contains("no HSA_OVERRIDE_GFX_VERSION value helps"),
            "{f:?}"
        );
        // A supported ISA, or one the named release supported: not this rule's.
        let supported = "HIPBLAS_STATUS_INTERNAL_ERROR\nGPU: AMD Radeon RX 7900 XTX\n";
        assert!(ids(supported).is_empty());
        let then = "ROCm 6.2.0\nrocblas_status_internal_error\nName: gfx906\n";
        assert!(ids(then).is_empty());
    }

    #[test]
    fn cks_xdl_operations_refuse_gpus_without_matrix_cores_only() {
        let t = "RuntimeError: DeviceGemmMultipleD_Xdl_CShuffle<256, 128> does not support this \
                 problem\nGPU: Radeon VII\n";
        let f = fired(t);
        assert_eq!(f[0].1, "gpu-unsupported-asic", "{f:?}");
        assert!(f[0].2.contains("Radeon VII (gfx906)"), "{f:?}");
        let rdna3 = "DeviceBatchedGemm_Xdl_CShuffle<64> does not support this problem\nName: \
                     gfx1100\n";
        assert_eq!(ids(rdna3), ["families.ck-xdl-no-mfma"]);
        // On a GPU with matrix cores the message is about the problem's shape.
        let mi250 = "DeviceGemmMultipleD_Xdl_CShuffle<256> does not support this problem\nMI250X\n";
        assert!(ids(mi250).is_empty());
    }

    #[test]
    fn a_cuda_only_name_in_a_hip_compile_is_unported_code() {
        let t = "csrc/attn.hip:88:5: error: unknown type name '__nv_fp8_e4m3'\n";
        let f = fired(t);
        assert_eq!(f[0].1, "build-cuda-only-code", "{f:?}");
        assert!(f[0].2.contains("__nv_fp8_e4m3"), "{f:?}");
        // Another unknown name, or a CUDA name in a host-only build: not this rule's.
        assert!(ids("csrc/attn.hip:3:1: error: unknown type name 'half8_t'\n").is_empty());
        assert!(ids("main.cpp:1:1: error: unknown type name 'nv_bfloat16'\n").is_empty());
    }

    /// Printed by Debian 12's clang-15 and clang-19 for `-x hip --offload-arch=gfx906 -nogpuinc
    /// -nogpulib -c t.hip` with `#include <cuda_runtime.h>`; GCC 12's form of the same error.
    #[test]
    fn a_cuda_header_in_a_compile_for_an_amd_gpu_is_unported_code() {
        for t in [
            "t.hip:1:10: fatal error: 'cuda_runtime.h' file not found\n#include <cuda_runtime.h>\n         ^~~~~~~~~~~~~~~~\n1 error generated when compiling for gfx906.\n",
            "t.hip:1:10: fatal error: 'cuda_runtime.h' file not found\n    1 | #include <cuda_runtime.h>\n      |          ^~~~~~~~~~~~~~~~\n1 error generated when compiling for gfx1030.\n",
        ] {
            let f = fired(t);
            assert_eq!(f.len(), 1, "{t}: {f:?}");
            assert_eq!(f[0].1, "build-cuda-only-code", "{f:?}");
            assert!(f[0].2.contains("<hip/hip_runtime.h>"), "{f:?}");
        }
        let gcc = "/opt/rocm/bin/hipcc -c blas.cpp\nblas.cpp:2:10: fatal error: cublas_v2.h: No such file or directory\n";
        assert!(fired(gcc)[0].2.contains("<hipblas.h>"));
        // HIP's NVIDIA platform, where CUDA's headers belong; a header HIP has; no AMD target.
        for t in [
            "HIP_PLATFORM=nvidia hipcc -c t.cu\nt.cu:1:10: fatal error: cuda_runtime.h: No such file or directory\n",
            "t.hip:1:10: fatal error: 'hip/hip_runtime.h' file not found\n1 error generated when compiling for gfx906.\n",
            "t.cpp:1:10: fatal error: cuda_runtime.h: No such file or directory\n",
        ] {
            assert!(fired(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn an_nvcc_option_given_to_clang_is_the_cuda_builds_flags() {
        // Printed by sid's clang++-21 and Debian 12's clang-19 and clang-15 for `-x hip
        // --offload-arch=gfx1030 ... -c k.hip` with each option.
        for t in [
            "clang++-21: error: unknown argument: '--use_fast_math'\n",
            "clang-19: error: unknown argument: '-gencode=arch=compute_80,code=sm_80'\n",
            "clang: error: unsupported option '--expt-relaxed-constexpr'\n",
            "clang-19: error: unknown argument: '--ptxas-options=-v'\n",
        ] {
            let f = fired(t);
            assert_eq!(f.len(), 1, "{t}: {f:?}");
            assert_eq!(f[0].1, "build-cuda-only-code", "{f:?}");
        }
        assert!(
            fired("clang: error: unknown argument: '--use_fast_math'\n")[0]
                .2
                .contains("-ffast-math")
        );
        // clang refusing an option of its own family, or an unrelated one.
        assert!(ids("clang: error: unknown argument: '-fno-gpu-rdcx'\n").is_empty());
        assert!(ids("clang: error: unknown argument: '--use_fast_mathematics'\n").is_empty());
    }

    #[test]
    fn pytorch_raising_on_a_gpu_without_hipblaslt_is_its_regression() {
        // ROCm/ROCm#3949's title and pytorch/pytorch#138067's warning (Context.cpp:301).
        let raised = "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!\n";
        let f = fired(raised);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].1, "lib-bug-fixed-later");
        let warned = "[W1016 17:27:46.690175963 Context.cpp:301] Warning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas (function operator())\n";
        assert!(ids(warned).is_empty());
    }

    #[test]
    fn the_amdsmi_package_missing_is_a_missing_library_its_init_warning_is_not() {
        let t = "ModuleNotFoundError: No module named 'amdsmi'\n";
        assert_eq!(fired(t)[0].1, "lib-missing");
        let warn = "UserWarning: Can't initialize amdsmi - Error code: 34\n";
        assert!(ids(warn).is_empty());
    }

    #[test]
    fn ld_lld_not_at_the_tools_path_names_where_rocm_is() {
        let t = "error: linker /opt/rocm/llvm/bin/ld.lld not found\n/home/u/venv/lib/python3.12/\
                 site-packages/_rocm_sdk_core/lib\n";
        let f = fired(t);
        assert_eq!(f[0].1, "build-lld", "{f:?}");
        assert!(f[0].2.contains("Python packages"), "{f:?}");
        assert!(ids("ld.lld: error: undefined symbol: foo\n").is_empty());
    }

    #[test]
    fn one_processor_in_two_target_forms_is_two_lists_merged() {
        let t = "clang: error: invalid offload arch combinations: 'gfx90a' and 'gfx90a:xnack+' \
                 (for a specific processor, a feature should either exist in all offload archs, \
                 or not exist in any offload archs)\n";
        let f = fired(t);
        assert_eq!(f[0].1, "lib-mixed-releases", "{f:?}");
        assert!(f[0].2.contains("gfx90a and gfx90a:xnack+"), "{f:?}");
        assert!(ids("clang: error: invalid offload arch name: 'gfx1036x'\n").is_empty());
    }

    #[test]
    fn no_kernel_for_a_compute_capability_rocm_supports_is_the_build() {
        let t = "HIP binary kernel for this graphics card compute capability (10.3) not found.\n";
        let f = fired(t);
        assert_eq!(f[0].1, "codeobj-no-binary", "{f:?}");
        assert!(f[0].2.contains("gfx1030"), "{f:?}");
        // A family ROCm supports no member of, or CUDA's message: not this rule's.
        let rdna1 = "HIP binary kernel for this graphics card compute capability (10.1) not found.";
        assert!(ids(rdna1).is_empty());
        let cuda = "CUDA binary kernel for this graphics card compute capability (8.6) not found.";
        assert!(ids(cuda).is_empty());
    }
    #[test]
    fn an_exception_in_tensiles_toolchain_search_is_the_toolchain_not_found() {
        let t = "[rocBLAS] Traceback (most recent call last):\n[rocBLAS]   File \
                 \"/src/build/virtualenv/lib/python3.12/site-packages/Tensile/Utilities/\
                 Toolchain.py\", line 120, in _supportedComponent\n[rocBLAS] ValueError: max() \
                 arg is an empty sequence\nls /opt/rocm-6.4.0 -> empty ROCm directory\n";
        let f = fired(t);
        assert_eq!(f[0].1, "tensile-assembler", "{f:?}");
        assert!(f[0].2.contains("empty ROCm directory"), "{f:?}");
        // Another project's toolchain.py is not Tensile's.
        let other = "Traceback:\n  File \"conan/tools/cmake/toolchain.py\", line 3\nError\n";
        assert!(ids(other).is_empty());
    }

    #[test]
    fn a_hip_package_needing_nvidias_cuda_package_is_a_repository_conflict() {
        let t = "The following packages have unmet dependencies:\n hip-runtime-nvidia : \
                 Depends: cuda-toolkit-12-4 but it is not installable\n";
        let f = fired(t);
        assert_eq!(f[0].1, "platform-package-conflict", "{f:?}");
        assert!(f[0].2.contains("`cuda-toolkit-12-4`"), "{f:?}");
        // A distribution library not installable is another matter (its release).
        let lib = "rocm-gdb : Depends: libtinfo5 but it is not installable\n";
        assert!(ids(lib).is_empty());
    }

    #[test]
    fn the_sdks_own_test_failing_on_a_nightly_is_that_nightly() {
        let t = "pip install \"rocm[libraries]==7.10.0a20251201\"\nrocm-sdk test\nFAIL: \
                 testSharedLibrariesLoad (rocm_sdk.tests.libraries_test.ROCmLibrariesTest)\n";
        assert_eq!(fired(t)[0].1, "lib-bug-fixed-later");
        // On a release, not this rule's.
        let release = "pip install \"rocm[libraries]==7.9.0\"\nFAIL: testSharedLibrariesLoad \
                       (rocm_sdk.tests.libraries_test.ROCmLibrariesTest)\n";
        assert!(ids(release).is_empty());
    }
}
