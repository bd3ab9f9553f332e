//! KFD refusing a GPU, read with the ISA of the GPU its line names. Pure.
//!
//! KFD prints three lines when it will not take a GPU: `%s %s not supported in kfd` with the
//! kernel's chip name (`kfd_device.c` `kgd2kfd_probe`; ROCm/ROCm#2232: `kfd kfd: amdgpu:
//! PITCAIRN  not supported in kfd`), `GC IP %06x %s not supported in kfd` with the GC IP
//! version of a GPU found by IP discovery (the same function; Linux 6.1.20 on stable@,
//! https://lore.kernel.org/stable/ZCLsHCq46XBG1ZW3@kroah.com/: `kfd kfd: amdgpu: GC IP 0b0004
//! not supported in kfd`), and, in kernels before 5.x, `DID %04x is missing in
//! supported_devices` with the PCI device id (`lookup_device_info`; ROCm/ROCm#719). Each names
//! the GPU ([`super::asicnames::chips_in`], [`super::gcversions::gcs_in`],
//! [`super::gpunames::ids_in`]), and its ISA decides what the line means:
//!
//! - an ISA ROCm does not support (`checks/why-facts.toml`: `[[override]]`, `[[no_override]]`):
//!   the ISA's verdict, as every "no code" answer words it ([`facts::unsupported_words`]). When
//!   no kernel's KFD takes the ISA at all (not in the pinned kernel's `kfd_device.c`: the GFX6
//!   chips, Bonaire, Kabini, Mullins) a newer kernel cannot help, and this overrules "the kernel
//!   predates the GPU"; when a newer KFD does take it, that stays the first answer and this one
//!   says what comes after it (ROCm itself does not support the ISA);
//! - an ISA ROCm supports, which every newer KFD takes: the running kernel predates the GPU
//!   (the `kfd-did-missing` reading), also for a `not supported in kfd` line.
//!
//! A line naming no GPU the tables know (a GC version the pinned kernel's `kgd2kfd_probe` has
//! no case for, an unknown id) leaves the symptoms their own answer, and so does a line refusing
//! a virtual function, by chip or by GC version (`TONGA VF not supported in kfd`, `GC IP 090100
//! VF not supported in kfd`): `kgd2kfd_probe` takes several GPUs only when not a VF (Linux
//! 7.2.13: Raven, Navi 10, Van Gogh, ...), so the line says nothing of the kernel's age or the
//! GPU's support (the `kfd-asic-not-supported` symptom leaves it too).

use super::asicnames::{chips_in, kfd_experimental, kfd_knows};
use super::facts::{self, cached_symptom, Derived, IsaVerdict};
use super::gcversions::gcs_in;
use super::gpunames::{ids_in, Found};
use super::Symptom;
use std::sync::OnceLock;

const SOURCE: &str = "rule over the GPU a KFD line names (checks/gpu-names.toml) and its ISA \
                      facts (checks/why-facts.toml)";

/// The first KFD refusal of the text that names a GPU the tables know: its line number (from
/// 1), the line, and the GPU.
fn refusal(text: &str) -> Option<(usize, &str, Found)> {
    text.lines().enumerate().find_map(|(i, l)| {
        if !(l.contains("not supported in kfd") || l.contains("is missing in supported_devices")) {
            return None;
        }
        // `%s %s not supported in kfd` with "VF": a virtual function refused, whether the
        // first `%s` is a chip name or a GC version (see the module doc): not the kernel's age.
        if l.contains(" VF not supported in kfd") {
            return None;
        }
        let gpu = chips_in(l)
            .into_iter()
            .next()
            .or_else(|| {
                // `GC IP 0b0004 VF`: a virtual function, see the module doc.
                gcs_in(l)
                    .into_iter()
                    .find(|f| l[f.at..].split_whitespace().nth(3) != Some("VF"))
            })
            .or_else(|| {
                // Only the id the DID line names (a modesetting line's ids are read elsewhere).
                ids_in(l)
                    .into_iter()
                    .find(|f| l[f.at..].starts_with("DID "))
            })?;
        Some((i + 1, l, gpu))
    })
}

