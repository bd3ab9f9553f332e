//! Rules over the library, build and platform facts of a text (issue 28, items 2-4). Pure.
//!
//! Each rule holds for every tool that prints a variant of one failure, and reasons from what the
//! text states about the user's machine (this machine is not asked; the reasoning says so):
//! - "a CUDA or CPU-only build on an AMD machine": the framework the text shows is a CUDA build
//!   (`+cuXYZ`, `torch.version.hip: None`, a CUDA library loaded by the framework, ONNX Runtime's
//!   CUDA provider, a line only a build without ROCm prints, `[[cuda_print]]`) or has no ROCm
//!   variant at the version asked for;
//! - "a source tree newer than the installed ROCm": a header or CMake package that exists only
//!   from a later release is not found while building (`[[since]]` of `checks/why-facts.toml`);
//! - CMake's HIP setup: CMake's own messages about HIP's package, compiler or architectures,
//!   and a host compiler handed HIP's flags;
//! - device masks: `ROCR_VISIBLE_DEVICES` with a HIP/CUDA mask in one command, or an invalid
//!   device ordinal beside a mask a launcher sets;
//! - a tool's module check that the same text contradicts (the GPU agents listed, `lsmod`
//!   missing);
//! - amd-smi's CPU side without HSMP;
//! - a GPU passed through to a VM that does not come back from a reset;
//! - hipcc (a Perl script) unable to run a program it needs.
//!
//! `why::recognise` joins them to the answer beside [`super::facts::rules`].

use super::facts::{line_at, line_of, re, table, Derived, Facts};
use super::pkgnames;
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

/// The rules' symptom: [`super::facts::rule_symptom`] naming the facts these rules use.
fn symptom(
    cell: &'static OnceLock<Symptom>,
    id: &str,
    title: &str,
    class: &str,
    cause: &str,
    fix: &str,
) -> &'static Symptom {
    let source = "rule over the library, build and platform facts of the text \
                  (src/packs/stack.rs, checks/why-facts.toml)";
    super::facts::cached_symptom(cell, [id, title, class, cause, fix, source])
}

/// Whether the text shows an NVIDIA GPU or its driver (nvidia-smi's table, a GeForce, RTX, GTX,
/// Tesla or Quadro name): a CUDA build is then the right one.
///
/// Deliberately wider than the vendor fact (`Facts::vendors`, checks/gpu-vendors.toml), which
/// takes only what a tool prints: that fact *states* "no AMD GPU", so it must not read a user's
/// words; this one only *withholds* the CUDA-build answer, and a wrong answer there is a false
/// statement about the user's machine, so a user's own "my RTX 3090" is reason enough to stay
/// silent.
pub(super) fn nvidia_machine(text: &str) -> bool {
    static NV: OnceLock<Regex> = OnceLock::new();
    re(
        &NV,
        concat!(
            r"(?i)NVIDIA-SMI|\bnvidia-smi\b|\bGeForce\b|\bRTX\s*\d{4}|\bGTX\s*\d{3,4}\b",
            r"|\bTesla\s+[KPVT]\d|\bQuadro\b|NVIDIA Corporation",
        ),
    )
    .is_match(text)
}

/// Whether the text names AMD's GPUs or their stack (ROCm, AMD, Radeon, Instinct, HIP): the
/// intent of a text that does not show the machine.
pub(super) fn amd_named(text: &str) -> bool {
    static AMD: OnceLock<Regex> = OnceLock::new();
    re(
        &AMD,
        r"(?i)\bROCm\b|\bAMD\b|\bRadeon\b|\bInstinct\b|\bHIP\b",
    )
    .is_match(text)
}

/// One piece of evidence for `cuda_build`: (line, reasoning, needs_amd). `needs_amd`: whether the
/// fact is wrong only where the text shows AMD's machine (a `+cuXYZ` version); a framework
/// loading CUDA's own libraries or provider is the CUDA build whatever the text names, and
/// asking for ROCm's extra or index is the intent.
type CudaEvidence = (String, String, bool);

/// The build's flavour as PyTorch prints it: `+cuXYZ`, or `torch.version.hip` `None`.
fn cuda_flavour(text: &str) -> Option<CudaEvidence> {
    static FLAVOUR: OnceLock<Regex> = OnceLock::new();
    static HIP_NONE: OnceLock<Regex> = OnceLock::new();
    if let Some(c) = re(
        &FLAVOUR,
        concat!(
            r#"(?i)\b(torch|torchvision|torchaudio)\b(?:\.__version__)?\W{0,8}"#,
            r#"(\d+\.\d+\.\d+(?:\.dev\d+)?)\+cu(\d{2,3})\b"#,
        ),
    )
    .captures(text)
    {
        let line = text
            .lines()
            .find(|l| l.contains(&format!("+cu{}", &c[3])))
            .map(|l| l.trim().chars().take(300).collect())
            .unwrap_or_default();
        return Some((
            line,
            format!(
                "{} {}+cu{}: the CUDA {} build (PyTorch's local version label; a ROCm build \
                 reads +rocmX.Y)",
                &c[1], &c[2], &c[3], &c[3]
            ),
            true,
        ));
    }
    let line = line_of(text, re(&HIP_NONE, r"(?i)torch\.version\.hip\W{0,4}None\b"))?;
    Some((
        line,
        "torch.version.hip is None: the installed PyTorch is not a ROCm build".into(),
        true,
    ))
}

/// A CUDA library (`[[cuda_library]]`) that a framework's own loader fails to open.
fn cuda_library_load(text: &str) -> Option<CudaEvidence> {
    static LOAD: OnceLock<Regex> = OnceLock::new();
    static FRAMEWORK: OnceLock<Regex> = OnceLock::new();
    let names: Vec<String> = table()
        .cuda_library
        .iter()
        .map(|l| regex::escape(&l.name))
        .collect();
    let load = re(
        &LOAD,
        &format!(
            concat!(
                r"\b((?:{})[\w]*\.so[.\d]*)\b.{{0,40}}(?:cannot open shared object|not found)",
                r"|CDLL\(.?((?:{})[\w]*\.so[.\d]*)",
            ),
            names.join("|"),
            names.join("|")
        ),
    );
    let framework = re(
        &FRAMEWORK,
        concat!(
            r"(?i)onnxruntime|site-packages/(?:torch|tensorflow|jax|jaxlib|paddle)\b",
            r"|\bimport (?:torch|tensorflow|jax)\b",
        ),
    );
    if !framework.is_match(text) {
        return None;
    }
    let c = load.captures(text)?;
    let lib = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
    let line = line_of(text, load).unwrap_or_default();
    Some((
        line,
        format!(
            "the framework loads {lib}, a library of NVIDIA's CUDA toolkit \
             (checks/why-facts.toml [[cuda_library]]): the installed build is the \
             CUDA one"
        ),
        false,
    ))
}

/// ONNX Runtime's CUDA execution provider.
fn cuda_provider(text: &str) -> Option<CudaEvidence> {
    static PROVIDER: OnceLock<Regex> = OnceLock::new();
    let line = line_of(
        text,
        re(
            &PROVIDER,
            concat!(
                r"TryGetProviderInfo_CUDA|libonnxruntime_providers_cuda",
                r"|Failed to create CUDAExecutionProvider",
            ),
        ),
    )?;
    Some((
        line,
        "ONNX Runtime tries its CUDA execution provider: the installed onnxruntime is \
         the CUDA build (the ROCm and MIGraphX providers come with other builds)"
            .into(),
        false,
    ))
}

/// A line only a build without ROCm prints (`[[cuda_print]]` of `checks/why-facts.toml`: the
/// printer, the build, why the ROCm build of the same code never prints it, and the sources).
/// Where the text shows an AMD GPU ([`amd_gpu`]) the answer is the text's; where it names no GPU
/// at all, the line is read for the machine rocm-doctor diagnoses, an AMD one, and the answer
/// says so and what the line means on an NVIDIA machine instead ([`GPU_UNNAMED`]):
/// [`on_machine`] then settles it with this machine's PCI bus, where `why` asked it.
fn cuda_print<'a>(text: &str, f: &dyn Fn() -> &'a Facts) -> Option<CudaEvidence> {
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let prints = &table().cuda_print;
    let res = RES.get_or_init(|| {
        prints
            .iter()
            .map(|p| {
                Regex::new(&super::facts::ascii_boundaries(&p.pattern)).unwrap_or_else(|e| {
                    panic!("checks/why-facts.toml [[cuda_print]] {}: {e}", p.pattern)
                })
            })
            .collect()
    });
    let (at, p) = res
        .iter()
        .zip(prints)
        .find_map(|(r, p)| r.find(text).map(|m| (m.start(), p)))?;
    let printed = format!(
        "printed by {} when {}: the {} build; a ROCm build never prints it ({}; \
         checks/why-facts.toml [[cuda_print]])",
        p.printer, p.when, p.build, p.rocm
    );
    if p.asks_amd {
        // the line asks for AMD's provider: the text is about an AMD GPU as it stands
        return Some((line_at(text, at), printed, false));
    }
    if amd_gpu(text, f()) {
        return Some((line_at(text, at), printed, true));
    }
    if says_no_gpu(text) {
        return None;
    }
    Some((line_at(text, at), format!("{printed}{GPU_UNNAMED}"), false))
}

/// Whether the text says the machine has no GPU at all ("No GPU", "without a GPU", "CPU-only
/// machine"): there a CUDA-only line means the program runs on the CPU, and it is not read for
/// an AMD GPU.
fn says_no_gpu(text: &str) -> bool {
    static NONE: OnceLock<Regex> = OnceLock::new();
    re(
        &NONE,
        r"(?im)\bno (?:dedicated |discrete )?GPUs?\b(?: (?:here|at all|installed|on (?:this|my|the) (?:machine|server|laptop|computer)))?[ \t]*(?:[.,;)]|$)|\bwithout (?:a |any )?GPUs?\b|\bCPU[- ]only (?:machine|server|host|laptop|computer|node)\b",
    )
    .is_match(text)
}

/// The tail of a `[[cuda_print]]` reasoning where the text names no GPU: the reading it takes,
/// and the other one. [`on_machine`] replaces it where this machine's bus decides.
const GPU_UNNAMED: &str = "; the text names no GPU: read for an AMD GPU, the machine rocm-doctor \
     diagnoses (on a machine with an NVIDIA GPU the line means instead that NVIDIA's driver is \
     missing or too old, and on one without a GPU that the program runs on the CPU: this answer \
     applies to neither)";

/// The capture that marks a CUDA-build answer read for a GPU the text does not name.
const UNNAMED_KEY: &str = "gpu";
const UNNAMED_VALUE: &str = "not named in the text";

