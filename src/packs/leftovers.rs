//! Rules over what a text shows of parts of two releases meeting (issue 28, item 4, "two
//! releases mixed"). Pure.
//!
//! - rocBLAS's "Could not load <Tensile library file>": rocBLAS prints it only for a file that
//!   exists (a missing one is "Cannot read <file>: <errno>") and that its Tensile cannot parse,
//!   so the data files are of another rocBLAS release than the library reading them;
//! - a ROCm package that `apt list` shows as `<name>/now`: installed, offered by no configured
//!   repository, so left from an earlier installation beside a failure of the stack.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{line_at, line_of, re, rule_symptom, Derived};
use super::{pkgnames, Symptom};
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";
const ORIGIN: &str = "rule over the release facts of the text (src/packs/leftovers.rs)";

/// The symptom both rules name: parts of two releases meet.
fn mixed() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "leftovers.two-releases",
            "parts of two ROCm releases meet: a library reads files, or runs beside a package, \
             of another release",
            "lib-mixed-releases",
            "A library of one release meets parts of another: data files it cannot read, or a \
             package left from an earlier installation that the upgrade did not replace.",
            "Use one release throughout: reinstall the package of the installed release (or \
             remove the one left over), point the library at its own data (unset \
             ROCBLAS_TENSILE_LIBPATH, no other release's lib directory in LD_LIBRARY_PATH), \
             and clear caches built with the old parts (~/.cache/miopen).",
            ORIGIN,
        )
    })
}

/// "rocBLAS cannot parse its Tensile data": `rocBLAS error: Could not load <file>`. rocBLAS's
/// `tensile_host.cpp` (TensileHost::initialize, checks/origins.toml: the `!lib` site) tests each
/// candidate path first and prints "Cannot read <file>: <errno>" when none exists; "Could not
/// load" follows only a file that exists and that `Tensile::LoadLibraryFilePreload` returned
/// nothing for: a library file written by another Tensile (another rocBLAS release: a wheel's
/// bundled rocBLAS reading the system's files, or ROCBLAS_TENSILE_LIBPATH pointing at another
/// release), or a damaged one.
fn rocblas_cannot_parse(text: &str) -> Option<Derived> {
    static LOAD: OnceLock<Regex> = OnceLock::new();
    static REL: OnceLock<Regex> = OnceLock::new();
    let load = re(
        &LOAD,
        r"rocBLAS error: Could not load (\S*TensileLibrary\S*\.(?:dat|yaml))",
    );
    let c = load.captures(text)?;
    let file = c[1].to_string();
    let line = line_of(text, load)?;
    let release = match re(&REL, r"/opt/rocm-(\d+\.\d+(?:\.\d+)?)/").captures(&file) {
        Some(r) => format!(", ROCm {}'s by its path,", &r[1]),
        None => String::new(),
    };
    Some(Derived::reasoned(
        mixed(),
        line,
        format!(
            "rocBLAS found {file}{release} but could not parse it: it prints \"Could not load\" \
             only for a file that exists (a missing one is \"Cannot read\"), so the file is of \
             another rocBLAS release than the rocBLAS reading it, or damaged ({FROM})"
        ),
    ))
}

/// "A ROCm package left from an earlier installation": `apt list` shows an installed package
/// as `<name>/now <version>` when no configured repository offers that version (apt(8): the
/// `now` pseudo-archive is dpkg's status, listed `[installed,local]`), beside a failure of the
/// stack. An offline install from local `.deb` files shows every package so: not this rule.
/// MIOpen#67: an old rocm-clang-ocl beside an upgraded MIOpen; the maintainer's fix was the
/// current package and a cleared kernel cache.
fn package_left_over(text: &str) -> Option<Derived> {
    static NOW: OnceLock<Regex> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    static LOCAL: OnceLock<Regex> = OnceLock::new();
    let now = re(&NOW, r"(?m)^\s*([\w.+-]+)/now\s+(\S+)");
    if !text.contains("/now") {
        return None;
    }
    let c = now.captures_iter(text).find(|c| pkgnames::is_rocm(&c[1]))?;
    let (pkg, ver) = (c[1].to_string(), c[2].to_string());
    let line = line_at(text, c.get(1).map_or(0, |m| m.start()));
    if re(
        &LOCAL,
        r"(?i)\bdpkg -i\b|apt(?:-get)? install \S*\./|\.deb\b",
    )
    .is_match(text)
    {
        return None;
    }
    let fail = re(&FAIL, r"(?i)\berror\b|\bfailed\b|\bhipError\w+");
    line_of(text, fail)?;
    Some(Derived::reasoned(
        mixed(),
        line,
        format!(
            "apt lists {pkg} {ver} as installed from no repository (`/now`): a package left from \
             an earlier installation beside the upgraded stack that fails ({FROM})"
        ),
    ))
}

/// The rules of this module that fire on a text.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    [rocblas_cannot_parse(text), package_left_over(text)]
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        rules(text)
            .into_iter()
            .map(|d| (d.symptom.id.clone(), d.captures[0].1.clone()))
            .collect()
    }

    #[test]
    fn rocblas_unable_to_parse_an_existing_tensile_file_is_two_releases() {
        let t = "rocBLAS error: Could not load /opt/rocm-6.2.0/lib/rocblas/library/\
                 TensileLibrary_lazy_gfx1100.dat\nrocBLAS error: Could not initialize Tensile \
                 library\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "leftovers.two-releases");
        assert!(f[0].1.contains("ROCm 6.2.0's by its path"), "{f:?}");
        // A missing file is rocBLAS's other message: not this rule.
        let missing = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/\
                       TensileLibrary.dat: No such file or directory\n";
        assert!(fired(missing).is_empty());
        // hipBLASLt's message of the same words is another library's: not this rule.
        let lt = "rocblaslt error: Could not load /x/hipblaslt/library/\
                  TensileLibrary_lazy_gfx1201.dat\n";
        assert!(fired(lt).is_empty());
    }

    #[test]
    fn a_rocm_package_installed_from_no_repository_beside_a_failure_is_left_over() {
        let t = "MIOpen Error: Failed to get function: Im2Col hipErrorNotFound\n\
                 rocm-clang-ocl/now 0.3.0-7997136 amd64\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].1.contains("rocm-clang-ocl 0.3.0-7997136"), "{f:?}");
        // No failure in the text: nothing.
        assert!(fired("rocm-clang-ocl/now 0.3.0-7997136 amd64\n").is_empty());
        // Installed from a repository: nothing.
        let repo = "error: x\nrocm-clang-ocl/jammy,now 0.5.0.60200 amd64 [installed]\n";
        assert!(fired(repo).is_empty());
        // An offline install from .deb files lists every package so: nothing.
        let offline = "sudo dpkg -i *.deb\nerror: x\nrocm-core/now 6.2.0.60200 amd64\n";
        assert!(fired(offline).is_empty());
        // Not a ROCm package.
        assert!(fired("error: x\nlibfoo/now 1.0 amd64\n").is_empty());
    }
}
