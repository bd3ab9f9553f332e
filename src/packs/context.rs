//! The deciding context of a text (issue 28, item 4). Pure.
//!
//! One headline often has two readings, and a fact elsewhere in the same text decides between
//! them. Each rule here names that fact, says where it came from (the text; this machine is not
//! asked) and puts its cause before the reading the fact rules out:
//! - a Tensile library read under `<root>/<component>/lib/<component>/library`: a library of the
//!   new layout loaded from the old layout's wrapper directory (a stale path, not missing data);
//! - an override whose ISA the build's own targets in the text do not include: the build has no
//!   code for what the runtime asks (not an unsupported GPU, not a wrong family);
//! - an undefined `__device_stub__` symbol: a kernel of the library itself was never compiled
//!   into it (a broken build, not two releases mixed);
//! - a tool refusing the GPU's ISA while its own printed list names it, glued to another: a list
//!   missing a separator (a bug of that build, not a build without the ISA);
//! - a device mask that selects no device beside "no GPU": the mask, not the driver or access;
//! - amdgpu's "MES failed to respond" beside a memory access fault: the scheduler firmware, not
//!   the program.
//! - a memory access fault on a GPU the named release (or, none named, no current release)
//!   supports, with no override: the GPU, not the program's memory accesses;
//! - Tensile refusing, in a build, an ISA later builds of the libraries target: the library
//!   version predates its support, not a GPU nobody builds for;
//! - an undefined ockl/ocml function: ROCm's device libraries left out of the device link (the
//!   program's run-time compile options when hiprtc or comgr compiled it), not `-fgpu-rdc`.
//!
//! Every rule has a negative test: the same headline without the deciding fact keeps the
//! answer it had. `why::recognise` joins these rules before the others, so the fact that decides
//! comes first.

use super::facts::{line_of, re, Derived, Facts};
use super::Symptom;
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

/// The `[context]` table of `checks/why-facts.toml` (its comments cite each fact's source).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    old_layout_until: String,
    build_targets: Vec<String>,
}

/// `checks/why-facts.toml` as this module reads it: its `[context]` table, and the one fact of
/// `[gpu]` it shares with the GPU rules (`rocblas_targets`, cited there).
#[derive(Debug, Deserialize)]
struct File {
    context: Data,
    gpu: Gpu,
}

/// The part of `[gpu]` read here.
#[derive(Debug, Deserialize)]
struct Gpu {
    rocblas_targets: Vec<String>,
}

fn rocblas_targets() -> &'static [String] {
    static T: OnceLock<Vec<String>> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded::<File>(
            "checks/why-facts.toml",
            include_str!("../../checks/why-facts.toml"),
        )
        .gpu
        .rocblas_targets
    })
}

fn data() -> &'static Data {
    static D: OnceLock<Data> = OnceLock::new();
    D.get_or_init(|| {
        crate::data::embedded::<File>(
            "checks/why-facts.toml",
            include_str!("../../checks/why-facts.toml"),
        )
        .context
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
    super::facts::cached_symptom(
        cell,
        [
            id,
            title,
            class,
            cause,
            fix,
            "rule over the deciding context of the text (src/packs/context.rs, \
             checks/why-facts.toml [context])",
        ],
    )
}

/// "Stale path, not missing data": rocBLAS looks for its Tensile library in `<dir>/rocblas/library`
/// where `<dir>` is the directory it was loaded from (`tensile_host.cpp`, see
/// src/binfacts/tensile_path.rs), hipBLASLt likewise. A path `<root>/<c>/lib/<c>/library` is that
/// rule applied to `<root>/<c>/lib`, the wrapper directory the new layout keeps for the old one
/// (`[context] old_layout_until`): the library was loaded through an old-layout path
/// (LD_LIBRARY_PATH, an RPATH), and its data is in `<root>/lib/<c>/library`.
fn old_layout_path(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static PATH: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    if !text.contains("Tensile") {
        return None;
    }
    // A line that says the read failed (a debug line listing a library it loaded is no failure).
    let failed = re(
        &FAILED,
        r"(?i)Cannot read|Could not load|No such file|not found|error",
    );
    let path = re(
        &PATH,
        r"(?P<root>/[\w./+-]*?)/(?P<c>[a-z]+)/lib/(?P<c2>[a-z]+)/library\b",
    );
    let (line, root, c) = text.lines().find_map(|l| {
        let m = path.captures(l)?;
        (m["c"] == m["c2"] && l.contains("Tensile") && failed.is_match(l)).then(|| {
            let line: String = l.trim().chars().take(300).collect();
            (line, m["root"].to_string(), m["c"].to_string())
        })
    })?;
    let sy = symptom(
        &S,
        "context.old-layout-path",
        "the library was loaded through the old layout's wrapper directory",
        "lib-stale-path",
        "The library looks for its kernel data next to the directory it was loaded from. It was \
         loaded from <root>/<component>/lib, the wrapper directory of symlinks that ROCm keeps \
         for the layout of its older releases, so it looks in a directory that never exists; \
         the data is installed under <root>/lib/<component>/library.",
        "Remove <root>/<component>/lib from LD_LIBRARY_PATH (and from any RPATH or ld.so.conf \
         entry) so the library loads from <root>/lib, or point ROCBLAS_TENSILE_LIBPATH \
         (HIPBLASLT_TENSILE_LIBPATH) at <root>/lib/<component>/library.",
    );
    let until = &data().old_layout_until;
    let reasoning = format!(
        "the path read is {root}/{c}/lib/{c}/library ({FROM}): the rule of a release after \
         {until} (data in <library dir>/{c}/library) applied to {root}/{c}/lib, the wrapper \
         directory kept for the layout of ROCm {until} and older; the data is in \
         {root}/lib/{c}/library"
    );
    let over = &["lib-rocblas-data", "lib-hipblaslt-data", "lib-missing"];
    Some(Derived::reasoned(sy, line, reasoning).overruling(over))
}

/// The targets a build in the text names (`[context] build_targets`), each as written; `None`
/// when the text names none, or a value is not a list of targets (a variable, a placeholder).
fn build_targets(text: &str) -> Option<(Vec<String>, String)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let r = RE.get_or_init(|| {
        let names = data().build_targets.join("|");
        // `NAME=v`, `NAME:TYPE=v` (CMake's cache), `NAME v`; the value quoted or bare.
        let value = concat!(
            r#"(?::[A-Z]+)?(?:\s*=\s*|[ ]+)"#,
            r#"(?:"(?P<q>[^"\n]*)"|'(?P<s>[^'\n]*)'|(?P<v>[^\s"'`)]+))"#,
        );
        let src = format!("(?:{names}){value}");
        Regex::new(&super::facts::ascii_boundaries(&src))
            .unwrap_or_else(|e| panic!("checks/why-facts.toml [context]: {e}"))
    });
    static TARGET: OnceLock<Regex> = OnceLock::new();
    let target = re(&TARGET, r"^[a-z]{3}[0-9]{3,4}[a-z]?(?::[a-z+-]+)*$");
    let mut out: Vec<String> = Vec::new();
    let mut shown = None;
    for c in r.captures_iter(text) {
        let m = c.get(0).map_or("", |m| m.as_str());
        let v = ["q", "s", "v"]
            .iter()
            .find_map(|g| c.name(g))
            .map_or("", |v| v.as_str());
        for t in v.split([';', ',', ' ']).filter(|t| !t.is_empty()) {
            if !target.is_match(t) {
                return None;
            }
            out.push(t.to_string());
        }
        shown.get_or_insert_with(|| m.to_string());
    }
    Some((out, shown?))
}