/// The answers of [`rules`] settled with what this machine's PCI bus shows (`why` on a machine,
/// issue 28 item 3), for the CUDA-build answer whose text names no GPU: an NVIDIA GPU and no AMD
/// one here withdraws it (the line then means NVIDIA's driver); an AMD GPU here and no NVIDIA
/// one makes it this machine's answer, and says so; otherwise it stays read for an AMD GPU, and
/// says what the bus showed where it was read.
pub(super) fn on_machine(rules: &mut Vec<Derived>, here: &super::here::Here) {
    let unnamed = |d: &Derived| {
        d.captures
            .iter()
            .any(|(k, v)| k == UNNAMED_KEY && v == UNNAMED_VALUE)
    };
    let (amd, nvidia) = (here.has_amd_gpu(), here.has_nvidia_gpu());
    if nvidia && !amd {
        rules.retain(|d| !unnamed(d));
        return;
    }
    // What this machine showed, in place of "this machine was not asked"; where it shows an AMD
    // GPU alone, the conditional tail goes too.
    let (shown, settled) = if amd && !nvidia {
        let gpu = if here.isas.is_empty() {
            "this machine has an AMD GPU on its PCI bus and no NVIDIA GPU (measured)".to_string()
        } else {
            format!(
                "this machine has an AMD GPU ({}, measured) and no NVIDIA GPU",
                here.isas.join(", ")
            )
        };
        (format!("the text names no GPU; {gpu}"), true)
    } else {
        match here.pci {
            Some(_) if nvidia => (
                "from the text; this machine shows both an AMD and an NVIDIA GPU".to_string(),
                false,
            ),
            Some(_) => (
                "from the text; this machine's PCI bus shows no AMD or NVIDIA GPU".to_string(),
                false,
            ),
            None => return,
        }
    };
    for d in rules.iter_mut().filter(|d| unnamed(d)) {
        for (k, v) in d.captures.iter_mut() {
            if k == "reasoning" {
                let tail = if settled {
                    v.replace(GPU_UNNAMED, "")
                } else {
                    v.clone()
                };
                *v = tail.replace(FROM, &shown);
            }
        }
    }
}

/// Whether the text shows an AMD GPU: one the facts read (an ISA, product name or PCI id, or a
/// tool's printed form: `Facts::shows`), ROCm, Radeon or Instinct named, or "AMD" naming a GPU
/// ("AMD GPU", "an AMD card", pci.ids' "AMD/ATI"). Stricter than `cuda_build`'s AMD context, for `[[cuda_print]]`:
/// those lines say that NVIDIA's driver is not there, which is as true of an NVIDIA GPU without
/// its driver beside an AMD CPU, so a bare "AMD" (a Ryzen) does not count. Nor do the fields
/// PyTorch's collect_env prints on every build, `ROCM used to build PyTorch: N/A` (a line whose
/// value is `N/A` says the thing is absent).
pub(super) fn amd_gpu(text: &str, f: &Facts) -> bool {
    static GPU: OnceLock<Regex> = OnceLock::new();
    let gpu = re(
        &GPU,
        concat!(
            r"(?i)\bROCm\b|\bRadeon\b|\bInstinct\b|\bAMD\s+(?:\w+\s+)?(?:GPU|graphics|card)s?\b",
            // pci.ids names vendor 1002, the GPUs' (ATI's), "Advanced Micro Devices, Inc.
            // [AMD/ATI]"; lspci and neofetch print it so ("GPU: AMD ATI 05:00.0 Lucienne").
            r"|\bAMD[/ ]ATI\b",
        ),
    );
    f.shows(super::vendors::Vendor::Amd)
        || text
            .lines()
            .any(|l| !l.trim_end().ends_with("N/A") && gpu.is_match(l))
}

/// Whether the text shows a set-up that runs a CUDA or CPU-only build on an AMD GPU by design, or
/// a platform ROCm does not run on: ZLUDA ("a drop-in replacement for CUDA on non-NVIDIA GPU",
/// vosen/ZLUDA README.md: the CUDA build runs through ZLUDA's own `libcuda.so`/`nvcuda.dll`),
/// torch-directml (PyTorch with DirectML on Windows and WSL, the `torch-directml` package beside
/// a build without CUDA: learn.microsoft.com/windows/ai/directml/pytorch-windows; the apps that
/// use it take `--directml` or `--use-directml`, and ONNX Runtime's DirectML build names its
/// `DmlExecutionProvider`), macOS (ROCm's system requirements list Linux and Windows only, and
/// pytorch.org's "Get started" offers no ROCm build for macOS). There a CUDA or CPU-only build is
/// what the set-up uses, and "install the ROCm build" would be false advice: the lines say that
/// ZLUDA's libraries were not the ones loaded, or that the program asked for CUDA instead of the
/// DirectML or MPS device. `cuda_build` says nothing then.
fn non_rocm_setup(text: &str) -> bool {
    static SETUP: OnceLock<Regex> = OnceLock::new();
    re(
        &SETUP,
        concat!(
            r"(?i)\bzluda\b|\btorch[_-]directml\b|--(?:use-)?directml\b|\bDmlExecutionProvider\b",
            r"|\bmacOS\b|\bMac ?OS ?X\b|\bDarwin\b|\btorch\.backends\.mps\b",
        ),
    )
    .is_match(text)
}

/// pip's "does not provide the extra 'rocm'".
fn rocm_extra_missing(text: &str) -> Option<CudaEvidence> {
    static EXTRA: OnceLock<Regex> = OnceLock::new();
    let c = re(
        &EXTRA,
        r"(?i)WARNING: (\S+) ([\d.]+\S*) does not provide the extra '(rocm|hip|rocm\d*)'",
    )
    .captures(text)?;
    // Asking for the ROCm extra is the AMD intent.
    Some((
        c[0].to_string(),
        format!(
            "{} {} has no '{}' extra, so pip installed its CPU build only",
            &c[1], &c[2], &c[3]
        ),
        false,
    ))
}

/// A ROCm wheel index that lists no build of the version asked for.
fn rocm_index_lacks_version(text: &str) -> Option<CudaEvidence> {
    static INDEX: OnceLock<Regex> = OnceLock::new();
    static NO_VERSION: OnceLock<Regex> = OnceLock::new();
    // pip on a ROCm wheel index: "Could not find a version that satisfies the requirement
    // torch==2.4.1 (from versions: 2.2.0+rocm5.6, ...)".
    let idx = re(&INDEX, r"/whl/(?:nightly/)?rocm(\d+\.\d+(?:\.\d+)?)");
    let (Some(i), Some(c)) = (
        idx.captures(text),
        re(
            &NO_VERSION,
            concat!(
                r"Could not find a version that satisfies the requirement (\w+)==([\w.+]+) ",
                r"\(from versions: ([^)]*)\)",
            ),
        )
        .captures(text),
    ) else {
        return None;
    };
    if !c[3].contains("+rocm") || c[3].contains(&c[2]) {
        return None;
    }
    // Asking a ROCm index is the AMD intent.
    Some((
        c[0].chars().take(300).collect(),
        format!(
            "the ROCm {} wheel index has no {} {} (it lists {}): an installer that \
             asks it for that version ends with the default (CUDA) build or none",
            &i[1],
            &c[1],
            &c[2],
            c[3].trim()
        ),
        false,
    ))
}

/// "A CUDA or CPU-only build of the framework where a ROCm build is needed". Facts: the build's
/// flavour as PyTorch prints it (`2.4.1+cu121`: PyTorch's local version label, `+cuXYZ` for
/// CUDA and `+rocmX.Y` for ROCm wheels, pytorch.org "Get started"; `torch.version.hip` is `None`
/// in a CUDA build, torch/version.py), a CUDA library (`[[cuda_library]]`) that a framework's
/// own loader fails to open, ONNX Runtime's CUDA execution provider (its
/// `provider_bridge_ort.cc` loads `libonnxruntime_providers_cuda.so`; ROCm and MIGraphX are
/// other providers of other builds), pip's "does not provide the extra 'rocm'" (the version
/// installed has no ROCm variant, so only the CPU build comes in), and a ROCm wheel index that
/// lists no build of the version asked for (an installer then falls back to the default, CUDA,
/// wheel), and a line only a build without ROCm prints (`[[cuda_print]]`: PyTorch's "Found no
/// NVIDIA driver on your system", NVIDIA's CUDA runtime's "CUDA driver version is insufficient
/// for CUDA runtime version", ...) where the text shows an AMD GPU. Not when the text shows an
/// NVIDIA machine, nor a set-up that runs a CUDA or CPU-only build on an AMD GPU by design
/// (ZLUDA, DirectML) or a platform without ROCm (macOS): [`non_rocm_setup`].
fn cuda_build<'a>(text: &str, f: &dyn Fn() -> &'a Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    let (line, why, needs_amd) = cuda_flavour(text)
        .or_else(|| cuda_library_load(text))
        .or_else(|| cuda_provider(text))
        .or_else(|| cuda_print(text, f))
        .or_else(|| rocm_extra_missing(text))
        .or_else(|| rocm_index_lacks_version(text))?;
    if nvidia_machine(text) || non_rocm_setup(text) {
        return None;
    }
    let amd = || !f().isas.is_empty() || amd_named(text);
    if needs_amd && !amd() {
        return None;
    }
    let sy = symptom(
        &S,
        "facts.cuda-build",
        "a CUDA or CPU-only build of the framework on an AMD machine",
        "lib-cuda-build",
        "The framework installed is its CUDA (or CPU-only) build, which never uses an AMD GPU: it \
         runs on the CPU, or fails loading NVIDIA's libraries, however ROCm is installed.",
        "Install the framework's ROCm build: PyTorch from its ROCm wheel index \
         (download.pytorch.org/whl/rocmX.Y, a version that index has) or AMD's, ONNX Runtime's \
         ROCm/MIGraphX build instead of onnxruntime-gpu, JAX's ROCm plugin of the same version, \
         tensorflow-rocm instead of tensorflow; in a container, an image that ships the ROCm \
         build.",
    );
    let unnamed = why.ends_with(GPU_UNNAMED);
    let mut d = Derived::reasoned(sy, line, format!("{why} ({FROM})"));
    if unnamed {
        d.captures.push((UNNAMED_KEY.into(), UNNAMED_VALUE.into()));
    }
    Some(d)
}

/// The one symptom of "a source tree newer than the installed ROCm" ([`newer_source`],
/// [`newer_api`]).
fn newer_source_symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    symptom(
        &S,
        "facts.newer-source",
        "a source tree of a newer ROCm release built against an older installed ROCm",
        "lib-mixed-releases",
        "The source being built needs a file or an API that ROCm ships only from a later release \
         than the one installed: the source (a library's default branch, a newer tag) and the \
         installed ROCm are of two releases.",
        "Build the release branch or tag of the source that matches the installed ROCm, or \
         install the ROCm release the source needs (or the missing component from it first).",
    )
}

