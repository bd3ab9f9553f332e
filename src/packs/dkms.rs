//! Rules over the DKMS facts of a text that DKMS's own lines do not carry (issue 28, item 4).
//! Pure.
//!
//! - "driver vs DKMS" said in words: a text that says ROCm's DKMS module fails on a kernel it
//!   names, with the ROCm release it names, where that kernel is newer than the newest kernel
//!   series the release is built for (`[[release]] kernel` of `checks/why-facts.toml`). The
//!   release rule ([`super::release`]) answers DKMS's own failure lines; this one answers the
//!   reports that only say it, and only where the kernel against the release decides;
//! - the running kernel's `linux-modules-extra` package missing from the distribution's archive
//!   while ROCm's driver is installed: the kernel is not one the distribution builds modules
//!   for.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{line_of, re, rule_symptom, table, Derived, Facts};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

/// `major.minor` of a version (`6.15.8` -> (6, 15)).
fn mm(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split(['.', '-', '+', '~']);
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// The line that says, in words, that the DKMS module fails ("DKMS fails on kernel 6.15",
/// "amdgpu dkms failed to build"), in a text about AMD's driver or ROCm.
fn prose_failure(text: &str) -> Option<String> {
    static SAYS: OnceLock<Regex> = OnceLock::new();
    static AMD: OnceLock<Regex> = OnceLock::new();
    if !re(&AMD, r"(?i)\bamdgpu\b|\bROCm\b").is_match(text) {
        return None;
    }
    let says = re(
        &SAYS,
        concat!(
            r"(?i)\bDKMS\b[^\n]{0,60}\b(?:fails?|failed|failing|won'?t (?:build|compile|install)",
            r"|(?:does not|doesn't|cannot|can't) (?:build|compile))\b",
            r"|\b(?:fails?|failed|failing)\b[^\n]{0,30}\bDKMS\b",
        ),
    );
    line_of(text, says)
}

/// The kernel a failure names: on its own line ("fails on kernel 6.16"), else the text's kernel
/// version fact.
fn failing_kernel(line: &str, f: &Facts) -> Option<String> {
    static ON: OnceLock<Regex> = OnceLock::new();
    let on = re(&ON, r"(?i)\bkernel:?\s*v?(\d+\.\d+(?:\.\d+)?[\w.-]*)");
    let k = on.captures(line).map(|c| c[1].to_string()).or_else(|| {
        f.versions
            .iter()
            .find(|(k, _)| k == "kernel")
            .map(|(_, v)| v.clone())
    })?;
    // A sentence's full stop is not part of the version.
    Some(k.trim_end_matches(['.', '-']).to_string())
}

/// "driver vs DKMS", said in words: the text says ROCm's DKMS module fails on a kernel, and
/// that kernel is newer than the newest series the ROCm release it names is built for
/// (`[[release]] kernel`: AMD's compatibility matrix and system requirements, cited in
/// `checks/why-facts.toml`). A kernel the release supports leaves the text undecided: nothing.
fn prose_kernel_too_new(text: &str, f: &Facts) -> Option<Derived> {
    if super::release::dkms_failure_line(text).is_some() {
        return None;
    }
    let line = prose_failure(text)?;
    let kernel = failing_kernel(&line, f)?;
    let kv = mm(&kernel)?;
    let rocm = f.versions.iter().find(|(k, _)| k == "rocm")?;
    let r = mm(&rocm.1)?;
    let entry = table().release.iter().find(|e| mm(&e.rocm) == Some(r))?;
    if kv <= mm(&entry.kernel)? {
        return None;
    }
    let reasoning = super::release::dkms_reasoning(Some(r), Some(&kernel))?;
    Some(
        Derived::reasoned(super::release::dkms_symptom(), line, reasoning)
            .overruling(&["gpu-driver-missing"]),
    )
}

/// The running kernel's `linux-modules-extra` package missing from the archive, in a text about
/// installing ROCm's driver. ROCm's Ubuntu install steps install `linux-headers-$(uname -r)` and
/// `linux-modules-extra-$(uname -r)` before amdgpu-dkms (ROCm's "Quick start installation guide"
/// and amdgpu-install's `dkms` use case, rocm.docs.amd.com/projects/install-on-linux); Ubuntu
/// publishes that package only for the kernels it builds for the release (its GA and HWE
/// series, linux-modules-extra-<version>-<flavour>), so apt has no candidate for a self-built,
/// mainline or another series' kernel (an OEM kernel of another release), and the driver cannot
/// be built for it. ROCm#1809: the 5.14 OEM kernel on Ubuntu 20.04; AMD's developer advised a
/// supported kernel, which worked.
fn modules_extra_missing(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static MISSING: OnceLock<Regex> = OnceLock::new();
    static AMD: OnceLock<Regex> = OnceLock::new();
    if !re(&AMD, r"(?i)amdgpu-install|amdgpu-dkms|\brocm\b").is_match(text) {
        return None;
    }
    let missing = re(
        &MISSING,
        concat!(
            r"(?i)\blinux-modules-extra-(\d+\.\d+[\w.-]*)'? (?:has no installation candidate",
            r"|is not available)|Unable to locate package linux-modules-extra-(\d+\.\d+[\w.-]*)",
        ),
    );
    let c = missing.captures(text)?;
    let kernel = c.get(1).or(c.get(2))?.as_str().to_string();
    let line = line_of(text, missing)?;
    let sy = S.get_or_init(|| {
        rule_symptom(
            "dkms.modules-extra-missing",
            "the running kernel is not one the distribution builds modules for: ROCm's driver \
             cannot be installed on it",
            "platform-dkms-kernel",
            "ROCm's driver install needs the running kernel's headers and its \
             linux-modules-extra package from the distribution; the archive has none for this \
             kernel, so it is a kernel the distribution release does not build modules for (a \
             self-built, mainline or OEM kernel of another series), one the ROCm release does \
             not support either.",
            "Boot a kernel of the distribution release that the ROCm release supports (its GA \
             or HWE kernel, listed in ROCm's system requirements) and install again; or, if the \
             kernel's own amdgpu serves, install without DKMS (amdgpu-install --no-dkms).",
            "rule over the DKMS facts of the text (src/packs/dkms.rs)",
        )
    });
    Some(Derived::reasoned(
        sy,
        line,
        format!(
            "the archive has no linux-modules-extra package for the kernel {kernel}, which \
             ROCm's driver install needs: the distribution does not build modules for that \
             kernel ({FROM})"
        ),
    ))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    [prose_kernel_too_new(text, f), modules_extra_missing(text)]
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

    #[test]
    fn dkms_failing_in_words_on_a_kernel_newer_than_the_release_is_the_kernel() {
        let t = "amdgpu DKMS fails on kernel 6.15.8.\nROCm Version: 6.4.1\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "facts.dkms-kernel");
        assert!(f[0].1.contains("newer than 6.11"), "{f:?}");
        assert!(f[0].1.contains("kernel 6.15.8 and"), "{f:?}");
        // The kernel from the text's kernel fact when the failing line names none.
        let t = "ROCm 6.2.4 on Fedora\nuname: Linux box 6.10.3-200.fc40.x86_64 #1\nthe amdgpu \
                 dkms failed to build\n";
        assert_eq!(fired(t)[0].0, "facts.dkms-kernel");
    }

    #[test]
    fn dkms_failing_in_words_on_a_supported_kernel_or_without_a_release_is_undecided() {
        // A kernel the release is built for: the text does not decide; nothing.
        assert!(fired("ROCm 6.4.0: amdgpu DKMS fails on kernel 6.8.0-45-generic\n").is_empty());
        // No release named: nothing to compare with.
        assert!(fired("amdgpu DKMS fails on kernel 6.15.8\n").is_empty());
        // Not AMD's module.
        assert!(fired("nvidia DKMS fails on kernel 6.15.8, CUDA 12.4\n").is_empty());
        // DKMS's own line: the release rule's, not this one's.
        let own = "ROCm 6.4.1\nError! Bad return status for module build on kernel: 6.15.8 \
                   (x86_64)\namdgpu DKMS fails\n";
        assert!(fired(own).is_empty());
    }

    #[test]
    fn the_appended_dkms_rows_give_a_module_its_release() {
        // amdgpu 6.3.x is ROCm 6.0's module (checks/why-facts.toml [[dkms]], appended): the
        // release rule reads the release from it and compares the kernel with 6.0's 6.6.
        let t = "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n\
                 Consult /var/lib/dkms/amdgpu/6.3.6-1697589.22.04/build/make.log\n";
        let r: Vec<String> = super::super::release::rules(t)
            .into_iter()
            .flat_map(|d| d.captures.into_iter().map(|(_, v)| v))
            .collect();
        assert!(
            r.iter()
                .any(|v| v.contains("ROCm 6.0") && v.contains("newer than 6.6")),
            "{r:?}"
        );
        let t = "Error! Bad return status for module build on kernel: 6.11.0-9-generic (x86_64)\n\
                 amdgpu-dkms (1:6.8.5-2009582.24.04)\nConsult /var/lib/dkms/amdgpu/\
                 6.8.5-2009582.24.04/build/make.log\n";
        let r: Vec<String> = super::super::release::rules(t)
            .into_iter()
            .flat_map(|d| d.captures.into_iter().map(|(_, v)| v))
            .collect();
        assert!(
            r.iter()
                .any(|v| v.contains("ROCm 6.2") && v.contains("newer than 6.8")),
            "{r:?}"
        );
    }

    #[test]
    fn the_running_kernels_modules_extra_missing_is_an_unsupported_kernel() {
        let t = "amdgpu-install --usecase=dkms\nE: Package 'linux-modules-extra-5.14.0-1051-oem' \
                 has no installation candidate\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "dkms.modules-extra-missing");
        assert!(f[0].1.contains("5.14.0-1051-oem"), "{f:?}");
        let locate = "sudo apt install rocm\nE: Unable to locate package \
                      linux-modules-extra-6.16.0-061600-generic\n";
        assert_eq!(fired(locate)[0].0, "dkms.modules-extra-missing");
        // Outside a ROCm install (a Wi-Fi driver's guide): nothing.
        let other = "sudo apt install iwlwifi\nE: Unable to locate package \
                     linux-modules-extra-6.16.0-061600-generic\n";
        assert!(fired(other).is_empty());
        // The package installed: nothing.
        assert!(
            fired("amdgpu-install\nSetting up linux-modules-extra-6.8.0-45-generic\n").is_empty()
        );
    }
}
