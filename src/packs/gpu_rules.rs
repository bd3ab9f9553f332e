//! Rules over the GPU facts of a text, and of this machine (issue 28, items 3-4). Pure.
//!
//! Each rule reasons from what the text states about the user's machine ([`Facts`]: ISAs and
//! marketing names, versions, platform) joined with the facts of `checks/why-facts.toml` (which
//! ISAs ROCm supports and which override runs which, the `[gpu]` table: PCIe atomics, display-only
//! iGPUs, virtual display adapters, CPUs and their integrated GPUs) and the GPUs it shows by vendor
//! (`checks/gpu-vendors.toml`), and answers
//! with a cause class and a reasoning that says where each fact came from. [`Here`] is what this
//! machine adds: its GPUs' ISAs as the doctor measured them. A rule uses them only when the text
//! names no ISA; when the text names another, the text wins and the reasoning says so.

use super::facts::{self, line_of, re, Derived, Facts, IsaVerdict, Platform};
use super::here::{gpu_of, Gpu, Here};
use super::vendors::Vendor;
use super::Symptom;
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

/// The `[gpu]` table of `checks/why-facts.toml` (its comments cite each fact's source).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Data {
    pub needs_pcie_atomics: Vec<String>,
    pub cpus_without_atomics: Vec<String>,
    pub display_igpus: Vec<String>,
    pub virtual_display: String,
    pub amd_display: String,
    pub rocblas_targets: Vec<String>,
    pub cpu_igpu: Vec<CpuIgpu>,
}

/// A CPU model (a regex) and the ISA of its integrated GPU.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CpuIgpu {
    pub pattern: String,
    pub isa: String,
}

/// `checks/why-facts.toml` as this module reads it: its `[gpu]` table (facts.rs reads the rest).
#[derive(Debug, Deserialize)]
struct File {
    gpu: Data,
}

fn data() -> &'static Data {
    static D: OnceLock<Data> = OnceLock::new();
    D.get_or_init(|| {
        crate::data::embedded::<File>(
            "checks/why-facts.toml",
            include_str!("../../checks/why-facts.toml"),
        )
        .gpu
    })
}

/// A regex of the `[gpu]` table, compiled once (each cell is one table entry).
fn compiled(cell: &'static OnceLock<Vec<Regex>>, src: &[&str]) -> &'static [Regex] {
    cell.get_or_init(|| {
        src.iter()
            .map(|s| {
                Regex::new(&facts::ascii_boundaries(s))
                    .unwrap_or_else(|e| panic!("checks/why-facts.toml [gpu]: {s}: {e}"))
            })
            .collect()
    })
}

fn virtual_display_re() -> &'static Regex {
    static C: OnceLock<Vec<Regex>> = OnceLock::new();
    &compiled(&C, &[data().virtual_display.as_str()])[0]
}

fn amd_display_re() -> &'static Regex {
    static C: OnceLock<Vec<Regex>> = OnceLock::new();
    &compiled(&C, &[data().amd_display.as_str()])[0]
}

fn old_cpu_res() -> &'static [Regex] {
    static C: OnceLock<Vec<Regex>> = OnceLock::new();
    let d = data();
    let v: Vec<&str> = d.cpus_without_atomics.iter().map(String::as_str).collect();
    compiled(&C, &v)
}

fn cpu_igpu_res() -> &'static [(Regex, String)] {
    static C: OnceLock<Vec<(Regex, String)>> = OnceLock::new();
    C.get_or_init(|| {
        data()
            .cpu_igpu
            .iter()
            .map(|c| {
                let r = Regex::new(&facts::ascii_boundaries(&c.pattern)).unwrap_or_else(|e| {
                    panic!("checks/why-facts.toml [gpu.cpu_igpu]: {}: {e}", c.pattern)
                });
                (r, c.isa.clone())
            })
            .collect()
    })
}

fn symptom(
    cell: &'static OnceLock<Symptom>,
    id: &str,
    title: &str,
    class: &str,
    cause: &str,
    fix: &str,
) -> &'static Symptom {
    let source = "rule over the GPU facts of the text (checks/why-facts.toml)";
    facts::cached_symptom(cell, [id, title, class, cause, fix, source])
}

fn reasoning(r: String) -> Vec<(String, String)> {
    vec![("reasoning".into(), r)]
}

/// Lines that list the ISAs a build carries (HIP's "Bundled Code Objects", a Tensile file list,
/// a target list), not a GPU of the machine.
fn is_build_list(line: &str) -> bool {
    static L: OnceLock<Regex> = OnceLock::new();
    re(
        &L,
        concat!(
            r"(?i)hipv4-amdgcn|code object targetID|TensileLibrary_\w*gfx|Kernels_\w*gfx",
            r"|_gfx\w+\.(?:co|dat|hsaco)\b|AMDGPU_TARGETS|GPU_TARGETS|PYTORCH_ROCM_ARCH",
            r"|--offload-arch|supported (?:types|targets|AMDGPU versions)",
        ),
    )
    .is_match(line)
}

/// The GPUs a text names as devices of its machine: ISAs outside build lists, each with its
/// device index where an enumeration gives one (llama.cpp's `Device N: ..., gfxNNNN`, ollama's
/// `amdgpu [N] gfxNNNN`), in order of first mention.
fn devices(text: &str) -> Vec<(String, Option<u32>)> {
    static ISA: OnceLock<Regex> = OnceLock::new();
    static IDX: OnceLock<Regex> = OnceLock::new();
    let isa = re(&ISA, concat!(r"\b", isa_name!(), r"\b"));
    let idx = re(
        &IDX,
        r"(?i)\bDevice (\d+):|\bamdgpu \[(\d+)\]|\bGPU\[(\d+)\]",
    );
    let mut out: Vec<(String, Option<u32>)> = Vec::new();
    for line in text.lines().filter(|l| l.contains("gfx")) {
        if is_build_list(line) {
            continue;
        }
        let found: Vec<&str> = isa.find_iter(line).map(|m| m.as_str()).collect();
        if found.len() >= 3 {
            continue;
        }
        let n = idx.captures(line).and_then(|c| {
            (1..=3)
                .find_map(|i| c.get(i))
                .and_then(|m| m.as_str().parse().ok())
        });
        for g in found {
            if crate::isa::processor(g).is_none() {
                continue;
            }
            match out.iter_mut().find(|(i, _)| i == g) {
                Some((_, slot)) if slot.is_none() => *slot = n,
                Some(_) => {}
                None => out.push((g.to_string(), n)),
            }
        }
    }
    out
}

fn is_apu(isa: &str) -> bool {
    crate::gpu::facts::is_apu_processor(isa)
}

/// The ISA of an integrated GPU whose CPU the text names (`Ryzen 7 5700U` -> gfx90c), with the
/// name.
fn cpu_igpu(text: &str) -> Option<(String, String)> {
    if !text.contains("yzen") && !text.contains("YZEN") {
        return None;
    }
    cpu_igpu_res()
        .iter()
        .find_map(|(r, isa)| r.find(text).map(|m| (isa.clone(), m.as_str().to_string())))
}

/// "The failing device is the integrated GPU beside a discrete one": the text names an iGPU ISA
/// and a discrete one as devices of its machine, and the failure points at the iGPU: a "no code"
/// line naming the iGPU's ISA, a failing device index that is the iGPU's, or the text calling the
/// iGPU's line integrated beside a crash. Or the iGPU is one made for the display only
/// (`display_igpus`: the desktop Ryzen's 2-CU GPU, which sits beside the discrete GPU that
/// computes) and a library found no code for it. ROCm enumerates every GPU KFD exposes, the iGPU
/// included, and a build for the discrete GPU has no code for it (gpu-build-facts.md §1.2; AMD's
/// advice is to hide it: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES or the BIOS).
fn igpu(text: &str, here: &Here) -> Option<Derived> {
    if !text.contains("gfx") && !here.isas.iter().any(|i| is_apu(i)) {
        return None;
    }
    let devs = devices(text);
    let igpus: Vec<&(String, Option<u32>)> = devs.iter().filter(|(i, _)| is_apu(i)).collect();
    let dgpus: Vec<&(String, Option<u32>)> = devs.iter().filter(|(i, _)| !is_apu(i)).collect();
    if let (Some((ig, ig_idx)), Some((dg, _))) = (igpus.first(), dgpus.first()) {
        return igpu_beside_dgpu(text, here, ig, *ig_idx, dg);
    }
    igpu_display_only(
        text,
        here,
        igpus.first().map(|(ig, _)| ig),
        dgpus.is_empty(),
    )
}

/// The symptom cell `igpu`'s two answers share.
static IGPU_S: OnceLock<Symptom> = OnceLock::new();

