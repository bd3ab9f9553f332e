//! Rule over CMake not finding a ROCm component's configuration package (issue 28, item 4: one
//! rule for every ROCm component a build asks `find_package` for). Pure.
//!
//! `find_package(X)` in config mode, or in module mode without a FindX.cmake, prints "Could not
//! find a package configuration file provided by "X" with any of the following names:" followed
//! by the file names it looked for (`XConfig.cmake`, `x-config.cmake`; `X.cps` from CMake 4) and
//! the advice to add X's prefix to CMAKE_PREFIX_PATH (CMake `Source/cmFindPackageCommand.cxx`,
//! the "could not find a configuration file" branch). ROCm installs each component's package
//! under its prefix's `lib/cmake/<name>/` (AMD's /opt/rocm-X.Y, Debian's
//! /usr/lib/<multiarch>/cmake), from the component's development package (`hiprand-dev`,
//! `hiprand-devel`). CMake wraps the message at about 80 columns, so the name is read across a
//! line break. The tests hold the message as Debian 12's CMake 3.25.1 and sid's CMake 4.3.4
//! print it.
//!
//! An imported target of a ROCm component's package that names a directory that does not exist
//! is the second form: "Imported target "hip::host" includes non-existent path "/include" in its
//! INTERFACE_INCLUDE_DIRECTORIES" (CMake `Source/cmGeneratorTarget.cxx`, the check of an imported
//! target's include directories at generation). The package computed its paths from a layout
//! this install does not have (a relocated root, a conda or AOMP tree, a partial install).
//!
//! Not here: `hip` itself (the HIP language symptom reads it), and a package ROCm ships only
//! from a later release than a text's (`stack::newer_source`, `[[since]]`), which is a source
//! tree newer than the installed ROCm.

use super::facts::{line_at, re, rule_symptom, table, Derived};
use super::{pkgnames, Symptom};
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "cmake.rocm-package-not-found",
            "CMake finds no configuration package of a ROCm component",
            "build-cmake",
            "The build asks CMake for a ROCm component (find_package) and CMake finds none of \
             its configuration files: the component's development package is not installed, \
             it is installed under a prefix CMake does not search (a ROCm root not in \
             CMAKE_PREFIX_PATH, a second ROCm release), or the environment that builds (Spack, \
             conda, a container) does not include it.",
            "Install the component's development package of the same release as the rest of \
             ROCm (Debian and Ubuntu: <component>-dev or lib<component>-dev; Fedora and SUSE: \
             <component>-devel; AMD's repository: <component>-dev; Spack: add the component to \
             the environment's specs), then point CMake at its prefix: \
             -DCMAKE_PREFIX_PATH=/opt/rocm (or the release's root), or <Name>_DIR at the \
             directory that holds its <Name>Config.cmake.",
            "rule over CMake's find_package errors (src/packs/cmake_packages.rs; CMake \
             Source/cmFindPackageCommand.cxx)",
        )
    })
}

fn broken_symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "cmake.rocm-target-missing-path",
            "A ROCm component's CMake target names a directory that does not exist",
            "build-cmake",
            "CMake found the ROCm component's package, but an imported target it defines names \
             a directory that does not exist: the package computes its paths from the layout \
             of the install it came with, and this install's is another (a relocated or \
             symlinked root, a conda, Spack or AOMP tree, packages of two releases), or the \
             install is incomplete.",
            "Reinstall the component's development package of the release in use; for a \
             relocated or non-standard tree, point CMake at the package of that tree \
             (<Name>_DIR, CMAKE_PREFIX_PATH) or set ROCM_PATH to the root the package expects. \
             The path CMake prints is where the package looked.",
            "rule over CMake's imported-target checks (src/packs/cmake_packages.rs; CMake \
             Source/cmGeneratorTarget.cxx)",
        )
    })
}

/// "Imported target "ns::t" includes non-existent path "P"" for a ROCm component's target.
fn broken_target(text: &str) -> Option<Derived> {
    static TARGET: OnceLock<Regex> = OnceLock::new();
    if !text.contains("includes non-existent path") {
        return None;
    }
    let target = re(
        &TARGET,
        r#"Imported\s+target\s+"(([\w.+-]+)::[\w.+-]+)"\s+includes\s+non-existent\s+path\s+"([^"]*)""#,
    );
    let c = target
        .captures_iter(text)
        .find(|c| pkgnames::is_rocm_cmake_package(&c[2]))?;
    let at = c.get(0).map_or(0, |m| m.start());
    let line = line_at(text, at);
    Some(Derived::reasoned(
        broken_symptom(),
        line,
        format!(
            "the imported target {} of a ROCm component's CMake package names {}, which does \
             not exist: the package's paths do not fit this install ({FROM})",
            &c[1], &c[3]
        ),
    ))
}

/// "Could not find a package configuration file provided by "X"" for a ROCm component X, and a
/// ROCm component's imported target naming a directory that does not exist.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    let mut out: Vec<Derived> = broken_target(text).into_iter().collect();
    out.extend(not_found(text));
    out
}