/// "A source tree newer than the installed ROCm": a header or CMake package that ROCm ships only
/// from a later release (`[[since]]`) is not found while building.
fn newer_source(text: &str) -> Option<Derived> {
    static HEADER: OnceLock<Regex> = OnceLock::new();
    static PACKAGE: OnceLock<Regex> = OnceLock::new();
    let header = re(&HEADER, r"fatal error: '([\w/.+-]+)' file not found");
    let package = re(
        &PACKAGE,
        r#"Could not find a package configuration file provided by "([\w.+-]+)""#,
    );
    let missing: Vec<(String, String)> = header
        .captures_iter(text)
        .map(|c| ("header".to_string(), c[1].to_string()))
        .chain(
            package
                .captures_iter(text)
                .map(|c| ("cmake-package".to_string(), c[1].to_string())),
        )
        .collect();
    let Some((kind, name, since)) = missing.iter().find_map(|(k, n)| {
        table()
            .since
            .iter()
            .find(|s| &s.kind == k && &s.name == n)
            .map(|s| (k.clone(), n.clone(), s))
    }) else {
        return newer_api(text);
    };
    let line = text
        .lines()
        .find(|l| l.contains(&name))
        .map(|l| l.trim().chars().take(300).collect())
        .unwrap_or_default();
    let sy = newer_source_symptom();
    let what = if kind == "header" {
        "header"
    } else {
        "CMake package"
    };
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "the {what} {name} is not found; ROCm ships it from {} on ({}; checks/why-facts.toml \
             [[since]]), so the source needs ROCm {} or later ({FROM})",
            since.rocm, since.source, since.rocm
        ),
    ))
}

/// A HIP API name that the compile does not know, where HIP's headers declare it only from a later
/// release (`checks/hip-since.toml`, harvested by `scripts/harvest-hip-since.py`): clang's "use of
/// undeclared identifier 'X'" / "unknown type name 'X'" / "no member named 'X' in the global
/// namespace", GCC's "'X' was not declared in this scope" / "'X' does not name a type" (clang's
/// DiagnosticSemaKinds.td err_undeclared_var_use, err_unknown_typename; GCC's cp/name-lookup.cc).
/// Not where the text shows the compile used a ROCm of that release or later (an `/opt/rocm-X.Y`
/// path, hipconfig's "HIP version"): there the name is missing for another reason.
fn newer_api(text: &str) -> Option<Derived> {
    static UNDECLARED: OnceLock<Regex> = OnceLock::new();
    static INSTALLED: OnceLock<Regex> = OnceLock::new();
    // The compilers' words, read before any line is (a runtime log names hip on every line).
    let words = [
        "undeclared identifier",
        "unknown type name",
        "no member named",
        "no type named",
        "was not declared",
        "does not name a type",
    ];
    if !words.iter().any(|w| text.contains(w)) {
        return None;
    }
    let undeclared = re(
        &UNDECLARED,
        concat!(
            r"(?:use of undeclared identifier|unknown type name|no (?:member|type) named) ",
            r"'(hip[A-Z]\w*)'|[‘'](hip[A-Z]\w*)[’'] (?:was not declared in this scope|does not name a type)",
        ),
    );
    let (line, name, rocm) = text.lines().find_map(|l| {
        let c = undeclared.captures(l)?;
        let name = c.get(1).or(c.get(2))?.as_str();
        let rocm = super::hip_since::since(name)?;
        Some((l.trim().chars().take(300).collect::<String>(), name, rocm))
    })?;
    // major.minor of "6.2" or "6.1.3".
    let major_minor = |v: &str| -> Option<(u32, u32)> {
        let mut it = v.split('.').map(|p| p.parse::<u32>().ok());
        Some((it.next()??, it.next()??))
    };
    let need = major_minor(rocm)?;
    let installed = re(
        &INSTALLED,
        r"/opt/rocm-(\d+\.\d+(?:\.\d+)?)|HIP version\s*:\s*(\d+\.\d+(?:\.\d+)?)",
    );
    let shown = installed
        .captures_iter(text)
        .filter_map(|c| major_minor(c.get(1).or(c.get(2))?.as_str()))
        .max();
    if shown.is_some_and(|v| v >= need) {
        return None;
    }
    let sy = newer_source_symptom();
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "{name} is not declared in this compile; HIP's headers declare it from ROCm {rocm} on \
             ({}; checks/hip-since.toml), so the source needs ROCm {rocm} or later and the HIP it \
             was compiled against is older ({FROM})",
            super::hip_since::harvested_from()
        ),
    ))
}

/// CMake's HIP setup: a CMake error raised in a HIP CMake file (CMake's
/// `CMakeDetermineHIPCompiler.cmake`, HIP's `hip-config*.cmake` and `hip-lang-config.cmake`) or
/// one that names the GPU target variables (`GPU_TARGETS`, `AMDGPU_TARGETS`,
/// `CMAKE_HIP_ARCHITECTURES`) or a default HIP architecture; and a host C++ compiler (GCC's
/// "unrecognized command-line option", or "language hip not recognized" for `-x hip`) handed
/// an option only a HIP compiler takes (clang's Driver/Options.td: `--offload-arch`, the older
/// `--amdgpu-target`, `-fgpu-rdc`, `--hip-link`, `--rocm-path`, `--hip-device-lib-path`): the
/// HIP sources went to `CMAKE_CXX_COMPILER`.
fn cmake_hip(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static AT: OnceLock<Regex> = OnceLock::new();
    static TARGETS: OnceLock<Regex> = OnceLock::new();
    static HOST: OnceLock<Regex> = OnceLock::new();
    let at = re(
        &AT,
        concat!(
            r"CMake Error at \S*(?:CMakeDetermineHIPCompiler|CMakeTestHIPCompiler|hip-config[\w-]*",
            r"|hip-lang-config[\w-]*)\.cmake:\d+",
        ),
    );
    let targets = re(
        &TARGETS,
        concat!(
            r"(?i)\bno (?:GPU_TARGETS|AMDGPU_TARGETS)\b|\bpass (?:GPU_TARGETS|AMDGPU_TARGETS)\b",
            r"|Failed to find a default HIP architecture",
            r"|(?:GPU_TARGETS|AMDGPU_TARGETS|HIP_ARCHITECTURES) (?:is )?(?:empty|not set)",
        ),
    );
    let host = re(
        &HOST,
        concat!(
            r"(?:c\+\+|g\+\+|gcc|cc1plus)(?:-\d+)?: error: ",
            r"(?:unrecognized command[- ]line option .(?:--offload-arch|--amdgpu-target",
            r"|-f(?:no-)?gpu-rdc|--hip-link|--rocm-path|--hip-device-lib-path)",
            r"|language hip not recognized)",
        ),
    );
    let (line, why) = if let Some(l) = line_of(text, host) {
        (
            l,
            "the host C++ compiler (GCC) was given an option only a HIP compiler (ROCm's clang, \
             hipcc) takes: the HIP sources were compiled with CMAKE_CXX_COMPILER"
                .to_string(),
        )
    } else if let Some(l) = line_of(text, targets) {
        (
            l,
            "CMake found no GPU architecture to build for (no GPU_TARGETS / \
             CMAKE_HIP_ARCHITECTURES given, and none detected: rocm_agent_enumerator finds no \
             GPU on a build machine without one)"
                .to_string(),
        )
    } else {
        let l = line_of(text, at)?;
        (
            l,
            "the error is raised inside the HIP CMake setup itself (CMake's HIP language module or \
             HIP's package configuration), before the project's own code"
                .to_string(),
        )
    };
    let sy = symptom(
        &S,
        "facts.cmake-hip",
        "CMake's HIP setup fails (HIP package, compiler or GPU architectures)",
        "build-cmake",
        "The build stops in CMake's HIP setup: the HIP package configuration or the HIP \
         language module failed, no GPU architecture was given or detected, or the HIP sources \
         were handed to a compiler that does not compile HIP.",
        "Give the architectures explicitly (-DGPU_TARGETS=gfxNNNN, or \
         -DCMAKE_HIP_ARCHITECTURES for the HIP language), use ROCm's clang++ or hipcc for the HIP \
         sources (CMAKE_HIP_COMPILER, or CXX=hipcc for projects that compile HIP as C++), and a \
         HIP package of the release the project supports.",
    );
    Some(Derived {
        defers_to: &[
            "build-device-libs",
            "build-device-libs-abi",
            "build-hipcc-config",
            "build-host-stdlib",
            "build-resource-dir",
            "build-unknown-target",
            "build-lld",
            "lib-mixed-releases",
            "tensile-assembler",
        ],
        ..Derived::reasoned(sy, line, format!("{why} ({FROM})"))
    })
}

/// Device masks. ROCr applies `ROCR_VISIBLE_DEVICES` first, and HIP's
/// `HIP_VISIBLE_DEVICES`/`CUDA_VISIBLE_DEVICES` index the devices ROCr left (AMD, "GPU isolation
/// techniques", rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html): both set to the same
/// index leave no device unless it is 0. Ray sets `HIP_VISIBLE_DEVICES` for each worker unless
/// `RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES` is set (ray `_private/accelerators/amd_gpu.py`),
/// which then overrides the mask a container or scheduler gave.
fn visible_devices(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static BOTH: OnceLock<Regex> = OnceLock::new();
    static ROCR: OnceLock<Regex> = OnceLock::new();
    static HIP: OnceLock<Regex> = OnceLock::new();
    static NONE: OnceLock<Regex> = OnceLock::new();
    static ORDINAL: OnceLock<Regex> = OnceLock::new();
    static LAUNCHER: OnceLock<Regex> = OnceLock::new();
    let none = re(
        &NONE,
        &format!(
            "(?i){}{}",
            super::facts::HIP_NO_DEVICE,
            r"|device_count\(\)\)?\s*$"
        ),
    );
    let sy = symptom(
        &S,
        "facts.visible-devices",
        "device masks hide the GPU the process asks for",
        "platform-visible-devices",
        "A device mask names GPUs the process cannot see: HIP_VISIBLE_DEVICES and \
         CUDA_VISIBLE_DEVICES index the devices ROCR_VISIBLE_DEVICES leaves, not the machine's, \
         and launchers (Ray, Slurm, container runtimes) set masks of their own.",
        "Set one mask (ROCR_VISIBLE_DEVICES on Linux), or index the second within the devices the \
         first leaves; stop the launcher from setting its own (Ray: \
         RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1 / ..._ROCR_...).",
    );
    // One command line (or one environment listing) that sets both.
    let both = re(
        &BOTH,
        concat!(
            r"ROCR_VISIBLE_DEVICES=(\S+)\s+(?:\S+=\S*\s+)*(HIP|CUDA)_VISIBLE_DEVICES=(\S+)",
            r"|(HIP|CUDA)_VISIBLE_DEVICES=(\S+)\s+(?:\S+=\S*\s+)*ROCR_VISIBLE_DEVICES=(\S+)",
        ),
    );
    let rocr = re(&ROCR, r"ROCR_VISIBLE_DEVICES");
    let hip = re(&HIP, r"(?:HIP|CUDA)_VISIBLE_DEVICES");
    if rocr.is_match(text) && hip.is_match(text) {
        if let Some(line) = line_of(text, none) {
            let set = both.find(text).map(|m| m.as_str().trim().to_string());
            return Some(Derived::reasoned(
                sy,
                line,
                format!(
                    "ROCR_VISIBLE_DEVICES and a HIP/CUDA mask are both set{} and the process \
                     finds no GPU: the second mask indexes the devices the first leaves ({FROM})",
                    set.map(|s| format!(" ({s})")).unwrap_or_default()
                ),
            ));
        }
    }
    let ordinal = re(
        &ORDINAL,
        r"(?i)invalid device ordinal|hipErrorInvalidDevice\b",
    );
    let launcher = re(
        &LAUNCHER,
        r"RAY_EXPERIMENTAL_NOSET_\w+|\b(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES\b",
    );
    let line = line_of(text, ordinal)?;
    let m = launcher.find(text)?;
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "an invalid device ordinal with {} named: the ordinal asked for is beyond the devices \
             the mask leaves ({FROM})",
            m.as_str()
        ),
    ))
}

