//! Rules over the kernel refusing to load AMD's driver modules (issue 28, item 4: "driver too
//! old/new for the DKMS module", and the driver that never loads). Pure.
//!
//! - Secure Boot: the kernel enforces module signatures and the module (built on the machine
//!   by DKMS) is unsigned or signed with a key the firmware does not trust. The kernel's
//!   `module_sig_check` (`kernel/module/signing.c`) prints "Loading of unsigned module is
//!   rejected" / "Loading of module with unavailable key is rejected" and returns EKEYREJECTED,
//!   which kmod prints as "could not insert 'amdgpu': Key was rejected by service" (kmod
//!   `tools/modprobe.c`; glibc's strerror); under lockdown alone the kernel prints "Lockdown:
//!   modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"
//!   (`security/lockdown/lockdown.c`). ROCm/legacy-rocm-build#276 and #4328.
//! - A module built for another kernel: the kernel prints "amdgpu: version magic 'A' should be
//!   'B'" (`kernel/module/main.c`, vermagic check) or "amdgpu: disagrees about version of symbol
//!   S" (`kernel/module/version.c`): DKMS did not build the module for the running kernel.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{line_of, re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";
const ORIGIN: &str = "rule over the kernel's refusals to load AMD's driver modules \
                      (src/packs/modload.rs; kernel/module/signing.c, kmod tools/modprobe.c)";

/// The Secure Boot answer's own cause: a symptom of a driver not loaded tells to load it, which
/// fails again; this answer's fix is the one that works, so it stands before that symptom.
const OWN: &[&str] = &["gpu-driver-missing"];

/// AMD's kernel modules: the in-tree amdgpu, and those amdgpu-dkms adds beside it (amdttm,
/// amdkcl, amdxcp, amd-sched, amddrm_*: the module list of the amdgpu-dkms package's
/// dkms.conf, as `dkms status` and modinfo show them).
const MODULES: &str = r"amd(?:gpu|kfd|ttm|kcl|xcp|drm\w*|[-_]sched)";

fn secure_boot() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "modload.signature-rejected",
            "the kernel rejects AMD's driver module: Secure Boot and an unsigned (or \
             untrusted) module",
            "gpu-driver-missing",
            "The kernel enforces module signatures (Secure Boot): the amdgpu module that DKMS \
             built on this machine is unsigned, or signed with a key the firmware was never \
             told to trust, so it is refused and no compute driver runs.",
            "Enroll DKMS's signing key and reboot through the MOK manager (mokutil --import \
             /var/lib/dkms/mok.pub, or the key your distribution's DKMS names), or use the \
             distribution kernel's own signed amdgpu instead of amdgpu-dkms (ROCm's user space \
             runs on the in-tree driver of a supported kernel), or turn Secure Boot off.",
            ORIGIN,
        )
    })
}

fn other_kernel() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "modload.built-for-another-kernel",
            "AMD's driver module was built for another kernel than the running one",
            "platform-dkms-kernel",
            "The amdgpu module found was built for another kernel (its version magic or \
             symbol versions differ from the running kernel's): DKMS did not build it for \
             this kernel, usually because the build failed for it.",
            "Rebuild it for the running kernel (dkms autoinstall -k $(uname -r), with that \
             kernel's headers installed) and read the build log if it fails; if the release's \
             amdgpu-dkms does not build for this kernel, boot a kernel it supports or use the \
             kernel's own amdgpu.",
            ORIGIN,
        )
    })
}

fn signature_rejected(text: &str) -> Option<Derived> {
    static INSERT: OnceLock<Regex> = OnceLock::new();
    static KERNEL: OnceLock<Regex> = OnceLock::new();
    static AMD: OnceLock<Regex> = OnceLock::new();
    // kmod's modprobe/insmod and systemd-modules-load name the module and the errno's text.
    let insert = re(
        &INSERT,
        &format!(
            concat!(
                r"(?:could not insert (?:module )?'?|Failed to insert module '|Failed to insert ')",
                r"(?:\S*/)?({})(?:\.ko\S*)?'?: (Key was rejected by service|Required key not available)"
            ),
            MODULES
        ),
    );
    if let Some(c) = insert.captures(text) {
        let line = line_of(text, insert)?;
        return Some(
            Derived::reasoned(
                secure_boot(),
                line,
                format!(
                    "loading {} failed with \"{}\": the kernel's answer when it enforces \
                     module signatures and the module is unsigned or its key is not trusted \
                     ({FROM})",
                    &c[1], &c[2]
                ),
            )
            .overruling(OWN),
        );
    }
    // The kernel's own lines say nothing of which module: only beside AMD's module named.
    let kernel = re(
        &KERNEL,
        concat!(
            r"Loading of (?:unsigned module|module with unavailable key) is rejected",
            r"|Lockdown: \S+: unsigned module loading is restricted",
        ),
    );
    let line = line_of(text, kernel)?;
    let amd = re(&AMD, &format!(r"\b{MODULES}\b|amdgpu-dkms"));
    if !amd.is_match(text) {
        return None;
    }
    Some(
        Derived::reasoned(
            secure_boot(),
            line,
            format!(
                "the kernel refuses an unsigned module (or one with an untrusted key) where the \
                 text loads AMD's driver ({FROM})"
            ),
        )
        .overruling(OWN),
    )
}