fn not_found(text: &str) -> Vec<Derived> {
    static NOT_FOUND: OnceLock<Regex> = OnceLock::new();
    if !text.contains("package configuration file") {
        return Vec::new();
    }
    let not_found = re(
        &NOT_FOUND,
        concat!(
            r"Could\s+not\s+find\s+a\s+package\s+configuration\s+file\s+provided\s+by\s+",
            r#""([\w.+-]+)""#,
        ),
    );
    let since = &table().since;
    let Some(c) = not_found.captures_iter(text).find(|c| {
        let name = &c[1];
        !name.eq_ignore_ascii_case("hip")
            && pkgnames::is_rocm_cmake_package(name)
            && !since
                .iter()
                .any(|s| s.kind == "cmake-package" && s.name == name)
    }) else {
        return Vec::new();
    };
    let name = c[1].to_string();
    let at = c.get(0).map_or(0, |m| m.start());
    let line = line_at(text, at);
    vec![Derived::reasoned(
        symptom(),
        line,
        format!(
            "CMake's find_package found no configuration file of {name} ({name}Config.cmake, \
             {lower}-config.cmake), a ROCm component: it is not installed where CMake searches \
             ({FROM})",
            lower = name.to_ascii_lowercase(),
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

    /// `find_package(hiprand REQUIRED)` in an empty project, as Debian 12's CMake 3.25.1
    /// printed it.
    const CMAKE_3_25: &str = "CMake Error at CMakeLists.txt:3 (find_package):
  By not providing \"Findhiprand.cmake\" in CMAKE_MODULE_PATH this project has
  asked CMake to find a package configuration file provided by \"hiprand\", but
  CMake did not find one.

  Could not find a package configuration file provided by \"hiprand\" with any
  of the following names:

    hiprandConfig.cmake
    hiprand-config.cmake

  Add the installation prefix of \"hiprand\" to CMAKE_PREFIX_PATH or set
  \"hiprand_DIR\" to a directory containing one of the above files.  If
  \"hiprand\" provides a separate development package or SDK, be sure it has
  been installed.
";

    /// The same project in a debootstrap root of Debian sid, CMake 4.3.4 (it also looks for
    /// the Common Package Specification file).
    const CMAKE_4_3: &str = "CMake Error at CMakeLists.txt:3 (find_package):
  By not providing \"Findhiprand.cmake\" in CMAKE_MODULE_PATH this project has
  asked CMake to find a package configuration file provided by \"hiprand\", but
  CMake did not find one.

  Could not find a package configuration file provided by \"hiprand\" with any
  of the following names:

    hiprand.cps
    hiprandConfig.cmake
    hiprand-config.cmake
";

    #[test]
    fn a_rocm_component_cmake_does_not_find() {
        for t in [CMAKE_3_25, CMAKE_4_3] {
            let f = fired(t);
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!(f[0].0, "build-cmake", "{f:?}");
            assert!(f[0].1.contains("no configuration file of hiprand"), "{f:?}");
        }
        // The name on the next line, as CMake's wrapping puts it; CMake-only names.
        let wrapped = "  Could not find a package configuration file provided by\n  \"AMDDeviceLibs\" with any of the following names:\n";
        assert!(fired(wrapped)[0].1.contains("AMDDeviceLibs"));
        let rocclr = "  Could not find a package configuration file provided by \"ROCclr\" with any\n  of the following names:\n";
        assert_eq!(fired(rocclr).len(), 1);
        let comgr =
            "  Could not find a package configuration file provided by \"amd_comgr\" with\n";
        assert_eq!(fired(comgr).len(), 1);
    }

    /// A package whose hip::host names "/include", as Debian 12's CMake 3.25.1 printed it at
    /// generation (a set-up in a temporary directory, the conda layout of openmm/openmm#4632).
    const NON_EXISTENT: &str = "CMake Error in CMakeLists.txt:
  Imported target \"hip::host\" includes non-existent path

    \"/include\"

  in its INTERFACE_INCLUDE_DIRECTORIES.  Possible reasons include:
";

    #[test]
    fn a_rocm_target_naming_a_missing_directory() {
        let f = fired(NON_EXISTENT);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "build-cmake", "{f:?}");
        assert!(f[0].1.contains("hip::host"), "{f:?}");
        assert!(f[0].1.contains("names /include"), "{f:?}");
        let lang = NON_EXISTENT.replace("hip::host", "hip-lang::device");
        assert_eq!(fired(&lang).len(), 1);
        let other = NON_EXISTENT.replace("hip::host", "Qt5::Core");
        assert!(fired(&other).is_empty());
    }

    #[test]
    fn not_other_projects_nor_hip_itself() {
        let torch = CMAKE_3_25.replace("hiprand", "Torch");
        assert!(fired(&torch).is_empty());
        let hipcl = CMAKE_3_25.replace("hiprand", "hipercontracer");
        assert!(fired(&hipcl).is_empty());
        let hip = CMAKE_3_25.replace("hiprand", "hip");
        assert!(fired(&hip).is_empty());
    }
}