/// A tool's module check that the same text contradicts. rocminfo's and the SMI tools' "is the
/// amdgpu module loaded" check looked for a loadable module (`lsmod`, `/sys/module/amdgpu/
/// initstate`), which a kernel with amdgpu built in and a container without lsmod do not have
/// (rocminfo#42 and its fix, which accepts /sys/module/amdgpu; ROCm-docker#50, rocminfo PR #48:
/// a missing module is expected inside Docker). When the same text shows `lsmod` missing, the
/// driver built in, or the runtime listing its agents (rocminfo prints "HSA Agents" and each
/// agent's `Name:` only after `hsa_init` succeeded, which needs /dev/kfd and the driver), the
/// check is wrong, not the driver.
fn tool_false_check(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static CHECK: OnceLock<Regex> = OnceLock::new();
    static WRONG: OnceLock<Regex> = OnceLock::new();
    let line = line_of(
        text,
        re(
            &CHECK,
            r"ROCk module is NOT loaded|amdgpu not found in modules|[Dd]river not initialized",
        ),
    )?;
    let wrong = re(
        &WRONG,
        concat!(
            r"(?i)lsmod: (?:command )?not found|CONFIG_DRM_AMDGPU=y",
            r"|amdgpu\b.{0,30}\bbuilt[- ]in(?:to)?\b|\bbuilt[- ]in(?:to)?\b.{0,40}\bamdgpu",
            r"|^\s*Name:\s+gfx\d|^\s*HSA Agents\s*$",
        ),
    );
    let seen: String = text
        .lines()
        .find(|l| wrong.is_match(l))?
        .trim()
        .chars()
        .take(120)
        .collect();
    let sy = symptom(
        &S,
        "facts.tool-false-check",
        "a tool's module check misreads a working driver",
        "tool-false-check",
        "The tool checks for a loadable amdgpu module (lsmod, /sys/module/amdgpu/initstate); a \
         kernel with amdgpu built in, or a container without lsmod, fails that check although \
         the driver works, as the rest of the same text shows.",
        "Nothing to fix in the driver: ignore the message where the GPUs are listed, or use a \
         release of the tool whose check accepts a built-in driver (/sys/module/amdgpu, \
         /sys/class/drm).",
    );
    Some(Derived {
        overrules: &["gpu-driver-missing"],
        ..Derived::reasoned(
            sy,
            line,
            format!(
                "the module check failed, but the text also shows \"{seen}\" ({FROM}): the \
                 driver is there"
            ),
        )
    })
}

/// amd-smi's CPU side: the E-SMI library needs the amd_hsmp (or hsmp_acpi) driver and HSMP
/// enabled in the BIOS (amdsmi `amdsmi_cli`: "Unable to detect any CPU devices, check amd_hsmp
/// ..."; E-SMI's error text "ESMI Not initialized, drivers not found"). On an EPYC or an
/// Instinct APU (MI300A) it stops amd-smi's start; elsewhere (a Ryzen or Threadripper desktop, a
/// GPU-only question) the CPU line is informational: HSMP is an EPYC (server) interface.
fn hsmp<'a>(text: &str, f: &dyn Fn() -> &'a Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static B: OnceLock<Symptom> = OnceLock::new();
    static LINE: OnceLock<Regex> = OnceLock::new();
    static SERVER: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    let line = line_of(
        text,
        re(
            &LINE,
            concat!(
                r"ESMI Not initialized|check amd_hsmp",
                r"|amd_hsmp\b.{0,40}(?:not (?:found|loaded)|missing)",
            ),
        ),
    )?;
    let server = re(&SERVER, r"(?i)\bEPYC\b|\bMI300A\b").is_match(text)
        || f().isas.iter().any(|(i, _)| i == "gfx942");
    let failed = re(
        &FAILED,
        r"Failed to initialize AMD SMI|AMDSMI_STATUS_\w+|amdsmi_init\b.{0,40}fail",
    )
    .is_match(text);
    if server || failed {
        let sy = symptom(
            &S,
            "facts.hsmp-missing",
            "amd-smi's CPU side needs the HSMP driver",
            "platform-hsmp-missing",
            "amd-smi initialises its CPU side through the E-SMI library, which needs the amd_hsmp \
             (or hsmp_acpi) driver loaded and HSMP enabled in the BIOS; without them the library \
             does not initialise. The GPUs are not the problem.",
            "Enable HSMP support in the BIOS (AMD CBS > NBIO > SMU Common Options) and load the \
             driver (modprobe amd_hsmp, or hsmp_acpi), or initialise amd-smi for GPUs only.",
        );
        return Some(Derived::reasoned(
            sy,
            line,
            format!(
                "the CPU side of amd-smi did not initialise{} ({FROM})",
                if server {
                    " on a server CPU (EPYC or an MI300A APU), where HSMP is the interface"
                } else {
                    ", and the library's initialisation failed"
                }
            ),
        ));
    }
    // Off a server, the CPU line is noise only where the GPU side did not fail too (a GPU
    // failure beside it is the question, and another rule's or symptom's).
    static GPU_FAIL: OnceLock<Regex> = OnceLock::new();
    if re(
        &GPU_FAIL,
        concat!(
            r"(?i)Unable to (?:detect|get) any GPU|Unable to get devices|driver not initiali[sz]ed",
            r"|amdgpu not found",
        ),
    )
    .is_match(text)
    {
        return None;
    }
    let sy = B.get_or_init(|| Symptom {
        harmless: true,
        ..super::facts::rule_symptom(
            "facts.hsmp-benign",
            "amd-smi finds no HSMP CPU: informational off EPYC",
            "benign-other",
            "amd-smi reports that its CPU side (HSMP, an EPYC server interface) is not available; \
             for the GPUs this changes nothing.",
            "Nothing to fix for the GPUs; on an EPYC server, load amd_hsmp for the CPU metrics.",
            "rule over the library, build and platform facts of the text (src/packs/stack.rs)",
        )
    });
    Some(Derived::reasoned(
        sy,
        line,
        format!("no EPYC or MI300A named, and amd-smi's initialisation did not fail ({FROM})"),
    ))
}

/// A GPU passed through to a virtual machine that does not come back from a reset: the host's
/// PCI core waits for the device after a reset and gives up (Linux `drivers/pci/pci.c`,
/// `pci_dev_wait`: "not ready %dms after %s; waiting" / "giving up"), QEMU cannot power it on
/// ("stuck in D3", `hw/vfio/pci.c`), or KVM fails the guest; the reset problem of many consumer
/// GPUs under VFIO.
fn vm_passthrough(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static VM: OnceLock<Regex> = OnceLock::new();
    static RESET: OnceLock<Regex> = OnceLock::new();
    let vm = re(
        &VM,
        concat!(
            r"(?i)\bvfio-pci\b|\bvfio\b|\bQEMU\b|\bkvm\b|\bProxmox\b|\bpassthrough\b",
            r"|\bpassed through\b|\bESXi\b",
        ),
    );
    let reset = re(
        &RESET,
        concat!(
            r"(?i)not ready \d+ms after (?:bus |FLR|PM D3hot->D0 |resume |)\w*\s*(?:reset)?;? ?",
            r"(?:waiting|giving up)|stuck in D3|Unable to power on device|kvm run failed",
            r"|vfio.{0,60}(?:reset|D3).{0,40}fail",
        ),
    );
    if !vm.is_match(text) {
        return None;
    }
    let line = line_of(text, reset)?;
    let sy = symptom(
        &S,
        "facts.vm-passthrough",
        "a GPU passed through to a VM does not come back from a reset",
        "platform-vm-passthrough",
        "The GPU is passed through to a virtual machine (VFIO) and does not come back from the \
         reset the VM's start or the guest driver triggers: the host waits for it and gives up, \
         or cannot power it on, and the guest finds it unusable.",
        "Use the GPU on bare metal, or a host set-up that resets it properly (a vendor-reset \
         module for the GPUs that need one, no reset on VM stop, the host's amdgpu not binding \
         it); datacenter GPUs support passthrough with AMD's documented configuration.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("the GPU is passed through to a VM and the host's reset of it fails ({FROM})"),
    ))
}

/// hipcc and hipconfig (Perl scripts until ROCm 6.x) run programs of their own: `rocm_agent_enumerator` under
/// ROCM_PATH to find the GPU, and system tools (`file`, `lsb_release`); Perl reports each that
/// cannot run as `Can't exec "X": No such file or directory at .../hipcc line N` (perlfunc,
/// `exec`/`system`). A program under the ROCm path that is missing means hipcc's idea of
/// ROCM_PATH is wrong (the packages put it elsewhere); a bare system tool is a missing package.
fn hipcc_exec(text: &str) -> Option<Derived> {
    static CONFIG: OnceLock<Symptom> = OnceLock::new();
    static TOOL: OnceLock<Symptom> = OnceLock::new();
    static EXEC: OnceLock<Regex> = OnceLock::new();
    let exec = re(
        &EXEC,
        concat!(
            r#"Can't exec "([^"]+)": No such file or directory at \S*hip(?:cc|config)"#,
            r#"(?:\.pl)? line \d+"#,
        ),
    );
    let c = exec.captures(text)?;
    let prog = c[1].to_string();
    let line = c[0].to_string();
    if prog.starts_with('/') {
        let sy = symptom(
            &CONFIG,
            "facts.hipcc-rocm-path",
            "hipcc looks for its programs under a ROCm path that does not have them",
            "build-hipcc-config",
            "hipcc runs programs of ROCm under the root it believes in (ROCM_PATH, default \
             /opt/rocm); the installation put them elsewhere, so hipcc's ROCM_PATH (or HIP_PATH) \
             is wrong for it.",
            "Set ROCM_PATH (and HIP_PATH) to the root the packages installed into (e.g. /usr for \
             distribution packages), or install where hipcc looks.",
        );
        return Some(Derived::reasoned(
            sy,
            line,
            format!("hipcc cannot run {prog}, a program it looks for under its ROCm root ({FROM})"),
        ));
    }
    let sy = symptom(
        &TOOL,
        "facts.hipcc-system-tool",
        "hipcc needs a system program that is not installed",
        "lib-missing",
        "hipcc runs a system program (file, lsb_release, ...) that no installed package \
         provides, so the build or link it drives fails.",
        "Install the package that provides the program (e.g. `file`), then build again.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("hipcc cannot run the system program `{prog}` ({FROM})"),
    ))
}