/// "The build has no code for the ISA the override asks for": an override makes the runtime
/// load the code of the ISA it names (ROCr reports the agent as that ISA; HIP then picks the
/// code object of that ISA, gpu-build-facts.md), so a build whose targets in the text do not
/// include that ISA has nothing to run, whatever the GPU is.
fn target_vs_override(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NO_CODE: OnceLock<Regex> = OnceLock::new();
    if !text.contains("HSA_OVERRIDE_GFX_VERSION") {
        return None;
    }
    let line = line_of(text, re(&NO_CODE, super::facts::NO_CODE))?;
    let (targets, shown) = build_targets(text)?;
    let asked: Vec<String> = super::gpu_rules::overrides(text)
        .iter()
        .filter_map(|v| crate::gpu::overrides::parse_override(v).ok()?.gfx())
        .collect();
    let bare = |t: &str| t.split(':').next().unwrap_or(t).to_string();
    let isa = asked.first()?;
    if asked.iter().any(|a| targets.iter().any(|t| bare(t) == *a)) {
        return None;
    }
    let unknown: Vec<String> = targets
        .iter()
        .map(|t| bare(t))
        .filter(|t| crate::isa::processor(t).is_none())
        .collect();
    let note = if unknown.is_empty() {
        String::new()
    } else {
        format!(" ({} is no processor LLVM knows)", unknown.join(", "))
    };
    let sy = symptom(
        &S,
        "context.target-vs-override",
        "the override asks for code of an ISA the build does not target",
        "codeobj-no-binary",
        "HSA_OVERRIDE_GFX_VERSION makes the runtime load the code of the ISA it names, so the \
         program must be built for that ISA. The build in the text names other targets, so it \
         has no code object for what the runtime asks, whatever the GPU is.",
        "Make the build's targets and the override name the same ISA: build for the ISA of the \
         override (AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH / --offload-arch), or build \
         for the GPU's own ISA and unset the override.",
    );
    let reasoning = format!(
        "HSA_OVERRIDE_GFX_VERSION in the text makes the runtime ask for {isa} code; the build's \
         targets in the text ({shown}) do not include {isa}{note} ({FROM})"
    );
    let over = &["gpu-unsupported-asic", "gpu-override-misuse"];
    Some(Derived::reasoned(sy, line, reasoning).overruling(over))
}

/// "A kernel of the library itself is missing": clang names the host-side launch stub of a HIP
/// (CUDA) kernel `__device_stub__<kernel>` (clang `CodeGen/CGCUDANV.cpp`, the stub emitted for
/// each `__global__` function), and the library's own code calls it. Undefined, it means the
/// library was built without that kernel's instantiation: a broken build of that library, which
/// no other release's library can provide.
fn own_kernel_missing(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static STUB: OnceLock<Regex> = OnceLock::new();
    if !text.contains("__device_stub__") {
        return None;
    }
    let stub = re(&STUB, r"undefined symbol: (\w*__device_stub__\w*)");
    let (line, sym) = text.lines().find_map(|l| {
        let c = stub.captures(l)?;
        Some((
            l.trim().chars().take(300).collect::<String>(),
            c[1].to_string(),
        ))
    })?;
    let sy = symptom(
        &S,
        "context.own-kernel-missing",
        "the library lacks one of its own kernels (a broken build)",
        "lib-bug-fixed-later",
        "The undefined symbol is the launch stub of a GPU kernel of the library itself: the \
         library calls a kernel it was built without. No other library or release provides it; \
         the build is broken.",
        "Install another build of that library (an earlier working one, or a later one with the \
         kernel), or build it from source; the rest of the ROCm install is not at fault.",
    );
    let sym: String = sym.chars().take(120).collect();
    let reasoning = format!(
        "the undefined symbol {sym} is a kernel's launch stub (__device_stub__, the name clang \
         gives it) that the library's own code calls ({FROM}): that build lacks the kernel"
    );
    Some(Derived::reasoned(sy, line, reasoning).overruling(&["lib-mixed-releases"]))
}

