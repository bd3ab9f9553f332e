//! Rule over bitsandbytes not finding its ROCm library (issue 28, item 4: "two releases mixed",
//! read from the file name bitsandbytes asks for). Pure.
//!
//! bitsandbytes loads one native library per GPU toolkit release, named after the HIP version of
//! the torch it runs in: `libbitsandbytes_rocm<N>.so` (`.dll` on Windows), N from
//! `torch.version.hip` (bitsandbytes-foundation/bitsandbytes `bitsandbytes/cuda_specs.py`,
//! `get_cuda_version_string`, at 05e5a710: `major * 10 + minor`; later releases write the two
//! numbers side by side, `libbitsandbytes_rocm713.so` for ROCm 7.13). When that file is not in
//! the package it prints "Could not find the bitsandbytes ROCm binary at PosixPath('...')" (the
//! 0.4x releases, `cextension.py` `get_native_library`) or "Configured ROCm binary not found at
//! ..." (0.49). The package holds the library of the ROCm it was built for: a file named for
//! another release means bitsandbytes and torch come from two ROCm releases
//! (ROCm/bitsandbytes#82: a build for ROCm 6.2 under torch for 6.3), `lib-mixed-releases`.
//!
//! `major * 10 + minor` is ambiguous from minor 10 on: torch for ROCm 7.12 asks for `rocm82`,
//! a release that does not exist (bitsandbytes-foundation/bitsandbytes#1890, TheRock's 7.12
//! wheels; #2014, rocm84 for ROCm 7.14, fixed for 0.50 by #1889, #1980 and #2007). Where the text shows torch's `+rocmX.Y` and N is
//! X*10+Y with Y of 10 or more, or N names a major no ROCm release has (8 or 9), the answer is
//! that bitsandbytes misread the version (`lib-bug-fixed-later`).

use super::facts::{re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn other_release() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "bnb.library-of-another-rocm",
            "bitsandbytes has no library for torch's ROCm release",
            "lib-mixed-releases",
            "bitsandbytes loads the native library named after torch's HIP version \
             (libbitsandbytes_rocm<N>); the installed bitsandbytes holds none of that name: it \
             was built (or its wheel made) for another ROCm release than torch's, or without \
             ROCm.",
            "Build bitsandbytes against the ROCm of the torch in use (cmake -DCOMPUTE_BACKEND=hip \
             with that ROCm's hipcc) or install its wheel for that release; pointing the name \
             at another release's library (a symlink, BNB_CUDA_VERSION-style overrides) mixes \
             two ROCm releases in one process.",
            "rule over bitsandbytes' library name (src/packs/bnb_binary.rs; \
             bitsandbytes/cuda_specs.py get_cuda_version_string, cextension.py \
             get_native_library)",
        )
    })
}

fn misread() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "bnb.rocm-version-misread",
            "bitsandbytes misreads torch's ROCm version",
            "lib-bug-fixed-later",
            "bitsandbytes builds its library's name as major * 10 + minor of torch's HIP \
             version, which names a release that does not exist from minor 10 on (ROCm 7.12 \
             becomes rocm82): the file it asks for can never be there.",
            "Install bitsandbytes 0.50 or later (or a wheel built from its main branch), which \
             reads the version correctly, ships builds for ROCm 7.1x and falls back to its \
             newest ROCm build; until then, bitsandbytes cannot load its GPU library under this \
             torch.",
            "rule over bitsandbytes' library name (src/packs/bnb_binary.rs; \
             bitsandbytes-foundation/bitsandbytes#1890, #2014)",
        )
    })
}

/// torch's ROCm release in the text, from its wheel's local version (`2.6.0+rocm6.4.1`,
/// `2.12.0a0+rocm7.12.0a20260304`): (major, minor).
fn torch_rocm(text: &str) -> Option<(u32, u32)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let c = re(&RE, r"\d\+rocm(\d{1,2})\.(\d{1,2})").captures(text)?;
    Some((c[1].parse().ok()?, c[2].parse().ok()?))
}

