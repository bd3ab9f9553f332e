//! Rule over a HIP runtime soname of another ROCm release (issue 28, item 4: "two releases
//! mixed", read from the soname the loader names). Pure.
//!
//! The HIP runtime's soname carries its version's major: CLR sets `HIP_LIB_VERSION_MAJOR` to
//! `HIP_VERSION_MAJOR` and gives `amdhip64` and `hiprtc` that `SOVERSION` (ROCm/clr
//! `hipamd/CMakeLists.txt:193`, `hipamd/src/CMakeLists.txt:100`, `hipamd/src/hiprtc/
//! CMakeLists.txt:72`, at f9f995c6d). HIP's major is the ROCm release's: libamdhip64.so.5 in the
//! HIP 5.2.3 of Debian 12 and the HIP 5.7.1 of Debian 13, libamdhip64.so.6 in the HIP 6.4.3 of
//! Debian sid (measured in the three stacks). A program that asks the loader for
//! libamdhip64.so.N was linked against ROCm N's HIP. Where the text also shows another ROCm
//! installed (its libamdhip64.so.M listed, an /opt/rocm-M.x root, hipconfig's or amd-smi's
//! version line), the program and the installed ROCm are of two releases: installing the
//! "missing" library alone means a second ROCm.

use super::facts::{line_at, re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "sonames.hip-of-another-release",
            "A program built for another ROCm release asks for its HIP runtime",
            "lib-mixed-releases",
            "The HIP runtime's soname carries the ROCm release's major (libamdhip64.so.6 is ROCm \
             6's). The program asks for the HIP runtime of one release while another release \
             is installed: it was built (or its wheel, container or package was made) for that \
             other ROCm.",
            "Install the program's build for the ROCm release installed here (a wheel from the \
             matching rocmX.Y index, a rebuild against this ROCm), or install the ROCm release \
             the program was built for; pointing LD_LIBRARY_PATH at a second release's \
             libraries, or symlinking the old soname to the new library, mixes two runtimes.",
            "rule over the HIP runtime's soname (src/packs/sonames.rs; ROCm/clr \
             hipamd/CMakeLists.txt, SOVERSION)",
        )
    })
}

/// The ROCm majors the text shows installed: libamdhip64.so.M files listed (not the one the
/// loader failed on), /opt/rocm-M.x roots, hipconfig's "HIP version: M.x" and amd-smi's "ROCm
/// version: M.x".
fn installed_majors(text: &str, failed_at: std::ops::Range<usize>) -> Vec<(u32, String)> {
    static SHOWN: OnceLock<Regex> = OnceLock::new();
    let shown = re(
        &SHOWN,
        concat!(
            r"\blib(?:amdhip64|hiprtc)\.so\.(\d+)\b",
            r"|/opt/rocm-(\d+)\.\d+",
            r"|\bHIP version\s*:\s*(\d+)\.\d+",
            r"|\bROCm version\s*:\s*(\d+)\.\d+",
        ),
    );
    shown
        .captures_iter(text)
        .filter(|c| {
            let m = c.get(0).map_or(0..0, |m| m.range());
            m.start >= failed_at.end || m.end <= failed_at.start
        })
        .filter_map(|c| {
            let n = (1..=4).find_map(|i| c.get(i))?;
            Some((n.as_str().parse().ok()?, c[0].to_string()))
        })
        .collect()
}

/// "libamdhip64.so.N: cannot open shared object file" beside a ROCm other than N.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    static FAILED: OnceLock<Regex> = OnceLock::new();
    if !text.contains("cannot open shared object file") {
        return Vec::new();
    }
    let failed = re(
        &FAILED,
        r"\blib(amdhip64|hiprtc)\.so\.(\d+)(?:\.[\d.]+)?: cannot open shared object file",
    );
    let Some(c) = failed.captures(text) else {
        return Vec::new();
    };
    let Some(wanted) = c[2].parse::<u32>().ok() else {
        return Vec::new();
    };
    let at = c.get(0).map_or(0..0, |m| m.range());
    let Some((installed, shown)) = installed_majors(text, at.clone())
        .into_iter()
        .find(|(m, _)| *m != wanted)
    else {
        return Vec::new();
    };
    let line = line_at(text, at.start);
    vec![Derived::reasoned(
        symptom(),
        line,
        format!(
            "the program asks for lib{}.so.{wanted}, the HIP runtime of ROCm {wanted}, and the \
             text shows ROCm {installed} (\"{shown}\"): built for ROCm {wanted}, run beside \
             ROCm {installed} ({FROM})",
            &c[1],
        ),
    )
    .overruling(&["lib-missing"])]
}

#[cfg(test)]
mod tests {
    use super::super::facts::class_and_reasoning;
    use super::*;

    /// The class and reasoning of each answer (`facts::class_and_reasoning`).
    fn fired(text: &str) -> Vec<(String, String)> {
        class_and_reasoning(rules(text))
    }

    #[test]
    fn a_runtime_of_another_release_beside_the_installed_one() {
        let listed = "ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory\n$ ls /opt/rocm/lib | grep amdhip\nlibamdhip64.so\nlibamdhip64.so.6\nlibamdhip64.so.6.2.41133\n";
        let f = fired(listed);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-mixed-releases", "{f:?}");
        assert!(
            f[0].1
                .contains("libamdhip64.so.5, the HIP runtime of ROCm 5"),
            "{f:?}"
        );
        assert!(f[0].1.contains("shows ROCm 6"), "{f:?}");
        let root = "error while loading shared libraries: libamdhip64.so.7: cannot open shared object file: No such file or directory\nexport LD_LIBRARY_PATH=/opt/rocm-6.4.1/lib\n";
        assert!(fired(root)[0].1.contains("shows ROCm 6"));
        let hipconfig = "HIP version: 6.2.41133-dd7f95766\nOSError: libhiprtc.so.5: cannot open shared object file: No such file or directory\n";
        assert!(fired(hipconfig)[0].1.contains("libhiprtc.so.5"));
    }

    #[test]
    fn not_without_another_release_nor_for_the_same_one() {
        // Nothing says which ROCm is installed: the missing-library answer stands.
        assert!(fired(
            "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n"
        )
        .is_empty());
        // The same release installed elsewhere (a loader path question, not two releases).
        assert!(fired("libamdhip64.so.6: cannot open shared object file\n/opt/rocm-6.2.0/lib/libamdhip64.so.6\n").is_empty());
        // Another library's soname.
        assert!(
            fired("librocblas.so.3: cannot open shared object file\n/opt/rocm-6.2.0\n").is_empty()
        );
    }
}