/// "The tool's own list names the ISA": a tool that refuses the GPU's ISA while the list of
/// ISAs it prints as supported contains that ISA glued to another (`gfx1030gfx1100`) was built
/// with a list missing a separator, so its check fails for an ISA it has code for (TensorFlow's
/// `gpu_device.cc` prints the device's ISA and then its list).
fn glued_list(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NO_CODE: OnceLock<Regex> = OnceLock::new();
    static GLUED: OnceLock<Regex> = OnceLock::new();
    static ONE: OnceLock<Regex> = OnceLock::new();
    let (isa, _) = f.isas.first()?;
    line_of(text, re(&NO_CODE, super::facts::NO_CODE))?;
    let glued = re(
        &GLUED,
        concat!(r"(?i)supported.*?\b((?:", isa_name!(), r"){2,})\b"),
    );
    let one = re(&ONE, isa_name!());
    let (line, token) = text.lines().find_map(|l| {
        let c = glued.captures(l)?;
        let t = c[1].to_string();
        one.find_iter(&t)
            .any(|m| m.as_str() == isa)
            .then(|| (l.trim().chars().take(300).collect::<String>(), t))
    })?;
    let sy = symptom(
        &S,
        "context.glued-isa-list",
        "the tool's list of supported ISAs names the GPU's ISA, glued to another",
        "lib-bug-fixed-later",
        "The tool refuses the GPU's ISA, yet the list of ISAs it prints as supported contains it, \
         glued to the one before it: the list it was built with misses a separator, so its check \
         never matches that ISA. The GPU and the install are fine.",
        "Use a build of the tool with the list fixed (a later release), or rebuild it with the \
         separator in its list of ISAs.",
    );
    let reasoning = format!(
        "the GPU's ISA {isa} and the tool's list of supported ISAs, both from the text: the list \
         holds \"{token}\", {isa} glued to another ISA, so the check cannot match it ({FROM})"
    );
    let over = &["codeobj-no-binary", "gpu-unsupported-asic"];
    Some(Derived::reasoned(sy, line, reasoning).overruling(over))
}

/// "The mask hides every GPU": a device mask whose value selects no device. The masks are lists
/// of device indices (AMD, "GPU isolation techniques", rocm.docs.amd.com/en/latest/conceptual/
/// gpu-isolation.html); `-1` is an index no device has, so nothing is exposed (the CUDA
/// convention HIP's masks follow), and `NoDevFiles` is the value Slurm's GPU plugin
/// (`src/plugins/gres/gpu/gres_gpu.c`) sets for a job given no GPU. A runtime that then finds no
/// device is doing what it was told: the deciding fact is the mask, not the driver or the
/// device files. ROCr's mask hides every GPU when set to an empty value too: ROCr filters the
/// GPUs whenever the variable is set (`filter_visible_gpus_ = os::IsEnvVarSet(...)`, ROCR-Runtime
/// `core/util/flag.h`), and an empty list keeps none (hipSOLVER#59 shows the result); HIP's own
/// masks read an empty value as unset, so only ROCr's is read so.
fn mask_hides_all(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NONE: OnceLock<Regex> = OnceLock::new();
    static MASK: OnceLock<Regex> = OnceLock::new();
    static EMPTY: OnceLock<Regex> = OnceLock::new();
    if !text.contains("_VISIBLE_DEVICES") {
        return None;
    }
    let line = line_of(
        text,
        re(
            &NONE,
            &format!(
                "(?i){}{}{}",
                super::facts::HIP_NO_DEVICE,
                r"|no (?:amd )?gpus? (?:was |were )?(?:found|detected)",
                // Programs' own words for a device count of zero (hipSOLVER#59's test client).
                r"|No devices found|cannot get device count",
            ),
        ),
    )?;
    let mask = re(
        &MASK,
        concat!(
            r#"\b((?:ROCR|HIP|CUDA)_VISIBLE_DEVICES)["']?\]?\s*[:=]\s*["']?"#,
            r#"(-1|NoDevFiles)(?:["'\s,;)]|$)"#,
        ),
    );
    let set = match mask.captures(text) {
        Some(c) => format!("{}={}", &c[1], &c[2]),
        None => {
            // A shell assignment with nothing after '=' (or an empty quoted string), not prose.
            let empty = re(
                &EMPTY,
                r#"(?m)\bROCR_VISIBLE_DEVICES=(?:''|""|[ \t]+[A-Za-z./]|[ \t]*$)"#,
            );
            empty.find(text)?;
            "ROCR_VISIBLE_DEVICES= (an empty value)".to_string()
        }
    };
    let sy = symptom(
        &S,
        "context.mask-hides-all",
        "a device mask hides every GPU",
        "platform-visible-devices",
        "A device mask is set to a value that selects no device (-1, or Slurm's NoDevFiles for a \
         job given no GPU), so the runtime exposes none and reports that no GPU is available: \
         it does what the mask says; the driver and the device files are not the question.",
        "Unset the mask (or set it to the indices or UUIDs of the GPUs to use); under Slurm, ask \
         for GPUs (--gpus / --gres=gpu:N). A script or test that hides the GPUs on purpose needs \
         nothing fixed.",
    );
    let reasoning =
        format!("{set} in the text selects no device, and the runtime then reports none ({FROM})");
    let over = &[
        "gpu-kfd-permission",
        "gpu-no-amd-gpu",
        "gpu-driver-missing",
        "gpu-container-devices",
    ];
    Some(Derived::reasoned(sy, line, reasoning).overruling(over))
}