/// The line and the reason the failure points at the iGPU `ig` (device index `ig_idx`): a "no
/// code" line naming its ISA, a failing device index that is its, or the text calling it
/// integrated beside a crash.
fn igpu_failure(text: &str, ig: &str, ig_idx: Option<u32>) -> Option<(String, String)> {
    static FAIL_ON: OnceLock<Regex> = OnceLock::new();
    static CURRENT: OnceLock<Regex> = OnceLock::new();
    static INTEGRATED: OnceLock<Regex> = OnceLock::new();
    static CRASH: OnceLock<Regex> = OnceLock::new();
    let fail_on = re(
        &FAIL_ON,
        concat!(
            r"(?i)\[Not Found\]|for GPU arch\s*:?\s*gfx|No compatible code objects? found for",
            r"|no kernel image|invalid device function",
        ),
    );
    // The failure names the iGPU's ISA on its line.
    let on_line = text
        .lines()
        .find(|l| l.contains(ig) && fail_on.is_match(l) && !is_build_list(l));
    if let Some(line) = on_line.map(|l| l.trim().chars().take(300).collect()) {
        return Some((line, format!("the failure names the iGPU's ISA {ig}")));
    }
    // The failing device index is the iGPU's.
    let current = re(&CURRENT, r"(?i)current device:?\s*(\d+)");
    let by_index = ig_idx.and_then(|i| {
        current
            .captures(text)
            .and_then(|c| c[1].parse::<u32>().ok())
            .filter(|c| *c == i)
            .map(|_| line_of(text, current).unwrap_or_default())
    });
    if let Some(line) = by_index {
        return Some((
            line,
            format!(
                "the failing device, {}, is the iGPU {ig}",
                ig_idx.unwrap_or_default()
            ),
        ));
    }
    // The text calls it integrated, beside a crash.
    let integrated = re(&INTEGRATED, r"(?i)\b(?:iGPU|integrated (?:graphics|GPU))\b");
    let crash = re(
        &CRASH,
        concat!(
            r"(?i)segfault|Segmentation fault|core dumped|invalid device function",
            r"|hipErrorNoBinaryForGpu|GPU Hang|page fault",
        ),
    );
    let line = text
        .lines()
        .any(|l| l.contains(ig) && integrated.is_match(l))
        .then(|| line_of(text, crash))
        .flatten()?;
    Some((line, format!("the text calls {ig} its integrated graphics")))
}

/// `igpu` where the text names the iGPU `ig` and the discrete GPU `dg` as devices of its machine.
fn igpu_beside_dgpu(
    text: &str,
    here: &Here,
    ig: &str,
    ig_idx: Option<u32>,
    dg: &str,
) -> Option<Derived> {
    let why = igpu_failure(text, ig, ig_idx)?;
    let sy = igpu_symptom(&IGPU_S);
    let machine = if here.isas.is_empty() {
        "this machine was not asked".to_string()
    } else {
        format!(
            "this machine has {}: answering for the text",
            here.isas.join(", ")
        )
    };
    Some(Derived {
        symptom: sy,
        line: why.0,
        captures: reasoning(format!(
            "{ig}, an integrated GPU, and {dg}, a discrete one, named in the text as devices \
             of its machine ({machine}); {}: the runtime enumerates the iGPU too and the \
             build has no code for it. Hide it: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES \
             set to the discrete GPU's index",
            why.1
        )),
        defers_to: IGPU_DEFERS_TO,
        overrules: &[
            "gpu-unsupported-asic",
            "codeobj-no-binary",
            "lib-rocblas-data",
        ],
    })
}

