//! Rules over the dynamic loader's "version `V' not found" (issue 28, item 4: "wrong platform",
//! "the wrong library found first"). Pure.
//!
//! glibc's loader checks every symbol version an object needs against the library it found
//! (`elf/dl-version.c`, `match_symbol`) and fails with "LIBRARY: version `VERSION' not found
//! (required by OBJECT)": the library found is older than the one OBJECT was built against.
//! Where that library lives decides what that means:
//! - in a Python or conda environment, a snap or an AppImage: the environment's own older
//!   copy of a system library (libstdc++ above all) is found before the system's, which the
//!   ROCm libraries were built against (conda puts its `lib` before the system's through the
//!   RUNPATH of its Python; Open3D#5531, ROCm/AMDMIGraphX#3405, lamikr/rocm_sdk_builder#222);
//! - in the system's own library directories: OBJECT was built for a newer distribution
//!   release (or with a newer toolchain) than the one running.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";
const ORIGIN: &str = "rule over the loader's symbol-version errors (src/packs/symbol_versions.rs; \
                      glibc elf/dl-version.c)";

/// One "version not found" line: (library found, version, object that needs it, line).
#[derive(Debug, PartialEq)]
struct Missing {
    library: String,
    version: String,
    object: String,
    line: String,
}

fn missing(text: &str) -> Vec<Missing> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    // glibc quotes the version with a backtick and an apostrophe; pastes that went through a
    // word processor carry typographic quotes.
    let line = re(
        &LINE,
        r"(/[^\s:]+|lib[\w.+-]+\.so[.\d]*): version [`'‘]([A-Z][\w.]*?)['’] not found \(required by ([^)\s]+)\)",
    );
    if !text.contains("not found (required by") {
        return Vec::new();
    }
    text.lines()
        .filter_map(|l| {
            let c = line.captures(l)?;
            Some(Missing {
                library: c[1].to_string(),
                version: c[2].to_string(),
                object: c[3].to_string(),
                line: l.trim().chars().take(300).collect(),
            })
        })
        .collect()
}

/// Where a library lives, as its path shows.
#[derive(Debug, PartialEq)]
enum Home {
    /// A Python or conda environment, a snap, an AppImage or a Flatpak application: what.
    Environment(&'static str),
    /// The system's own library directories.
    System,
    Elsewhere,
}

fn home(path: &str) -> Home {
    static SYSTEM: OnceLock<Regex> = OnceLock::new();
    let kinds: [(&str, &'static str); 8] = [
        ("conda", "a conda environment"),
        ("mambaforge", "a conda environment"),
        ("miniforge", "a conda environment"),
        ("/envs/", "a conda environment"),
        ("site-packages/", "a Python package"),
        ("venv/", "a Python virtual environment"),
        ("/snap/", "a snap"),
        ("/tmp/.mount_", "an AppImage"),
    ];
    let lower = path.to_ascii_lowercase();
    if let Some((_, what)) = kinds.iter().find(|(k, _)| lower.contains(k)) {
        return Home::Environment(what);
    }
    if path.starts_with("/app/") {
        return Home::Environment("a Flatpak application");
    }
    if re(
        &SYSTEM,
        r"^/(?:usr/)?lib(?:64|32)?/(?:[\w-]+-linux-gnu\w*/)?lib[^/]+$",
    )
    .is_match(path)
    {
        return Home::System;
    }
    Home::Elsewhere
}

/// Which library a version belongs to (glibc's `GLIBC_`, libstdc++'s `GLIBCXX_`/`CXXABI_`,
/// libgcc_s's `GCC_`), for the wording.
fn family(version: &str) -> &'static str {
    if version.starts_with("GLIBCXX_") || version.starts_with("CXXABI_") {
        "the C++ runtime (libstdc++)"
    } else if version.starts_with("GLIBC_") {
        "the C library (glibc)"
    } else if version.starts_with("GCC_") {
        "GCC's runtime (libgcc_s)"
    } else {
        "the library"
    }
}

fn older_copy() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "loader.environment-library-older",
            "an environment's older copy of a system library is found before the system's",
            "lib-stale-path",
            "A program or library needs a symbol version that the library the loader found \
             lacks; that library is an older copy in a Python or conda environment (or a \
             snap, AppImage or Flatpak), found before the system's newer one that the ROCm \
             libraries were built against.",
            "Make the environment's copy at least as new as the system's (in conda: conda \
             install -c conda-forge libstdcxx-ng, or libstdcxx on newer channels), or let the \
             system's be found first (LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libstdc++.so.6 on \
             Debian and Ubuntu, /usr/lib64/libstdc++.so.6 on Fedora and RHEL); do not copy \
             system libraries into the environment.",
            ORIGIN,
        )
    })
}

fn newer_build() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "loader.built-for-newer-system",
            "a program or library needs a newer system library than this system has",
            "platform-unsupported-os",
            "A program or library needs a symbol version that the system's own library lacks: \
             it was built for a newer distribution release (or with a newer toolchain) than \
             the one running.",
            "Install the build made for this distribution release (the ROCm packages of its \
             codename, a wheel or binary for its glibc), or run it on (or in a container of) \
             a release the build supports; do not replace the system's libc or libstdc++.",
            ORIGIN,
        )
    })
}