/// "The scheduler firmware stopped answering": amdgpu prints "MES failed to respond to msg=..."
/// (`mes_v11_0.c`/`mes_v12_0.c`, `dev_err` when the Micro Engine Scheduler firmware does not
/// complete a request; newer kernels print "MES(<pipe>) failed to respond"). Beside a memory
/// access fault, the fault follows from the firmware (or its pairing with the kernel driver):
/// queues are no longer scheduled or removed as the runtime expects. An override in the text is
/// left to the override rule (a wrong ISA can hang the firmware too).
fn mes_hang(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static FAULT: OnceLock<Regex> = OnceLock::new();
    static MES: OnceLock<Regex> = OnceLock::new();
    if !text.contains("MES") || text.contains("HSA_OVERRIDE_GFX_VERSION") {
        return None;
    }
    let fault = re(
        &FAULT,
        r"Memory access fault by GPU|page fault \(src_id|GCVM_L2_PROTECTION_FAULT",
    );
    line_of(text, fault)?;
    let line = line_of(text, re(&MES, r"MES(?:\(\d+\))? failed to respon(?:d|se)"))?;
    let sy = symptom(
        &S,
        "context.mes-hang",
        "the GPU's scheduler firmware (MES) stopped answering the driver",
        "gpu-firmware",
        "The amdgpu driver reports that the Micro Engine Scheduler firmware did not answer a \
         request. The memory access fault beside it follows from that: the firmware (or its \
         pairing with the kernel driver) is at fault, not the program's memory accesses.",
        "Update linux-firmware and the kernel together to versions known to work for the GPU \
         (or roll back the firmware package that brought the failure; a fixed firmware file can \
         be placed in /lib/firmware/updates/amdgpu/), then reboot.",
    );
    let reasoning = format!(
        "a memory access fault and amdgpu's \"MES failed to respond\" line, both from the text \
         ({FROM}): the scheduler firmware stopped answering first"
    );
    let over = &["mem-access-fault", "gpu-override-misuse"];
    Some(Derived::reasoned(sy, line, reasoning).overruling(over))
}

/// "The device libraries were not linked": `__ockl_*` and `__ocml_*` are functions of ROCm's
/// device libraries (ROCm-Device-Libs, `ockl.bc` and `ocml.bc`: the kernel-language and math
/// libraries, llvm-project `amd/device-libs/README.md`), which the compiler links into device
/// code itself as bitcode (clang's ROCm toolchain, `-mlink-builtin-bitcode`, unless `-nogpulib`;
/// comgr's `AMD_COMGR_ACTION_COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC`, `amd_comgr.h`). Undefined at
/// the device link, they were left out of that compilation: never a function of another file
/// (the `-fgpu-rdc` reading of "undefined hidden symbol"). Compiled at run time (hiprtc, comgr,
/// named in the text), the program chose its own compile options: its bug, fixed in the program;
/// compiled offline, the compiler did not find or link the device libraries.
fn device_libs_unlinked(text: &str) -> Option<Derived> {
    static RUNTIME: OnceLock<Symptom> = OnceLock::new();
    static OFFLINE: OnceLock<Symptom> = OnceLock::new();
    static SYM: OnceLock<Regex> = OnceLock::new();
    static RTC: OnceLock<Regex> = OnceLock::new();
    if !text.contains("__ockl_") && !text.contains("__ocml_") {
        return None;
    }
    let sym = re(
        &SYM,
        r"undefined (?:hidden )?symbol:? '?(__o(?:ckl|cml)_\w+)",
    );
    let (line, name) = text.lines().find_map(|l| {
        let c = sym.captures(l)?;
        Some((
            l.trim().chars().take(300).collect::<String>(),
            c[1].to_string(),
        ))
    })?;
    let rtc = line_of(text, re(&RTC, r"(?i)\bhiprtc\w*|\bcomgr\b|\bamd_comgr"));
    let (sy, how) = match rtc {
        Some(r) => (
            symptom(
                &RUNTIME,
                "context.device-libs-runtime",
                "a program's run-time compilation left out ROCm's device libraries",
                "lib-bug-fixed-later",
                "The program compiles its GPU code at run time (hiprtc or comgr) and links it \
                 without ROCm's device libraries (ockl, ocml), which only the compile options the \
                 program passes decide: a bug of that program, not of the machine and not \
                 relocatable device code.",
                "Update the program to a version whose run-time compile options link the device \
                 libraries (or apply its fix); nothing on the machine needs changing.",
            ),
            format!(
                "the run-time compiler is named in the text ({})",
                trimmed(&r)
            ),
        ),
        None => (
            symptom(
                &OFFLINE,
                "context.device-libs-unlinked",
                "the device code was linked without ROCm's device libraries",
                "build-device-libs",
                "The device code calls functions of ROCm's device libraries (ockl, ocml) that the \
                 link left undefined: the compiler did not find or did not link the device \
                 library bitcode (-nogpulib, a wrong --rocm-path or HIP_DEVICE_LIB_PATH, a clang \
                 of another release than the device libraries).",
                "Compile with the clang of the ROCm install (hipcc or amdclang++) and its own \
                 device libraries: drop -nogpulib, or point --rocm-path / HIP_DEVICE_LIB_PATH at \
                 the install's amdgcn/bitcode.",
            ),
            "no run-time compiler is named in the text".to_string(),
        ),
    };
    let name: String = name.chars().take(80).collect();
    let reasoning = format!(
        "{name} is a function of ROCm's device libraries, which the compiler links itself, not \
         a function of another source file; {how} ({FROM})"
    );
    Some(Derived::reasoned(sy, line, reasoning).overruling(&["build-rdc"]))
}

fn trimmed(line: &str) -> String {
    line.chars().take(80).collect()
}