/// `igpu` for a display-only iGPU alone (the text's `ig`, else this machine's when the text names
/// no discrete GPU either), as the device a library found no code for.
fn igpu_display_only(
    text: &str,
    here: &Here,
    ig: Option<&String>,
    no_dgpu: bool,
) -> Option<Derived> {
    static NO_CODE: OnceLock<Regex> = OnceLock::new();
    let no_code = re(&NO_CODE, facts::NO_CODE);
    let (ig, from_machine) = match (ig, no_dgpu) {
        (Some(ig), true) => (ig.clone(), false),
        (None, true) => {
            let m = here.isas.iter().find(|i| is_apu(i))?;
            (m.clone(), true)
        }
        _ => return None,
    };
    if !data().display_igpus.contains(&ig) {
        return None;
    }
    let line = text
        .lines()
        .find(|l| (l.contains(ig.as_str()) || from_machine) && no_code.is_match(l))?;
    let others: Vec<&String> = here.isas.iter().filter(|i| !is_apu(i)).collect();
    let (whose, beside) = if from_machine {
        (
            "measured on this machine; the text names no ISA".to_string(),
            format!(
                "this machine has it beside {}",
                others
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    } else {
        (
            "named in the text; this machine was not asked".to_string(),
            "such a CPU's iGPU sits beside the discrete GPU that computes".to_string(),
        )
    };
    if from_machine && others.is_empty() {
        return None;
    }
    Some(Derived {
        symptom: igpu_symptom(&IGPU_S),
        line: line.trim().chars().take(300).collect(),
        captures: reasoning(format!(
            "{ig} ({whose}) is the display iGPU of a desktop Ryzen (2 compute units), not a GPU \
             anything is built for; {beside}, and the runtime enumerated it too. Hide it: \
             HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES set to the discrete GPU's index, or \
             disable the iGPU in the BIOS"
        )),
        defers_to: IGPU_DEFERS_TO,
        overrules: &[
            "gpu-unsupported-asic",
            "codeobj-no-binary",
            "lib-rocblas-data",
        ],
    })
}

/// Causes more specific than the iGPU's: when one is answered first, it stays first.
const IGPU_DEFERS_TO: &[&str] = &[
    "platform-wsl",
    "lib-mixed-releases",
    "gpu-override-misuse",
    "gpu-driver-missing",
    "gpu-firmware",
    "gpu-hang-reset",
    "mem-oom",
];

fn igpu_symptom(cell: &'static OnceLock<Symptom>) -> &'static Symptom {
    symptom(
        cell,
        "gpu.igpu-beside-dgpu",
        "the failing device is the integrated GPU beside the discrete one",
        "gpu-igpu-interference",
        "The machine has an integrated GPU beside the discrete one, ROCm enumerates both, and the \
         failure is on the integrated one, for which the build has no code (or which cannot run \
         the work).",
        "Hide the iGPU: HIP_VISIBLE_DEVICES (or ROCR_VISIBLE_DEVICES for every ROCm program) set \
         to the discrete GPU's index as rocminfo lists it, or disable the iGPU in the BIOS.",
    )
}

/// "No AMD GPU at all": a text whose program found no ROCm device, or whose driver is absent,
/// from a machine the text shows has no AMD GPU: an NVIDIA GPU, or only an Intel one, as a tool
/// printed it and no AMD one ([`Facts::vendors`], the forms of `checks/gpu-vendors.toml`), or a
/// virtual machine whose only display adapter is a virtual one (no AMD device on the Linux side),
/// or the text saying so. ROCm runs only on AMD GPUs (rocBLAS' maintainers: "only AMD devices";
/// AMD's system requirements). A text that shows an AMD GPU too (a machine with both) is about
/// which GPUs the runtime may see, not this.
fn no_amd_gpu(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static SAYS: OnceLock<Regex> = OnceLock::new();
    let line = no_device_line(text)?;
    let (evidence, what) = if let Some(s) = f.shown(Vendor::Nvidia).or_else(|| {
        f.shown(Vendor::Intel)
            .filter(|_| !f.on(Platform::Wsl) && !f.shows(Vendor::Nvidia))
    }) {
        if shows_amd(text, f) {
            return None;
        }
        let only = if s.vendor == Vendor::Intel {
            "only "
        } else {
            ""
        };
        let said = if s.line.contains(&s.said) && s.line != s.said {
            format!("{}, ", s.said)
        } else {
            String::new()
        };
        (
            s.line.clone(),
            format!(
                "{only}an {} GPU and no AMD one in the text ({said}as {} prints it)",
                s.vendor.name(),
                s.tool
            ),
        )
    } else if let Some(m) = virtual_display_re().find(text) {
        if amd_display_re().is_match(text) {
            return None;
        }
        (
            m.as_str().to_string(),
            "a virtual machine whose display adapter is a virtual one and no AMD device on its \
             Linux side, in the text"
                .to_string(),
        )
    } else if let Some(m) = re(
        &SAYS,
        r"(?i)\b(?:doesn't|does not|don't|do not|didn't) have (?:an? |any )?AMD ?GPUs?\b",
    )
    .find(text)
    {
        (
            m.as_str().to_string(),
            "the text says the machine has no AMD GPU".to_string(),
        )
    } else {
        return None;
    };
    let sy = facts::cached_symptom(
        &S,
        [
            "gpu.no-amd-gpu",
            "the machine has no AMD GPU for ROCm to use",
            "gpu-no-amd-gpu",
            "ROCm and the libraries built on it run only on AMD GPUs. The text shows a machine \
             without one that the OS can reach: an NVIDIA GPU, only an Intel one, or a virtual \
             machine without the GPU passed through, so nothing ROCm-side (permissions, groups, \
             drivers) will find a device.",
            "Run on a machine (or a VM with the AMD GPU passed through) that has an AMD GPU, or \
             use the framework's build for the GPU you have (its CUDA build on NVIDIA).",
            "rule over the GPUs the text shows by vendor (checks/gpu-vendors.toml) and the GPU \
             facts of checks/why-facts.toml",
        ],
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: reasoning(format!(
            "{what}: \"{evidence}\"; about the machine the text comes from (this machine was not \
             asked)"
        )),
        defers_to: &[
            "platform-wsl",
            "gpu-container-devices",
            "platform-visible-devices",
            "lib-cuda-build",
        ],
        overrules: &["gpu-kfd-permission", "gpu-driver-missing"],
    })
}

/// The line of a text saying a ROCm program found no GPU: PyTorch's "No HIP GPUs are
/// available", HIP's `hipErrorNoDevice` and its string "no ROCm-capable device is detected"
/// (CLR hip_device_runtime.cpp hipGetDeviceCount), rocBLAS' and hipBLASLt's "Could not initialize
/// Tensile host: No devices found" (tensile_host.cpp, when hipGetDeviceCount fails), a failing
/// hipGetDeviceCount as PyTorch and ollama print it, rocminfo's and ROCr's init failures, JAX
/// without its ROCm backend, and ollama finding no GPU (discover/gpu.go "no compatible GPUs were
/// discovered", for every vendor: counted only when the text names ROCm).
fn no_device_line(text: &str) -> Option<String> {
    static NONE: OnceLock<Regex> = OnceLock::new();
    static OLLAMA: OnceLock<Regex> = OnceLock::new();
    static ROCM: OnceLock<Regex> = OnceLock::new();
    let none = re(
        &NONE,
        &format!(
            "(?i){}{}",
            super::facts::HIP_NO_DEVICE,
            concat!(
                r#"|Unable to initialize backend 'rocm'"#,
                r#"|Could not find registered platform with name: "rocm"|ROCk module is NOT loaded"#,
                r#"|amdgpu driver unavailable|HSA_STATUS_ERROR_OUT_OF_RESOURCES|hsa_init Failed"#,
                r#"|no GPU agents?|torch\.cuda\.is_available\(\)\s*(?:->|=+|returns?)?\s*False"#,
                r#"|failed call to hipGetDeviceCount|hipGetDeviceCount failed"#,
                r#"|Unexpected error from hipGetDeviceCount|AMD ROCm reports no devices found"#,
            )
        ),
    );
    line_of(text, none).or_else(|| {
        let l = line_of(text, re(&OLLAMA, r"no compatible GPUs were discovered"))?;
        re(&ROCM, r"(?i)\brocm").is_match(text).then_some(l)
    })
}

/// Whether the text shows an AMD GPU: a tool's printed form or an ISA, product name or PCI id
/// ([`Facts::shows`]), or words naming one (Radeon, Instinct, "AMD GPU", amdgpu with an ISA):
/// a mention is enough to keep a "no AMD GPU" answer out.
fn shows_amd(text: &str, f: &Facts) -> bool {
    static AMD: OnceLock<Regex> = OnceLock::new();
    f.shows(Vendor::Amd)
        || re(
            &AMD,
            concat!(
                r"(?i)\bRadeon\b|\bInstinct\b|\b",
                isa_name!(),
                r"\b|\bAMD GPU\b|\bamdgpu\b.*\bgfx"
            ),
        )
        .is_match(text)
}

/// The override values a text sets (`HSA_OVERRIDE_GFX_VERSION=...`, `_N` variants, `=`, `:` or
/// a Makefile's ` = `), quotes stripped; shell variables and placeholders left out.
pub(super) fn overrides(text: &str) -> Vec<String> {
    static O: OnceLock<Regex> = OnceLock::new();
    if !text.contains("HSA_OVERRIDE_GFX_VERSION") {
        return Vec::new();
    }
    let o = re(
        &O,
        concat!(
            r#"HSA_OVERRIDE_GFX_VERSION(?:_\d+)?\s*[:=]\s*"#,
            r#"(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`,;)\]]+))"#,
        ),
    );
    let mut out = Vec::new();
    for c in o.captures_iter(text) {
        let v = (1..=3)
            .find_map(|i| c.get(i))
            .map_or("", |m| m.as_str())
            .trim()
            // Prose ends a value with its sentence ("set HSA_OVERRIDE_GFX_VERSION=10.3.0.").
            .trim_end_matches(['.', ':', '!', '?']);
        let placeholder = v.is_empty()
            || v.contains(['$', '<', '{', '%', '*', '['])
            || v.chars()
                .all(|ch| !ch.is_ascii_digit() && ch.is_ascii_punctuation())
            || v.eq_ignore_ascii_case("x.y.z")
            || v.contains("...");
        if !placeholder && !out.iter().any(|x| x == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// The ISA family an override can cross within: LLVM's generic processor (checks/isa.toml).
fn generic(isa: &str) -> Option<&'static str> {
    crate::isa::processor(isa).and_then(|p| p.generic.as_deref())
}

/// What is wrong with one of the override `values` the text sets, for `gpu` (the text's, else
/// this machine's) and the GPUs `named`: the reasoning, or `None` when every value may be right.
fn override_problem(values: &[String], gpu: Option<&Gpu>, named: &[&str]) -> Option<String> {
    let targets: Vec<String> = values
        .iter()
        .filter_map(|v| crate::gpu::overrides::parse_override(v).ok()?.gfx())
        .collect();
    // A value the text also sets that fits a GPU's family: the user has (or tried) the right one.
    let fits = targets.iter().any(|t| {
        named
            .iter()
            .any(|g| g == t || (generic(g).is_some() && generic(g) == generic(t)))
    });
    for v in values {
        match crate::gpu::overrides::parse_override(v) {
            Err(e) => {
                // A value with no digit at all is not a version somebody typed wrong but text
                // put where the version goes (a failed detection, a message).
                return Some(format!(
                    "HSA_OVERRIDE_GFX_VERSION={v:?} in the text: libhsakmt rejects it ({e}), so \
                     the GPU's node fails to initialise"
                ));
            }
            Ok(gv) => {
                let (Some(g), Some(target)) = (gpu, gv.gfx()) else {
                    continue;
                };
                if fits || named.iter().any(|n| *n == target) {
                    continue;
                }
                let (a, b) = (generic(&g.isa), generic(&target));
                // An ISA no override helps is unsupported whatever the value; the rule below
                // (`unsupported_isa`) answers for it.
                let helped = !matches!(facts::isa_verdict(&g.isa), IsaVerdict::NoOverride { .. });
                if helped && a.is_some() && b.is_some() && a != b {
                    return Some(format!(
                        "HSA_OVERRIDE_GFX_VERSION={v} in the text makes the runtime load {target} \
                         code ({}) on {}, of another ISA family ({}): it faults or hangs",
                        b.unwrap_or_default(),
                        g.named,
                        a.unwrap_or_default()
                    ));
                }
                if named.iter().all(|n| {
                    facts::is_datacenter(n)
                        && matches!(facts::isa_verdict(n), IsaVerdict::Supported)
                }) {
                    return Some(format!(
                        "HSA_OVERRIDE_GFX_VERSION={v} in the text on {}, an Instinct part ROCm \
                         supports: it needs no override, and this one makes the runtime load \
                         {target} code on it (a value left from another GPU)",
                        g.named
                    ));
                }
            }
        }
    }
    None
}

/// "The override is wrong": a value libhsakmt rejects (not three decimal numbers: `topology.c`
/// fails the node, gpu-build-facts.md §4.2), a value naming an ISA of another family than the
/// GPU's (ROCr then loads that family's code on it: faults and hangs), or any other ISA's value
/// on an Instinct part ROCm supports (a stale override left from another GPU). The GPU is the
/// text's, else this machine's ([`gpu_of`]).
fn override_misuse(text: &str, f: &Facts, here: &Here) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static LINE: OnceLock<Regex> = OnceLock::new();
    let values = overrides(text);
    if values.is_empty() {
        return None;
    }
    let gpu = gpu_of(&f.isas, here);
    // Every GPU the text names (several GPUs, per-node overrides), else this machine's: a value
    // is wrong only for all of them.
    let named: Vec<&str> = if f.isas.is_empty() {
        here.isas.iter().map(String::as_str).collect()
    } else {
        f.isas.iter().map(|(i, _)| i.as_str()).collect()
    };
    let reasoning_text = override_problem(&values, gpu.as_ref(), &named)?;
    let line = line_of(text, re(&LINE, r"HSA_OVERRIDE_GFX_VERSION")).unwrap_or_default();
    let sy = symptom(
        &S,
        "gpu.override-misuse",
        "HSA_OVERRIDE_GFX_VERSION is set to a wrong value for this GPU",
        "gpu-override-misuse",
        "The override tells the runtime to treat the GPU as another ISA and load that ISA's code. \
         A value that is not major.minor.stepping fails the GPU's initialisation; a value of \
         another ISA family, or any value on a supported Instinct part, runs code that was not \
         built for the GPU: faults, hangs or wrong kernels.",
        "Unset HSA_OVERRIDE_GFX_VERSION (and HSA_OVERRIDE_GFX_VERSION_<N>) where the GPU is \
         supported; otherwise set it to the supported ISA of the GPU's own family (10.3.0 for \
         RDNA2, 11.0.0 for RDNA3, 9.0.0 for Vega), as three decimal numbers without quotes.",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: reasoning(reasoning_text),
        defers_to: &[],
        overrules: &[
            "gpu-unsupported-asic",
            "codeobj-no-binary",
            "mem-access-fault",
        ],
    })
}

/// The GPU `unsupported_isa` answers for: the text's, else a CPU's integrated GPU the text
/// names (when it names no discrete GPU), else this machine's.
fn unsupported_gpu(text: &str, f: &Facts, here: &Here) -> Option<Gpu> {
    Some(match gpu_of(&f.isas, here) {
        Some(g) if !f.isas.is_empty() => g,
        _ => match cpu_igpu(text) {
            // A CPU's iGPU only when the text names no discrete GPU.
            Some((isa, name)) => Gpu {
                named: format!(
                    "{isa} (the integrated GPU of the {name} the text names; this machine was not \
                     asked)"
                ),
                isa,
            },
            None => gpu_of(&f.isas, here)?,
        },
    })
}

/// `unsupported_isa`'s reasoning: no override helps `gpu`, or the one that would is ignored on
/// Windows; `None` otherwise.
fn unsupported_why(gpu: &Gpu, windows: bool) -> Option<String> {
    let verdict = facts::isa_verdict(&gpu.isa);
    match &verdict {
        IsaVerdict::NoOverride { .. } => Some(format!(
            "{}: {}",
            gpu.named,
            facts::unsupported_words(&verdict)?
        )),
        IsaVerdict::Override { runs, value, .. } if windows => Some(format!(
            "{}: not supported by ROCm; on Linux HSA_OVERRIDE_GFX_VERSION={value} runs the {runs} \
             kernels on it, but the text comes from Windows, whose HIP runtime ignores the \
             override: use a GPU the HIP SDK supports, or Linux",
            gpu.named
        )),
        _ => None,
    }
}

/// `unsupported_isa`'s line: the "no code" line `trigger`, else (no failure in the text) the
/// override's.
fn unsupported_line(text: &str, trigger: Option<String>) -> Option<String> {
    static FAILS: OnceLock<Regex> = OnceLock::new();
    static OVR: OnceLock<Regex> = OnceLock::new();
    // The same answer with no error line needs the text to be about running on that GPU: an
    // override set for it.
    match trigger {
        Some(l) => Some(l),
        // An override with no failure in the text: a report of running that GPU with it.
        None if !re(
            &FAILS,
            concat!(
                r"(?i)error|fail|fault|abort|crash|segfault|hang|exception|traceback",
                r"|killed|not work",
            ),
        )
        .is_match(text) =>
        {
            line_of(text, re(&OVR, r"HSA_OVERRIDE_GFX_VERSION"))
        }
        None => None,
    }
}

/// "The GPU is an ISA ROCm does not build, and it is not a library's missing file": an
/// unsupported ISA (the text's, a CPU's integrated GPU the text names, or this machine's) with no
/// override that finds kernels for it (`[[no_override]]`), or one whose override the platform
/// ignores (Windows: the HIP SDK's runtime does not read HSA_OVERRIDE_GFX_VERSION, ollama's
/// maintainers in ollama#3107), together with a library's "no code for it" line or an override
/// the text sets for it. Installing the library's data files again cannot help, so this comes
/// before the library-data causes. A supported ISA, or one whose override runs the same
/// family's kernels, is left to the library and build rules.
fn unsupported_isa(text: &str, f: &Facts, here: &Here) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NO_CODE: OnceLock<Regex> = OnceLock::new();
    let no_code = re(&NO_CODE, facts::NO_CODE);
    let trigger = line_of(text, no_code);
    let set = !overrides(text).is_empty();
    if trigger.is_none() && !set {
        return None;
    }
    let gpu = unsupported_gpu(text, f, here)?;
    let windows = windows_evidence(text).is_some() && !f.on(Platform::Wsl);
    // rocBLAS builds some ISAs ROCm dropped (`rocblas_targets`): its missing Tensile files for
    // them are the library's install, which the library-data answer covers.
    static ROCBLAS: OnceLock<Regex> = OnceLock::new();
    if trigger
        .as_deref()
        .is_some_and(|l| re(&ROCBLAS, r"(?i)rocBLAS|Tensile").is_match(l))
        && data().rocblas_targets.contains(&gpu.isa)
    {
        return None;
    }
    // A release the text names that supported the ISA makes a missing kernel a build problem
    // (facts.rs's ISA rule says so); nothing to add here.
    if facts::release_then(f, &gpu.isa).is_some_and(|(_, supported)| supported) {
        return None;
    }
    let why = unsupported_why(&gpu, windows)?;
    let line = unsupported_line(text, trigger)?;
    let sy = symptom(
        &S,
        "gpu.isa-not-built",
        "the GPU's ISA is one ROCm does not build, and no override helps here",
        "gpu-unsupported-asic",
        "The GPU's ISA is not one ROCm or its libraries build, and no override value finds \
         kernels for it on this platform: the library's data files are not missing, they never \
         existed for this GPU.",
        "See the reasoning: what runs this ISA (an older release, a source or community build), \
         or another GPU.",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: vec![("isa".into(), gpu.isa.clone()), ("reasoning".into(), why)],
        defers_to: &[
            "gpu-igpu-interference",
            "gpu-override-misuse",
            "codeobj-xnack-sramecc",
            "codeobj-invalid-image",
            "lib-mixed-releases",
            "tensile-assembler",
            "lib-stale-path",
            "mem-access-fault",
            "mem-oom",
            "mem-apu-gtt",
            "gpu-hang-reset",
            "gpu-driver-missing",
            "gpu-firmware",
            "platform-wsl",
        ],
        overrules: &[
            "lib-rocblas-data",
            "lib-hipblaslt-data",
            "lib-miopen-data",
            "codeobj-no-binary",
            "gpu-kfd-permission",
        ],
    })
}