/// "An environment's older library first" or "built for a newer system", from the first line
/// whose library's home decides.
fn version_not_found(text: &str) -> Option<Derived> {
    let all = missing(text);
    all.iter().find_map(|m| {
        let object = m.object.as_str();
        let versions: Vec<&str> = {
            let mut v: Vec<&str> = all
                .iter()
                .filter(|o| o.library == m.library && o.object == m.object)
                .map(|o| o.version.as_str())
                .collect();
            v.dedup();
            v
        };
        let needs = versions.join(" and ");
        match home(&m.library) {
            Home::Environment(what) => Some(Derived::reasoned(
                older_copy(),
                m.line.clone(),
                format!(
                    "{object} needs {needs} of {}; the loader found {}, the copy of {what}, \
                     which lacks it: an older copy found before the system's ({FROM})",
                    family(&m.version),
                    m.library
                ),
            )),
            Home::System => Some(Derived::reasoned(
                newer_build(),
                m.line.clone(),
                format!(
                    "{object} needs {needs} of {}; the system's own {} lacks it: {object} was \
                     built for a newer system than this one ({FROM})",
                    family(&m.version),
                    m.library
                ),
            )),
            Home::Elsewhere => None,
        }
    })
}

/// The rules of this module that fire on a text.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    version_not_found(text).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        super::super::facts::class_and_reasoning(rules(text))
    }

    #[test]
    fn a_conda_environments_older_libstdcxx_before_the_systems() {
        // Printed by sid's loader (glibc 2.41): SOURCE.md.
        let f = fired(&super::super::facts::package_fixture(
            "loader-env-libstdcxx.txt",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-stale-path");
        assert!(
            f[0].1
                .contains("needs GLIBCXX_3.4.32 and CXXABI_1.3.15 of the C++ runtime"),
            "{f:?}"
        );
        assert!(f[0].1.contains("the copy of a conda environment"), "{f:?}");
        // ROCm/AMDMIGraphX#3405: conda's Python finds its own lib through bin/../lib.
        let migraphx = "ImportError: /opt/conda/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /workspace/AMDMIGraphX/build/lib/libmigraphx_gpu.so.2011000)";
        assert_eq!(fired(migraphx)[0].0, "lib-stale-path");
        // A virtual environment's bundled copy.
        let venv = "OSError: /home/u/.venv/lib/python3.12/site-packages/torch/lib/libgomp.so.1: version `GOMP_5.0' not found (required by /opt/rocm/lib/librocblas.so.4)";
        assert!(
            fired(venv)[0].1.contains("a Python package"),
            "{:?}",
            fired(venv)
        );
    }

    #[test]
    fn a_library_built_for_a_newer_system() {
        // Printed by Debian 12's loader (glibc 2.36) through Python's ctypes: SOURCE.md.
        let f = fired(&super::super::facts::package_fixture(
            "loader-system-libstdcxx.txt",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "platform-unsupported-os");
        assert!(
            f[0].1
                .contains("/opt/rocm/lib/libhsa-runtime64.so.1 needs GLIBCXX_3.4.32"),
            "{f:?}"
        );
        let glibc = "./ollama: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by ./ollama)";
        assert!(fired(glibc)[0].1.contains("the C library (glibc)"));
        let lib64 = "/usr/lib64/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /opt/rocm-6.2.0/lib/libamd_comgr.so.2)";
        assert_eq!(fired(lib64)[0].0, "platform-unsupported-os");
    }

    #[test]
    fn what_the_rule_does_not_read() {
        // A library elsewhere (the ROCm tree's own copy, a build directory): nothing decided.
        let own = "/opt/rocm/lib/libfoo.so.1: version `FOO_1.0' not found (required by ./a.out)";
        assert!(fired(own).is_empty());
        // The loader's other errors are not this rule.
        let open = "./a.out: error while loading shared libraries: libamdhip64.so.6: cannot open shared object file: No such file or directory";
        assert!(fired(open).is_empty());
        // A user's sentence about versions.
        assert!(fired("the version `GLIBCXX_3.4.30' is not found, why?").is_empty());
    }

    #[test]
    fn homes_of_libraries() {
        assert_eq!(home("/lib/x86_64-linux-gnu/libc.so.6"), Home::System);
        assert_eq!(home("/usr/lib/libstdc++.so.6"), Home::System);
        assert_eq!(home("/usr/lib64/libstdc++.so.6"), Home::System);
        assert_eq!(
            home("/home/a/anaconda3/lib/libstdc++.so.6"),
            Home::Environment("a conda environment")
        );
        assert_eq!(
            home("/tmp/.mount_ollamaXYZ/usr/lib/libstdc++.so.6"),
            Home::Environment("an AppImage")
        );
        assert_eq!(
            home("/usr/lib/x86_64-linux-gnu/rocm/libx.so"),
            Home::Elsewhere
        );
        assert_eq!(home("/opt/rocm/lib/libstdc++.so.6"), Home::Elsewhere);
    }
}