/// "Two package sources", read from the package lists alone: the same ROCm package offered by
/// the distribution's archive at a version without AMD's release stamp (`rocminfo 5.7.1-3build1`)
/// and by AMD's repository with it (`rocminfo 1.0.0.60200-66~24.04`). The distribution's number
/// is the higher one in dpkg's order (5 > 1; Debian bug #1028307), so apt picks it wherever AMD's
/// repository is not pinned above the distribution, and AMD's packages that require their own
/// version cannot be installed (AMD's install guide pins repo.radeon.com for this reason).
fn both_sources(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static LISTED: OnceLock<Regex> = OnceLock::new();
    // A package as apt, dpkg or a package list prints it: its name, an architecture column,
    // then a version with a Debian revision (`5.7.1-3build1`, `1.0.0.60200-66~24.04`).
    let listed = re(
        &LISTED,
        r"\b([a-z][\w.+-]*)\s+(?:amd64\s+)?(\d+(?:\.\d+)+-[\w.~+]+)(?:\s|$)",
    );
    if !text.contains('.') || !text.contains('-') {
        return None;
    }
    let rows: Vec<(String, String, String)> = listed
        .captures_iter(text)
        .filter(|c| pkgnames::is_rocm(&c[1]))
        .map(|c| (c[1].to_string(), c[2].to_string(), c[0].trim().to_string()))
        .collect();
    let (pkg, dv, line, av) = rows.iter().find_map(|(name, version, line)| {
        if pkgnames::amd_release(version).is_some() {
            return None;
        }
        rows.iter()
            .find(|(n, v, _)| n == name && pkgnames::amd_release(v).is_some())
            .map(|(_, av, _)| (name.clone(), version.clone(), line.clone(), av.clone()))
    })?;
    let sy = symptom(
        &S,
        "facts.both-sources",
        "the distribution and AMD's repository offer the same ROCm package, the distribution's \
         ranked higher",
        "platform-package-conflict",
        "The distribution's archive and AMD's repository offer the same ROCm package; the \
         distribution's version number (the ROCm release, 5.7.1-3) ranks above AMD's (the \
         component's own version with the release stamp, 1.0.0.60200), so the package manager \
         takes the distribution's wherever AMD's repository is not pinned above it, and AMD's \
         packages that need their own version break.",
        "Pin repo.radeon.com above the distribution (an /etc/apt/preferences.d entry as AMD's \
         install guide writes it; a distribution upgrade can drop it), remove the distribution's \
         package, then install AMD's again.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "{pkg} is offered at {dv} (no release stamp: the distribution's) and at {av} (AMD's); \
             {dv} ranks higher ({FROM})"
        ),
    ))
}

/// TheRock's Python packages bundle the system libraries ROCm needs as `librocm_sysdeps_*`
/// (TheRock `third-party/sysdeps`: each dependency built and renamed so that it never clashes
/// with the system's), loaded by the package itself (`_rocm_sdk_core`; PyTorch preloads them,
/// pytorch/pytorch#188454). No distribution ships them, so one not found is the package's own
/// loading that failed: a bug of that build, not a missing package on the machine.
fn sysdeps(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static LINE: OnceLock<Regex> = OnceLock::new();
    let line = line_of(
        text,
        re(
            &LINE,
            r"librocm_sysdeps_\w+\.so[.\d]*:? (?:cannot open shared object|No such file)",
        ),
    )?;
    let sy = symptom(
        &S,
        "facts.sysdeps",
        "a library TheRock's packages bundle themselves is not found",
        "lib-bug-fixed-later",
        "A librocm_sysdeps_* library is one that TheRock's ROCm Python packages bundle and load \
         themselves; no system package provides it, so the package (or the framework built on \
         it) did not load its own copy: a bug of that build.",
        "Use a later build of the package (PyTorch preloads the ROCm SDK's libraries since the \
         fix), or until then put the _rocm_sdk_core library directory on LD_LIBRARY_PATH.",
    );
    Some(Derived {
        overrules: &["lib-missing"],
        ..Derived::reasoned(
            sy,
            line,
            format!(
                "the missing library is one of TheRock's bundled librocm_sysdeps_* ({FROM}): \
                 no package on the machine provides it"
            ),
        )
    })
}

/// "Harmless by design": a line that its own source prints as information, or as a warning
/// about a request it then ignores (`[[informational]]`: the origin, its level and why nothing
/// stops). The answer is harmless, so `why` puts it after every message that stops something.
fn informational(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        table()
            .informational
            .iter()
            .map(|i| {
                Regex::new(&super::facts::ascii_boundaries(&i.pattern)).unwrap_or_else(|e| {
                    panic!("checks/why-facts.toml [[informational]] {}: {e}", i.pattern)
                })
            })
            .collect()
    });
    let (line, i) = text.lines().find_map(|l| {
        res.iter()
            .position(|r| r.is_match(l))
            .map(|k| (l.trim().chars().take(300).collect::<String>(), k))
    })?;
    let info = &table().informational[i];
    let sy = S.get_or_init(|| Symptom {
        harmless: true,
        ..super::facts::rule_symptom(
            "facts.informational",
            "a message its source prints as information: harmless by design",
            "benign-other",
            "The line is printed by its source as information (or as a warning about a request \
             it ignores) on a path that works; it stops nothing.",
            "Nothing to fix for this line; look at the other messages of the text, if any.",
            "rule over the origins of lines (checks/why-facts.toml [[informational]])",
        )
    });
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "printed by {} at level {}: {} ({}; {FROM})",
            info.origin, info.level, info.reason, info.source
        ),
    ))
}

