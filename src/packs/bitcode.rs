//! Rule over LLVM refusing a bitcode file written by a newer LLVM (issue 28, item 4: "two
//! releases mixed", read from the versions the line itself prints). Pure.
//!
//! LLVM's bitcode reader ends every error about a file it cannot read with the LLVM that wrote
//! the file, from the file's identification block, and its own version: "(Producer: 'LLVM21.1.8'
//! Reader: 'LLVM 15.0.6')" (llvm-project `llvm/lib/Bitcode/Reader/BitcodeReader.cpp`,
//! `BitcodeReaderBase::error`, which appends `ProducerIdentification` and `LLVM_VERSION_STRING`).
//! Bitcode is read by the LLVM that wrote it or a newer one; an older reader meets attribute
//! kinds and records it does not know ("Unknown attribute kind (86)", "Invalid attribute group
//! entry"). Clang reads ROCm's device libraries (ocml.bc, ockl.bc, oclc_*.bc) as bitcode at every
//! HIP and OpenCL device compile, so a producer newer than the reader there means the device
//! libraries of one toolchain release are read by the clang of an older one: a clang from the
//! distribution or a second ROCm beside the ROCm whose device libraries it found. The form, as
//! Debian 12's clang-15 prints it reading the device libraries of Debian 13 (LLVM 17) and sid
//! (LLVM 21), is in the tests below.
//!
//! Host bitcode (LTO objects read by a linker plugin) is not ROCm's: the rule answers only where
//! the text shows a device compile or a device library.

use super::facts::{line_at, re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "bitcode.newer-producer",
            "A clang reads device bitcode written by a newer LLVM (two toolchain releases mixed)",
            "lib-mixed-releases",
            "LLVM reads bitcode written by its own version or an older one, never by a newer \
             one. The bitcode here (most often ROCm's device libraries: ocml.bc, ockl.bc, \
             oclc_*.bc) was written by a newer LLVM than the clang or comgr reading it, so the \
             compiler in use belongs to an older toolchain than the device libraries it found: \
             a distribution's clang, another ROCm release's amdclang first in PATH, or a \
             ROCM_PATH / --rocm-path / HIP_DEVICE_LIB_PATH naming another release's files.",
            "Compile with the clang of the same release as the device libraries (that release's \
             llvm/bin/clang or amdclang++), or point --rocm-path / --rocm-device-lib-path \
             (HIP_DEVICE_LIB_PATH, DEVICE_LIB_PATH) at the device libraries that ship with the \
             clang in use; `clang -print-resource-dir` and `rocm-doctor` show which device \
             libraries each clang finds. In Spack, conda or Nix, put the environment's own \
             clang first instead of /opt/rocm/bin.",
            "rule over LLVM's bitcode reader errors (src/packs/bitcode.rs; llvm-project \
             llvm/lib/Bitcode/Reader/BitcodeReader.cpp, BitcodeReaderBase::error)",
        )
    })
}

/// The version in an LLVM identification string (`LLVM21.1.8`, `LLVM 18.0.0git`).
fn version_of(ident: &str) -> Option<Vec<u64>> {
    let start = ident.find(|c: char| c.is_ascii_digit())?;
    crate::version::components(&ident[start..])
}