/// The ROCm release a text's paths or lines name, in forms the version entities do not read:
/// AMD's build servers' `compute-rocm-rel-3.3` and `rocm-rel-5.7` branches.
fn path_release(text: &str) -> Option<String> {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"(?i)\brocm-rel-(\d+\.\d+)")
        .captures(text)
        .map(|c| c[1].to_string())
}

/// The release the text names (PyTorch's ROCm, ROCm's, else a build server's path) and whether it
/// supported `isa`.
fn release_support(text: &str, f: &Facts, isa: &str) -> Option<(String, bool)> {
    let release = ["torch-rocm", "rocm"]
        .iter()
        .find_map(|k| {
            f.versions
                .iter()
                .find(|(w, _)| w == k)
                .map(|(_, v)| v.clone())
        })
        .or_else(|| path_release(text));
    release
        .as_deref()
        .and_then(|r| facts::supported_in(isa, r).map(|s| (r.to_string(), s)))
}

/// `pcie_atomics`'s first answer when the release `r` the text names did not support `isa`.
fn isa_not_in_release(isa: &str, r: &str, line: String) -> Derived {
    static U: OnceLock<Symptom> = OnceLock::new();
    Derived {
        symptom: symptom(
            &U,
            "gpu.isa-not-in-release",
            "the GPU's ISA is not supported by the ROCm release in the text",
            "gpu-unsupported-asic",
            "The release the text names does not support the GPU's ISA (AMD's support \
             tables), so its runtime has no working path for it.",
            "Use a release that supported this ISA, or a supported GPU.",
        ),
        line,
        captures: reasoning(format!(
            "{isa} (named in the text) is not supported by ROCm {r} (named in the text; AMD's \
             support tables); this machine was not asked"
        )),
        defers_to: &[],
        overrules: &[
            "gpu-kfd-permission",
            "gpu-driver-missing",
            "gpu-pcie-atomics",
        ],
    }
}