/// The answer for bitsandbytes not finding `libbitsandbytes_rocm<N>`: at most one.
pub(crate) fn rules(text: &str) -> Vec<Derived> {
    if !text.contains("bitsandbytes") {
        return Vec::new();
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let missing = re(
        &RE,
        concat!(
            r"(?:Could not find the bitsandbytes ROCm binary at|Configured ROCm binary not found ",
            r"at) (?:PosixPath\(|WindowsPath\()?'?(?P<path>[^\s')]*libbitsandbytes_rocm",
            r"(?P<n>\d{2,4})\.(?:so|dll))",
        ),
    );
    let Some(c) = missing.captures(text) else {
        return Vec::new();
    };
    let n = &c["n"];
    let line = super::vendors::line_at(text, c.get(0).map_or(0, |m| m.start()));
    let torch = torch_rocm(text);
    // Read as major*10+minor (two digits) or as major, minor side by side (three or four).
    let as_tens = n.parse::<u32>().ok().filter(|_| n.len() == 2);
    let misread_by_torch =
        matches!((torch, as_tens), (Some((x, y)), Some(v)) if y >= 10 && v == x * 10 + y);
    let impossible_major = n.len() == 2 && matches!(n.as_bytes()[0], b'8' | b'9');
    let (symptom, reasoning) = if misread_by_torch || impossible_major {
        let torch_says = torch
            .map(|(x, y)| format!(", and torch's wheel is for ROCm {x}.{y}"))
            .unwrap_or_default();
        (
            misread(),
            format!(
                "bitsandbytes asks for {} (rocm{n}): no ROCm release {}.{} exists{torch_says} \
                 ({FROM})",
                &c["path"],
                &n[..1],
                &n[1..]
            ),
        )
    } else {
        let torch_says = torch
            .map(|(x, y)| format!("; the text shows torch for ROCm {x}.{y}"))
            .unwrap_or_default();
        (
            other_release(),
            format!(
                "bitsandbytes asks for {} (rocm{n}, torch's ROCm release) and the package has \
                 no such file{torch_says} ({FROM})",
                &c["path"]
            ),
        )
    };
    vec![Derived::reasoned(
        symptom,
        line.chars().take(300).collect(),
        reasoning,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Vec<(String, String)> {
        rules(text)
            .iter()
            .map(|d| (d.symptom.id.clone(), d.reasoning().to_string()))
            .collect()
    }

    #[test]
    fn a_library_named_for_another_release_is_two_releases_mixed() {
        // https://github.com/ROCm/bitsandbytes/issues/82 (a build for ROCm 6.2 under torch for
        // ROCm 6.3), the line as bitsandbytes 0.45's logger printed it
        let text = "Could not find the bitsandbytes ROCm binary at PosixPath('/home/u/\
                    bitsandbytes/bitsandbytes/libbitsandbytes_rocm63.so')\n";
        let got = answer(text);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "bnb.library-of-another-rocm");
        assert!(
            got[0].1.contains("libbitsandbytes_rocm63.so"),
            "{}",
            got[0].1
        );
        // The CUDA form of the same message is not a ROCm answer.
        let cuda = "Could not find the bitsandbytes CUDA binary at PosixPath('/opt/conda/lib/\
                    python3.12/site-packages/bitsandbytes/libbitsandbytes_cuda121.so')\n";
        assert!(answer(cuda).is_empty());
    }

    #[test]
    fn a_version_bitsandbytes_misread_is_its_bug() {
        // bitsandbytes 0.49's message for torch on ROCm 7.14 (rocm84: 7*10+14), as
        // https://github.com/bitsandbytes-foundation/bitsandbytes/issues/2014 pasted it (RHEL
        // 9.6, MI350P; fixed for 0.50), and TheRock's 7.12 wheel beside rocm82.
        let text = "bitsandbytes library load error: Configured ROCm binary not found at \
                    /opt/app-root/lib64/python3.12/site-packages/bitsandbytes/\
                    libbitsandbytes_rocm84.so\n";
        let got = answer(text);
        assert_eq!(
            got.first().map(|g| g.0.as_str()),
            Some("bnb.rocm-version-misread")
        );
        let with_torch = "torch<3,>=2.3 in /opt/theRock/lib/python3.12/site-packages (from \
                          bitsandbytes) (2.12.0a0+rocm7.12.0a20260304)\nConfigured ROCm binary \
                          not found at /opt/theRock/lib/python3.12/site-packages/bitsandbytes/\
                          libbitsandbytes_rocm82.so\n";
        let got = answer(with_torch);
        assert_eq!(
            got.first().map(|g| g.0.as_str()),
            Some("bnb.rocm-version-misread")
        );
        assert!(got[0].1.contains("ROCm 7.12"), "{}", got[0].1);
        // A real release's name under torch for the same release stays "another release".
        let same = "torch 2.6.0+rocm6.3\nCould not find the bitsandbytes ROCm binary at \
                    PosixPath('/x/bitsandbytes/libbitsandbytes_rocm63.so')\n";
        assert_eq!(
            answer(same).first().map(|g| g.0.as_str()),
            Some("bnb.library-of-another-rocm")
        );
    }
}
