//! Rule over a linker not finding a ROCm library named with `-l` (issue 28, item 4: one rule for
//! every ROCm component a link asks for, whichever linker prints it), and Bazel not finding one in
//! the ROCm repository TensorFlow's and XLA's builds make of the installed ROCm. Pure.
//!
//! `-lNAME` makes the linker search its library path (the `-L` directories, then its own) for
//! `libNAME.so` (or `.a`): GNU ld prints "cannot find -lNAME" when none is found (binutils
//! `ld/ldfile.c`; since 2.38 followed by ": No such file or directory"), lld "unable to find
//! library -lNAME" (llvm-project `lld/ELF/Driver.cpp`, `LinkerDriver::addLibrary`). The unversioned `libNAME.so` a link needs is the development symlink,
//! which distributions ship in the component's development package (Debian's libamdhip64-dev,
//! Fedora's -devel packages), not with the runtime library; AMD's packages put it in
//! /opt/rocm/lib, which is not on the linker's default path. The tests hold both linkers' lines
//! as Debian 12's binutils 2.40 and lld 15 print them.

use super::facts::{re, rule_symptom, Derived};
use super::{pkgnames, Symptom};
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "link.rocm-library-not-found",
            "The linker does not find a ROCm library named with -l",
            "lib-missing",
            "The link names a ROCm library with -l, and the linker finds no libNAME.so in its \
             search path: the library's development package (which ships the unversioned \
             libNAME.so link) is not installed, or ROCm's library directory is not among the \
             -L directories.",
            "Install the component's development package of the installed release (Debian and \
             Ubuntu: lib<name>-dev or <component>-dev; Fedora and SUSE: <component>-devel; AMD's \
             repository: <component>-dev), and link with -L<ROCm root>/lib (/opt/rocm/lib for \
             AMD's packages) or through the component's CMake package, which names the \
             directory.",
            "rule over linkers' library-not-found errors (src/packs/link_libs.rs; binutils \
             ld/ldfile.c, llvm-project lld/ELF/Driver.cpp)",
        )
    })
}

/// Bazel's "missing input file '@local_config_rocm//rocm:rocm_dist/lib/libNAME.so'": the ROCm
/// repository rule of TensorFlow's and XLA's builds (`third_party/gpus/rocm_configure.bzl`,
/// repository `local_config_rocm`) links the installed ROCm's files into the build as
/// `rocm_dist/...`, and an action needs a ROCm library the installed release does not have
/// (Bazel's error for an input that does not exist: bazelbuild/bazel
/// src/test/java/com/google/devtools/build/lib/buildtool/MissingInputActionTest.java asserts
/// "missing input file '//dummy:in'"). Where the label is split over lines, as a terminal wraps
/// it, it is read joined.
fn bazel_rocm_input(text: &str) -> Option<Derived> {
    static MISSING: OnceLock<Regex> = OnceLock::new();
    if !text.contains("missing input file") || !text.contains("local_config_rocm") {
        return None;
    }
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let missing = re(
        &MISSING,
        r"missing input file\s*'@{1,2}local_config_rocm//rocm:rocm_dist/(?:[\w.+-]+/)*lib([\w.+-]+?)\.so[\w.]*'",
    );
    let c = missing.captures(&joined)?;
    let name = c[1].to_string();
    if !pkgnames::is_rocm_library(&name) {
        return None;
    }
    let line = text
        .lines()
        .find(|l| l.contains("missing input file"))
        .map(|l| l.trim().chars().take(300).collect())
        .unwrap_or_default();
    Some(Derived::reasoned(
        symptom(),
        line,
        format!(
            "Bazel's ROCm repository (local_config_rocm, rocm_configure.bzl) needs lib{name}.so \
             from the installed ROCm, and it is not there: that component is not installed, or \
             this ROCm release does not ship it ({FROM})"
        ),
    ))
}

/// The configure step of the same builds failing to find a ROCm library: "ROCm Configuration
/// Error: Cannot find rocm library NAME" (`auto_configure_fail` of `rocm_configure.bzl`, called
/// from `_select_rocm_lib_paths` when no candidate path of the library exists, as
/// rocm-arch/tensorflow-rocm#5's trace shows). `hip_hcc` is HIP's runtime by its HIP-HCC name;
/// the runtime that replaced it is amdhip64, which HIP's CMake files first name at tag rocm-3.5.0
/// (ROCm/HIP, measured over the tags rocm-3.3.0 to 4.0.0): a configure that asks for hip_hcc was
/// written for a ROCm before that (`lib-mixed-releases`). Any other ROCm library it cannot find
/// is missing from the install (`lib-missing`).
fn rocm_configure(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static CANNOT: OnceLock<Regex> = OnceLock::new();
    if !text.contains("Cannot find rocm library") {
        return None;
    }
    let cannot = re(&CANNOT, r"Cannot find rocm library ([\w.+-]+)");
    let c = cannot.captures(text)?;
    let name = c[1].to_string();
    let line = text
        .lines()
        .find(|l| l.contains("Cannot find rocm library"))
        .map(|l| l.trim().chars().take(300).collect())
        .unwrap_or_default();
    if name == "hip_hcc" {
        let sy = S.get_or_init(|| {
            rule_symptom(
                "build.rocm-configure-old-name",
                "A build's ROCm configure asks for a library by a name older releases used",
                "lib-mixed-releases",
                "The build's ROCm configure step (TensorFlow's or XLA's rocm_configure.bzl) looks \
                 for HIP's runtime as hip_hcc, its name before ROCm 3.5; the installed ROCm's is \
                 amdhip64. The source is older than the installed ROCm.",
                "Build a release of the source whose configure looks for amdhip64 (one made for \
                 the installed ROCm), or install the ROCm release the source was made for.",
                "rule over rocm_configure.bzl's 'Cannot find rocm library' (src/packs/link_libs.rs)",
            )
        });
        return Some(Derived::reasoned(
            sy,
            line,
            format!(
                "the configure looks for hip_hcc, HIP's runtime by its HIP-HCC name before ROCm \
                 3.5 (amdhip64 since): the source predates the installed ROCm ({FROM})"
            ),
        ));
    }
    if !pkgnames::is_rocm_library(&name) {
        return None;
    }
    Some(Derived::reasoned(
        symptom(),
        line,
        format!(
            "the build's ROCm configure (rocm_configure.bzl) finds no {name} library in the \
             installed ROCm: that component is not installed, or this release does not ship it \
             ({FROM})"
        ),
    ))
}

