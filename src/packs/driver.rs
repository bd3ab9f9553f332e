//! Rules over the kernel-driver and hardware facts of a text (issue 28, item 4). Pure.
//!
//! - the running kernel's KFD older than the user space: ROCr disabling a GPU as "Incompatible
//!   kernel and userspace", the debugger's KFD ioctl missing;
//! - a Kubernetes node whose kernel exposes no KFD (the device plugin does not install a driver);
//! - a DKMS driver package installed but no KFD (the module not built or loaded for the running
//!   kernel), or the DKMS package removed;
//! - the GPU not answering while amdgpu initialises it (VBIOS, PSP), each line confirmed by its
//!   origin in `checks/origins.toml` (`[[hardware]]` of `checks/why-families.toml`).
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{line_of, re, Derived, Facts, Platform};
use super::libfamilies::{family_symptom, table, with_reasoning};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

/// What the text shows of the DKMS module: `dkms status` listing it only as `added` (registered,
/// never built for a kernel; DKMS's states are added, built, installed).
fn dkms_added_only(text: &str) -> Option<String> {
    static ADDED: OnceLock<Regex> = OnceLock::new();
    line_of(
        text,
        re(
            &ADDED,
            r"^\s*(?:amdgpu|amdkfd|rock|rock-dkms)[,/] ?[\w.-]+(?:, [\w.-]+)?: added\s*$",
        ),
    )
}

/// The running kernel's KFD lacks what the user space needs: ROCr disables a GPU whose KFD
/// reports an interface older than it requires ("HSA Error:  Incompatible kernel and userspace,
/// %s disabled. Upgrade amdgpu.", ROCr `amd_topology.cpp` `DiscoverGpu`, checks/origins.toml),
/// and ROCdbgapi stops when the KFD has no debugger ioctl (`KFD_IOC_DBG_TRAP_*`, listed among
/// the "non-upstream ioctls" of ROCdbgapi's `kfd_ioctls.h` until the kernel took them). ROCm's
/// own driver of the same release (amdgpu-dkms, formerly rock-dkms) or a newer kernel has them.
fn kfd_too_old(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static OLD: OnceLock<Regex> = OnceLock::new();
    let old = re(
        &OLD,
        concat!(
            r"Incompatible kernel and userspace, [^\n]{1,80} disabled",
            r"|KFD_IOC_DBG_TRAP\w* failed|AMDKFD_IOC_DBG_TRAP\w* failed",
        ),
    );
    let line = line_of(text, old)?;
    let dkms = match dkms_added_only(text) {
        Some(l) => format!(
            "; `dkms status` shows the DKMS module only added (\"{l}\"): it was never built for \
             the running kernel, so the kernel's own driver is in use"
        ),
        None => String::new(),
    };
    let sy = family_symptom(
        &S,
        "families.kfd-too-old",
        "the running kernel's GPU driver (KFD) is older than the ROCm user space needs",
        "gpu-driver-missing",
        "The kernel driver in use (the distribution kernel's amdgpu/KFD) lacks the interface \
         this ROCm user space needs for the GPU, so the runtime disables the GPU or the tool \
         stops: ROCm's own kernel driver of the same release is not installed or not loaded.",
        "Install and build ROCm's amdgpu-dkms driver of the same release for the running kernel \
         (headers for it installed; `dkms status` must say installed), or run a kernel new \
         enough for this release, then reboot.",
    );
    Some(with_reasoning(
        sy,
        line,
        format!("the user space reports the kernel's KFD as too old for it{dkms} ({FROM})"),
    ))
}

/// "The node has no KFD": a text from Kubernetes whose node lacks /dev/kfd or the KFD topology.
/// AMD's device plugin and node labeller only advertise GPUs that the node's kernel exposes
/// through KFD (the labeller reads /sys/class/kfd topology: "Fail to glob topology
/// properties"); they install no driver (ROCm/k8s-device-plugin README: the nodes need the
/// amdgpu driver with KFD first).
fn pod_without_kfd(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static ABSENT: OnceLock<Regex> = OnceLock::new();
    if !f.on(Platform::Kubernetes) {
        return None;
    }
    let absent = re(
        &ABSENT,
        concat!(
            r"(?i)/dev/kfd\S*\s+(?:isn't|is not|does not|doesn't|not)\s+(?:present|exist|found)",
            r"|/dev/kfd\S*:? No such file|Fail to glob topology|no /dev/kfd\b",
        ),
    );
    let line = line_of(text, absent)?;
    let sy = family_symptom(
        &S,
        "families.node-without-kfd",
        "the Kubernetes node's kernel exposes no GPU through KFD",
        "gpu-driver-missing",
        "The pod's node has no /dev/kfd (or KFD topology): its kernel has no amdgpu driver with \
         KFD loaded for the GPU. AMD's device plugin and labeller only advertise GPUs the node's \
         kernel exposes; they install no driver, so pods wait for amd.com/gpu forever.",
        "Give the nodes a kernel with the amdgpu driver and KFD (a supported distribution, or \
         AMD's GPU operator, which installs the driver), then redeploy the plugin.",
    );
    Some(with_reasoning(
        sy,
        line,
        format!("a Kubernetes node without KFD ({FROM})"),
    ))
}