/// "A fault on a GPU the release does not support": a memory access fault (ROCr's "Memory access
/// fault by GPU", amdgpu's page-fault lines) in a text whose GPU (an ISA, or a marketing name
/// mapped to one by `checks/why-facts.toml`) the ROCm release it names did not support (its
/// `[[release]]` or `[[retired]]` entry), or, with no release named, that no current release
/// supports; and no override set. ROCm's kernels and runtime are not validated there, so the
/// GPU is the first question, not the program's memory accesses. An override in the text is the
/// override rules' question; a release the tables do not cover decides nothing.
fn fault_on_unsupported(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static FAULT: OnceLock<Regex> = OnceLock::new();
    if f.isas.is_empty() || text.contains("HSA_OVERRIDE_GFX_VERSION") {
        return None;
    }
    let fault = re(
        &FAULT,
        r"Memory access fault by GPU|page fault \(src_id|GCVM_L2_PROTECTION_FAULT",
    );
    let line = line_of(text, fault)?;
    let release = f.versions.iter().find(|(w, _)| w == "rocm").map(|(_, v)| v);
    let unsupported = |isa: &String| match release {
        Some(v) => super::facts::supported_in(isa, v) == Some(false),
        None => !super::facts::supported().contains(isa),
    };
    if !f.isas.iter().all(|(i, _)| unsupported(i)) {
        return None;
    }
    let (isa, named) = &f.isas[0];
    let named = named.as_ref().map_or(String::new(), |n| format!(" ({n})"));
    let by = release.map_or("no current ROCm release".to_string(), |v| {
        format!("ROCm {v}")
    });
    let sy = symptom(
        &S,
        "context.fault-on-unsupported-gpu",
        "a memory access fault on a GPU the ROCm release does not support",
        "gpu-unsupported-asic",
        "The GPU faulted on a memory access, and the GPU is one the ROCm release in use does not \
         support: its kernels and runtime are not validated on it, so the GPU comes before the \
         program's memory accesses.",
        "Use a GPU the release supports, or the last release that supported this GPU; a program \
         that faults on a supported GPU too is then the question.",
    );
    let reasoning = format!(
        "a memory access fault, and {isa}{named}, which {by} does not support, with no \
         HSA_OVERRIDE_GFX_VERSION set ({FROM})"
    );
    Some(Derived::reasoned(sy, line, reasoning).overruling(&["mem-access-fault"]))
}

