//! "The running kernel is older than the GPU": a text that states the GPU, the running kernel and
//! a symptom of no compute device, where the kernel's series is one whose amdkfd has no entry for
//! the GPU (`[[kfd_since]]` of `checks/why-facts.toml`, read by `scripts/kfd-since.py` from
//! kfd_device.c of Ubuntu's and Debian's linux-source packages, 4.15 to 7.2). Pure.
//!
//! KFD adds a compute device only for the GPUs `kgd2kfd_probe` (kfd_device.c) finds in its
//! lookup (a PCI id table up to 5.4, a table by asic_type after, a switch on the GC IP version
//! from 5.19); an older kernel's amdgpu may still light the display, but no compute agent
//! appears and HIP finds no device. A row's `lacks` is read on one distribution's package of the
//! series (Ubuntu's carry Ubuntu's patches), and series older than it are taken to lack the GPU
//! too; a series between `lacks` and `has` gets no answer. The fix is a kernel that knows the GPU, or AMD's amdgpu-dkms, which
//! brings its own amdgpu and KFD.
//!
//! The rule stays silent where the version does not tell KFD's age or the GPU is not certain:
//! - amdgpu-dkms (or the older rock-dkms, or rocm-dkms, which installs it) named in the text,
//!   `dkms status`'s amdgpu line or the module under `updates/dkms`: its module is not the
//!   kernel's;
//! - a distribution kernel whose number is not a mainline series: RHEL and its rebuilds
//!   (`.el7`, `.el8`, `.el9`), SLES/openSUSE (`-default`), Ubuntu's OEM kernels (`-oem`). The
//!   enterprise distributions keep one kernel number across minor releases (AMD's system
//!   requirements, ROCm/rocm-install-on-linux `docs/reference/system-requirements.rst` at
//!   001dde257a623be99ecc1e0edc1f2340fffd4ef6: RHEL 9.2 and 9.3 both `5.14.0-362`, RHEL 8.8 and
//!   8.9 both `4.18-513`, SLES 15 SP4 and SP5 both `5.14.21-150500`), so their number does not
//!   say which mainline series' amdgpu they carry; Ubuntu's OEM
//!   kernels carry additional device drivers (new graphics among them) ahead of the generic
//!   kernel (Ubuntu wiki, https://wiki.ubuntu.com/Kernel/OEMKernel, "Differences from other
//!   Ubuntu kernels");
//! - KFD's own "added device" line: the device was added after all;
//! - WSL: no KFD there (the WSL rule answers);
//! - two GPUs (ISAs) in the text: which one fails is not said.

use super::facts::{
    cached_symptom, line_of, re, Derived, Facts, KfdSince, Platform, HIP_NO_DEVICE,
};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const SOURCE: &str = "rule over the GPU and kernel facts of the text (checks/why-facts.toml \
                      [[kfd_since]])";

/// The lines that say there is no compute device or no KFD: HIP's no-device headlines, hipInit
/// or hipGetDeviceCount failing, rocminfo's "ROCk module is NOT loaded", /dev/kfd missing (not
/// closed: a /dev/kfd the user may not open is another cause), and KFD refusing the GPU (kfd_device.c: "not supported in kfd", "is missing in
/// supported_devices"; amdgpu_amdkfd.c of the kernels whose amdgpu probes KFD by asic_type
/// itself: "kfd not supported on this ASIC", the `default:` of amdgpu_amdkfd_device_probe in
/// Ubuntu's linux-source-4.15.0 4.15.0-213.224, read beside scripts/kfd-since.py's pins).
fn symptom_line(text: &str) -> Option<String> {
    static NO_DEVICE: OnceLock<Regex> = OnceLock::new();
    let src = format!(
        "(?i){HIP_NO_DEVICE}|hipInit\\b.{{0,80}}(?:fail|error)|(?:fail|error).{{0,80}}\\bhipInit\\b\
         |hipGetDeviceCount\\b.{{0,80}}(?:fail|error|no device)\
         |ROCk module is NOT loaded|/dev/kfd.{{0,40}}No such file|No such file.{{0,40}}/dev/kfd\
         |/dev/kfd (?:does not exist|not found|is missing)\
         |not supported in kfd|is missing in supported_devices|kfd not supported on this ASIC"
    );
    line_of(text, re(&NO_DEVICE, &src))
}