/// "The GPU needs PCIe atomics and the host has none": a GFX8 discrete GPU (`needs_pcie_atomics`,
/// KFD refuses it without atomics, no firmware exemption) whose KFD device fails to come up
/// (rocminfo's out-of-resources, no GPU agent, /dev/kfd failing to open with ENOMEM) on a host CPU
/// older than Haswell or Zen (`cpus_without_atomics`: ROCm's CPU requirement). When the release
/// the text names no longer supported the ISA, the answer is that first (the release's support,
/// `[[release]]`/`[[retired]]`).
fn pcie_atomics(text: &str, f: &Facts) -> Vec<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    let fail = re(
        &FAIL,
        concat!(
            r"(?i)HSA_STATUS_ERROR_OUT_OF_RESOURCES|/dev/kfd\S*\s*,?[^\n]*ENOMEM|hsa_init Failed",
            r"|No GPU agent|no ROCm-capable device|No HIP GPUs are available",
        ),
    );
    let Some(line) = line_of(text, fail) else {
        return Vec::new();
    };
    let Some(isa) = f
        .isas
        .iter()
        .map(|(i, _)| i)
        .find(|i| data().needs_pcie_atomics.contains(i))
    else {
        return Vec::new();
    };
    let Some(cpu) = old_cpu_res().iter().find_map(|r| r.find(text)) else {
        return Vec::new();
    };
    let supported_then = release_support(text, f, isa);
    let mut out = Vec::new();
    let atomics = Derived {
        symptom: symptom(
            &S,
            "gpu.pcie-atomics-host",
            "a GPU that needs PCIe atomics on a host CPU without them",
            "gpu-pcie-atomics",
            "KFD brings up a GFX8 discrete GPU only when the PCIe path to it supports atomic \
             operations; the CPU the text names predates PCIe atomics (before Intel Haswell and \
             AMD Zen), so KFD skips the GPU and no ROCm program finds it.",
            "Use the GPU in a host whose CPU and slot support PCIe atomics (Intel Haswell or AMD \
             Zen and newer, a CPU-attached slot), or a GPU generation that runs without them \
             (GFX9).",
        ),
        line: line.clone(),
        captures: reasoning(format!(
            "{isa} (named in the text) needs PCIe atomics (KFD's rule for GFX8 discrete GPUs), \
             and the host CPU the text names, \"{}\", predates them{}; from the text, this machine \
             was not asked",
            cpu.as_str(),
            match &supported_then {
                Some((r, true)) => format!("; ROCm {r}, named in the text, supported {isa}"),
                _ => String::new(),
            }
        )),
        defers_to: &[],
        overrules: &["gpu-kfd-permission", "gpu-driver-missing"],
    };
    if let Some((r, false)) = &supported_then {
        out.push(isa_not_in_release(isa, r, line.clone()));
    }
    out.push(atomics);
    out
}

/// "A container whose minimal /dev drops the GPU's devices": Apptainer and Singularity with
/// `--contain`/`-c`/`-C` (or `--containall`) build a minimal /dev, and their `--rocm` option bound
/// only some of the GPU's device files into it (`/dev/kfd` or the `/dev/dri/render*` nodes
/// missing: apptainer/apptainer#752 and sylabs/singularity#5696, each fixed by a later release);
/// ROCm needs /dev/kfd and the render nodes.
fn contained(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static RUNTIME: OnceLock<Regex> = OnceLock::new();
    static CONTAIN: OnceLock<Regex> = OnceLock::new();
    static DEVICE: OnceLock<Regex> = OnceLock::new();
    // `--rocm` beside `--contain` is that pair of options of theirs (docker has neither).
    let named = f.on(Platform::Container)
        && re(&RUNTIME, r"(?i)\b(?:apptainer|singularity)\b").is_match(text);
    let pair = text.contains("--rocm") && text.contains("--contain");
    if !(named || pair) {
        return None;
    }
    let contain = re(
        &CONTAIN,
        r"(?i)--contain(?:all)?\b|\s-[cC]\s+--rocm\b|--rocm\s+-[cC]\b|minimal `?/dev",
    );
    let line = line_of(text, contain)?;
    if !re(&DEVICE, r"/dev/kfd|/dev/dri/render").is_match(text) {
        return None;
    }
    let sy = symptom(
        &S,
        "gpu.contained-dev",
        "the container's minimal /dev lacks the GPU's device files",
        "gpu-container-devices",
        "With --contain (-c, -C) Apptainer and Singularity give the container a minimal /dev, \
         and their --rocm option did not bind every device ROCm needs into it (/dev/kfd or the \
         /dev/dri/render* nodes), so ROCm finds no GPU inside.",
        "Bind the missing devices by hand (--bind /dev/kfd --bind /dev/dri), drop --contain, or \
         use a release of the container runtime whose --rocm binds them.",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: reasoning(
            "an Apptainer/Singularity container with a minimal /dev (--contain) and --rocm, from \
             the text (this machine was not asked)"
                .into(),
        ),
        defers_to: &[],
        overrules: &["gpu-kfd-permission", "gpu-driver-missing"],
    })
}

/// "An integrated GPU's BIOS carve-out is all the memory the program saw": an out-of-memory
/// error whose GPU has 1 GiB or less in all (PyTorch's "GPU 0 has a total capacity of 512.00 MiB",
/// "(GPU 0; 512.00 MiB total capacity; ...)"). No GPU ROCm runs on ships with that little memory
/// of its own; an APU's VRAM is the UMA frame buffer the BIOS reserves, often 512 MiB, and the
/// kernel's choice between it and GTT bounds what is usable (gpu-build-facts.md §6.5).
fn apu_carveout(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static OOM: OnceLock<Regex> = OnceLock::new();
    let oom = re(
        &OOM,
        concat!(
            r"(?i)out of memory[^\n]*?(?:total capac\w* of (\d+(?:\.\d+)?) (MiB|GiB)",
            r"|(\d+(?:\.\d+)?) (MiB|GiB) total capacity)",
        ),
    );
    let c = oom.captures(text)?;
    let (n, unit) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
        (Some(n), Some(u), _, _) | (_, _, Some(n), Some(u)) => (n.as_str(), u.as_str()),
        _ => return None,
    };
    let mib = n.parse::<f64>().ok()?
        * if unit.eq_ignore_ascii_case("GiB") {
            1024.0
        } else {
            1.0
        };
    if mib > 1024.0 {
        return None;
    }
    let line = line_of(text, oom)?;
    let sy = symptom(
        &S,
        "gpu.apu-carveout",
        "the GPU's whole memory is an integrated GPU's BIOS carve-out",
        "mem-apu-gtt",
        "The GPU the program ran on has 1 GiB or less in all: no GPU ROCm supports ships with so \
         little memory of its own, so it is an integrated GPU whose VRAM is the UMA frame buffer \
         the BIOS reserves (often 512 MiB); the rest of system memory is GTT, which this run did \
         not get.",
        "Raise the UMA frame buffer (dedicated GPU memory) in the BIOS, or use a stack that \
         allocates from GTT on APUs (a newer kernel and ROCm release); or run on the discrete GPU \
         if there is one (HIP_VISIBLE_DEVICES).",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: reasoning(format!(
            "the GPU's total memory in the text is {n} {unit} (1 GiB or less): an integrated \
             GPU's carve-out; from the text, this machine was not asked"
        )),
        defers_to: &[],
        overrules: &["mem-oom"],
    })
}

/// What says a text comes from Windows: a path under a drive letter (`C:\Users\`, or a build
/// directory as the HIP SDK's own samples print their source path, `C:\constructicon\...`,
/// ROCm/hip#3805), a HIP runtime DLL (`amdhip64_6.dll`), the Adrenalin driver, AMD's HIP SDK
/// (a Windows product). WSL is told apart by the callers (its texts show Windows paths too).
fn windows_evidence(text: &str) -> Option<&str> {
    static WIN: OnceLock<Regex> = OnceLock::new();
    re(
        &WIN,
        r"(?i)\b[A-Z]:\\[\w.$ ()-]+\\|\bamdhip64(?:_\d+)?\.dll\b|\bAdrenalin\b|\bHIP SDK\b",
    )
    .find(text)
    .map(|m| m.as_str())
}

/// Where a text comes from Windows, not WSL: the words that say so. rocm-doctor runs on Linux,
/// so the machine such a text describes is another one, and `why` judges none of its causes
/// against this machine (the cheap search first; the text's facts only where it finds one).
pub(crate) fn from_windows(text: &str) -> Option<String> {
    let evidence = windows_evidence(text)?.to_string();
    (!Facts::of(text).on(Platform::Wsl)).then_some(evidence)
}

/// "On Windows the GPU is reached through the display driver": a program that finds no ROCm
/// device, in a text from Windows ([`windows_evidence`]). There
/// is no /dev/kfd and no render group on Windows; the HIP runtime (`amdhip64_N.dll`) comes with
/// the Adrenalin driver, and a program bundling a newer one needs a driver that supports it
/// (AMD's HIP SDK for Windows: the runtime ships in the display driver).
fn windows_no_device(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NONE: OnceLock<Regex> = OnceLock::new();
    if f.on(Platform::Wsl) {
        return None;
    }
    let evidence = windows_evidence(text)?.to_string();
    let none = re(
        &NONE,
        &format!(
            "(?i){}|failed to initialize ROCm",
            super::facts::HIP_NO_DEVICE
        ),
    );
    let line = line_of(text, none)?;
    if f.shows(Vendor::Nvidia) {
        return None;
    }
    let sy = symptom(
        &S,
        "gpu.windows-no-device",
        "on Windows the HIP runtime found no GPU: the display driver decides",
        "gpu-driver-missing",
        "The text comes from Windows, where there is no /dev/kfd or render group: the HIP runtime \
         comes with the AMD display driver (Adrenalin or PRO), and a program bundling a newer HIP \
         runtime DLL needs a driver release that supports it, and a GPU that driver's HIP \
         supports.",
        "Update the AMD display driver to a release that supports the HIP runtime the program \
         bundles (or use the program's build for your driver), on a GPU AMD's HIP SDK for \
         Windows lists.",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: reasoning(format!(
            "platform Windows (\"{evidence}\"), from the text; this machine was not asked"
        )),
        defers_to: &["gpu-unsupported-asic", "gpu-no-amd-gpu"],
        overrules: &["gpu-kfd-permission"],
    })
}