/// The C++ standard library not found in a HIP build. ROCm's clang takes the newest GCC
/// installation it finds (clang's driver, `clang/lib/Driver/ToolChains/Gnu.cpp`,
/// GCCInstallationDetector: the highest version under /usr/lib/gcc/<triple>/) and uses that
/// GCC's libstdc++ headers and library; a newer GCC present without its libstdc++ development
/// package leaves `<cmath>` (the first header HIP's wrapper includes) or `-lstdc++` missing,
/// whatever the default GCC has.
fn host_stdlib(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static MISSING: OnceLock<Regex> = OnceLock::new();
    static HIP: OnceLock<Regex> = OnceLock::new();
    let line = line_of(
        text,
        re(
            &MISSING,
            concat!(
                r"'(?:cmath|cstdlib|cstddef|cstdint|type_traits|limits|new|utility)'",
                r" file not found|unable to find library -lstdc\+\+|cannot find -lstdc\+\+",
            ),
        ),
    )?;
    if !re(
        &HIP,
        concat!(
            r"(?i)\bhipcc\b|HIPBLAS\b|GGML_HIP\b|-x hip\b|/opt/rocm|__clang_hip|\bROCm\b",
            r"|\bamdgcn\b|--offload-arch",
        ),
    )
    .is_match(text)
    {
        return None;
    }
    let sy = symptom(
        &S,
        "facts.host-stdlib",
        "the C++ standard library of the GCC that ROCm's clang chose is not installed",
        "build-host-stdlib",
        "ROCm's clang uses the libstdc++ of the newest GCC installation it finds; that GCC's \
         libstdc++ development files are not installed, so a standard header (cmath first) or \
         -lstdc++ is not found, although the default GCC has its own.",
        "Install the libstdc++ development package of the newest GCC present (e.g. \
         libstdc++-12-dev beside gcc-12 on Ubuntu 22.04), or point clang at a complete one \
         (--gcc-install-dir / --gcc-toolchain).",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "a C++ standard header or library is not found in a HIP build: the GCC installation \
             clang chose lacks its libstdc++ development files ({FROM})"
        ),
    ))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    // The text's entities, read only when a rule needs them.
    let facts = std::cell::OnceCell::new();
    let f = || facts.get_or_init(|| Facts::of(text));
    [
        vm_passthrough(text),
        tool_false_check(text),
        visible_devices(text),
        cuda_build(text, &f),
        newer_source(text),
        hipcc_exec(text),
        sysdeps(text),
        both_sources(text),
        cmake_hip(text),
        host_stdlib(text),
        hsmp(text, &f),
        informational(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<String> {
        rules(text)
            .iter()
            .filter_map(|d| d.symptom.class.clone())
            .collect()
    }

    fn reasoning(text: &str, class: &str) -> String {
        rules(text)
            .into_iter()
            .find(|d| d.symptom.class.as_deref() == Some(class))
            .and_then(|d| {
                d.captures
                    .into_iter()
                    .find(|(k, _)| k == "reasoning")
                    .map(|(_, v)| v)
            })
            .unwrap_or_default()
    }

    #[test]
    fn the_tables_load() {
        let t = table();
        assert!(t.since.iter().all(|s| {
            (s.kind == "header" || s.kind == "cmake-package")
                && s.rocm.split('.').count() == 2
                && !s.source.is_empty()
        }));
        assert!(t.cuda_library.iter().any(|l| l.name == "libcublas"));
    }

    /// tests/corpus/field-apps.toml, https://github.com/invoke-ai/InvokeAI/issues/7977 and
    /// tests/corpus/field-platform.toml, https://github.com/invoke-ai/InvokeAI/issues/7520 (lines
    /// of the pastes); then the same versions from a machine whose text shows an NVIDIA GPU, and
    /// a ROCm build.
    #[test]
    fn a_cuda_torch_on_an_amd_machine() {
        let t = "torch.__version__: 2.6.0+cu124\ntorch.version.cuda: 12.4\ntorch.version.hip: \
            None\nCUDA available: False\nHIP (ROCm) available: False\n";
        assert_eq!(classes(t), ["lib-cuda-build"]);
        let r = reasoning(t, "lib-cuda-build");
        assert!(r.contains("2.6.0+cu124") && r.contains(FROM), "{r}");
        let deps = "### GPU model\n\nRX 6800\n\n  \"torch\": \"2.4.1+cu121\",\n";
        assert_eq!(classes(deps), ["lib-cuda-build"]);
        let nvidia = "GPU: NVIDIA GeForce RTX 3090\ntorch 2.4.1+cu121\nAMD Ryzen 9\n";
        assert!(classes(nvidia).is_empty());
        let rocm = "torch.__version__: 2.6.0+rocm6.2.4\ntorch.version.hip: 6.2.41134\n";
        assert!(classes(rocm).is_empty());
        // No AMD named at all: a CUDA torch is nobody's mistake.
        assert!(classes("torch 2.4.1+cu121\n").is_empty());
    }

    /// tests/corpus/field-apps.toml, https://github.com/microsoft/onnxruntime/issues/5959 and
    /// https://github.com/ModelSurge/sd-webui-comfyui/issues/209 (lines of the pastes): a CUDA
    /// library loaded by the framework, ONNX Runtime's CUDA provider. A CUDA library named
    /// outside a framework, or another library missing, is not this.
    #[test]
    fn a_framework_loading_cuda_libraries_is_its_cuda_build() {
        let ort = "  File \"/home/x/anaconda3/lib/python3.7/site-packages/onnxruntime/capi/\
            _ld_preload.py\", line 12, in <module>\n    _libcublas = CDLL(\"libcublas.so.10\", \
            mode=RTLD_GLOBAL)\nOSError: libcublas.so.10: cannot open shared object file: No such \
            file or directory\n";
        assert_eq!(classes(ort), ["lib-cuda-build"]);
        assert!(reasoning(ort, "lib-cuda-build").contains("libcublas.so.10"));
        let provider = "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:747 \
            CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please \
            reference https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html\n";
        assert_eq!(classes(provider), ["lib-cuda-build"]);
        let rocm_lib = "  File \"/venv/lib/python3.10/site-packages/torch/__init__.py\"\n\
            OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n";
        assert!(classes(rocm_lib).is_empty());
        let no_framework = "./a.out: error while loading shared libraries: libcudart.so.12: \
            cannot open shared object file\n";
        assert!(classes(no_framework).is_empty());
    }

    /// tests/corpus/field-apps.toml, https://github.com/jax-ml/jax/issues/25856, and
    /// tests/corpus/field-platform.toml, https://github.com/invoke-ai/InvokeAI/issues/7146 (lines
    /// of the pastes): no ROCm variant of the version asked for.
    #[test]
    fn no_rocm_variant_of_the_version_asked_for() {
        let jax =
            "WARNING: jax 0.4.31 does not provide the extra 'rocm'\n- 2x AMD MI210 (gfx90a)\n";
        assert_eq!(classes(jax), ["lib-cuda-build"]);
        assert!(reasoning(jax, "lib-cuda-build").contains("jax 0.4.31 has no 'rocm' extra"));
        let pip = ">pip install torch==2.4.1 torchvision==0.19.1 --index-url \
            https://download.pytorch.org/whl/rocm5.6\nERROR: Could not find a version that \
            satisfies the requirement torch==2.4.1 (from versions: 2.2.0+rocm5.6, 2.2.1+rocm5.6, \
            2.2.2+rocm5.6)\n";
        assert_eq!(classes(pip), ["lib-cuda-build"]);
        assert!(
            reasoning(pip, "lib-cuda-build").contains("ROCm 5.6 wheel index has no torch 2.4.1")
        );
        // The version is there (another requirement failed): not this.
        let there =
            "--index-url https://download.pytorch.org/whl/rocm5.6\nERROR: Could not find a \
            version that satisfies the requirement torch==2.2.1+rocm5.6 (from versions: \
            2.2.0+rocm5.6, 2.2.1+rocm5.6)\n";
        assert!(classes(there).is_empty());
    }

    /// The `[[cuda_print]]` table: every entry names its printer, build, condition, the reason a
    /// ROCm build never prints it, and its sources, and its pattern compiles.
    #[test]
    fn the_cuda_print_table_is_complete() {
        let t = &table().cuda_print;
        assert!(t.len() >= 4);
        for p in t {
            assert!(Regex::new(&p.pattern).is_ok(), "{}", p.pattern);
            assert!(p.build == "CUDA" || p.build == "CPU-only", "{}", p.build);
            for field in [&p.printer, &p.when, &p.rocm, &p.source] {
                assert!(!field.is_empty(), "{}", p.pattern);
            }
        }
    }

    /// ONNX Runtime asked for AMD's provider by a package built without it: the warning as
    /// onnxruntime 1.13.1 printed it (https://github.com/microsoft/onnxruntime/issues/18052, a
    /// line of the paste) is the CPU-only package; the same check with the CUDA package's list,
    /// and the ValueError form of 1.6-1.8 (onnxruntime_inference_collection.py @001a1f5), too.
    /// A list that holds AMD's provider, or an unknown provider, gives no answer.
    #[test]
    fn onnx_runtime_without_amds_provider_is_a_build_without_rocm() {
        let cpu = "/home/u/miniconda3/envs/t/lib/python3.8/site-packages/onnxruntime/capi/\
            onnxruntime_inference_collection.py:54: UserWarning: Specified provider \
            'ROCMExecutionProvider' is not in available provider names.Available providers: \
            'CPUExecutionProvider'\n";
        assert_eq!(classes(cpu), ["lib-cuda-build"]);
        let r = reasoning(cpu, "lib-cuda-build");
        assert!(
            r.contains("the CPU-only build") && r.contains("onnxruntime-rocm"),
            "{r}"
        );
        assert!(!r.contains("names no GPU"), "{r}");
        let cuda = "ValueError: Specified provider 'MIGraphXExecutionProvider' is unavailable. \
            Available providers: 'TensorrtExecutionProvider, CUDAExecutionProvider, \
            CPUExecutionProvider'\n";
        assert_eq!(classes(cuda), ["lib-cuda-build"]);
        assert!(reasoning(cuda, "lib-cuda-build").contains("the CUDA build"));
        for none in [
            "Specified provider 'ROCMExecutionProvider' is not in available provider names.\
             Available providers: 'MIGraphXExecutionProvider, CPUExecutionProvider'\n",
            "Specified provider 'ROCMExecutionProvider' is not in available provider names.\
             Available providers: 'FutureExecutionProvider, CPUExecutionProvider'\n",
            "Specified provider 'CUDAExecutionProvider' is not in available provider names.\
             Available providers: 'CPUExecutionProvider'\n",
        ] {
            assert!(
                !classes(none).contains(&"lib-cuda-build".to_string()),
                "{none}"
            );
        }
    }

    /// Lines only a CUDA or CPU-only build prints, beside an AMD GPU: PyTorch's "Found no NVIDIA
    /// driver" (https://github.com/Comfy-Org/ComfyUI/issues/1662 and
    /// https://github.com/JoshuaKimsey/Linux-StableDiffusion-Script/issues/17, lines of the
    /// pastes), its "Torch not compiled with CUDA enabled" as ComfyUI prints it
    /// (https://github.com/Comfy-Org/ComfyUI/issues/2807), NVIDIA's CUDA runtime's text through
    /// CTranslate2 (https://github.com/WEIFENG2333/VideoCaptioner/issues/796), TensorFlow's CUDA
    /// stream executor (its line from https://github.com/nanoporetech/medaka/issues/214 beside the
    /// GPU line of https://github.com/ROCm/legacy-rocm-build/issues/3835).
    #[test]
    fn lines_only_a_build_without_rocm_prints() {
        let no_driver = "# Arch Linux AMD RX6750XT No nvidia driver found error during launch.\n\
            \x20 File \"/home/mea/ComfyUI/pyenv/lib/python3.11/site-packages/torch/cuda/__init__.py\", \
            line 247, in _lazy_init\n    torch._C._cuda_init()\nRuntimeError: Found no NVIDIA \
            driver on your system. Please check that you have an NVIDIA GPU and installed a driver \
            from http://www.nvidia.com/Download/index.aspx\n";
        assert_eq!(classes(no_driver), ["lib-cuda-build"]);
        let r = reasoning(no_driver, "lib-cuda-build");
        assert!(
            r.contains("c10/cuda/CUDAFunctions.cpp")
                && r.contains("the CUDA build")
                && r.contains("hipErrorNoDevice")
                && r.contains(FROM),
            "{r}"
        );
        let radeon_vii = "RuntimeError: Found no NVIDIA driver on your system. Please check that \
            you have an NVIDIA GPU and installed a driver from \
            http://www.nvidia.com/Download/index.aspx\n\nI have an AMD Card \n\nThe card I have is \
            : AMD Vega 20 radeon VII\n";
        assert_eq!(classes(radeon_vii), ["lib-cuda-build"]);
        let cpu_only = "CPU :- AMD 7 5800x\nGPU :- AMD 6600xt\n\"Error occurred when executing \
            CheckpointLoaderSimple:\n\nTorch not compiled with CUDA enabled\n\nFile \
            \"C:\\Users\\WADEHRA\\conda_cm\\ComfyUI\\execution.py\", line 152, in \
            recursive_execute\n";
        assert_eq!(classes(cpu_only), ["lib-cuda-build"]);
        let r = reasoning(cpu_only, "lib-cuda-build");
        assert!(
            r.contains("the CPU-only build") && r.contains("_cuda_getDeviceCount"),
            "{r}"
        );
        let cudart =
            "AMD Radeon RX 6750 XT显卡 语音转录失败\n2025-09-04 00:21:30 - faster_whisper - \
            ERROR - RuntimeError: CUDA failed with error CUDA driver version is insufficient for \
            CUDA runtime version\n";
        assert_eq!(classes(cudart), ["lib-cuda-build"]);
        assert!(reasoning(cudart, "lib-cuda-build").contains("libcudart"));
        let tf = "labels: AMD Radeon RX 7900 XTX, ROCm 6.2.0\n2020-10-08 23:28:14.726991: E \
            tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN \
            ERROR (303)\n";
        assert_eq!(classes(tf), ["lib-cuda-build"]);
        assert!(reasoning(tf, "lib-cuda-build").contains("hipInit"));
    }

    /// The message as PyTorch's Python printed it before c10 did (torch/cuda/__init__.py
    /// `_check_driver`, broken over lines): https://github.com/AbnerHqC/GaitSet/issues/95 (its
    /// "Tesla k80" an NVIDIA GPU: no answer), and the same lines beside the GPU of
    /// https://github.com/neuralchen/SimSwap/issues/421 (answered, the line where it begins).
    #[test]
    fn the_message_broken_over_lines() {
        let old = "AssertionError:\nFound no NVIDIA driver on your system. Please check that you\n\
            have an NVIDIA GPU and installed a driver from\nhttp://www.nvidia.com/Download/index.aspx\n";
        let tesla = format!("{old}我有GPU 和NVIDIA驱动但是为什么还是报错没有呀，难道是GPU型号不对我的GPU是Tesla k80的\n");
        assert!(classes(&tesla).is_empty());
        let rx570 = format!("{old}but I have a RX570 GPU.\n");
        assert_eq!(classes(&rx570), ["lib-cuda-build"]);
        let d = rules(&rx570);
        assert!(
            d[0].line == "Found no NVIDIA driver on your system. Please check that you",
            "{}",
            d[0].line
        );
    }

    /// The same lines where they say nothing of an AMD GPU's build: on an NVIDIA machine
    /// (https://github.com/SYSTRAN/faster-whisper/issues/1278; https://github.com/zai-org/ChatGLM2-6B/issues/426,
    /// whose "AMD GTX1650" is a laptop with AMD's CPU and NVIDIA's GPU), on a machine the text
    /// says has no GPU (https://github.com/nanoporetech/medaka/issues/214); PyTorch's "too old" message, printed
    /// only where NVIDIA's driver is installed (https://github.com/vosen/ZLUDA/issues/50); a ROCm
    /// build's own lines (https://github.com/Parsl/parsl/issues/3858,
    /// https://github.com/ROCm/hip/issues/3464); and a user's words that name the message
    /// (https://github.com/Comfy-Org/ComfyUI/issues/5122, https://github.com/ProGamerGov/dream-creator/issues/21,
    /// https://github.com/zai-org/ChatGLM2-6B/issues/426).
    #[test]
    fn the_same_lines_that_say_nothing_of_the_build() {
        for t in [
            "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA \
             runtime version\n\nRunning on a 3050 @ 35W\n\n`| NVIDIA-SMI 535.183.01             \
             Driver Version: 535.183.01   CUDA Version: 12.2`\n",
            "配置：\n拯救者 AMD GTX1650\n搞了半天，还是这个报错：\nAssertionError: Torch not \
             compiled with CUDA enabled\n",
            "2020-10-08 23:28:14.726991: E tensorflow/stream_executor/cuda/cuda_driver.cc:313] \
             failed call to cuInit: UNKNOWN ERROR (303)\n - No GPU\n",
            "Radeon\nRuntimeError: The NVIDIA driver on your system is too old (found version \
             2147483647). Please update your GPU driver by downloading and installing a new \
             version from the URL: http://www.nvidia.com/Download/index.aspx\n",
            "> ROCR_VISIBLE_DEVICES=0 python -c \"import torch\"\nRuntimeError: No HIP GPUs are \
             available\nRadeon RX 7900 XTX\n",
            "AMD Radeon RX 7900 XTX\n2024-04-29 21:45:04.020735: E \
             external/local_xla/xla/stream_executor/rocm/rocm_driver.cc:261] failed call to \
             hipInit: HIP_ERROR_InvalidDevice\n",
            "# RuntimeError: Found no NVIDIA driver on your system. (AMD Linux, was working \
             minutes ago)\nusing amd on linux, was working just fine minutes ago\n",
            "# I have AMD GPU I get this error \"Torch not compiled with CUDA enabled\"\n",
            "请问是不是不支持AMD显卡？我是AMD 6600XT\n\n碰到了异常:\"Torch not compiled with CUDA \
             enabled\"\n",
        ] {
            assert!(classes(t).is_empty(), "{t}");
        }
    }

    /// HIP API names of a later release than the headers compiled against: clang-15 and GCC 12
    /// compiling a file that uses hipStreamLegacy, hipGraphInstantiateParams and
    /// hipGetProcAddress (HIP 6.2's) against Debian 12's HIP 5.2.3 headers, as each prints it.
    #[test]
    fn a_hip_api_of_a_later_release_is_a_newer_source() {
        let clang = "legacy.hip:2:29: error: use of undeclared identifier 'hipStreamLegacy'\n\
                     legacy.hip:2:46: error: unknown type name 'hipGraphInstantiateParams'; did \
                     you mean 'hipGraphInstantiateFlags'?\n3 errors generated when compiling for \
                     gfx1030.\n";
        let gcc = "legacy.hip:2:82: error: ‘hipGetProcAddress’ was not declared in this scope; \
                   did you mean ‘hipGetSymbolAddress’?\n";
        for t in [clang, gcc] {
            assert_eq!(classes(t), ["lib-mixed-releases"], "{t}");
            let r = reasoning(t, "lib-mixed-releases");
            assert!(
                r.contains("from ROCm 6.2 on") && r.contains("rocm-6.2.0"),
                "{r}"
            );
        }
        // Compiled against ROCm 6.2 or later: the name is missing for another reason.
        let newer = format!("/opt/rocm-6.2.1/bin/hipcc -c legacy.hip\n{clang}");
        assert!(classes(&newer).is_empty());
        let older = format!("/opt/rocm-6.1.3/bin/hipcc -c legacy.hip\n{clang}");
        assert_eq!(classes(&older), ["lib-mixed-releases"]);
        // A name every release declares, or a project's own.
        for t in [
            "a.hip:3:5: error: use of undeclared identifier 'hipMalloc'\n",
            "a.hip:3:5: error: use of undeclared identifier 'hipMyHelper'\n",
        ] {
            assert!(classes(t).is_empty(), "{t}");
        }
    }

    /// A line only a build without ROCm prints, in a text that names no GPU: the exception as
    /// PyTorch prints it cut after its first sentence
    /// (https://github.com/HAMM3REXTREME/ComfyUI-Installer/issues/6), NVIDIA's runtime's text
    /// through Caffe beside a bare "amd" (https://github.com/peterljq/OpenMMD/issues/41). Read
    /// for an AMD GPU, saying so and what the line means elsewhere; this machine's PCI bus
    /// settles it where `why` asked it: NVIDIA only withdraws it, AMD only makes it this
    /// machine's answer, both or neither leave the conditional reading.
    #[test]
    fn a_line_in_a_text_that_names_no_gpu() {
        use super::super::here::{Here, PciGpus};
        let cut = "RuntimeError: Found no NVIDIA driver on your system.\n";
        let caffe = "Error:\nCuda check failed (35 vs. 0): CUDA driver version is insufficient \
                     for CUDA runtime version\n\nits because u have amd\n";
        for t in [cut, caffe] {
            assert_eq!(classes(t), ["lib-cuda-build"], "{t}");
            let r = reasoning(t, "lib-cuda-build");
            assert!(
                r.contains("the text names no GPU: read for an AMD GPU")
                    && r.contains("NVIDIA's driver is missing or too old")
                    && r.contains(FROM),
                "{r}"
            );
        }
        let settled = |pci: PciGpus, isas: &[&str]| {
            let mut d = rules(cut);
            let here = Here::with_isas(isas.iter().map(|s| s.to_string())).with_pci(Some(pci));
            on_machine(&mut d, &here);
            d.iter()
                .find(|d| d.symptom.class.as_deref() == Some("lib-cuda-build"))
                .map(|d| d.reasoning().to_string())
        };
        let nvidia = PciGpus { amd: 0, nvidia: 1 };
        let amd = PciGpus { amd: 1, nvidia: 0 };
        let both = PciGpus { amd: 1, nvidia: 1 };
        assert_eq!(settled(nvidia, &[]), None);
        let r = settled(amd, &["gfx1030"]).unwrap();
        assert!(
            r.contains("this machine has an AMD GPU (gfx1030, measured) and no NVIDIA GPU")
                && !r.contains("read for an AMD GPU")
                && !r.contains(FROM),
            "{r}"
        );
        let r = settled(amd, &[]).unwrap();
        assert!(
            r.contains("an AMD GPU on its PCI bus and no NVIDIA GPU"),
            "{r}"
        );
        for (unsettled, shown) in [
            (both, "shows both an AMD and an NVIDIA GPU"),
            (PciGpus::default(), "PCI bus shows no AMD or NVIDIA GPU"),
        ] {
            let r = settled(unsettled, &[]).unwrap();
            assert!(
                r.contains("read for an AMD GPU") && r.contains(shown),
                "{r}"
            );
            assert!(!r.contains(FROM), "{r}");
        }
        // A text that names its AMD GPU is the text's answer, whatever this machine has.
        let named = "RuntimeError: Found no NVIDIA driver on your system.\nGPU: Radeon RX 6800\n";
        let mut d = rules(named);
        on_machine(
            &mut d,
            &Here::text_only().with_pci(Some(PciGpus { amd: 0, nvidia: 1 })),
        );
        assert_eq!(
            d.iter()
                .filter_map(|d| d.symptom.class.as_deref())
                .collect::<Vec<_>>(),
            ["lib-cuda-build"]
        );
        // "No GPU" said of the machine: the program runs on the CPU.
        assert!(classes(&format!("{cut}I have no GPU on this machine.\n")).is_empty());
    }

    /// A CUDA or CPU-only build on an AMD GPU by design: ZLUDA (https://github.com/vosen/ZLUDA/issues/350,
    /// beside the GPU line of https://github.com/patientx/ComfyUI-Zluda/issues/82), DirectML
    /// (https://github.com/lllyasviel/Fooocus/issues/113), macOS (the same thread). The build is
    /// what the set-up uses: no answer tells the user to install the ROCm build; without the
    /// set-up's line the same text is answered.
    #[test]
    fn zluda_directml_and_macos_are_not_told_to_install_rocm() {
        let error = "RuntimeError: Found no NVIDIA driver on your system. Please check that you \
            have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n";
        let gpu = "Windows 10, 7900XTX, Radeon 25.5.1\n";
        let zluda = format!(
            "# How to use ZLUDA on UBUNTU?\nLD_LIBRARY_PATH=/zluda/zluda-4-linux/zluda/libcuda.so \
             python main.py\n{gpu}{error}"
        );
        assert!(classes(&zluda).is_empty());
        assert_eq!(classes(&format!("{gpu}{error}")), ["lib-cuda-build"]);
        let assertion = "AssertionError: Torch not compiled with CUDA enabled\n";
        let amd = "Facing the same issue with AMD video card. Radeon\n";
        for setup in [
            "i did, the only thing different is that I had to add some flags (args: --directml 0)\n",
            "I'm running on macOS, and passing `--cpu` works for me.\n",
        ] {
            assert!(classes(&format!("{amd}{setup}{assertion}")).is_empty(), "{setup}");
        }
        assert_eq!(classes(&format!("{amd}{assertion}")), ["lib-cuda-build"]);
    }

    /// tests/corpus/field-apps.toml, https://github.com/ROCm/hipBLASLt/issues/1281 and
    /// https://github.com/ROCm/hipBLASLt/issues/1210 (lines of the pastes).
    #[test]
    fn a_file_of_a_later_release_missing_is_a_newer_source_tree() {
        let pkg = "CMake Error at CMakeLists.txt:266 (find_package):\n  Could not find a package \
            configuration file provided by \"hipblas-common\"\n  with any of the following names:\n";
        assert_eq!(classes(pkg), ["lib-mixed-releases"]);
        let r = reasoning(pkg, "lib-mixed-releases");
        assert!(
            r.contains("hipblas-common") && r.contains("ROCm 6.3 or later"),
            "{r}"
        );
        let hdr = "Tensile/DataTypes_Float8_BFloat8.hpp:40:10: fatal error: 'hip/hip_fp8.h' file \
            not found\n";
        assert_eq!(classes(hdr), ["lib-mixed-releases"]);
        // A header or package the table does not date is some other question.
        let other = "foo.cpp:1:10: fatal error: 'hip/hip_runtime.h' file not found\nCould not \
            find a package configuration file provided by \"rocblas\"\n";
        assert!(classes(other).is_empty());
    }

    /// tests/corpus/field-libs.toml, https://github.com/ROCm/AMDMIGraphX/pull/3226,
    /// https://github.com/ROCm/clr/issues/48, https://github.com/ROCm/TheRock/issues/7841 and
    /// tests/corpus/field-apps.toml, https://github.com/abetlen/llama-cpp-python/issues/695 (lines
    /// of the pastes); a CMake error in a project's own file about something else is not this.
    #[test]
    fn cmakes_hip_setup() {
        for t in [
            "CMake Error at src/targets/gpu/CMakeLists.txt:31 (message):\n  HIP package is broken \
             and has no GPU_TARGETS.  Please pass GPU_TARGETS to\n  cmake.\n",
            "CMake Error at /opt/rocm-6.0.0/lib/cmake/hip/hip-config-amd.cmake:121 (if):\n  if \
             given arguments:\n",
            "CMake Error at .../CMakeDetermineHIPCompiler.cmake:224 (message):\n  Failed to find a \
             default HIP architecture.\n",
            "      c++: error: unrecognized command-line option ‘--offload-arch=gfx900’\n",
            // GCC 12.2 (Debian 12) given hipcc's older target option, -fgpu-rdc, --hip-link
            // and `-x hip`, as it prints them.
            "g++: error: unrecognized command-line option ‘--amdgpu-target=gfx906’\n",
            "g++: error: unrecognized command-line option ‘-fgpu-rdc’\n",
            "g++: error: unrecognized command-line option ‘--hip-link’\n",
            "g++: error: language hip not recognized\n",
        ] {
            assert_eq!(classes(t), ["build-cmake"], "{t}");
        }
        // GCC refusing an option of its own kind is not this.
        assert!(classes("g++: error: unrecognized command-line option ‘-mavx512q’\n").is_empty());
        let own = "CMake Error at CMakeLists.txt:12 (message):\n  Python3 not found\n";
        assert!(classes(own).is_empty());
        let clang = "clang++: error: unsupported option '--offload-arch=gfx1100'\n";
        assert!(classes(clang).is_empty());
    }

    /// tests/corpus/field-more.toml, https://github.com/Parsl/parsl/issues/3858 and
    /// https://github.com/vllm-project/vllm/pull/21522 (lines of the pastes); then one mask and
    /// no failure, and a failure with no mask.
    #[test]
    fn device_masks() {
        let both =
            "> ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1 python -c \"import torch\"\n0\n\
            RuntimeError: No HIP GPUs are available\n";
        assert_eq!(classes(both), ["platform-visible-devices"]);
        assert!(reasoning(both, "platform-visible-devices")
            .contains("ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1"));
        let ray = "throws error `\nRuntimeError: HIP error: invalid device ordinal` and \n```\n\
            RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1 vllm serve x\n```\nworks.\n";
        assert_eq!(classes(ray), ["platform-visible-devices"]);
        let one = "ROCR_VISIBLE_DEVICES=1 python train.py\nepoch 1 loss 0.3\n";
        assert!(classes(one).is_empty());
        let bare = "RuntimeError: HIP error: invalid device ordinal\n";
        assert!(classes(bare).is_empty());
        let only_rocr = "ROCR_VISIBLE_DEVICES=1 python x.py\nRuntimeError: No HIP GPUs are \
            available\n";
        assert!(classes(only_rocr).is_empty());
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/ROCm-docker/issues/50 (lines of
    /// the paste); then the message alone, which a missing driver prints too.
    #[test]
    fn a_module_check_the_text_contradicts() {
        let t = "sh: 1: lsmod: not found\nROCk module is NOT loaded, possibly no GPU devices\n\
            ==========\nHSA Agents\n==========\n";
        assert_eq!(classes(t), ["tool-false-check"]);
        assert!(reasoning(t, "tool-false-check").contains("lsmod: not found"));
        assert_eq!(rules(t)[0].overrules, ["gpu-driver-missing"]);
        assert!(
            classes("rocminfo\nROCk module is NOT loaded, possibly no GPU devices\n").is_empty()
        );
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/amdsmi/issues/84 (lines of the
    /// paste), and tests/corpus/field-libs.toml, https://github.com/ROCm/amdsmi/issues/172 (its
    /// CPU line, with no server named and no failed initialisation: harmless).
    #[test]
    fn hsmp_on_a_server_and_off_it() {
        let mi300a = "ESMI Not initialized, drivers not found \nFailed to initialize AMD SMI \
            library\n";
        assert_eq!(classes(mi300a), ["platform-hsmp-missing"]);
        let desktop = "ERROR:root:Unable to detect any CPU devices, check amd_hsmp (or) hsmp_acpi \
            version and module status (sudo modprobe amd_hsmp (or) sudo modprobe hsmp_acpi)\n";
        let d = rules(desktop);
        assert_eq!(d.len(), 1);
        assert!(d[0].symptom.harmless);
        assert_eq!(d[0].symptom.class.as_deref(), Some("benign-other"));
        assert!(classes("amd-smi static --gpu\nGPU: 0\n").is_empty());
        // Beside a failure of the GPU side, the CPU line is not the answer (the GPU side is).
        let gpu_too = format!(
            "ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in \
             modules)\n{desktop}"
        );
        assert!(classes(&gpu_too).is_empty());
    }

    /// tests/corpus/field-more.toml, https://github.com/ROCm/legacy-rocm-build/issues/3656 (lines
    /// of the paste); then AMD's package alone, and two of AMD's releases.
    #[test]
    fn the_same_package_from_both_sources() {
        let t = "Get:1 http://archive.ubuntu.com/ubuntu noble/universe amd64 rocminfo amd64 \
            5.7.1-3build1 [25.6 kB]\nGet:1 https://repo.radeon.com/rocm/apt/6.2 noble/main amd64 \
            rocminfo amd64 1.0.0.60200-66~24.04 [29.3 kB]\n";
        assert_eq!(classes(t), ["platform-package-conflict"]);
        let r = reasoning(t, "platform-package-conflict");
        assert!(
            r.contains("5.7.1-3build1") && r.contains("1.0.0.60200-66~24.04"),
            "{r}"
        );
        let amd = "Get:1 https://repo.radeon.com/rocm/apt/6.2 noble/main amd64 rocminfo amd64 \
            1.0.0.60200-66~24.04 [29.3 kB]\n";
        assert!(classes(amd).is_empty());
        let two = "rocminfo 1.0.0.60200-66~24.04\nrocminfo 1.0.0.60103-122~22.04\n";
        assert!(classes(two).is_empty());
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/legacy-rocm-build/issues/343, and
    /// tests/corpus/field-libs.toml, https://github.com/xuhuisheng/rocm-gfx803/issues/1 (lines of
    /// the pastes); then KFD's eviction failing, which is no information.
    #[test]
    fn information_by_its_origin_is_harmless() {
        for t in [
            "[ 2258.451590] Evicting PASID 1 queues\n[ 2258.459225] Restoring PASID 1 queues\n",
            "warning: xnack 'Off' was requested for a processor that does not support it!\n",
        ] {
            let d = rules(t);
            assert_eq!(d.len(), 1, "{t}");
            assert!(d[0].symptom.harmless, "{t}");
            assert_eq!(d[0].symptom.class.as_deref(), Some("benign-other"));
            let r = reasoning(t, "benign-other");
            assert!(r.contains("printed by") && r.contains("level"), "{r}");
        }
        let failed = "amdgpu: Evicting process queues failed\n";
        assert!(classes(failed).is_empty());
    }

    /// tests/corpus/field-apps.toml, https://github.com/ggml-org/llama.cpp/issues/6523 (lines of
    /// the paste); then the same header missing outside a HIP build.
    #[test]
    fn the_standard_library_of_the_chosen_gcc() {
        let t = "\"make\" command fails with:\n   'cmath' file not found\n\ne.g.:\n     make \
            LLAMA_HIPBLAS=1\n";
        assert_eq!(classes(t), ["build-host-stdlib"]);
        let plain = "g++ main.cpp\nmain.cpp:1:10: fatal error: 'cmath' file not found\n";
        assert!(classes(plain).is_empty());
    }

    /// tests/corpus/field-apps.toml, https://github.com/pytorch/pytorch/pull/188454 (line of the
    /// paste); a system library missing is not this.
    #[test]
    fn a_bundled_sysdeps_library_not_found_is_the_builds_bug() {
        let t = "ImportError: librocm_sysdeps_liblzma.so.5: cannot open shared object file\n";
        assert_eq!(classes(t), ["lib-bug-fixed-later"]);
        assert_eq!(rules(t)[0].overrules, ["lib-missing"]);
        let system = "ImportError: liblzma.so.5: cannot open shared object file\n";
        assert!(classes(system).is_empty());
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/legacy-rocm-build/issues/3414
    /// (lines of the paste); then a reset wait without a VM, and a VM without a failed reset.
    #[test]
    fn a_passed_through_gpu_that_does_not_come_back() {
        let t =
            "- This seems to happen only for the VM with the GPU passthrough.\nJul 23 18:05:32 \
            pm kernel: vfio-pci 0000:84:00.0: not ready 4095ms after bus reset; waiting\nJul 15 \
            15:54:07 pm QEMU[69339]: kvm: vfio: Unable to power on device, stuck in D3\n";
        assert_eq!(classes(t), ["platform-vm-passthrough"]);
        let bare = "pcieport 0000:00:01.1: not ready 1023ms after resume; waiting\n";
        assert!(classes(bare).is_empty());
        let vm = "Proxmox VE 8.2 guest, rocminfo lists gfx1100\n";
        assert!(classes(vm).is_empty());
    }

    /// tests/corpus/field-more.toml, https://github.com/justxi/rocm/issues/73, and
    /// tests/corpus/field-stack.toml, https://github.com/ROCm/legacy-rocm-build/issues/1167
    /// (lines of the pastes).
    #[test]
    fn hipcc_unable_to_run_a_program() {
        let root = "Can't exec \"/opt/rocm/bin/rocm_agent_enumerator\": No such file or directory \
            at /usr/lib/hip/bin/hipcc line 690.\n";
        assert_eq!(classes(root), ["build-hipcc-config"]);
        let tool =
            "Can't exec \"file\": No such file or directory at /opt/rocm/bin/hipcc line 584.\n";
        assert_eq!(classes(tool), ["lib-missing"]);
        let other = "Can't exec \"file\": No such file or directory at ./build.pl line 3.\n";
        assert!(classes(other).is_empty());
    }
}