/// "This version's Tensile predates the target": Tensile stops a library build with
/// "Tensile::FATAL: Architecture gfxN not supported" when the ISA is not in its own list of
/// supported ISAs (Tensile `Common.py`, the build-time check of TensileCreateLibrary), a list each
/// Tensile version fixes. For an ISA that later builds of the libraries target (rocBLAS's default
/// target list, `[gpu] rocblas_targets`), the library version being built predates its support:
/// a newer version builds it. Not a GPU nobody supports (the ISA rule's reading).
fn tensile_predates_target(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static ARCH: OnceLock<Regex> = OnceLock::new();
    if !text.contains("Tensile::FATAL") {
        return None;
    }
    let arch = re(
        &ARCH,
        concat!(
            r"Tensile::FATAL: Architecture (",
            isa_name!(),
            r")\b[^\n]*not supported"
        ),
    );
    let (line, isa) = text.lines().find_map(|l| {
        let c = arch.captures(l)?;
        Some((
            l.trim().chars().take(300).collect::<String>(),
            c[1].to_string(),
        ))
    })?;
    if !rocblas_targets().contains(&isa) {
        return None;
    }
    let sy = symptom(
        &S,
        "context.tensile-predates-target",
        "the library version being built predates Tensile's support for the target",
        "lib-bug-fixed-later",
        "Tensile refused the target while building the library: the ISA is not in this Tensile \
         version's list of supported ISAs. Later builds of the libraries target it, so the \
         version being built is older than its support, not a GPU nobody builds for.",
        "Build a newer version of the library (one whose Tensile lists the ISA), or leave the \
         ISA out of this build's targets.",
    );
    let reasoning = format!(
        "Tensile refused {isa} in a build ({FROM}), and {isa} is in rocBLAS's default target list \
         of current releases: this library version predates its support"
    );
    Some(Derived::reasoned(sy, line, reasoning).overruling(&["gpu-unsupported-asic"]))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    [
        old_layout_path(text),
        target_vs_override(text),
        own_kernel_missing(text),
        glued_list(text, f),
        mask_hides_all(text),
        mes_hang(text),
        device_libs_unlinked(text),
        fault_on_unsupported(text, f),
        tensile_predates_target(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        rules(text, &Facts::of(text))
            .into_iter()
            .map(|d| {
                let r = d.captures.into_iter().find(|(k, _)| k == "reasoning");
                (
                    d.symptom.class.clone().unwrap_or_default(),
                    r.unwrap_or_default().1,
                )
            })
            .collect()
    }

    fn classes(text: &str) -> Vec<String> {
        fired(text).into_iter().map(|(c, _)| c).collect()
    }

    /// What `why` answers first for a text, text only, over the built-in packs.
    fn first(text: &str) -> Option<String> {
        let set = crate::registry::sources::built_in();
        super::super::why::recognise(&set, text)
            .first()
            .and_then(|h| h.symptom.class.clone())
    }

    #[test]
    fn the_table_loads() {
        assert_eq!(data().old_layout_until, "5.1");
        assert!(data()
            .build_targets
            .iter()
            .any(|t| t.contains("AMDGPU_TARGETS")));
    }

    /// tests/corpus/field-libs.toml, https://github.com/ROCm/rocBLAS/issues/1300 (line of the
    /// paste); then the path of the new layout, and of the old layout itself (ROCm 4.0's
    /// `/opt/rocm-4.0.0/rocblas/lib/library`), with the same message.
    #[test]
    fn a_tensile_path_under_the_old_wrapper_directory_is_a_stale_path() {
        let old = "rocBLAS error: Cannot read /opt/rocm/rocblas/lib/rocblas/library/\
            TensileLibrary.dat: No such file or directory\n";
        let r = fired(old);
        assert_eq!(classes(old), ["lib-stale-path"]);
        assert!(r[0].1.contains("/opt/rocm/lib/rocblas/library"), "{r:?}");
        assert!(r[0].1.contains("5.1") && r[0].1.contains(FROM), "{r:?}");
        assert_eq!(first(old).as_deref(), Some("lib-stale-path"));
        let new = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: \
            No such file or directory\n";
        assert!(classes(new).is_empty());
        assert_eq!(first(new).as_deref(), Some("lib-rocblas-data"));
        let ancient = "rocBLAS error: Cannot read /opt/rocm-4.0.0/rocblas/lib/library/\
            TensileLibrary.dat: No such file or directory\n";
        assert!(classes(ancient).is_empty());
        // A debug line naming a library it loaded from there is no failure.
        let loaded = "Loaded code object /opt/rocm/rocblas/lib/rocblas/library/\
            TensileLibrary_gfx90a.co\n";
        assert!(classes(loaded).is_empty());
    }

    /// tests/corpus/field-apps.toml, https://github.com/ggml-org/llama.cpp/issues/4762 (lines of
    /// the paste): the build names gxf1032 (a typo), the override asks for gfx1030.
    const LLAMACPP_4762: &str = "CUDA error: invalid device function when compiling and \
        running for amd gfx 1032\n\nmake clean && make -j16 LLAMA_HIPBLAS=1 \
        AMDGPU_TARGETS=gxf1032\nAnd everything went fine. However, when I try to run, I do \
        export HSA_OVERRIDE_GFX_VERSION=10.3.0\n";

    #[test]
    fn an_override_the_build_does_not_target_is_a_build_without_its_code() {
        let r = fired(LLAMACPP_4762);
        assert_eq!(classes(LLAMACPP_4762), ["codeobj-no-binary"]);
        let why = &r[0].1;
        assert!(
            why.contains("gfx1030") && why.contains("AMDGPU_TARGETS=gxf1032"),
            "{why}"
        );
        assert!(why.contains("gxf1032 is no processor"), "{why}");
        assert_eq!(first(LLAMACPP_4762).as_deref(), Some("codeobj-no-binary"));
        // The build targets the override's ISA: the targets do not decide anything.
        let matching = LLAMACPP_4762.replace("gxf1032", "gfx1030");
        assert!(classes(&matching).is_empty());
        let listed = LLAMACPP_4762.replace("gxf1032", "\"gfx1030;gfx1100\"");
        assert!(classes(&listed).is_empty());
        // No build targets in the text, or a placeholder for them: today's answer stays.
        let none = LLAMACPP_4762.replace(" AMDGPU_TARGETS=gxf1032", "");
        assert!(classes(&none).is_empty());
        assert_eq!(
            first(&none),
            first(&LLAMACPP_4762.replace("gxf1032", "$ARCH"))
        );
        // No failure to find code: nothing to explain.
        let ok = "make AMDGPU_TARGETS=gfx1032\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
        assert!(classes(ok).is_empty());
    }

    /// A clang flag names the targets too, with a space or `=`.
    #[test]
    fn offload_arch_flags_are_build_targets() {
        let t = "hipcc --offload-arch=gfx1100 -o app app.hip\nHSA_OVERRIDE_GFX_VERSION=10.3.0 \
            ./app\nhipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n";
        assert_eq!(classes(t), ["codeobj-no-binary"]);
        let both = t.replace("=gfx1100", " gfx1030");
        assert!(classes(&both).is_empty());
        // CMake's -D and cache forms, and a quoted list separated by spaces.
        let cmake = t.replace(
            "hipcc --offload-arch=gfx1100",
            "cmake -DAMDGPU_TARGETS=gfx1100 ..",
        );
        assert_eq!(classes(&cmake), ["codeobj-no-binary"]);
        let cache = t.replace(
            "hipcc --offload-arch=gfx1100",
            "AMDGPU_TARGETS:STRING=gfx1030",
        );
        assert!(classes(&cache).is_empty());
        let spaced = t.replace(
            "hipcc --offload-arch=gfx1100",
            "PYTORCH_ROCM_ARCH=\"gfx1100 gfx1030\"",
        );
        assert!(classes(&spaced).is_empty());
    }

    /// tests/corpus/field-apps.toml, https://github.com/bitsandbytes-foundation/bitsandbytes/
    /// issues/1508 (line of the paste); then an undefined symbol of the HIP runtime in the same
    /// library, which keeps the "two releases mixed" reading.
    #[test]
    fn an_undefined_kernel_stub_is_the_librarys_own_broken_build() {
        let stub =
            "Could not load bitsandbytes native library: /venv/lib/python3.10/site-packages/\
            bitsandbytes/libbitsandbytes_rocm62.so: undefined symbol: \
            _Z36__device_stub__kOptimizer32bit1StateI12hip_bfloat16Li2EEvPT_S2_PfS3_ffffffiffbi\n";
        assert_eq!(classes(stub), ["lib-bug-fixed-later"]);
        assert!(fired(stub)[0]
            .1
            .contains("__device_stub__kOptimizer32bit1State"));
        assert_eq!(first(stub).as_deref(), Some("lib-bug-fixed-later"));
        let runtime = "Could not load bitsandbytes native library: /venv/lib/python3.10/\
            site-packages/bitsandbytes/libbitsandbytes_rocm62.so: undefined symbol: \
            hipGetDevicePropertiesR0600\n";
        assert!(classes(runtime).is_empty());
        assert_eq!(first(runtime).as_deref(), Some("lib-mixed-releases"));
    }

    /// tests/corpus/field-apps.toml, https://github.com/ROCm/tensorflow-upstream/issues/2290
    /// (the line of the paste); then the same line with the separator in place.
    #[test]
    fn a_refused_isa_glued_in_the_tools_own_list_is_the_tools_bug() {
        let glued = "Ignoring visible gpu device (device: 0, name: Radeon RX 7900 XT, pci bus id: \
            0000:03:00.0) with AMDGPU version : gfx1100. The supported AMDGPU versions are \
            gfx1030gfx1100, gfx900, gfx906, gfx908, gfx90a, gfx940, gfx941, gfx942.\n";
        assert_eq!(classes(glued), ["lib-bug-fixed-later"]);
        assert!(fired(glued)[0].1.contains("\"gfx1030gfx1100\""));
        assert_eq!(first(glued).as_deref(), Some("lib-bug-fixed-later"));
        let listed = glued.replace("gfx1030gfx1100", "gfx1030, gfx1100");
        assert!(classes(&listed).is_empty());
        // Another GPU refused by the same broken list: the glue is not its problem.
        let other = glued.replace("version : gfx1100", "version : gfx1032");
        assert!(classes(&other).is_empty());
        assert_eq!(
            first(&other),
            first(&listed.replace("version : gfx1100", "version : gfx1032"))
        );
    }

    /// tests/corpus/gpu.toml, https://github.com/ROCmSoftwarePlatform/tensorflow/issues/14 (the
    /// line of the paste; its script hides the GPUs, in a way the paste does not show) with a
    /// mask set as such a script sets one, and the same with a mask that selects a GPU.
    #[test]
    fn a_mask_that_selects_no_device_decides_no_gpu() {
        let tf = "E tensorflow/stream_executor/rocm/rocm_driver.cc:1098] could not retrieve ROCM \
            device count: HIP_ERROR_NoDevice\n";
        let masked = format!("os.environ['HIP_VISIBLE_DEVICES'] = '-1'\n{tf}");
        assert_eq!(classes(&masked), ["platform-visible-devices"]);
        assert!(fired(&masked)[0].1.contains("HIP_VISIBLE_DEVICES=-1"));
        assert_eq!(first(&masked).as_deref(), Some("platform-visible-devices"));
        let slurm = "CUDA_VISIBLE_DEVICES=NoDevFiles\nRuntimeError: No HIP GPUs are available\n";
        assert_eq!(first(slurm).as_deref(), Some("platform-visible-devices"));
        // A mask that selects a GPU, or no mask: today's answer.
        let one = masked.replace("'-1'", "'0'");
        assert!(classes(&one).is_empty());
        assert_eq!(first(&one), first(tf));
        assert!(classes(tf).is_empty());
        assert!(classes("export ROCR_VISIBLE_DEVICES=-1\n").is_empty());
        // ROCr's mask set to an empty value (ROCm/hipSOLVER#59), and not prose with spaces or a
        // value, nor HIP's mask, which reads an empty value as unset.
        let empty = "$ ROCR_VISIBLE_DEVICES='' build/release/clients/staging/hipsolver-test\nQuery device error: cannot get device count\nError: No devices found\n";
        assert!(fired(empty)[0]
            .1
            .contains("ROCR_VISIBLE_DEVICES= (an empty value)"));
        let bare = "export ROCR_VISIBLE_DEVICES=\nRuntimeError: No HIP GPUs are available\n";
        assert_eq!(fired(bare).len(), 1);
        let prose =
            "I set ROCR_VISIBLE_DEVICES = 0 and still: RuntimeError: No HIP GPUs are available\n";
        assert!(fired(prose).is_empty());
        let hip = "HIP_VISIBLE_DEVICES='' python x.py\nRuntimeError: No HIP GPUs are available\n";
        assert!(fired(hip).is_empty());
    }

    /// tests/corpus/codeobj-memory.toml, https://github.com/ROCm/ROCm/issues/5616 (the fault line
    /// of the paste) with amdgpu's MES line as `mes_v11_0.c` prints it; then the fault alone, and
    /// the MES line under an override.
    #[test]
    fn mes_not_answering_beside_a_fault_is_the_firmware() {
        let fault = "Memory access fault by GPU node-1 (Agent handle: 0x5570f8146df0) on address \
            0x7ff96a9ac000. Reason: Page not present or supervisor privilege\n";
        let mes = format!(
            "{fault}[   67.05] amdgpu 0000:c4:00.0: amdgpu: MES failed to respond to msg=MISC \
             (WAIT_REG_MEM)\n"
        );
        assert_eq!(classes(&mes), ["gpu-firmware"]);
        assert_eq!(first(&mes).as_deref(), Some("gpu-firmware"));
        let pipe = mes.replace("MES failed", "MES(0) failed");
        assert_eq!(classes(&pipe), ["gpu-firmware"]);
        assert!(classes(fault).is_empty());
        assert_eq!(first(fault).as_deref(), Some("mem-access-fault"));
        let overridden = format!("HSA_OVERRIDE_GFX_VERSION=10.3.0\n{mes}");
        assert!(classes(&overridden).is_empty());
        // The MES line without a fault: no fault to explain.
        assert!(classes("amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n").is_empty());
    }

    /// tests/corpus/field-fresh.toml, https://github.com/hashcat/hashcat/pull/4106 (lines of the
    /// paste): hiprtc's link leaves ockl undefined, the program's options (not -fgpu-rdc). The
    /// same undefined symbols without a run-time compiler: the device libraries not linked by
    /// the compiler. A function of the program's own (not ockl/ocml) keeps the -fgpu-rdc answer.
    #[test]
    fn undefined_device_library_functions_are_not_relocatable_code() {
        let rtc = "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION\n\nld.lld: error: undefined \
            hidden symbol: __ockl_get_group_id\n>>> referenced by /home/u/.local/share/hashcat/\
            comgr-69ec34/input/shared_kernel.o:(gpu_decompress)\n";
        let f = fired(rtc);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "lib-bug-fixed-later");
        assert!(f[0].1.contains("__ockl_get_group_id") && f[0].1.contains("hiprtc"));
        assert_eq!(first(rtc).as_deref(), Some("lib-bug-fixed-later"));
        let offline = "ld.lld: error: undefined hidden symbol: __ocml_sqrt_f32\n>>> referenced by \
            /tmp/kernel-gfx1100.o\n";
        assert_eq!(classes(offline), ["build-device-libs"]);
        assert_eq!(first(offline).as_deref(), Some("build-device-libs"));
        let own = "ld.lld: error: undefined hidden symbol: deviceFunction()\n";
        assert!(classes(own).is_empty());
        assert_eq!(first(own).as_deref(), Some("build-rdc"));
        // Naming ockl without an undefined symbol is no such failure.
        assert!(
            classes("linking /opt/rocm/amdgcn/bitcode/ockl.bc (__ockl_ functions)\n").is_empty()
        );
    }

    /// tests/corpus/field-fresh.toml, https://github.com/lshqqytiger/ZLUDA/issues/116 (the
    /// paste's line): rocBLAS of the Windows HIP SDK, whose path has spaces, names the Tensile
    /// data it lacks for the GPU; that is the answer before "the build has no code" (the ISA rule).
    /// The Linux form stays recognised; rocBLAS naming no Tensile file is not the symptom.
    #[test]
    fn a_windows_hip_sdk_tensile_path_is_rocblas_data() {
        let win = "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\/rocblas/\
            library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1200\n";
        assert_eq!(first(win).as_deref(), Some("lib-rocblas-data"));
        let linux = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: \
            No such file or directory for GPU arch : gfx1200\n";
        assert_eq!(first(linux).as_deref(), Some("lib-rocblas-data"));
        // A line naming no Tensile file is not the symptom's; the family of its origin still
        // answers, since rocBLAS prints "Cannot read" only where tensile_host.cpp fails to open
        // a library path (checks/origin-causes.toml).
        let other = "rocBLAS error: Cannot read the configuration file\n";
        let set = crate::registry::sources::built_in();
        let ids: Vec<String> = super::super::why::recognise(&set, other)
            .iter()
            .map(|h| h.symptom.id.clone())
            .collect();
        assert_eq!(ids, ["origin.lib-rocblas-data"]);
    }

    /// Made-up pastes in the form of tests/corpus/field-fresh.toml's ROCm/tensorflow-upstream#1216
    /// (an RX 580, gfx803, faulting; checks/gpu-names.toml reads "RX580 2048sp" whole, libdrm's
    /// "Radeon RX 580 2048SP"): under ROCm 5.7.1, which does not support gfx803, the GPU
    /// comes first, and under 4.0.0 too (its support list dropped gfx803). Under 3.10.0 (the
    /// table's last release with gfx803), on a supported GPU, with an
    /// override set, or under a release the tables do not cover, the fault stays the answer.
    #[test]
    fn a_fault_on_a_gpu_the_release_does_not_support_is_the_gpu() {
        let t =
            "- ROCm version:5.7.1\n- GPU model and memory: RX580 2048sp with 4GB RAM\n- Memory \
            access fault by GPU node-1 (Agent handle: 0x5644299ef910) on address 0x6e77e9000. \
            Reason: Page not present or supervisor privilege.\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "gpu-unsupported-asic");
        assert!(
            f[0].1.contains("gfx803 (RX580 2048sp)") && f[0].1.contains("ROCm 5.7.1"),
            "{}",
            f[0].1
        );
        assert_eq!(first(t).as_deref(), Some("gpu-unsupported-asic"));
        // 3.10 is the last release the table says supported gfx803; 4.0 dropped it.
        assert!(classes(&t.replace("5.7.1", "3.10.0")).is_empty());
        assert_eq!(
            first(&t.replace("5.7.1", "4.0.0")).as_deref(),
            Some("gpu-unsupported-asic")
        );
        let rx7900 = t
            .replace("RX580 2048sp", "RX 7900 XTX")
            .replace("5.7.1", "6.2.4");
        assert!(classes(&rx7900).is_empty());
        assert_eq!(first(&rx7900).as_deref(), Some("mem-access-fault"));
        let overridden = format!("HSA_OVERRIDE_GFX_VERSION=9.0.0\n{t}");
        assert!(classes(&overridden).is_empty());
        assert!(classes(&t.replace("5.7.1", "1.8")).is_empty());
        // No release named: a GPU no current release supports.
        let now = "GPU: Radeon RX 5700 XT\nMemory access fault by GPU node-1 on address 0x1000.\n";
        assert_eq!(classes(now), ["gpu-unsupported-asic"]);
        assert!(classes("Memory access fault by GPU node-1 on address 0x1000.\n").is_empty());
    }

    /// tests/corpus/field-fresh.toml, https://github.com/ROCm/TheRock/issues/154 (lines of the
    /// log): Tensile refuses gfx1151 in a hipBLASLt build; current rocBLAS targets gfx1151, so the
    /// version built predates it. An ISA no current build targets keeps the other answers.
    #[test]
    fn tensile_refusing_a_target_later_builds_have_is_an_old_version() {
        let t = "[hipBLASLt] [3/37] Generating Tensile Libraries\n[hipBLASLt] FAILED: Tensile/\
            library /therock/build/hipBLASLt/build/Tensile/library\n[hipBLASLt] Tensile::FATAL: \
            Architecture gfx1151 not supported\n[hipBLASLt] ninja: build stopped: subcommand \
            failed.\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-bug-fixed-later");
        assert!(f[0].1.contains("gfx1151"), "{}", f[0].1);
        assert_eq!(first(t).as_deref(), Some("lib-bug-fixed-later"));
        assert!(classes(&t.replace("gfx1151", "gfx1036")).is_empty());
        assert!(classes("Architecture gfx1151 not supported\n").is_empty());
    }
}