/// "The container has the GPU's devices, its user may not open them": a container started with
/// /dev/kfd passed (`--device=/dev/kfd`, a compose `devices:` entry) whose program is refused
/// opening it (EACCES). The devices are there; the user inside lacks the groups that own them on
/// the host (render, video: the group ids, which differ between host and image), the cause
/// `gpu-kfd-permission` names (AMD, "Running ROCm Docker containers": `--group-add video`
/// and the render group).
fn container_permission(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static PASSED: OnceLock<Regex> = OnceLock::new();
    static DENIED: OnceLock<Regex> = OnceLock::new();
    if !f.on(Platform::Container) || f.on(Platform::Wsl) {
        return None;
    }
    if !re(
        &PASSED,
        r"--device[= ]/dev/kfd|/dev/kfd:/dev/kfd|-\s*/dev/kfd\b",
    )
    .is_match(text)
    {
        return None;
    }
    let line = line_of(
        text,
        re(
            &DENIED,
            concat!(
                r"(?i)/dev/kfd[^\n]*(?:Permission denied|EACCES)",
                r"|(?:Permission denied|EACCES)[^\n]*/dev/kfd",
            ),
        ),
    )?;
    let sy = symptom(
        &S,
        "gpu.container-kfd-denied",
        "the container has /dev/kfd, but its user may not open it",
        "gpu-kfd-permission",
        "The container was started with /dev/kfd passed, and opening it is refused: the device is \
         there, but the user inside the container is not in the group that owns it on the host \
         (render or video, by the host's group id).",
        "Add the host's groups owning /dev/kfd and the render node to the container (--group-add \
         with the host's render and video group ids), or run the container's program as a user \
         that has them.",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: reasoning(
            "platform container, from the text, with /dev/kfd passed and opening it refused \
             (this machine was not asked)"
                .into(),
        ),
        defers_to: &[],
        overrules: &["gpu-container-devices"],
    })
}

