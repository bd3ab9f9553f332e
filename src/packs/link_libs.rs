//! Rule over a linker not finding a ROCm library named with `-l` (issue 28, item 4: one rule for
//! every ROCm component a link asks for, whichever linker prints it). Pure.
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

/// "cannot find -lNAME" (GNU ld) or "unable to find library -lNAME" (lld) for a ROCm library.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    static NOT_FOUND: OnceLock<Regex> = OnceLock::new();
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

    #[test]
    fn not_other_libraries() {
        // The host's own C++ library, or a library that only begins like a ROCm name.
        assert!(fired("ld.lld: error: unable to find library -lstdc++\n").is_empty());
        assert!(fired("/usr/bin/ld: cannot find -lhipercontracer\n").is_empty());
        assert!(fired("/usr/bin/ld: cannot find -lcudart\n").is_empty());
    }
}