fn built_for_another_kernel(text: &str) -> Option<Derived> {
    static MAGIC: OnceLock<Regex> = OnceLock::new();
    let magic = re(
        &MAGIC,
        &format!(
            concat!(
                r"\b({0}): version magic '([^' ]+)[^']*' should be '([^' ]+)",
                r"|\b({0}): disagrees about version of symbol (\S+)",
            ),
            MODULES
        ),
    );
    let c = magic.captures(text)?;
    let line = line_of(text, magic)?;
    let why = match (c.get(1), c.get(4)) {
        (Some(m), _) => format!(
            "the kernel refuses {}: built for kernel {}, the running one is {}",
            m.as_str(),
            &c[2],
            &c[3]
        ),
        (None, Some(m)) => format!(
            "the kernel refuses {}: its version of {} is not the running kernel's, so it was \
             built against another kernel's headers",
            m.as_str(),
            &c[5]
        ),
        (None, None) => return None,
    };
    Some(Derived::reasoned(
        other_kernel(),
        line,
        format!("{why} ({FROM})"),
    ))
}

/// The rules of this module that fire on a text.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    // The words every line these rules read holds (most texts have none).
    let words = [
        "Key was rejected",
        "Required key not available",
        "Loading of ",
        "Lockdown:",
        "version magic",
        "disagrees about version",
    ];
    if !words.iter().any(|w| text.contains(w)) {
        return Vec::new();
    }
    [signature_rejected(text), built_for_another_kernel(text)]
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        super::super::facts::class_and_reasoning(rules(text))
    }

    #[test]
    fn secure_boot_refusing_amdgpu() {
        // kmod's line (tools/modprobe.c) with glibc's text of EKEYREJECTED.
        let kmod = "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service";
        let f = fired(kmod);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "gpu-driver-missing");
        assert!(f[0].1.contains("loading amdgpu failed"), "{f:?}");
        // systemd-modules-load, and DKMS's extra modules.
        let systemd = "systemd-modules-load[602]: Failed to insert module 'amdttm': Key was rejected by service";
        assert!(fired(systemd)[0].1.contains("loading amdttm"));
        let insmod = "insmod: ERROR: could not insert module /lib/modules/6.8.0-45-generic/updates/dkms/amdgpu.ko.zst: Required key not available";
        assert!(fired(insmod)[0].1.contains("Required key not available"));
        // The kernel's own lines, only beside AMD's module.
        let kernel = "[    5.1] Loading of unsigned module is rejected\nsudo modprobe amdgpu\n";
        assert_eq!(fired(kernel)[0].0, "gpu-driver-missing");
        let lockdown = "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n";
        assert!(fired(lockdown).is_empty(), "no AMD module named");
        // Another vendor's module: not this rule.
        let r8126 = "modprobe: ERROR: could not insert 'r8126': Key was rejected by service";
        assert!(fired(r8126).is_empty());
        // Another errno: not this rule.
        let nodev = "modprobe: ERROR: could not insert 'amdgpu': No such device";
        assert!(fired(nodev).is_empty());
    }

    #[test]
    fn a_module_built_for_another_kernel() {
        let magic = "[    4.2] amdgpu: version magic '6.5.0-14-generic SMP preempt mod_unload modversions ' should be '6.8.0-31-generic SMP preempt mod_unload modversions '";
        let f = fired(magic);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "platform-dkms-kernel");
        assert!(
            f[0].1
                .contains("built for kernel 6.5.0-14-generic, the running one is 6.8.0-31-generic"),
            "{f:?}"
        );
        let symbol = "[    3.9] amdttm: disagrees about version of symbol dma_resv_add_fence\n";
        assert!(fired(symbol)[0]
            .1
            .contains("its version of dma_resv_add_fence"));
        let other = "[    3.9] nvidia: disagrees about version of symbol module_layout\n";
        assert!(fired(other).is_empty());
    }
}