/// The GPU rules that fire on a text, most deciding first.
pub(crate) fn rules(text: &str, f: &Facts, here: &Here) -> Vec<Derived> {
    let mut out: Vec<Derived> = Vec::new();
    out.extend(override_misuse(text, f, here));
    out.extend(igpu(text, here));
    out.extend(no_amd_gpu(text, f));
    out.extend(contained(text, f));
    out.extend(pcie_atomics(text, f));
    out.extend(unsupported_isa(text, f, here));
    out.extend(apu_carveout(text));
    out.extend(windows_no_device(text, f));
    out.extend(container_permission(text, f));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str, here: &Here) -> Vec<(String, String)> {
        let f = Facts::of(text);
        rules(text, &f, here)
            .into_iter()
            .map(|d| {
                let r = d
                    .captures
                    .iter()
                    .find(|(k, _)| k == "reasoning")
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                (d.symptom.class.clone().unwrap_or_default(), r)
            })
            .collect()
    }

    fn classes(text: &str) -> Vec<String> {
        fired(text, &Here::text_only())
            .into_iter()
            .map(|(c, _)| c)
            .collect()
    }

    /// What `why` answers first for a text, text only, over the built-in packs.
    fn first(text: &str) -> Option<String> {
        let set = crate::registry::sources::built_in();
        super::super::why::recognise(&set, text)
            .first()
            .and_then(|h| h.symptom.class.clone())
    }

    /// tests/corpus/field-apps.toml, https://github.com/ggml-org/llama.cpp/issues/22013 (lines of
    /// the paste)
    const LLAMACPP_22013: &str =
        "ggml_cuda_init: found 2 ROCm devices (Total VRAM: 31898 MiB):\n  \
        Device 0: AMD Radeon RX 9070, gfx1201 (0x1201), VMM: no, Wave Size: 32, VRAM: 16304 MiB\n  \
        Device 1: AMD Radeon 740M Graphics, gfx1103 (0x1103), VMM: no, Wave Size: 32, VRAM: 15594 \
        MiB\nggml_cuda_compute_forward: MUL_MAT failed\nROCm error: invalid device function\n  \
        current device: 1, in function ggml_cuda_compute_forward at ggml-cuda.cu:2932\n";

    #[test]
    fn the_failing_device_being_the_igpu_is_interference() {
        let r = fired(LLAMACPP_22013, &Here::text_only());
        let (_, why) = r
            .iter()
            .find(|(c, _)| c == "gpu-igpu-interference")
            .expect("the iGPU rule fires");
        assert!(
            why.contains("the failing device, 1, is the iGPU gfx1103"),
            "{why}"
        );
        assert_eq!(
            first(LLAMACPP_22013).as_deref(),
            Some("gpu-igpu-interference")
        );
        // The same two GPUs, the failure on the discrete one: not the iGPU's fault.
        let on_dgpu = LLAMACPP_22013.replace("current device: 1", "current device: 0");
        assert!(!classes(&on_dgpu).contains(&"gpu-igpu-interference".to_string()));
    }

    #[test]
    fn a_build_list_is_not_a_device_of_the_machine() {
        // tests/corpus/codeobj-memory.toml, https://github.com/ROCm/ROCm/issues/2418 (lines)
        let t = ":1:hip_code_object.cpp :509 : amdgcn-amd-amdhsa--gfx1100 - [Found]\n\
                 :1:hip_code_object.cpp :509 : amdgcn-amd-amdhsa--gfx1036 - [Not Found]\n\
                 :1:hip_code_object.cpp :527 : hipv4-amdgcn-amd-amdhsa--gfx1010 - [code object \
                 targetID is amdgcn-amd-amdhsa--gfx1010]\n";
        let d: Vec<String> = devices(t).into_iter().map(|(i, _)| i).collect();
        assert_eq!(d, ["gfx1100", "gfx1036"]);
        let r = fired(t, &Here::text_only());
        assert!(r.iter().any(
            |(c, w)| c == "gpu-igpu-interference" && w.contains("names the iGPU's ISA gfx1036")
        ));
    }

    #[test]
    fn a_display_igpu_without_code_is_interference_a_compute_igpu_is_not() {
        // tests/corpus/field-apps.toml, https://github.com/LostRuins/koboldcpp/issues/676
        let t = "rocBLAS error: Cannot read \\AppData\\Local\\Temp\\_MEI59482\\/library/\
                 TensileLibrary.dat: No such file or directory for GPU arch : gfx1036\n";
        assert!(classes(t).contains(&"gpu-igpu-interference".to_string()));
        assert_eq!(first(t).as_deref(), Some("gpu-igpu-interference"));
        // gfx1035 (Radeon 680M) is an iGPU people compute on: not this rule.
        let t2 = t.replace("gfx1036", "gfx1035");
        assert!(!classes(&t2).contains(&"gpu-igpu-interference".to_string()));
    }

    #[test]
    fn an_nvidia_machine_has_no_amd_gpu() {
        // tests/corpus/field-libs.toml, https://github.com/jax-ml/jax/issues/12335 (lines)
        let t = "RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: Could not find \
                 registered platform with name: \"rocm\". Available platform names are: \
                 Interpreter CUDA Host\n\nV100 GPU,  Driver Version: 470.57.02,  CUDA Version: \
                 11.4\n";
        assert_eq!(classes(t), ["gpu-no-amd-gpu"]);
        // An AMD GPU named beside it: not this rule.
        let t2 = "RuntimeError: No HIP GPUs are available\nnvidia-smi: not found\nGPU: Radeon RX \
                  7900 XTX\n";
        assert!(!classes(t2).contains(&"gpu-no-amd-gpu".to_string()));
    }

    /// Every class `why` answers for a text, text only, in order.
    fn answers(text: &str) -> Vec<String> {
        let set = crate::registry::sources::built_in();
        super::super::why::recognise(&set, text)
            .into_iter()
            .filter_map(|h| h.symptom.class.clone())
            .collect()
    }

    fn no_amd_reasoning(text: &str) -> Option<String> {
        fired(text, &Here::text_only())
            .into_iter()
            .find(|(c, _)| c == "gpu-no-amd-gpu")
            .map(|(_, r)| r)
    }

    /// nvidia-smi's table, lines of https://github.com/canonical/microk8s/issues/448.
    const SMI: &str =
        "| NVIDIA-SMI 510.73.08    Driver Version: 510.73.08    CUDA Version: 11.6     \
        |\n|   0  Tesla T4            On   | 00000001:00:00.0 Off |                  Off |\n";

    /// PyTorch's no-device error as https://github.com/pytorch/pytorch/issues/70036 pastes it.
    const NO_HIP: &str = "    torch._C._cuda_init()\nRuntimeError: No HIP GPUs are available\n";

    /// A ROCm build that finds no device on a machine whose text shows an NVIDIA GPU: no AMD GPU,
    /// first, naming the line that shows the vendor; the permission reading stays listed after.
    #[test]
    fn a_no_device_failure_beside_an_nvidia_gpu_has_no_amd_gpu() {
        let t = format!("{NO_HIP}{SMI}");
        let r = no_amd_reasoning(&t).expect("the rule fires");
        assert!(
            r.starts_with("an NVIDIA GPU and no AMD one") && r.contains("|   0  Tesla T4"),
            "{r}"
        );
        assert!(r.contains("this machine was not asked"), "{r}");
        let all = answers(&t);
        assert_eq!(
            all.first().map(String::as_str),
            Some("gpu-no-amd-gpu"),
            "{all:?}"
        );
        let kfd = all.iter().position(|c| c == "gpu-kfd-permission");
        assert!(kfd.is_some_and(|i| i > 0), "{all:?}");
        // rocBLAS' "No devices found" (tensile_host.cpp, https://github.com/Jeffser/Alpaca/issues/585)
        // beside lspci's NVIDIA device (https://github.com/canonical/ubuntu-cloud-docs/pull/120).
        let blas = "rocBLAS error: Could not initialize Tensile host: No devices found\n\
                    00:1e.0 3D controller: NVIDIA Corporation TU104GL [Tesla T4] (rev a1)\n";
        let r = no_amd_reasoning(blas).expect("the rule fires");
        assert!(
            r.contains("TU104GL [Tesla T4]") && r.contains("lspci"),
            "{r}"
        );
        assert_eq!(
            answers(blas).first().map(String::as_str),
            Some("gpu-no-amd-gpu")
        );
        // HIP's error string as llama.cpp's ROCm build prints it, beside nvidia-smi -L.
        let ggml =
            "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n\
                    $ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: \
                    GPU-1b965d81-1d0f-6501-027c-1ecc1437f5ea)\n";
        assert!(no_amd_reasoning(ggml).is_some_and(|r| r.contains("NVIDIA GeForce RTX 3090")));
        // The same failure without a vendor shown: not this rule.
        assert!(no_amd_reasoning(NO_HIP).is_none());
    }

    /// Only an Intel GPU: lspci's line of https://github.com/ROCm/legacy-rocm-build/issues/493 and
    /// rocminfo's failure of https://github.com/ROCm/legacy-rocm-build/issues/1047.
    #[test]
    fn a_no_device_failure_beside_only_an_intel_gpu_has_no_amd_gpu() {
        let t = "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate \
                 the necessary resources.\n00:02.0 VGA compatible controller: Intel Corporation \
                 UHD Graphics 620 (rev 07)\n";
        let r = no_amd_reasoning(t).expect("the rule fires");
        assert!(
            r.starts_with("only an Intel GPU") && r.contains("UHD Graphics 620"),
            "{r}"
        );
        // #1047's own text: an Intel iGPU beside a Radeon, so an AMD GPU is there.
        let both =
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES\nGraphics Processor: Intel(R) UHD \
                    Graphics 620\nDiscrete Graphics: Radeon 540X, 2GB GDDR5\n";
        assert!(no_amd_reasoning(both).is_none());
        // An Intel GPU and an NVIDIA one: the NVIDIA one is named.
        let two =
            format!("{t}01:00.0 3D controller: NVIDIA Corporation GA102 [GeForce RTX 3090]\n");
        assert!(no_amd_reasoning(&two).is_some_and(|r| r.starts_with("an NVIDIA GPU")));
    }

    /// A machine with both vendors: the text is about which GPUs the runtime may see.
    #[test]
    fn a_machine_with_an_amd_gpu_too_is_not_this_rule() {
        let rocminfo = format!("{NO_HIP}{SMI}  Name:                    gfx1100\n");
        assert!(no_amd_reasoning(&rocminfo).is_none());
        let lspci = format!(
            "{NO_HIP}{SMI}03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. \
             [AMD/ATI] Navi 31 [1002:744c]\n"
        );
        assert!(no_amd_reasoning(&lspci).is_none());
        assert_ne!(
            answers(&lspci).first().map(String::as_str),
            Some("gpu-no-amd-gpu")
        );
        // torch.cuda.get_device_name on a ROCm build names the AMD GPU.
        let torch =
            format!("{SMI}>>> torch.cuda.get_device_name(0)\n'AMD Radeon RX 7900 XTX'\n{NO_HIP}");
        assert!(no_amd_reasoning(&torch).is_none());
    }

    /// Lines near the forms that show no vendor: no answer from the rule.
    #[test]
    fn words_about_nvidia_are_not_a_vendor_fact() {
        for extra in [
            "I used to have an NVIDIA card in this box\n",
            "CUDA_VISIBLE_DEVICES=0 python train.py\n",
            "  info: converted 3 CUDA->HIP refs ( error:0 init:0 version:0 device:3 )\n",
            ">>> torch.cuda.is_available()\nFalse\n>>> torch.cuda.device_count()\n0\n",
            "Nvidia driver version: No CUDA\nGPU models and configuration: No CUDA\n",
        ] {
            let t = format!("{extra}{NO_HIP}");
            assert!(no_amd_reasoning(&t).is_none(), "{t}");
        }
    }

    /// ollama's "no compatible GPUs were discovered" (discover/gpu.go) is every vendor's: it counts
    /// only when the text names ROCm.
    #[test]
    fn ollama_finding_no_gpu_counts_with_rocm_named() {
        let t = "level=INFO source=gpu.go:377 msg=\"no compatible GPUs were discovered\"\n\
                 ### GPU\n\nNvidia\n";
        assert!(no_amd_reasoning(t).is_none());
        let rocm = format!("I installed ollama-linux-amd64-rocm.tgz\n{t}");
        let r = no_amd_reasoning(&rocm).expect("the rule fires");
        assert!(r.contains("ollama's bug report template"), "{r}");
    }

    /// WSL keeps its answers; the vendor fact adds the NVIDIA reading after them and no Intel-only
    /// reading (WSL's lspci shows the Windows side's adapters, not what ROCm may use).
    #[test]
    fn wsl_keeps_its_answer() {
        let t = format!("Linux 5.15.167.4-microsoft-standard-WSL2\n{NO_HIP}{SMI}");
        let all = answers(&t);
        assert_eq!(
            all.first().map(String::as_str),
            Some("platform-wsl"),
            "{all:?}"
        );
        assert!(all.iter().any(|c| c == "gpu-no-amd-gpu"), "{all:?}");
        let intel = "WSL2\nhsa_init Failed\nVGA compatible controller: Intel Corporation UHD \
                     Graphics 620\n";
        assert!(no_amd_reasoning(intel).is_none());
    }

    #[test]
    fn a_vm_with_a_virtual_display_only_has_no_amd_gpu() {
        // tests/corpus/field-stack.toml, https://github.com/ROCm/ROCm/issues/1626 (lines)
        let t = "ROCk module is NOT loaded, possibly no GPU devices\n*-display\n       \
                 description: VGA compatible controller\n       product: SVGA II Adapter\n       \
                 vendor: VMware\n       configuration: driver=vmwgfx latency=64\n";
        assert_eq!(classes(t), ["gpu-no-amd-gpu"]);
        // The GPU passed through beside the virtual adapter: not this rule.
        let t2 = format!(
            "{t}01:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 21\n"
        );
        assert!(classes(&t2).is_empty());
    }

    #[test]
    fn an_override_that_is_no_version_or_of_another_family_is_misuse() {
        // tests/corpus/field-platform.toml, https://github.com/HardAndHeavy/comfyui-rocm-docker
        // issue 2 (lines)
        let t =
            "Edit the Makefile and change the line:\n\nHSA_OVERRIDE_GFX_VERSION = \"GFX version \
                 detection error\"\n\nto\n\nHSA_OVERRIDE_GFX_VERSION = 11.0.0\n";
        let r = fired(t, &Here::text_only());
        assert_eq!(r[0].0, "gpu-override-misuse");
        assert!(r[0].1.contains("libhsakmt rejects it"), "{}", r[0].1);
        let wrong_family = "GPU: RX 6700 XT (gfx1031)\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\n\
                            Memory access fault by GPU node-1\n";
        let r = fired(wrong_family, &Here::text_only());
        assert_eq!(r[0].0, "gpu-override-misuse");
        assert!(r[0].1.contains("gfx10-3-generic"), "{}", r[0].1);
        let stale = "Instinct MI210 (gfx90a)\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n";
        assert_eq!(classes(stale), ["gpu-override-misuse"]);
        // The family's own value, a shell variable, or the GPU's own value: no misuse.
        for ok in [
            "GPU: RX 6700 XT (gfx1031)\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n",
            "-e HSA_OVERRIDE_GFX_VERSION=$(HSA_OVERRIDE_GFX_VERSION) \\\n",
            "gfx90a\nHSA_OVERRIDE_GFX_VERSION=9.0.10\n",
            // Two GPUs, a per-node value for the RDNA2 one.
            "Device 0: gfx1100\nDevice 1: gfx1031\nHSA_OVERRIDE_GFX_VERSION_2=10.3.0\n",
            // The right value tried beside a wrong one.
            "RX 6700 XT (gfx1031)\nHSA_OVERRIDE_GFX_VERSION=11.0.0 crashes, \
             HSA_OVERRIDE_GFX_VERSION=10.3.0 works\n",
        ] {
            assert!(
                !classes(ok).contains(&"gpu-override-misuse".to_string()),
                "{ok}"
            );
        }
    }

    #[test]
    fn an_isa_no_override_helps_is_unsupported_before_library_data() {
        // tests/corpus/field-libs.toml, https://github.com/ROCm/rocBLAS/issues/1352 (lines)
        let t = "rocBLAS error: Cannot read /home/<PATH>/venv/lib/python3.11/site-packages/torch/\
                 lib/rocblas/library/TensileLibrary.dat: Illegal seek\n\n| CPU | AMD Ryzen 7 5700U \
                 |\n| GPU | AMD Radeon Vega 8 Graphics 1900 MHz |\n";
        let r = fired(t, &Here::text_only());
        assert!(
            r.iter().any(|(c, w)| c == "gpu-unsupported-asic"
                && w.contains("gfx90c (the integrated GPU of the Ryzen 7 5700U")),
            "{r:?}"
        );
        assert_eq!(first(t).as_deref(), Some("gpu-unsupported-asic"));
        // gfx1031's kernels exist in the gfx1030 files the override selects: the library's
        // answer stays first (tests/corpus/libs-benign.toml, ROCm/rocBLAS#1339, first line).
        let t2 =
            "rocBLAS error: Cannot read /opt/rocm-5.4.0/lib/rocblas/library/TensileLibrary.dat: \
                  Illegal seek for GPU arch : gfx1031\n";
        assert!(!classes(t2).contains(&"gpu-unsupported-asic".to_string()));
        // rocBLAS builds gfx906 although ROCm dropped it: its missing files are the install's.
        let t4 = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No \
                  such file or directory for GPU arch : gfx906\n";
        assert!(!classes(t4).contains(&"gpu-unsupported-asic".to_string()));
        // On Windows the override is ignored (ollama#3107's maintainer): unsupported again.
        let t3 =
            "rocBLAS error: Cannot read C:\\Users\\user\\AppData\\Local\\Programs\\Ollama\\rocm\\\
                  /rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : \
                  gfx1032.\n";
        let r = fired(t3, &Here::text_only());
        assert!(r
            .iter()
            .any(|(c, w)| c == "gpu-unsupported-asic" && w.contains("Windows")));
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/ROCm/issues/1109 (lines)
    const ROCM_1109: &str = "Ubuntu 20.04 . Intel i7-2600K (16Gb RAM) - Radeon RX480 6Gb\n\
        hsa api call failure at: /data/jenkins-workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\n\
        Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the \
        necessary resources.\n";

    #[test]
    fn a_gfx8_gpu_on_a_cpu_before_atomics_is_the_atomics() {
        let r = fired(ROCM_1109, &Here::text_only());
        assert_eq!(r[0].0, "gpu-pcie-atomics", "{r:?}");
        assert!(
            r[0].1
                .contains("ROCm 3.3, named in the text, supported gfx803"),
            "{}",
            r[0].1
        );
        // The same GPU under a release that no longer supports it: that first.
        let later = ROCM_1109.replace("compute-rocm-rel-3.3", "rocminfo-rocm-5.3.0");
        let c = classes(&later);
        assert_eq!(c, ["gpu-unsupported-asic", "gpu-pcie-atomics"]);
        // A Haswell CPU has atomics: not this rule.
        let haswell = ROCM_1109.replace("i7-2600K", "i7-4770K");
        assert!(!classes(&haswell).contains(&"gpu-pcie-atomics".to_string()));
    }

    #[test]
    fn a_contained_apptainer_without_the_gpu_devices() {
        // tests/corpus/field-platform.toml, https://github.com/sylabs/singularity/issues/5696
        let t = "When `--rocm` is used, DRI devices for Radeon cards are always made available, \
                 but the `/dev/kfd` device will not be present if we are using `--contain` or \
                 otherwise have a minimal `/dev` tree.\n\n`/dev/kfd` is required in the container.\n";
        assert_eq!(classes(t), ["gpu-container-devices"]);
        // Docker, or Singularity without --contain: not this rule.
        assert!(classes("docker run --rocm image\n/dev/kfd missing\n").is_empty());
        assert!(classes("singularity exec --rocm img.sif rocminfo\n/dev/kfd: ok\n").is_empty());
    }

    #[test]
    fn the_text_wins_over_this_machine_and_says_so() {
        let none = Facts::of("hipErrorNoBinaryForGpu: Unable to find code object\n");
        let here = Here::with_isas(["gfx1030".to_string(), "gfx1030".to_string(), "nope".into()]);
        assert_eq!(here.isas, ["gfx1030"]);
        let g = gpu_of(&none.isas, &here).unwrap();
        assert_eq!(g.isa, "gfx1030");
        assert!(g.named.contains("measured on this machine"), "{}", g.named);
        assert!(gpu_of(&none.isas, &Here::text_only()).is_none());
        let named = Facts::of("gfx1031\n");
        let g = gpu_of(&named.isas, &here).unwrap();
        assert_eq!(g.isa, "gfx1031");
        assert!(
            g.named
                .contains("this machine has gfx1030: answering for the text"),
            "{}",
            g.named
        );
        let g = gpu_of(&named.isas, &Here::text_only()).unwrap();
        assert!(
            g.named.contains("this machine was not asked"),
            "{}",
            g.named
        );
        // The ISA rule of facts.rs answers for this machine's GPU when the text names none.
        let t = "hipErrorNoBinaryForGpu: Unable to find code object\n";
        let d = facts::rules_of(t, &Facts::of(t), &here);
        assert!(d
            .iter()
            .any(|d| d.symptom.class.as_deref() == Some("codeobj-no-binary")
                && d.captures
                    .iter()
                    .any(|(_, v)| v.contains("gfx1030 (measured on this machine"))));
    }

    #[test]
    fn an_oom_on_a_gpu_of_512_mib_is_the_carveout() {
        // tests/corpus/field-apps.toml, https://github.com/comfyanonymous/ComfyUI/issues/2431
        let t = "!!! Exception during processing!!! HIP out of memory. Tried to allocate 288.00 \
                 MiB. GPU 0 has a total capacty of 512.00 MiB of which 17179869184.00 GiB is free.\n";
        assert_eq!(classes(t), ["mem-apu-gtt"]);
        assert_eq!(first(t).as_deref(), Some("mem-apu-gtt"));
        // An RX 6600's 8 GiB (ComfyUI#5161): a real out-of-memory.
        let t2 =
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.25 GiB. GPU 0 has \
                  a total capacity of 7.98 GiB of which 1.45 GiB is free.\n";
        assert!(classes(t2).is_empty());
    }

    #[test]
    fn no_rocm_device_on_windows_is_the_driver_not_kfd() {
        // tests/corpus/field-apps.toml, https://github.com/lemonade-sdk/llamacpp-rocm/issues/83
        let t = "since bf1234 i get error \"ggml_cuda_init: failed to initialize ROCm: no \
                 ROCm-capable device is detected\".\nif i copy amdhip64_7.dll from bf1233 to \
                 bf1234 (or newer) i dont get this error, all is working fine.\ndriver: Adrenalin \
                 Edition 26.1.1\n";
        assert_eq!(classes(t), ["gpu-driver-missing"]);
        assert_eq!(first(t).as_deref(), Some("gpu-driver-missing"));
        // The same line on Linux: not this rule.
        let t2 = "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n";
        assert!(classes(t2).is_empty());
    }

    #[test]
    fn a_container_with_dev_kfd_passed_and_refused_is_permission() {
        // tests/corpus/field-stack.toml, https://github.com/ROCm/ROCm-docker/issues/116 (lines)
        let t = "$ docker run -it --rm --device=/dev/kfd --device=/dev/dri --group-add video \
                 rocm/rocm-terminal:latest\n# rocminfo\nROCk module is loaded\nUnable to open \
                 /dev/kfd read-write: Permission denied\n";
        assert_eq!(classes(t), ["gpu-kfd-permission"]);
        assert_eq!(first(t).as_deref(), Some("gpu-kfd-permission"));
        // Without /dev/kfd passed it is the container's devices (facts.rs's rule), not this one.
        let t2 = t.replace("--device=/dev/kfd ", "");
        assert!(!classes(&t2).contains(&"gpu-kfd-permission".to_string()));
    }

    #[test]
    fn the_gpu_table_loads_and_names_known_processors() {
        let d = data();
        for i in d
            .needs_pcie_atomics
            .iter()
            .chain(&d.display_igpus)
            .chain(&d.rocblas_targets)
        {
            assert!(crate::isa::processor(i).is_some(), "{i}");
        }
        for c in &d.cpu_igpu {
            assert!(is_apu(&c.isa), "{}", c.isa);
        }
        assert_eq!(old_cpu_res().len(), d.cpus_without_atomics.len());
        assert_eq!(cpu_igpu("Ryzen 5 3400G").unwrap().0, "gfx902");
        assert_eq!(cpu_igpu("AMD Ryzen 7 5800H").unwrap().0, "gfx90c");
        assert!(cpu_igpu("Ryzen 7 5800X3D").is_none());
    }
}