fn dotted(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

/// The bitcode file the error names, as clang prints it ("cannot open file 'F': ..."), read
/// across the hard line breaks a wrapping logger puts into it.
fn file_named(text: &str, at: usize) -> Option<String> {
    static FILE: OnceLock<Regex> = OnceLock::new();
    let file = re(&FILE, r"cannot open file '([^']+)'");
    // Joined as the logger wrapped it: each line's own indentation dropped.
    let before: String = text[..at].lines().map(str::trim).collect();
    let c = file.captures_iter(&before).last()?;
    let path = c[1].to_string();
    (!path.is_empty()).then_some(path)
}

/// "(Producer: 'P' Reader: 'R')" with P newer than R, where the text shows device code.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    static PAIR: OnceLock<Regex> = OnceLock::new();
    static DEVICE: OnceLock<Regex> = OnceLock::new();
    if !text.contains("Producer:") {
        return Vec::new();
    }
    // The quoted strings may be broken over lines by a wrapping logger.
    let pair = re(
        &PAIR,
        r"\(Producer:\s*'([^'\n]*(?:\n[^'\n]*)?)'\s+Reader:\s*'([^'\n]*(?:\n[^'\n]*)?)'\s*\)",
    );
    let device = re(
        &DEVICE,
        concat!(
            r"amdgcn|when compiling for gfx|--offload-arch|\bcomgr\b|\bhipcc\b",
            r"|\b(?:ocml|ockl|oclc_\w+|opencl|hip|asanrtl)\.(?:amdgcn\.)?bc\b",
        ),
    );
    if !device.is_match(text) {
        return Vec::new();
    }
    let Some((c, producer, reader)) = pair.captures_iter(text).find_map(|c| {
        let p = version_of(&c[1])?;
        let r = version_of(&c[2])?;
        (p > r).then_some((c, p, r))
    }) else {
        return Vec::new();
    };
    let at = c.get(0).map_or(0, |m| m.start());
    let line = line_at(text, at);
    let what = match file_named(text, at) {
        Some(f) => format!("the bitcode file {f}"),
        None => "the bitcode".to_string(),
    };
    vec![Derived::reasoned(
        symptom(),
        line,
        format!(
            "LLVM {} cannot read {what}: it was written by LLVM {}, a newer LLVM than the \
             reader, so the compiler and the device libraries it found are of two toolchain \
             releases ({FROM})",
            dotted(&reader),
            dotted(&producer),
        ),
    )]
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
    fn an_older_clang_reading_newer_device_libraries() {
        // Printed by Debian 12's clang 15.0.6 compiling HIP for gfx1030 with
        // --rocm-device-lib-path at the device libraries of Debian sid (LLVM 21) and of Debian
        // 13 (LLVM 17), as installed in debootstrap roots (the roots' own prefix removed from the paths).
        let sid = "fatal error: cannot open file '/usr/lib/llvm-21/lib/clang/21/amdgcn/bitcode/ocml.bc': Unknown attribute kind (86) (Producer: 'LLVM21.1.8' Reader: 'LLVM 15.0.6')\n1 error generated when compiling for gfx1030.\n";
        let f = fired(sid);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-mixed-releases", "{f:?}");
        assert!(f[0].1.starts_with("LLVM 15.0.6 cannot read the bitcode file /usr/lib/llvm-21/lib/clang/21/amdgcn/bitcode/ocml.bc: it was written by LLVM 21.1.8"), "{f:?}");
        let trixie = "fatal error: cannot open file '/usr/lib/llvm-17/lib/clang/17/amdgcn/bitcode/ocml.bc': Unknown attribute kind (86) (Producer: 'LLVM17.0.6' Reader: 'LLVM 15.0.6')\n1 error generated when compiling for gfx1030.\n";
        assert!(fired(trixie)[0].1.contains("written by LLVM 17.0.6"));
    }

    #[test]
    fn read_across_a_wrapping_logger() {
        // spack/spack-packages#3917: Tensile's b"..." of clang's stderr, hard-wrapped.
        let t = " RuntimeError: Error compiling source object file: b\"fatal error: ca\n            nnot open file '/user-environment/linux-zen4/llvm-amdgpu-7.1.0-hblh\n            fuhrerivhqppush7ane24rqqhn3u/amdgcn/bitcode/ocml.bc': Invalid attri\n            bute group entry (Producer: 'LLVM20.0.0git' Reader: 'LLVM 18.0.0git\n            ')\\n1 error generated when compiling for gfx942.\\n\"\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-mixed-releases", "{f:?}");
        assert!(f[0].1.contains("LLVM 18.0 cannot read the bitcode file /user-environment/linux-zen4/llvm-amdgpu-7.1.0-hblhfuhrerivhqppush7ane24rqqhn3u/amdgcn/bitcode/ocml.bc: it was written by LLVM 20.0"), "{f:?}");
    }

    #[test]
    fn not_host_bitcode_nor_an_older_producer() {
        // sysprog21/rv32emu#607: host LTO objects read by the gold plugin: not ROCm's.
        let host = "bfd plugin: LLVM gold plugin has failed to create LTO module: Not an int attribute (Producer: 'LLVM18.1.8' Reader: 'LLVM 13.0.1')";
        assert!(fired(host).is_empty());
        // A reader newer than the producer, or the same version: not two releases' order.
        let same = "error: Invalid record (Producer: 'LLVM17.0.6' Reader: 'LLVM 17.0.6') reading ocml.bc when compiling for gfx90a";
        assert!(fired(same).is_empty());
        let older = "cannot open file 'x/amdgcn/bitcode/ockl.bc': Invalid record (Producer: 'LLVM14.0.0' Reader: 'LLVM 17.0.6')";
        assert!(fired(older).is_empty());
        assert!(fired("Producer: '' Reader: '' amdgcn").is_empty());
    }
}