/// "cannot find -lNAME" (GNU ld) or "unable to find library -lNAME" (lld) for a ROCm library,
/// and Bazel's missing ROCm input ([`bazel_rocm_input`]) or configure error ([`rocm_configure`]).
pub(super) fn rules(text: &str) -> Vec<Derived> {
    static NOT_FOUND: OnceLock<Regex> = OnceLock::new();
    if let Some(d) = bazel_rocm_input(text).or_else(|| rocm_configure(text)) {
        return vec![d];
    }
    if !text.contains("find -l") && !text.contains("find library -l") {
        return Vec::new();
    }
    let not_found = re(
        &NOT_FOUND,
        r"(?m)^.*?\b(?:ld(?:\.bfd|\.gold)?: cannot find|unable to find library) -l([\w.+-]+).*$",
    );
    let Some(c) = not_found
        .captures_iter(text)
        .find(|c| pkgnames::is_rocm_library(&c[1]))
    else {
        return Vec::new();
    };
    let name = c[1].to_string();
    let line: String = c[0].trim().chars().take(300).collect();
    vec![Derived::reasoned(
        symptom(),
        line,
        format!(
            "the linker finds no lib{name}.so, a ROCm library, in its search path: the \
             development link is missing or ROCm's lib directory is not given with -L ({FROM})"
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
    fn either_linker_missing_a_rocm_library() {
        // Debian 12: `gcc m.c -lhiprand` (binutils 2.40) and `clang-15 -fuse-ld=lld m.c
        // -lhiprand` (lld 15), with no hiprand installed.
        let gnu = "/usr/bin/ld: cannot find -lhiprand: No such file or directory\ncollect2: error: ld returned 1 exit status\n";
        let f = fired(gnu);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-missing", "{f:?}");
        assert!(f[0].1.contains("no libhiprand.so"), "{f:?}");
        let lld = "ld.lld: error: unable to find library -lhiprand\nclang: error: linker command failed with exit code 1 (use -v to see invocation)\n";
        assert!(fired(lld)[0].1.contains("no libhiprand.so"));
        // Names with '_' and the runtime's own.
        assert_eq!(fired("/usr/bin/ld: cannot find -lamd_comgr\n").len(), 1);
        assert_eq!(
            fired("/usr/bin/ld: cannot find -lamdhip64: No such file or directory\n").len(),
            1
        );
    }

    /// Bazel's line as a terminal wrapped it (tests/corpus tuning, https://github.com/ROCm/jax/pull/865),
    /// and the same action's input of another repository.
    #[test]
    fn bazel_missing_a_rocm_library_of_the_rocm_repository() {
        let t = "ERROR: external/local_config_rocm/rocm/BUILD:319:16: SolibSymlink\n  \
                 .../librocm_smi64.so failed: missing input file\n  \
                 '@@local_config_rocm//rocm:rocm_dist/lib/librocm_smi64.so'\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-missing", "{f:?}");
        assert!(f[0].1.contains("librocm_smi64.so"), "{f:?}");
        let other = "ERROR: BUILD:3:8: //a:b: missing input file '@@local_config_cuda//cuda:lib/libcudart.so'\n";
        assert!(fired(other).is_empty());
    }

    /// rocm_configure.bzl's error as rocm-arch/tensorflow-rocm#5 pastes it (tests/corpus tuning),
    /// and the same error for a library ROCm ships under its own name.
    #[test]
    fn rocm_configure_not_finding_a_library() {
        let old = "\t\tfail(<1 more arguments>)\n\nROCm Configuration Error: Cannot find rocm \
                   library hip_hcc\n";
        let f = fired(old);
        assert_eq!(f[0].0, "lib-mixed-releases", "{f:?}");
        assert!(f[0].1.contains("before ROCm 3.5"), "{f:?}");
        let missing = "ROCm Configuration Error: Cannot find rocm library miopen\n";
        assert_eq!(fired(missing)[0].0, "lib-missing");
        assert!(fired("ROCm Configuration Error: Cannot find rocm library zlib\n").is_empty());
    }

    #[test]
    fn not_other_libraries() {
        // The host's own C++ library, or a library that only begins like a ROCm name.
        assert!(fired("ld.lld: error: unable to find library -lstdc++\n").is_empty());
        assert!(fired("/usr/bin/ld: cannot find -lhipercontracer\n").is_empty());
        assert!(fired("/usr/bin/ld: cannot find -lcudart\n").is_empty());
    }
}