/// The answers a KFD refusal gives with the ISA of the GPU it names: see the module doc.
pub(crate) fn rules(text: &str) -> Vec<Derived> {
    static UNSUPPORTED: OnceLock<Symptom> = OnceLock::new();
    static PREDATES: OnceLock<Symptom> = OnceLock::new();
    let Some((no, line, gpu)) = refusal(text) else {
        return Vec::new();
    };
    let isa = gpu.isa.as_str();
    let named = format!("{isa} ({}, named in line {no} by KFD)", gpu.said);
    let line: String = line.trim().chars().take(300).collect();
    let knows = kfd_knows(isa);
    let verdict = facts::isa_verdict(isa);
    let d = match &verdict {
        IsaVerdict::Supported if knows => {
            let sy = cached_symptom(
                &PREDATES,
                [
                    "kfd.kernel-predates-gpu",
                    "KFD does not know this GPU: the running kernel predates it",
                    "gpu-driver-missing",
                    "The GPU KFD refuses is one ROCm supports and newer kernels' KFD takes \
                     (kfd_device.c), so the running kernel (or its amdgpu-dkms) is older than \
                     the GPU.",
                    "Boot a newer kernel, or install the amdgpu-dkms of a ROCm release that \
                     supports the GPU.",
                    SOURCE,
                ],
            );
            let why = format!(
                "{named}: an ISA ROCm supports and the KFD of newer kernels takes (kfd_device.c \
                 kgd2kfd_probe); the running kernel's KFD predates the GPU"
            );
            Derived::reasoned(sy, line, why).overruling(&["gpu-unsupported-asic"])
        }
        IsaVerdict::Override { .. } | IsaVerdict::NoOverride { .. } => {
            let words = facts::unsupported_words(&verdict).unwrap_or_default();
            let last = facts::table()
                .retired
                .iter()
                .find(|r| r.isa == isa)
                .map_or(String::new(), |r| {
                    format!(" (ROCm {} was the last release that supported it)", r.until)
                });
            let kernel = if knows && kfd_experimental(isa) {
                "the KFD of current kernels takes it only with the amdgpu.exp_hw_support=1 \
                 module option (kfd_device.c kgd2kfd_probe: its support is experimental, and \
                 without the option the same line is printed), and ROCm still does not \
                 support it"
            } else if knows {
                "a newer kernel's KFD takes it (kfd_device.c kgd2kfd_probe), so a newer kernel \
                 makes KFD see it, but ROCm still does not support it"
            } else {
                "no kernel's KFD takes it (kfd_device.c kgd2kfd_probe gives it no \
                 gfx_target_version), so no newer kernel or amdgpu-dkms makes it a ROCm device"
            };
            let sy = cached_symptom(
                &UNSUPPORTED,
                [
                    "kfd.isa-unsupported",
                    "KFD refuses the GPU, and its ISA is not one ROCm supports",
                    "gpu-unsupported-asic",
                    "The GPU the KFD line names is of an ISA ROCm does not support; the \
                     reasoning says whether any kernel's KFD takes it and what runs it.",
                    "See the reasoning: what runs this ISA (an older release, a source or \
                     community build), or a GPU ROCm supports.",
                    SOURCE,
                ],
            );
            let why = format!("{named}: {words}{last}; {kernel}");
            let d = Derived::reasoned(sy, line, why);
            // A kernel's age is the first answer only where a newer kernel alone takes the GPU.
            if knows && !kfd_experimental(isa) {
                d.deferring_to(&["gpu-driver-missing"])
            } else {
                d.overruling(&["gpu-driver-missing"])
            }
        }
        _ => return Vec::new(),
    };
    let mut d = d;
    // How the chip's or GC version's ISA is known, for the evidence (an id's is the table's row,
    // cited there).
    let how = if let Some(name) = gpu.said.strip_prefix("kernel chip ") {
        super::asicnames::isa_source(name).map(|h| ("chip", h))
    } else {
        gpu.said
            .split_once(" = GC ")
            .and_then(|(_, gc)| super::gcversions::isa_source(gc))
            .map(|h| ("GC version", h))
    };
    if let Some((what, how)) = how {
        if let Some((_, why)) = d.captures.iter_mut().find(|(k, _)| k == "reasoning") {
            why.push_str(&format!(
                " (the {what}'s ISA: {how}, checks/gpu-names.toml)"
            ));
        }
    }
    d.captures.insert(0, ("isa".into(), isa.to_string()));
    vec![d]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> (String, String, String) {
        let d = rules(text);
        assert_eq!(d.len(), 1, "{text}");
        let d = &d[0];
        (
            d.symptom.id.clone(),
            d.symptom.class.clone().unwrap_or_default(),
            d.reasoning().to_string(),
        )
    }

    /// A GFX6 chip no KFD takes: the ISA's verdict, and no newer kernel helps.
    /// https://github.com/ROCm/ROCm/issues/2232
    #[test]
    fn a_chip_no_kfd_takes_is_its_isas_answer() {
        let t = "[    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n";
        let (id, class, why) = answer(t);
        assert_eq!(
            (id.as_str(), class.as_str()),
            ("kfd.isa-unsupported", "gpu-unsupported-asic")
        );
        assert!(
            why.starts_with("gfx601 (kernel chip PITCAIRN, named in line 1 by KFD)"),
            "{why}"
        );
        assert!(why.contains("no kernel's KFD takes it"), "{why}");
        assert!(
            why.contains("no HSA_OVERRIDE_GFX_VERSION value helps"),
            "{why}"
        );
        assert_eq!(rules(t)[0].overrules, ["gpu-driver-missing"]);
    }

    /// A GPU a newer KFD takes but ROCm does not support: the ISA's verdict after "the kernel
    /// predates it". The DID line of ROCm/ROCm#719 (Picasso, 15d8: gfx902).
    #[test]
    fn a_gpu_a_newer_kfd_takes_keeps_the_kernel_answer_first() {
        let t = "> [    2.510806] kfd kfd: DID 15d8 is missing in supported_devices";
        let (id, _, why) = answer(t);
        assert_eq!(id, "kfd.isa-unsupported");
        assert!(why.starts_with("gfx902"), "{why}");
        assert!(why.contains("a newer kernel's KFD takes it"), "{why}");
        let d = &rules(t)[0];
        assert_eq!(d.defers_to, ["gpu-driver-missing"]);
        assert!(d.overrules.is_empty());
        // Hawaii (gfx701; the line by kfd_device.c's format): current kernels' KFD takes it only
        // with amdgpu.exp_hw_support=1 (the table's kfd_experimental), so a newer kernel alone
        // does not help and the ISA's verdict comes first.
        let t = "kfd kfd: amdgpu: HAWAII  not supported in kfd";
        let (id, _, why) = answer(t);
        assert_eq!(id, "kfd.isa-unsupported");
        assert!(why.starts_with("gfx701"), "{why}");
        assert!(
            why.contains("only with the amdgpu.exp_hw_support=1"),
            "{why}"
        );
        assert!(!why.contains("a newer kernel's KFD takes it"), "{why}");
        assert_eq!(rules(t)[0].overrules, ["gpu-driver-missing"]);
        // gfx803 (Polaris 11, 67ef): retired, with its last release.
        let (_, _, why) = answer("kfd kfd: DID 67ef is missing in supported_devices");
        assert!(why.contains("ROCm 3.10 was the last release"), "{why}");
    }

    /// A GPU ROCm supports: the running kernel predates it, whichever line KFD printed.
    #[test]
    fn a_supported_gpu_is_a_kernel_older_than_it() {
        for t in [
            "kfd kfd: DID 73bf is missing in supported_devices",
            "kfd kfd: amdgpu: SIENNA_CICHLID  not supported in kfd",
        ] {
            let (id, class, why) = answer(t);
            assert_eq!(
                (id.as_str(), class.as_str()),
                ("kfd.kernel-predates-gpu", "gpu-driver-missing")
            );
            assert!(why.starts_with("gfx1030 ("), "{why}");
            assert_eq!(rules(t)[0].overrules, ["gpu-unsupported-asic"]);
        }
    }

    /// KFD's GC form: the ISA the pinned kernel gives the GC version decides, as for a chip
    /// name, with where the table has it.
    #[test]
    fn a_gc_version_is_read_as_its_isa() {
        // https://lore.kernel.org/stable/ZCLsHCq46XBG1ZW3@kroah.com/: Linux 6.1.20 on a GC
        // 11.0.4 product; KFD support for it landed in 6.2 ("drm/amdkfd: add GC 11.0.4 KFD
        // support", 88c21c2b56aa), i.e. the running kernel predated it.
        let t = "> kfd kfd: amdgpu: GC IP 0b0004  not supported in kfd\n";
        let want = match facts::isa_verdict("gfx1103") {
            IsaVerdict::Supported => "kfd.kernel-predates-gpu",
            _ => "kfd.isa-unsupported",
        };
        let (id, _, why) = answer(t);
        assert_eq!(id, want);
        assert!(
            why.starts_with("gfx1103 (GC IP 0b0004 = GC 11.0.4, named in line 1 by KFD)"),
            "{why}"
        );
        assert!(
            why.contains("(the GC version's ISA: kfd_device.c kgd2kfd_probe: IP_VERSION(11, 0, 4)"),
            "{why}"
        );
        assert_eq!(rules(t)[0].captures[0], ("isa".into(), "gfx1103".into()));
        // https://lore.kernel.org/lkml/KONJHR.T3DS4EBAXDVX1@att.net/: Linux 5.18.12, a Ryzen 5
        // 2400G (Raven, GC 9.1.0, gfx902), whose ISA ROCm does not support; a newer KFD takes it.
        let t = "kfd kfd: amdgpu: GC IP 090100 not supported in kfd\n";
        assert!(!matches!(
            facts::isa_verdict("gfx902"),
            IsaVerdict::Supported
        ));
        let (id, _, why) = answer(t);
        assert_eq!(id, "kfd.isa-unsupported");
        assert!(why.starts_with("gfx902 (GC IP 090100 = GC 9.1.0,"), "{why}");
        assert!(why.contains("a newer kernel's KFD takes it"), "{why}");
        assert_eq!(rules(t)[0].defers_to, ["gpu-driver-missing"]);
        // The later layout of the same format (no public line found): 10.3.0 is Sienna
        // Cichlid, gfx1030, which ROCm supports.
        let (id, _, why) = answer("kfd kfd: amdgpu: GC IP a030000  not supported in kfd");
        assert_eq!(id, "kfd.kernel-predates-gpu");
        assert!(
            why.starts_with("gfx1030 (GC IP a030000 = GC 10.3.0,"),
            "{why}"
        );
    }

    /// Through `why`'s ranking (text only): the answers in order, with the reasoning joined to
    /// the symptom of the same cause.
    #[test]
    fn the_answers_in_order() {
        let order = |t: &str| -> Vec<(String, bool)> {
            super::super::why::recognise(&crate::registry::sources::built_in(), t)
                .iter()
                .map(|h| (h.symptom.id.clone(), h.capture("isa").is_some()))
                .collect()
        };
        let s = |id: &str, isa: bool| (id.to_string(), isa);
        // ROCm/ROCm#2232: the symptom of the same cause gains the ISA and its reasoning.
        let got = order("[    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n");
        assert_eq!(got[0], s("kfd-asic-not-supported", true), "{got:?}");
        // ROCm/ROCm#719: the kernel first, the ISA after it.
        let got = order("> [    2.510806] kfd kfd: DID 15d8 is missing in supported_devices\n");
        assert_eq!(got[0], s("kfd-did-missing", false), "{got:?}");
        assert_eq!(got[1], s("kfd.isa-unsupported", true), "{got:?}");
        // A GFX6 id (Tahiti, 6798): no kernel helps, the ISA comes first.
        let got = order("kfd kfd: DID 6798 is missing in supported_devices\n");
        assert_eq!(got[0], s("kfd.isa-unsupported", true), "{got:?}");
        // https://lore.kernel.org/stable/ZCLsHCq46XBG1ZW3@kroah.com/: the GC form gives the
        // answer of its ISA first, whichever it is.
        let got = order("kfd kfd: amdgpu: GC IP 0b0004  not supported in kfd\n");
        let first = match facts::isa_verdict("gfx1103") {
            IsaVerdict::Supported => "kfd.kernel-predates-gpu",
            _ => "kfd.isa-unsupported",
        };
        assert_eq!(got[0], s(first, true), "{got:?}");
        // A supported chip named as not supported: the kernel predates it.
        let got = order("kfd kfd: amdgpu: SIENNA_CICHLID  not supported in kfd\n");
        assert_eq!(got[0], s("kfd.kernel-predates-gpu", true), "{got:?}");
        assert!(
            got.iter().any(|(i, _)| i == "kfd-asic-not-supported"),
            "{got:?}"
        );
        // A virtual function refused (kfd_device.c's second %s, "VF"): not "this generation
        // is not supported", and `VF` is not a chip.
        let got = order("kfd kfd: amdgpu: TONGA VF not supported in kfd\n");
        assert!(
            got.iter().all(|(i, _)| i != "kfd-asic-not-supported"),
            "{got:?}"
        );
    }

    /// A line naming no GPU the tables know, and a text without KFD's lines, give nothing; a
    /// modesetting line's id beside a KFD line without one is not the refused GPU.
    #[test]
    fn no_named_gpu_no_answer() {
        for t in [
            // kfd_device.c's GC form with a version no kgd2kfd_probe case of the pinned kernel
            // names (8.0.0; and 13.0.0 in the later layout), and a virtual function's line
            "Mar 02 09:14:07 ws1 kernel: kfd kfd: amdgpu: GC IP 080000  not supported in kfd",
            "kfd kfd: amdgpu: GC IP d000000  not supported in kfd",
            "kfd kfd: amdgpu: GC IP 090100 VF not supported in kfd",
            // the chip form of a virtual function (built from kfd_device.c's format)
            "kfd kfd: amdgpu: TONGA VF not supported in kfd",
            "kfd kfd: DID 0000 is missing in supported_devices",
            "kfd kfd: amdgpu: NAVI31  not supported in kfd",
            "[drm] initializing kernel modesetting (POLARIS10 0x1002:0x67DF 0x1DA2:0xE366 0xE7).",
            "pitcairn not supported in kfd",
        ] {
            assert!(rules(t).is_empty(), "{t}");
        }
    }
}