/// A DKMS driver package installed (`rocm-dkms`, `rock-dkms`, `amdgpu-dkms`) yet no KFD: no
/// /dev/kfd, nothing of KFD in the kernel log, or the module only added to DKMS. DKMS builds
/// the module for each installed kernel that it supports; a kernel it cannot build for keeps its
/// own driver (or none for the GPU), so KFD is absent. When the text says the DKMS package was
/// removed (an upgrade that dropped it), the driver is simply gone.
fn dkms_without_kfd(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static GONE: OnceLock<Symptom> = OnceLock::new();
    static PKG: OnceLock<Regex> = OnceLock::new();
    static ABSENT: OnceLock<Regex> = OnceLock::new();
    static REMOVED: OnceLock<Regex> = OnceLock::new();
    let pkg = re(&PKG, r"(?i)\b(?:rocm|rock|amdgpu)-dkms\b");
    if !pkg.is_match(text) {
        return None;
    }
    let absent = re(
        &ABSENT,
        concat!(
            r"(?i)\bno (?:/dev/)?kfd (?:folder|directory|device|node)|\bno /dev/kfd\b",
            r"|/dev/kfd\S*:? No such file|/dev/kfd\S*\s+(?:isn't|is not|does not|doesn't)",
            r"\s+(?:present|exist)|grep[^\n]{0,10}kfd\b[^\n]{0,40}(?:no output|nothing)",
            r"|modprobe[^\n]{0,20}amd(?:kfd|gpu)\b[^\n]{0,60}(?:error|fail|not found)",
        ),
    );
    let removed = re(
        &REMOVED,
        r"(?i)\b(?:rocm|rock|amdgpu)-dkms\b[^.\n]{0,60}\b(?:was |were |got |been )?(?:removed|uninstalled)\b",
    );
    let line = line_of(text, absent).or_else(|| dkms_added_only(text))?;
    if let Some(r) = line_of(text, removed) {
        let sy = family_symptom(
            &GONE,
            "families.dkms-removed",
            "the DKMS kernel driver package was removed",
            "gpu-driver-missing",
            "The text says ROCm's DKMS kernel driver package was removed (an upgrade can drop \
             it when it became optional), so the kernel has no KFD for ROCm.",
            "Install the DKMS driver package of the installed release again (or remove and \
             reinstall ROCm with it), then reboot.",
        );
        return Some(with_reasoning(
            sy,
            line,
            format!("the DKMS driver package was removed (\"{r}\") and KFD is absent ({FROM})"),
        ));
    }
    let sy = family_symptom(
        &S,
        "families.dkms-not-loaded",
        "the DKMS driver is installed but not built or loaded for the running kernel",
        "platform-dkms-kernel",
        "ROCm's DKMS driver package is installed, yet the running kernel has no KFD: DKMS did \
         not build the module for this kernel (one the release does not support, or its headers \
         missing), so the kernel's own driver, or none, is in use.",
        "Boot a kernel the ROCm release supports (its release notes list them) with its headers \
         installed, check `dkms status` says installed for it, and reboot.",
    );
    Some(with_reasoning(
        sy,
        line,
        format!("a DKMS driver package is installed and KFD is absent ({FROM})"),
    ))
}

/// The GPU not answering while amdgpu initialises it: a line of `[[hardware]]`
/// (`checks/why-families.toml`) whose origin (checks/origins.toml) is the function the table
/// names, without the missing firmware that gives the same line another cause.
fn hardware(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static RES: OnceLock<Vec<(Regex, Regex)>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        table()
            .hardware
            .iter()
            .map(|h| {
                let c = |p: &str| {
                    Regex::new(&super::facts::ascii_boundaries(p)).unwrap_or_else(|e| {
                        panic!("checks/why-families.toml [[hardware]] {p}: {e}")
                    })
                };
                (c(&h.line), c(&h.unless))
            })
            .collect()
    });
    let origins = super::origins::table();
    let (line, h, printed) = text.lines().find_map(|l| {
        let i = res.iter().position(|(r, _)| r.is_match(l))?;
        let h = &table().hardware[i];
        let o = origins.origin_of(l)?;
        let site = o
            .sites
            .iter()
            .find(|s| h.function.split('|').any(|f| f == s.function))?;
        if o.component != "amdgpu" || res[i].1.is_match(text) {
            return None;
        }
        let printed = format!("{}:{} ({})", site.path, site.line, site.function);
        Some((l.trim().chars().take(300).collect::<String>(), h, printed))
    })?;
    let sy = family_symptom(
        &S,
        "families.gpu-not-answering",
        "the GPU does not answer while the driver initialises it: a hardware fault",
        "gpu-hardware-fault",
        "The amdgpu driver's initialisation failed at a step that only the card itself \
         performs (its VBIOS, its security processor), with the firmware files present: the \
         card, its VBIOS, or what connects it (riser, bridge, slot) is faulty.",
        "Reseat the card; try another slot, riser or bridge (an Infinity Fabric bridge can be \
         unplugged to test); check power and cooling; if it persists on another machine, the \
         card needs service.",
    );
    Some(with_reasoning(
        sy,
        line,
        format!(
            "printed by the amdgpu kernel driver at {printed}: {} ({FROM})",
            h.means
        ),
    ))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    [
        kfd_too_old(text),
        pod_without_kfd(text, f),
        dkms_without_kfd(text),
        hardware(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}
