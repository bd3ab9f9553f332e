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
use super::libfamilies::{family_symptom, table};
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
    Some(Derived::reasoned(
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
    Some(Derived::reasoned(
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
        concat!(
            r"(?i)\b(?:rocm|rock|amdgpu)-dkms\b[^.\n]{0,60}\b(?:removed|uninstalled)\b",
            r"|\b(?:removed|uninstalled)\b[^.\n]{0,30}\b(?:rocm|rock|amdgpu)-dkms\b",
        ),
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
        return Some(Derived::reasoned(
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
    Some(Derived::reasoned(
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
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "printed by the amdgpu kernel driver at {printed}: {} ({FROM})",
            h.means
        ),
    ))
}

/// The display adapters of `checks/why-facts.toml` `[gpu]` (read here for the VM rule; gpu_rules
/// reads the rest of the table).
#[derive(serde::Deserialize)]
struct Displays {
    virtual_display: String,
    amd_display: String,
}

#[derive(serde::Deserialize)]
struct FactsFile {
    gpu: Displays,
}

fn displays() -> &'static (Regex, Regex) {
    static D: OnceLock<(Regex, Regex)> = OnceLock::new();
    D.get_or_init(|| {
        let f: FactsFile = crate::data::embedded(
            "checks/why-facts.toml",
            include_str!("../../checks/why-facts.toml"),
        );
        let c = |p: &str| {
            Regex::new(&super::facts::ascii_boundaries(p))
                .unwrap_or_else(|e| panic!("checks/why-facts.toml [gpu] {p}: {e}"))
        };
        (c(&f.gpu.virtual_display), c(&f.gpu.amd_display))
    })
}

/// "The machine's display listing has only a VM's virtual adapter": a Linux listing of the
/// display devices (lshw, lspci) whose adapter is a virtual machine's (VMware SVGA, VirtualBox,
/// QEMU's, Hyper-V's: `[gpu] virtual_display`) and no AMD device (`amd_display`): the guest has
/// no GPU for ROCm, whatever the host has. An AMD GPU the text names by its Windows device path
/// (`PCI\VEN_1002&DEV_...`, AMD's PCI vendor id as Windows writes it) is the host's.
fn vm_display_only(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static LISTING: OnceLock<Regex> = OnceLock::new();
    static HOST: OnceLock<Regex> = OnceLock::new();
    let listing = re(
        &LISTING,
        r"(?i)\blshw\b[^\n]*-c(?:lass)?\s+display|\blspci\b|\*-display\b|VGA compatible controller",
    );
    if !listing.is_match(text) {
        return None;
    }
    let (virt, amd) = displays();
    let line = line_of(text, virt)?;
    if amd.is_match(text) {
        return None;
    }
    let host = match re(&HOST, r"PCI\\VEN_1002&DEV_[0-9A-Fa-f]{4}").find(text) {
        Some(m) => format!(
            "; the AMD GPU the text names by its Windows device path (\"{}\") is the host's",
            m.as_str()
        ),
        None => String::new(),
    };
    let sy = family_symptom(
        &S,
        "families.vm-display-only",
        "the machine is a VM guest whose only display is a virtual adapter: no AMD GPU in it",
        "gpu-no-amd-gpu",
        "The text's listing of the display devices shows only a virtual machine's adapter and \
         no AMD device: the guest has no GPU for ROCm, whatever the host has.",
        "Run ROCm on the host (bare metal) or pass the AMD GPU through to the VM (VFIO on a \
         Linux host; a hypervisor that supports passthrough), then check that the guest lists \
         it.",
    );
    Some(Derived::reasoned(
        sy,
        line,
        format!("the display listing shows a virtual adapter and no AMD device{host} ({FROM})"),
    ))
}

/// rocm_smi_lib's initialisation fails where no amdgpu device exists (rsmi_init enumerates the
/// amdgpu devices under /sys/class/drm), and it prints "Exception caught: rsmi_init." for it; a
/// program that only links it (hwloc, a monitoring agent) on a machine the text says has no
/// AMD GPU goes on without it: harmless there. Where the text names an AMD GPU it is not.
fn rsmi_without_gpu(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static INIT: OnceLock<Regex> = OnceLock::new();
    static NONE: OnceLock<Regex> = OnceLock::new();
    let line = line_of(text, re(&INIT, r"Exception caught: rsmi_init\b"))?;
    let none = re(
        &NONE,
        concat!(
            r"(?i)\b(?:without|no|(?:don't|do not|doesn't|does not) have)\s+(?:any\s+|an?\s+)?",
            r"(?:actual\s+)?(?:rocm[- ]supported\s+|supported\s+|amd\s+)?(?:hardware|gpus?)\b",
        ),
    );
    if !f.isas.is_empty() || !none.is_match(text) {
        return None;
    }
    let sy = S.get_or_init(|| Symptom {
        harmless: true,
        ..super::facts::rule_symptom(
            "families.rsmi-init-no-gpu",
            "rocm-smi's library finds no AMD GPU on a machine without one: harmless",
            "benign-other",
            "librocm_smi's initialisation fails where the machine has no amdgpu device, and the \
             library prints that it caught the failure; a program that only links it goes on \
             without GPU monitoring.",
            "Nothing to fix on a machine without an AMD GPU (later rocm_smi_lib releases stay \
             quiet there).",
            "rule over families of lines and their facts (src/packs/driver.rs)",
        )
    });
    Some(Derived::reasoned(
        sy,
        line,
        format!("rsmi_init fails and the text says the machine has no AMD GPU ({FROM})"),
    ))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    [
        kfd_too_old(text),
        pod_without_kfd(text, f),
        dkms_without_kfd(text),
        hardware(text),
        vm_display_only(text),
        rsmi_without_gpu(text, f),
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
            .map(|d| (d.symptom.id.clone(), d.reasoning().to_string()))
            .collect()
    }

    fn ids(text: &str) -> Vec<String> {
        fired(text).into_iter().map(|(i, _)| i).collect()
    }

    #[test]
    fn the_table_loads_and_each_hardware_line_has_its_amdgpu_origin() {
        let t = table();
        assert!(!t.mfma.is_empty() && !t.cuda_only.is_empty());
        for h in &t.hardware {
            let fns: Vec<&str> = h.function.split('|').collect();
            let found = super::super::origins::table().origins.iter().any(|o| {
                o.component == "amdgpu"
                    && o.sites.iter().any(|s| fns.contains(&s.function.as_str()))
            });
            assert!(found, "no amdgpu origin printed by {}", h.function);
        }
    }

    #[test]
    fn a_kfd_older_than_the_user_space_is_the_driver_and_says_what_dkms_shows() {
        let t = "HSA Error:  Incompatible kernel and userspace, AMD Instinct MI50 disabled. \
                 Upgrade amdgpu.\ndkms status\namdgpu/6.3.6: added\n";
        let f = fired(t);
        assert_eq!(f[0].0, "families.kfd-too-old", "{f:?}");
        assert!(f[0].1.contains("only added"), "{f:?}");
        let dbg = "(gdb) run\namd-dbgapi: fatal error: KFD_IOC_DBG_TRAP_ENABLE failed\n";
        assert_eq!(ids(dbg), ["families.kfd-too-old"]);
        // An installed module and a runtime that finds the GPU: nothing.
        let ok = "dkms status\namdgpu/6.8.5, 6.8.0-45-generic, x86_64: installed\n\
                  Name: gfx1100\n";
        assert!(ids(ok).is_empty());
    }

    #[test]
    fn a_kubernetes_node_without_kfd_is_a_node_without_the_driver() {
        let t = "kubectl describe pod rocm-test\n  Warning  FailedScheduling  0/3 nodes are \
                 available: 3 Insufficient amd.com/gpu.\nls: cannot access '/dev/kfd': No such \
                 file or directory\n";
        assert_eq!(ids(t), ["families.node-without-kfd"]);
        // The same line off Kubernetes is not this rule's; nor a closed /dev/kfd in a pod.
        assert!(ids("ls: cannot access '/dev/kfd': No such file or directory\n").is_empty());
        let closed = "kubectl logs rocm-test\nUnable to open /dev/kfd read-write: Permission \
                      denied\n";
        assert!(ids(closed).is_empty());
    }

    #[test]
    fn a_dkms_driver_without_kfd_is_not_built_for_the_kernel_or_removed() {
        let t = "sudo apt install amdgpu-dkms rocm\n...\n$ ls /dev/kfd\nls: cannot access \
                 '/dev/kfd': No such file or directory\n";
        let f = rules(t, &Facts::of(t));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].symptom.class.as_deref(), Some("platform-dkms-kernel"));
        let gone = "The upgrade removed amdgpu-dkms.\nmodprobe: FATAL: Module amdgpu not found \
                    in directory /lib/modules/6.8.0-45-generic\n";
        let f = rules(gone, &Facts::of(gone));
        assert_eq!(f[0].symptom.class.as_deref(), Some("gpu-driver-missing"));
        assert_eq!(f[0].symptom.id, "families.dkms-removed");
        // The package installed and KFD there: nothing.
        let fine = "sudo apt install amdgpu-dkms\n$ ls -l /dev/kfd\ncrw-rw---- 1 root render \
                    /dev/kfd\n";
        assert!(ids(fine).is_empty());
    }

    #[test]
    fn the_gpu_not_answering_at_init_is_hardware_unless_its_firmware_is_missing() {
        let post = "[    4.1] amdgpu 0000:03:00.0: gpu post error!\n";
        let f = fired(post);
        assert_eq!(f[0].0, "families.gpu-not-answering", "{f:?}");
        assert!(f[0].1.contains("amdgpu_device_init"), "{f:?}");
        let psp = "[    6.2] amdgpu 0000:41:00.0: amdgpu: PSP create ring failed!\n";
        assert_eq!(ids(psp), ["families.gpu-not-answering"]);
        let firmware = "[    6.1] amdgpu 0000:41:00.0: Direct firmware load for \
                        amdgpu/psp_13_0_0_sos.bin failed with error -2\n[    6.2] amdgpu \
                        0000:41:00.0: amdgpu: PSP create ring failed!\n";
        assert!(ids(firmware).is_empty());
        // The words in prose, not as the driver prints them: no origin, no answer.
        assert!(ids("is atombios stuck in loop a known thing?\n").is_empty());
    }
    #[test]
    fn a_vm_whose_display_listing_has_only_a_virtual_adapter_has_no_amd_gpu() {
        let t = "$ lspci | grep VGA\n00:02.0 VGA compatible controller: Red Hat, Inc. Virtio GPU \
                 (rev 01)\nKernel driver in use: virtio-pci\nhost GPU: PCI\\VEN_1002&DEV_744C\n";
        let f = fired(t);
        assert_eq!(f[0].0, "families.vm-display-only", "{f:?}");
        assert!(f[0].1.contains("the host's"), "{f:?}");
        // The GPU passed through beside the virtual adapter: not this rule's.
        let passed = "$ lspci\n00:02.0 VGA compatible controller: Red Hat, Inc. Virtio GPU\n\
                      01:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] \
                      Navi 31\n";
        assert!(ids(passed).is_empty());
    }

    #[test]
    fn rsmi_init_failing_without_an_amd_gpu_is_harmless_with_one_it_is_not() {
        let t = "hwloc-ls on our NVIDIA nodes prints\nException caught: rsmi_init.\nthese nodes \
                 don't have any AMD GPU\n";
        let d = rules(t, &Facts::of(t));
        assert_eq!(d.len(), 1);
        assert!(d[0].symptom.harmless);
        let with_gpu = "Exception caught: rsmi_init.\nGPU: AMD Radeon RX 7900 XTX\n";
        assert!(ids(with_gpu).is_empty());
        assert!(ids("Exception caught: rsmi_init.\n").is_empty());
    }
}