/// Where the text shows the version does not date amdgpu/KFD, or KFD took the GPU: see the
/// module doc.
fn silenced(text: &str, kernel: &str) -> bool {
    static DKMS: OnceLock<Regex> = OnceLock::new();
    static ADDED: OnceLock<Regex> = OnceLock::new();
    static DISTRO: OnceLock<Regex> = OnceLock::new();
    // The packages by name, `dkms status`'s line of the amdgpu module (`amdgpu, 2.1-96,
    // 4.15.0-45-generic, x86_64: installed`, `amdgpu/6.8.5-2009582.24.04, 6.8.0-40-generic,
    // x86_64: installed`) and the module's path under `updates/dkms`.
    re(
        &DKMS,
        r"(?im)\b(?:amdgpu|rock|rocm)-dkms\b|^\s*amdgpu[,/]\s*[\d.:-]+.*\binstalled\b|/updates/dkms/amdgpu\.ko",
    )
    .is_match(text)
        || re(&ADDED, r"kfd: (?:amdgpu: )?added device").is_match(text)
        || re(&DISTRO, r"(?i)\.el[789]\b|\.el[789]_\d|-default\b|-oem\b").is_match(kernel)
}

/// `major.minor` of a version (`5.4.0-42-generic` -> (5, 4)).
fn series(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split(|c: char| !c.is_ascii_digit());
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// The ISA as the answer names it, with the name the text gave it (`gfx900 (from "Vega 64")`).
fn named(isa: &str, said: Option<&str>) -> String {
    match said {
        Some(s) => format!("{isa} (from \"{s}\")"),
        None => isa.to_string(),
    }
}

fn rows() -> &'static [KfdSince] {
    &super::facts::table().kfd_since
}

/// The rules' answers, if any (`why::recognise` joins them beside KFD's refusals).
pub(crate) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    rule(text, f)
        .or_else(|| refused_by_an_older_kfd(text, f))
        .into_iter()
        .collect()
}

/// "The kernel's KFD refuses a GPU that later kernels' KFD knows": amdgpu's own refusal of the
/// 4.x kernels (amdgpu_amdkfd.c amdgpu_amdkfd_device_probe's `default:`, "kfd not supported on
/// this ASIC": the ASIC is not in that kernel's KFD at all) for the one GPU the text names, an
/// ISA of a `[[kfd_since]]` row: a newer kernel's KFD has it, so the running kernel predates its
/// compute support, whatever its version string says (none is needed). An ISA with no row (the
/// gfx6/gfx7 GPUs no KFD ever took, or one the table does not hold) is left to the release
/// rules' "KFD does not support this GPU"; an amdgpu-dkms in the text, WSL or two GPUs keep it
/// silent, as above.
pub(super) fn refused_by_an_older_kfd(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static REFUSED: OnceLock<Regex> = OnceLock::new();
    if f.on(Platform::Wsl) || f.isas.len() != 1 {
        return None;
    }
    let line = line_of(text, re(&REFUSED, r"kfd not supported on this ASIC"))?;
    let (isa, said) = &f.isas[0];
    let row = rows().iter().find(|r| r.isas.contains(isa))?;
    if silenced(text, "") {
        return None;
    }
    let sy = cached_symptom(
        &S,
        [
            "facts.kfd-older-than-gpu",
            "the running kernel's KFD refuses a GPU newer kernels support",
            "gpu-driver-missing",
            "amdgpu found the GPU, but the running kernel's compute driver (KFD) has no entry for              its ASIC, and later kernels' KFD has one: the kernel predates the GPU's compute              support, so no compute device is added.",
            "Boot a kernel of the release the reasoning names or of a newer series, or install the              amdgpu-dkms driver of a ROCm release that supports the GPU; then check rocminfo for              the GPU agent.",
            SOURCE,
        ],
    );
    let named = named(isa, said.as_deref());
    let why = format!(
        "the running kernel's KFD refuses the ASIC (its own line), and {named} is in the KFD of \
         Linux {has} as read ({source}; Linux {lacks} as read lacks it): the kernel predates the \
         GPU's compute support; boot {has} or a newer series, or the amdgpu-dkms of a ROCm \
         release that supports {isa}; GPU from the text (this machine was not asked)",
        has = row.has,
        lacks = row.lacks,
        source = row.source,
    );
    Some(Derived::reasoned(sy, line, why).overruling(&["gpu-unsupported-asic"]))
}

/// The rule: see the module doc.
fn rule(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    if f.on(Platform::Wsl) || f.isas.len() != 1 {
        return None;
    }
    let (isa, said) = &f.isas[0];
    let row = rows().iter().find(|r| r.isas.contains(isa))?;
    let kernels: Vec<&str> = f
        .versions
        .iter()
        .filter(|(k, _)| k == "kernel")
        .map(|(_, v)| v.as_str())
        .collect();
    // One running kernel: two different ones do not say which ran.
    let [kernel] = kernels.as_slice() else {
        return None;
    };
    let (major, minor) = series(kernel)?;
    if (major, minor) > series(&row.lacks)? || silenced(text, kernel) {
        return None;
    }
    let line = symptom_line(text)?;
    let sy = cached_symptom(
        &S,
        [
            "facts.kernel-older-than-gpu",
            "the running kernel's amdgpu/KFD predates the GPU",
            "gpu-driver-missing",
            "The kernel the text shows is of a series whose amdkfd does not know the GPU \
             (kfd_device.c kgd2kfd_probe has no entry for it), so KFD adds no compute device: \
             rocminfo lists no GPU agent and HIP finds no device.",
            "Boot a kernel of the release the reasoning names or of a newer series (a \
             distribution's HWE or mainline kernel), or install the amdgpu-dkms driver of a ROCm release that supports \
             the GPU (it brings its own amdgpu and KFD); then check rocminfo for the GPU agent.",
            SOURCE,
        ],
    );
    let named = named(isa, said.as_deref());
    let why = format!(
        "kernel {kernel} (series {major}.{minor}, not newer than Linux {lacks}): the KFD of Linux \
         {lacks} as read and older has no entry for {named}, Linux {has}'s has one ({source}): boot \
         a kernel of that release or a newer series (another distribution's {has} may differ: the \
         packages read carry their distribution's patches), or install the amdgpu-dkms of a ROCm \
         release that supports {isa} (if an amdgpu-dkms module is loaded, which the text does not \
         show, this reading does not hold: `dkms status` tells); GPU and kernel from the text \
         (this machine was not asked)",
        lacks = row.lacks,
        has = row.has,
        source = row.source,
    );
    Some(Derived::reasoned(sy, line, why).overruling(&["gpu-unsupported-asic"]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Option<String> {
        rule(text, &Facts::of(text)).map(|d| d.reasoning().to_string())
    }

    #[test]
    fn every_row_names_known_isas_and_ordered_series() {
        assert!(rows().len() >= 3);
        for r in rows() {
            assert!(r.source.len() > 60, "{:?}", r.isas);
            assert!(series(&r.lacks) < series(&r.has), "{:?}", r.isas);
            for i in &r.isas {
                assert!(crate::isa::processor(i).is_some(), "{i}");
                // A row whose `has` is the pinned kernel (checks/gpu-names.toml) agrees with its
                // `kfd_isas` (7.2.13 no longer maps GC 9.4.3 to gfx940/gfx941, so rows read
                // elsewhere are not checked against it).
                if r.has == "7.2" {
                    assert!(super::super::asicnames::kfd_knows(i), "{i}");
                }
            }
        }
    }

    /// A made-up paste in the forms inxi (`Kernel:`), rocminfo (`Name: gfx1150`) and PyTorch
    /// print; Debian 12's kernel series is 6.1.
    const STRIX_61: &str = "System:\n  Kernel: 6.1.0-31-amd64 arch: x86_64 bits: 64\n\
        Graphics:\n  Device-1: AMD Strix [Radeon 880M / 890M] driver: amdgpu\n\
        RuntimeError: No HIP GPUs are available\n  Name: gfx1150\n";

    #[test]
    fn a_kernel_of_a_series_without_the_gpu_is_the_answer() {
        let why = answer(STRIX_61).expect("answers");
        assert!(
            why.contains("6.1.0-31-amd64") && why.contains("gfx1150"),
            "{why}"
        );
        // gfx1150's row: lacking in Ubuntu's 6.5, present in Ubuntu's 6.8 (scripts/kfd-since.py).
        assert!(
            why.contains("Linux 6.8") && why.contains("6.5.0-45.45~22.04.1"),
            "{why}"
        );
        assert!(why.contains("from the text"), "{why}");
        // The same paste with a kernel that knows the GPU: silent.
        assert!(answer(&STRIX_61.replace("6.1.0-31", "6.12.12")).is_none());
        assert!(answer(&STRIX_61.replace("6.1.0-31", "6.8.0-45")).is_none());
        // A series between the read ones (6.6) is not known to lack it: silent.
        assert!(answer(&STRIX_61.replace("6.1.0-31", "6.6.13")).is_none());
        // uname -a and uname -srmv forms are read too.
        let uname = STRIX_61.replace(
            "  Kernel: 6.1.0-31-amd64 arch: x86_64 bits: 64",
            "Linux box 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux",
        );
        assert!(answer(&uname)
            .expect("uname -a")
            .contains("5.15.0-91-generic"));
        let srmv = STRIX_61.replace(
            "  Kernel: 6.1.0-31-amd64 arch: x86_64 bits: 64",
            "Linux 5.15.0-91-generic #101-Ubuntu SMP x86_64",
        );
        assert!(answer(&srmv).is_some());
        // A product's version after "Linux" is no kernel (Radeon Software for Linux 21.40.1).
        let product = STRIX_61.replace(
            "  Kernel: 6.1.0-31-amd64 arch: x86_64 bits: 64",
            "Radeon Software for Linux 6.1.3 installed",
        );
        assert!(answer(&product).is_none());
    }

    /// A marketing name gives the ISA, and the answer says which name.
    #[test]
    fn a_marketing_name_is_named_in_the_answer() {
        let t = "OS: Ubuntu 22.04.3 LTS\nKernel: 6.1.0-1025-generic\nGPU: AMD Radeon RX 9070 XT\n\
                 rocminfo: ROCk module is NOT loaded, possibly no GPU devices\n";
        let why = answer(t).expect("answers");
        assert!(why.contains("gfx1201") && why.contains("9070"), "{why}");
    }

    /// KFD's own refusal by GC version (the form of Linux 6.1.20's line quoted in
    /// kfd_refused.rs, https://lore.kernel.org/stable/ZCLsHCq46XBG1ZW3@kroah.com/, here with GC
    /// 11.5.0) names the GPU, and is itself the symptom.
    #[test]
    fn kfds_refusal_by_gc_version_names_the_gpu_and_the_symptom() {
        let t = "Linux box 6.1.0-31-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.128-1 x86_64\n\
                 [    5.1] kfd kfd: amdgpu: GC IP 0b0500  not supported in kfd\n";
        let why = answer(t).expect("answers");
        assert!(
            why.contains("gfx1150") && why.contains("GC IP 0b0500"),
            "{why}"
        );
    }

    #[test]
    fn it_is_silent_where_the_reading_would_be_false() {
        // amdgpu-dkms installed.
        let dkms = format!("{STRIX_61}$ dpkg -l | grep amdgpu-dkms\nii  amdgpu-dkms 1:6.10.5\n");
        assert!(answer(&dkms).is_none());
        // dkms status's line of the module, in both of its forms, and the module's path.
        for line in [
            "amdgpu, 6.10.5-2084815.22.04, 6.1.0-31-amd64, x86_64: installed",
            "amdgpu/6.10.5-2084815.22.04, 6.1.0-31-amd64, x86_64: installed",
            "filename:       /lib/modules/6.1.0-31-amd64/updates/dkms/amdgpu.ko",
        ] {
            assert!(answer(&format!("{STRIX_61}{line}\n")).is_none(), "{line}");
        }
        // KFD added the device.
        let added = format!("{STRIX_61}[    4.1] kfd kfd: amdgpu: added device 1002:150e\n");
        assert!(answer(&added).is_none());
        // Distribution kernels whose number does not date amdgpu.
        for k in [
            "4.18.0-513.el8.x86_64",
            "5.14.0-427.13.1.el9_4.x86_64",
            "5.14.21-150500.55.39-default",
            "6.1.0-1036-oem",
        ] {
            let t = STRIX_61.replace("6.1.0-31-amd64", k);
            assert!(answer(&t).is_none(), "{k}");
        }
        // Two GPUs, not said which one fails.
        let two = format!("{STRIX_61}  Name: gfx1100\n");
        assert!(answer(&two).is_none());
        // A /dev/kfd the user may not open is no missing KFD (rocminfo's line).
        let closed = STRIX_61.replace(
            "RuntimeError: No HIP GPUs are available",
            "Unable to open /dev/kfd read-write: Permission denied",
        );
        assert!(answer(&closed).is_none());
        assert!(
            answer(&closed.replace("Permission denied", "No such file or directory")).is_some()
        );
        // No symptom.
        assert!(
            answer(&STRIX_61.replace("RuntimeError: No HIP GPUs are available\n", "")).is_none()
        );
        // No kernel.
        assert!(answer(&STRIX_61.replace("Kernel: 6.1.0-31-amd64", "")).is_none());
        // WSL.
        assert!(answer(&format!(
            "{STRIX_61}Linux 5.15.153.1-microsoft-standard-WSL2\n"
        ))
        .is_none());
        // A GPU whose row's `has` series (5.10 for gfx1030) is older than the kernel.
        assert!(answer(
            &STRIX_61
                .replace("gfx1150", "gfx1030")
                .replace("Strix [Radeon 880M / 890M]", "Navi 21")
        )
        .is_none());
    }

    /// https://github.com/ROCm/ROCm/issues/5433 (lines of the report, verbatim): a gfx1150 on
    /// 6.14.0-29-generic with amdgpu-dkms 6.14.14 failing in rocminfo; the thread states a
    /// regression of that driver (6.12.12 works), not a kernel too old: silent, by the series and
    /// by amdgpu-dkms each.
    const ROCM_5433: &str = "Radeon 890M gfx1150\n1. Enable Secure Boot, enroll MOK; kernel \
        6.14.0-29-generic.\n4. This installs amdgpu-dkms 6.14.14 and amdgpu-dkms-firmware 30.10.1.\n\
        rocminfo           # FAILS with HSA_STATUS_ERROR_OUT_OF_RESOURCES\n";

    /// https://github.com/ROCm/legacy-rocm-build/issues/1404 (lines of the report, verbatim):
    /// rocminfo's "ROCk module is NOT loaded" after installing rocm-dkms.
    const ROCM_1404: &str = "sudo apt install rocm-dkms\n/opt/rocm/bin/rocminfo\nROCk module is \
        NOT loaded, possibly no GPU devices\nUnable to open /dev/kfd read-write: No such file or \
        directory\n";

    #[test]
    fn real_reports_of_other_causes_stay_silent() {
        assert!(answer(ROCM_5433).is_none());
        // Without amdgpu-dkms the series (6.14, above the row's 6.1) still keeps it silent.
        assert!(answer(&ROCM_5433.replace("amdgpu-dkms", "the driver")).is_none());
        // rocminfo's line is a symptom the rule reads; rocm-dkms installs its own module.
        let gpu = "Kernel: 6.1.0-30-amd64\nGPU: gfx1201\n";
        assert!(answer(&format!("{gpu}{ROCM_1404}")).is_none());
        let without = ROCM_1404.replace("sudo apt install rocm-dkms\n", "");
        assert!(answer(&format!("{gpu}{without}")).is_some());
    }

    /// Every row, in the forms real reports print: dmesg's `Linux version ... (buildd@...)`
    /// line of Ubuntu's kernels and rocminfo's "ROCk module is NOT loaded, possibly no GPU
    /// devices" (both verbatim from https://github.com/ROCm/legacy-rocm-build/issues/3400),
    /// rocminfo's `Name:` line for the ISA. A kernel of the row's `lacks` series answers and
    /// names the `has` series; one of the `has` series is silent.
    #[test]
    fn every_row_answers_at_lacks_and_is_silent_at_has() {
        let text = |series: &str, isa: &str| {
            format!(
                "[    0.000000] Linux version {series}.0-41-generic (buildd@lcy02-amd64-120) \
                 (x86_64-linux-gnu-gcc-12 (Ubu\nhaideraf@haideraf:~/Downloads$ rocminfo\n\
                 ROCk module is NOT loaded, possibly no GPU devices\n  Name:                    \
                 {isa}\n"
            )
        };
        for r in rows() {
            for isa in &r.isas {
                let why = answer(&text(&r.lacks, isa))
                    .unwrap_or_else(|| panic!("{isa} on {} is not answered", r.lacks));
                assert!(
                    why.contains(&format!("Linux {}'s has one", r.has))
                        && why.contains(isa.as_str()),
                    "{why}"
                );
                assert!(answer(&text(&r.has, isa)).is_none(), "{isa} on {}", r.has);
            }
        }
    }

    /// What threads state about a kernel and a GPU agrees with the rows (statements verbatim):
    /// https://github.com/ROCm/legacy-rocm-build/issues/1306, an RX 5500 XT (gfx1012): "rocminfo
    /// does recognize gfx 1012 but not on 5.4, just 5.6", so gfx1012's row lacks it at 5.4 or
    /// later and not at 5.6; https://github.com/ROCm/legacy-rocm-build/issues/5102, an RX 9070
    /// XT (gfx1201): "Ubuntu 24.04.02 with 6.8 Kernel didn't recognize the GPU", so gfx1201's
    /// row lacks it at 6.8 or later. Their prose names no kernel in a printed form: silent.
    #[test]
    fn threads_that_blame_the_kernel_agree_with_the_rows() {
        let row = |isa: &str| rows().iter().find(|r| r.isas.iter().any(|i| i == isa));
        let navi14 = row("gfx1012").expect("gfx1012 row");
        assert!(series(&navi14.lacks) >= Some((5, 4)) && series(&navi14.lacks) < Some((5, 6)));
        let navi48 = row("gfx1201").expect("gfx1201 row");
        assert!(series(&navi48.lacks) >= Some((6, 8)));
        assert!(answer("rocminfo does recognize gfx 1012 but not on 5.4, just 5.6").is_none());
        assert!(answer(
            "I wanted to try doing some AI experimenting with RX 9070 XT. Ubuntu 24.04.02 with \
             6.8 Kernel didn't recognize the GPU."
        )
        .is_none());
    }

    /// https://github.com/ROCm/legacy-rocm-build/issues/3400 (lines of the report, verbatim): a
    /// 7900 XTX on Ubuntu's 6.5.0-41 with amdgpu-dkms and rocminfo's "ROCk module is NOT
    /// loaded": a kernel that knows gfx1100 and a DKMS module, not the kernel's age: silent.
    #[test]
    fn a_kernel_that_knows_the_gpu_is_no_answer() {
        let t = "amdgpu-dkms is already the newest version (1:6.7.0.60103-1787201.22.04).\n\
                 haideraf@haideraf:~/Downloads$ rocminfo\n\
                 ROCk module is NOT loaded, possibly no GPU devices\n\
                 [    0.000000] Linux version 6.5.0-41-generic (buildd@lcy02-amd64-120) \
                 (x86_64-linux-gnu-gcc-12 (Ubu\namd bugged in 7900xtx on linux\n";
        assert!(answer(t).is_none());
        let no_dkms = t.replace("amdgpu-dkms is already", "the driver is already");
        assert!(answer(&no_dkms).is_none());
        // The same lines on Ubuntu 22.04's 5.15 kernel and no DKMS module: the kernel's age.
        assert!(answer(&no_dkms.replace("6.5.0-41", "5.15.0-41")).is_some());
    }

    /// amdgpu's own refusal of the 4.15-era kernels (amdgpu_amdkfd.c: "kfd not supported on this
    /// ASIC", the line of https://github.com/ROCm/legacy-rocm-build/issues/539, verbatim) is a
    /// symptom: an RX 580 on Ubuntu 18.04's 4.15 answers, the same on 5.4 does not. The thread
    /// itself ("Apparently mainline kernels do not have kfd support for these cards (yet?)", an
    /// RX 560 on 4.19-rc3) is a kernel between the read 4.15 and 5.4: no answer, not a wrong one.
    #[test]
    fn amdgpus_own_refusal_is_a_symptom() {
        let t = "Linux box 4.15.0-213-generic #224-Ubuntu SMP x86_64 GNU/Linux\n\
                 GPU: Radeon RX 580\n\
                 amdgpu XXXX:XX:XX.X: kfd not supported on this ASIC\n";
        let why = answer(t).expect("answers");
        assert!(why.contains("gfx803") && why.contains("Linux 5.4"), "{why}");
        assert!(answer(&t.replace("4.15.0-213", "5.4.0-216")).is_none());
        assert!(answer(&t.replace("4.15.0-213-generic", "4.19.0-rc3")).is_none());
        let thread = "Ubuntu 18.04  \nKernel 4.19-rc3\nROCm 1.9.211\nUsing `amdgpu` as driver\n\
                      However, my problem occurs when I try to use my RX 560 as an OpenCL device.\n\
                      [    1.549574] amdgpu XXXX:XX:XX.X: kfd not supported on this ASIC\n";
        assert!(answer(thread).is_none());
        // The refusal itself, for the one GPU the thread names, is the kernel's age (the
        // thread's own reading: mainline KFD did not know these cards yet).
        let by_refusal = rules(thread, &Facts::of(thread));
        assert_eq!(by_refusal.len(), 1);
        assert_eq!(by_refusal[0].symptom.id, "facts.kfd-older-than-gpu");
    }

    /// amdgpu's refusal names no kernel version, and needs none: a GPU a later kernel's KFD
    /// knows (Vega 64, gfx900: the lspci line and the refusal of
    /// https://github.com/ROCm/legacy-rocm-build/issues/259, verbatim, where a newer kernel was
    /// the answer) is the kernel's age; a GPU no KFD ever took (Pitcairn, gfx6: the refusal of
    /// https://github.com/ROCm/legacy-rocm-build/issues/538) is not, nor one under an
    /// amdgpu-dkms, nor a text of two GPUs.
    #[test]
    fn a_refusal_of_a_gpu_later_kernels_know_is_the_kernels_age() {
        let vega = "[    3.044705] amdgpu 0000:04:00.0: kfd not supported on this ASIC\n\
                    04:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] \
                    Vega 10 XT [Radeon RX Vega 64] (rev c1)\n";
        let f = Facts::of(vega);
        let d = refused_by_an_older_kfd(vega, &f).expect("answers");
        assert_eq!(d.symptom.class.as_deref(), Some("gpu-driver-missing"));
        let why = d.reasoning().to_string();
        assert!(why.contains("gfx900") && why.contains("Linux 5.4"), "{why}");
        let pitcairn = "[    1.5] amdgpu 0000:01:00.0: kfd not supported on this ASIC\n\
                        01:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] \
                        Pitcairn XT [Radeon HD 7870 GHz Edition]\n";
        assert!(refused_by_an_older_kfd(pitcairn, &Facts::of(pitcairn)).is_none());
        let dkms = format!("{vega}sudo apt install rock-dkms\n");
        assert!(refused_by_an_older_kfd(&dkms, &Facts::of(&dkms)).is_none());
        let two = format!("{vega}GPU 1: gfx1030\n");
        assert!(refused_by_an_older_kfd(&two, &Facts::of(&two)).is_none());
    }

    #[test]
    fn bad_input_never_panics() {
        for t in [
            "",
            "Kernel: 9999999999999.1.0\ngfx1150\nNo HIP GPUs are available",
            "Kernel: 6.\u{0}1.0 gfx1150",
            "\u{feff}Linux 6.1.0-é gfx1201 hipInit failed",
        ] {
            let _ = answer(t);
        }
        assert_eq!(series("6.1.0-31"), Some((6, 1)));
        assert_eq!(series("x"), None);
    }
}
