//! A component's own consistency checks (`checks/origin-internal.toml`): a line attributed to a
//! harvested format (`checks/origins.toml`) that a component prints when one of its own
//! assumptions fails (an operator's shape check inside MIGraphX, a `guarantee()` of the HIP
//! runtime, a fatal error of LLVM's AMDGPU backend, a ggml assertion) is a bug of that
//! component, fixed or not in a later release: `lib-bug-fixed-later`. The answer names the
//! component, the check (file, condition) and the version the text prints, and comes after every
//! symptom, rule and family (it reads one line). Pure.

use super::facts::{rule_symptom, Derived, Facts};
use super::origins::{families_of, table, Origin};
use super::Symptom;
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

/// The cause every row answers.
const CAUSE: &str = "lib-bug-fixed-later";

/// Text naming an environment failure (matched without regard to case).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Environment {
    words: Vec<String>,
}

/// A row: which formats of a component are its own checks (the file's header says what each
/// field means).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Internal {
    pub component: String,
    pub name: String,
    #[serde(default)]
    printers: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    format_has: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    pub check: String,
    pub why: String,
    #[allow(dead_code)] // read by people and by the file's test, not by the answer
    source: String,
    pub issues: String,
    #[serde(default)]
    version: String,
}

/// A component's source tree, for a failed `assert()` whose file lies in it (`[[assert_in]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AssertIn {
    component: String,
    name: String,
    path_has: Vec<String>,
    issues: String,
    /// Which builds carry the check, for the fix (default: assert()'s, compiled out by NDEBUG).
    #[serde(default)]
    builds: Option<String>,
    /// Whether a compiler's error inside this tree is the component's own source failing to build
    /// (a library whose headers a program's compile reads, or one built from source).
    #[serde(default)]
    compiles: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    environment: Environment,
    internal: Vec<Internal>,
    #[serde(default)]
    assert_in: Vec<AssertIn>,
}

fn file() -> &'static File {
    static F: OnceLock<File> = OnceLock::new();
    F.get_or_init(|| {
        crate::data::embedded(
            "checks/origin-internal.toml",
            include_str!("../../checks/origin-internal.toml"),
        )
    })
}

/// How many rows the file has (`[[internal]]` and `[[assert_in]]`), for the embedded-table test.
#[cfg(test)]
pub(crate) fn rows() -> usize {
    file().internal.len() + file().assert_in.len()
}

/// Whether `s` names an environment failure.
fn names_environment(s: &str) -> bool {
    let s = s.to_lowercase();
    file()
        .environment
        .words
        .iter()
        .any(|w| s.contains(w.as_str()))
}

impl Internal {
    fn fits(&self, o: &Origin) -> bool {
        self.component == o.component
            && (self.printers.is_empty() || self.printers.contains(&o.printer))
            && (self.paths.is_empty()
                || o.sites
                    .iter()
                    .all(|s| self.paths.iter().any(|p| s.path.starts_with(p.as_str()))))
            && (self.format_has.is_empty()
                || self
                    .format_has
                    .iter()
                    .any(|h| o.format.contains(h.as_str())))
            && !self.exclude.iter().any(|x| o.format.contains(x.as_str()))
    }
}

/// The row whose component's own check prints `o`: none for a format a family reads (the more
/// specific reading) or one that names an environment failure.
pub(crate) fn internal_of(o: &Origin) -> Option<&'static Internal> {
    if families_of(o).next().is_some() || names_environment(&o.format) {
        return None;
    }
    file().internal.iter().find(|r| r.fits(o))
}

/// The symptom of each row, in the file's order: id `internal.<component>`, the cause's title,
/// and a fix naming the component and where to search and report.
fn symptoms() -> &'static [Symptom] {
    static S: OnceLock<Vec<Symptom>> = OnceLock::new();
    S.get_or_init(|| {
        let title = super::causes::get(CAUSE).map_or(CAUSE, |c| c.title.as_str());
        file()
            .internal
            .iter()
            .map(|r| {
                rule_symptom(
                    &format!("internal.{}", slug(&r.component)),
                    title,
                    CAUSE,
                    &format!(
                        "{} stopped on a check of its own state, not on something about the \
                         machine: {}.",
                        r.name, r.why
                    ),
                    &format!(
                        "A newer release of {n} (or its development branch) may have fixed it: \
                         search {n}'s issues ({i}) for this line, and report it there with the \
                         input that triggers it (the model, kernel or command) and the version \
                         in use. Nothing on the machine needs to change for this line.",
                        n = r.name,
                        i = r.issues
                    ),
                    "the line's origin (checks/origins.toml) and the component's own checks \
                     (checks/origin-internal.toml)",
                )
            })
            .collect()
    })
}

/// The symptom of each `[[assert_in]]` row, in the file's order: id
/// `internal.<kind>.<component>`, with its summary and fix from the row.
fn tree_symptoms(
    kind: &str,
    summary: impl Fn(&AssertIn) -> String,
    fix: impl Fn(&AssertIn) -> String,
    source: &str,
) -> Vec<Symptom> {
    let title = super::causes::get(CAUSE).map_or(CAUSE, |c| c.title.as_str());
    file()
        .assert_in
        .iter()
        .map(|r| {
            rule_symptom(
                &format!("internal.{kind}.{}", slug(&r.component)),
                title,
                CAUSE,
                &summary(r),
                &fix(r),
                source,
            )
        })
        .collect()
}

/// The symptom of each `[[assert_in]]` row, in the file's order: id
/// `internal.assert.<component>`.
fn assert_symptoms() -> &'static [Symptom] {
    static S: OnceLock<Vec<Symptom>> = OnceLock::new();
    S.get_or_init(|| {
        tree_symptoms(
            "assert",
            |r| {
                format!(
                    "An assert() in {}'s own source failed: an assumption of that code did not \
                     hold, which is its bug (or an input it should have refused with a \
                     message), not something about the machine.",
                    r.name
                )
            },
            |r| {
                format!(
                    "A newer release of {n} (or its development branch) may have fixed it: \
                     search {n}'s issues ({i}) for the assertion, and report it there with the \
                     input that triggers it and the version in use. {b}",
                    n = r.name,
                    i = r.issues,
                    b = r.builds.as_deref().unwrap_or(
                        "A build without assertions (NDEBUG, a release build) does not stop \
                         here, but the assumption is still broken."
                    )
                )
            },
            "glibc's assert() message (assert/assert.c), or PyTorch's TORCH_INTERNAL_ASSERT \
             (c10/util/Exception.h), and the component's source tree \
             (checks/origin-internal.toml [[assert_in]])",
        )
    })
}

/// A symptom id's form of a component's name (`Composable Kernel` -> `composable-kernel`).
fn slug(component: &str) -> String {
    component
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// The first failed `assert()` of a component's source in `text`: glibc's
/// `PROGRAM: FILE:LINE: FUNCTION: Assertion `EXPR' failed.`, whose FILE lies in a
/// `[[assert_in]]` tree and whose EXPR names no environment failure or status.
fn failed_assertion(text: &str) -> Option<Derived> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?P<file>[^\s:`']+):(?P<ln>\d+): (?:.*: )?Assertion `(?P<expr>.*)' failed\.")
            .expect("a fixed regex compiles")
    });
    static TORCH: OnceLock<Regex> = OnceLock::new();
    let torch = TORCH.get_or_init(|| {
        Regex::new(concat!(
            r#"(?:^|: )(?P<expr>[^:]+?) INTERNAL ASSERT FAILED at "(?P<file>[^"]+)":(?P<ln>\d+), "#,
            r"please report a bug to PyTorch",
        ))
        .expect("a fixed regex compiles")
    });
    for (no, line) in text.lines().enumerate() {
        let (c, printer) = if line.contains("Assertion `") {
            match re.captures(line) {
                Some(c) => (c, "glibc's report of a failed assert()"),
                None => continue,
            }
        } else if line.contains("INTERNAL ASSERT FAILED at") {
            match torch.captures(line) {
                Some(c) => (c, "PyTorch's report of a failed TORCH_INTERNAL_ASSERT"),
                None => continue,
            }
        } else {
            continue;
        };
        let (path, expr) = (
            format!("/{}", c["file"].trim_start_matches('/')),
            &c["expr"],
        );
        let lower = expr.to_lowercase();
        if names_environment(expr) || lower.contains("success") || lower.contains("status") {
            continue;
        }
        let rows = &file().assert_in;
        let Some(i) = rows
            .iter()
            .position(|r| r.path_has.iter().any(|p| path.contains(p.as_str())))
        else {
            continue;
        };
        let reasoning = format!(
            "line {} is {printer} at {}:{} in {}'s source: `{}` did not hold (from the text; \
             this machine was not asked)",
            no + 1,
            &c["file"],
            &c["ln"],
            rows[i].name,
            expr.chars().take(200).collect::<String>()
        );
        return Some(Derived::reasoned(
            &assert_symptoms()[i],
            line.chars().take(300).collect(),
            reasoning,
        ));
    }
    None
}

/// The version the text prints: the row's own pattern (MIGraphX's exception type
/// `migraphx::version_2_8_0::exception`, clang's `clang version 17.0.0`), else the ROCm or HIP
/// release the text names.
fn version_of(r: &Internal, text: &str, f: &Facts) -> Option<String> {
    if !r.version.is_empty() {
        static CACHE: OnceLock<Vec<Option<Regex>>> = OnceLock::new();
        let res = CACHE.get_or_init(|| {
            file()
                .internal
                .iter()
                .map(|r| {
                    (!r.version.is_empty())
                        .then(|| Regex::new(&r.version).ok())
                        .flatten()
                })
                .collect()
        });
        let i = file().internal.iter().position(|x| std::ptr::eq(x, r))?;
        if let Some(c) = res.get(i)?.as_ref().and_then(|re| re.captures(text)) {
            let parts: Vec<&str> = c.iter().skip(1).flatten().map(|m| m.as_str()).collect();
            if !parts.is_empty() {
                return Some(format!("{} {}", r.name, parts.join(".")));
            }
        }
    }
    named_release(f)
}

/// The ROCm release the text names, else its HIP release: `ROCm 6.2.4`, `HIP 6.4.43482`.
fn named_release(f: &Facts) -> Option<String> {
    ["rocm", "hip"].iter().find_map(|k| {
        f.versions
            .iter()
            .find(|(w, _)| w == k)
            .map(|(w, v)| format!("{} {v}", if *w == "rocm" { "ROCm" } else { "HIP" }))
    })
}

/// The answer of the first line a component's own check printed, when the line's open parts
/// name no environment failure: one answer at most (one cause).
pub(crate) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    let t = table();
    for a in t.attribute(text) {
        let Some(r) = internal_of(a.origin) else {
            continue;
        };
        if t.open_parts(a.origin, a.line)
            .iter()
            .any(|p| names_environment(p))
        {
            continue;
        }
        let Some(i) = file().internal.iter().position(|x| std::ptr::eq(x, r)) else {
            continue;
        };
        let version = version_of(r, text, f)
            .map(|v| format!("; the text names {v}, the release to compare with"))
            .unwrap_or_default();
        let reasoning = format!(
            "line {} is printed by {}: {}, one of {}'s own checks{version} (from the text; this \
             machine was not asked)",
            a.line_no,
            a.printed_by(),
            r.check,
            r.name
        );
        return vec![Derived::reasoned(
            &symptoms()[i],
            a.line.chars().take(300).collect(),
            reasoning,
        )];
    }
    failed_assertion(text)
        .or_else(|| library_compile_error(text, f))
        .into_iter()
        .collect()
}

/// The symptom of each `[[assert_in]]` row, for a compile error in its tree: id
/// `internal.compile.<component>` (rows without `compiles` are never used).
fn compile_symptoms() -> &'static [Symptom] {
    static S: OnceLock<Vec<Symptom>> = OnceLock::new();
    S.get_or_init(|| {
        tree_symptoms(
            "compile",
            |r| {
                format!(
                    "The compiler rejects {n}'s own source, not the program's: this release of \
                     {n} does not build with this compiler, GPU target or dependency, which a \
                     later release usually fixes (or the headers come from another release than \
                     the compiler).",
                    n = r.name
                )
            },
            |r| {
                format!(
                    "Use a release of {n} that builds with this toolchain: a newer one usually \
                     carries the fix (search {n}'s issues, {i}, for the error), or build with \
                     the compiler and ROCm release it was released with. Where its headers and \
                     the compiler come from different ROCm releases (two /opt/rocm-X.Y, a pip \
                     or conda copy, a vendored copy), use one release for both; where the \
                     error's notes lead back to your own code ('in instantiation of ... \
                     requested here'), check that call against this release's API.",
                    n = r.name,
                    i = r.issues
                )
            },
            "the compiler's error location (clang's and GCC's FILE:LINE:COL: error:) and the \
             component's source tree (checks/origin-internal.toml [[assert_in]], compiles)",
        )
    })
}

/// Whether the text asks for a C++ standard older than C++17 (`-std=c++11`, `gnu++14`, CMake's
/// `CMAKE_CXX_STANDARD 14`; rocPRIM and hipCUB need C++17 from ROCm 6.x, rocPRIM's CHANGELOG
/// "Dropped c++14 support", ROCm/rocPRIM#731), or names two ROCm releases (`rocm-5.1.3` beside
/// `/opt/rocm-5.4.0`: a library's headers of one release with another's, ROCm/rocThrust#233).
/// Either reads the error as the user's set-up rather than the library's bug.
fn older_standard_or_two_releases(text: &str) -> bool {
    static STD: OnceLock<Regex> = OnceLock::new();
    let std = STD.get_or_init(|| {
        Regex::new(r"-std=(?:c|gnu)\+\+(?:98|03|0x|11|1y|14)\b|CMAKE_CXX_STANDARD[ =:]+(?:11|14)\b")
            .expect("a fixed regex compiles")
    });
    if std.is_match(text) {
        return true;
    }
    static REL: OnceLock<Regex> = OnceLock::new();
    let rel = REL.get_or_init(|| {
        Regex::new(r"(?i)\brocm-(\d+\.\d+)(?:\.\d+)?\b").expect("a fixed regex compiles")
    });
    let mut seen: Vec<&str> = Vec::new();
    for c in rel.captures_iter(text) {
        let v = c.get(1).map_or("", |m| m.as_str());
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen.len() > 1
}

/// Whether the error is rocWMMA's own "Unsupported architecture" assertion (config.hpp's
/// `static_assert(0, "Unsupported architecture")`) for a GPU target rocWMMA never supports:
/// clang's "N errors generated when compiling for gfxN" names a target without matrix or WMMA
/// instructions: gfx906, gfx101X and gfx103X, which rocWMMA's maintainers call "fundamentally
/// incompatible" and will not support (ROCm/TheRock#1944; ROCm/TheRock#2127, gfx906 in a
/// build's target list), and the older gfx8, gfx900-gfx904 and gfx90c, which lack the same
/// instructions. The build's target list is the cause, not the release: no later rocWMMA
/// builds there. Targets a later release added (gfx12 in ROCm 7.0, gfx1103,
/// gfx1152) stay the library's.
fn target_never_supported(text: &str, name: &str, msg: &str) -> bool {
    if name != "rocWMMA" || !msg.to_lowercase().contains("unsupported architecture") {
        return false;
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"when compiling for gfx(?:8\d\d|90[0-6]|90c|10[0-9a-f]{2})\b")
            .expect("a fixed regex compiles")
    });
    re.is_match(text)
}

/// The first compile error (clang's or GCC's `FILE:LINE:COL: error: MESSAGE`, `fatal error:`
/// too) whose FILE lies in the tree of an `[[assert_in]]` row marked `compiles`, unless its
/// message names an environment failure (a header not found) or any error of that tree says the
/// compile's language standard is older than the library needs ("is a C++14 extension", "requires
/// C++17"): the user's option, not the library's bug. Where the text names a ROCm or HIP release,
/// the reasoning names it.
fn library_compile_error(text: &str, f: &Facts) -> Option<Derived> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?P<file>[^\s:'`]+\.(?:h|hh|hpp|hxx|inl|cuh|cpp|cc|cxx|cu|hip)):(?P<ln>\d+):",
            r"(?:\d+:)? (?:fatal )?error: (?P<msg>.+)",
        ))
        .expect("a fixed regex compiles")
    });
    let rows = &file().assert_in;
    let mut first: Option<(usize, usize, regex::Captures)> = None;
    for (no, line) in text.lines().enumerate() {
        if !line.contains("error: ") {
            continue;
        }
        let Some(c) = re.captures(line) else {
            continue;
        };
        let path = format!("/{}", c["file"].trim_start_matches('/'));
        // The outermost tree decides: hipCUB's `hipcub/rocprim/` is hipCUB's source.
        let Some((i, _)) = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.compiles)
            .filter_map(|(i, r)| {
                r.path_has
                    .iter()
                    .filter_map(|p| path.find(p.as_str()))
                    .min()
                    .map(|at| (i, at))
            })
            .min_by_key(|&(_, at)| at)
        else {
            continue;
        };
        let msg = c["msg"].to_lowercase();
        if msg.contains("c++1") && (msg.contains("extension") || msg.contains("requires"))
            || msg.contains("c++2") && (msg.contains("extension") || msg.contains("requires"))
        {
            return None;
        }
        if first.is_none() && !names_environment(&c["msg"]) {
            first = Some((no, i, c));
        }
    }
    let (no, i, c) = first?;
    if older_standard_or_two_releases(text)
        || target_never_supported(text, &rows[i].name, &c["msg"])
    {
        return None;
    }
    let version = named_release(f)
        .map(|v| format!("; the text names {v}"))
        .unwrap_or_default();
    let reasoning = format!(
        "line {} is the compiler's error at {}:{} in {}'s source: {}{version} (from the text; \
         this machine was not asked)",
        no + 1,
        &c["file"],
        &c["ln"],
        rows[i].name,
        c["msg"].chars().take(200).collect::<String>()
    );
    let line = text.lines().nth(no).unwrap_or_default();
    Some(Derived::reasoned(
        &compile_symptoms()[i],
        line.chars().take(300).collect(),
        reasoning,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::why::recognise;
    use super::*;
    use crate::registry::sources;

    /// The answers of `rules` for a text, as (id, reasoning).
    fn internal(text: &str) -> Vec<(String, String)> {
        rules(text, &Facts::of(text))
            .iter()
            .map(|d| (d.symptom.id.clone(), d.reasoning().to_string()))
            .collect()
    }

    /// The causes `why` gives a text, in order.
    fn classes(text: &str) -> Vec<String> {
        recognise(&sources::built_in(), text)
            .iter()
            .filter_map(|h| h.symptom.class.clone())
            .collect()
    }

    /// MIGraphX 2.8.0's reshape_lazy refusing a shape while compiling an ONNX model: the text of
    /// https://github.com/AmusementClub/vs-mlrt/issues/85 (tests/corpus, field-fresh4.toml), where
    /// the maintainer answered that MIGraphX was too old; the same check is
    /// https://github.com/ROCm/AMDMIGraphX/issues/2762, fixed by a later commit.
    const MIGRAPHX: &str = "terminate called after throwing an instance of \
        'migraphx::version_2_8_0::exception'\n  what():  /long_pathname_so_that_rpms_can_package_the_\
        debug_info/src/extlibs/AMDMIGraphX/src/include/migraphx/op/reshape_lazy.hpp:238: \
        static_compute_shape: reshape_lazy on axis that is not packed.\nAborted (core dumped)\n";

    #[test]
    fn an_operator_check_of_migraphx_is_a_bug_of_that_version() {
        let got = internal(MIGRAPHX);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "internal.migraphx");
        let why = &got[0].1;
        assert!(
            why.contains("src/include/migraphx/op/reshape_lazy.hpp"),
            "{why}"
        );
        assert!(why.contains("MIGraphX 2.8.0"), "{why}");
        assert_eq!(classes(MIGRAPHX).first().map(String::as_str), Some(CAUSE));
    }

    /// Real lines of each other component's own checks, with where they were printed.
    const LINES: &[(&str, &str)] = &[
        // https://github.com/ROCm/clr/issues/278: CLR could not create the global-variable object
        // of rocFFT's static callback (a runtime bug, closed with a fix)
        (
            ":0:/path/to/clr/hipamd/src/hip_global.cpp:209 : Cannot create GlobalVar Obj for symbol: \
             _ZL31store_cb_default_complex_double.static.4d22c59b5a98cebc",
            "internal.clr",
        ),
        // https://github.com/llvm/llvm-project/issues/155902 (AMDGPU, crash-on-valid, closed): the
        // message report_fatal_error prints, as the issue quotes it
        (
            "LLVM ERROR: Cannot scavenge register in FI elimination!",
            "internal.llvm",
        ),
        // https://github.com/ROCm/AMDMIGraphX/issues/2116: the compute_shape dispatch of
        // operation.hpp refusing an operator on a develop build (a regression, fixed)
        (
            "what():  /home/u/AMDMIGraphX/src/include/migraphx/operation.hpp:144: \
             compute_shape_op: At least one input is required for slice",
            "internal.migraphx",
        ),
        // https://github.com/ggml-org/llama.cpp/issues/6527 (closed)
        (
            "GGML_ASSERT: llama.cpp/ggml-cuda/argsort.cu:48: (ncols & (ncols - 1)) == 0",
            "internal.llama-cpp",
        ),
        // https://github.com/LostRuins/koboldcpp/issues/2089 (ROCm build, RX 6600)
        (
            "ggml/src/ggml-cuda/template-instances/../fattn-common.cuh:919: \
             GGML_ASSERT(max_blocks_per_sm > 0) failed",
            "internal.llama-cpp",
        ),
    ];

    #[test]
    fn each_components_own_check_is_read_as_its_bug() {
        for (line, id) in LINES {
            let text = format!("{line}\n");
            let got = internal(&text);
            assert_eq!(got.len(), 1, "{line}: {got:?}");
            assert_eq!(got[0].0, *id, "{line}");
            assert!(got[0].1.contains("one of"), "{}", got[0].1);
            assert_eq!(
                classes(&text).last().map(String::as_str),
                Some(CAUSE),
                "{line}"
            );
        }
    }

    /// Lines of the same components that report the environment, and one of a component the table
    /// does not harvest: none is an internal check.
    #[test]
    fn environment_failures_and_unharvested_lines_are_not_internal() {
        for line in [
            // https://github.com/rocm-arch/tensorflow-rocm/issues/21: CLR's guarantee() reporting a
            // build without code for the GPU (ROCm 4.0), not a check of its own state
            "/build/hip-rocclr/src/HIP-rocm-4.0.0/rocclr/hip_code_object.cpp:120: guarantee(false && \
             \"hipErrorNoBinaryForGpu: Coudn't find binary for current devices!\")",
            // https://github.com/SciSharp/LLamaSharp/issues/337: llama.cpp's CUDA/HIP error, out of
            // device memory
            "CUDA error 2 at D:\\a\\LLamaSharp\\LLamaSharp\\ggml-cuda.cu:6016: out of memory",
            // https://github.com/pytorch/pytorch/issues/104411: PyTorch's internal assert on ROCm
            // (PyTorch is not harvested: nothing attributes the line)
            "RuntimeError: t == DeviceType::CUDA INTERNAL ASSERT FAILED at \
             HIPGuardImplMasqueradingAsCUDA.h:60, please report a bug to PyTorch",
        ] {
            let text = format!("{line}\n");
            assert!(internal(&text).is_empty(), "{line}");
            assert!(!classes(&text).contains(&CAUSE.to_string()), "{line}");
        }
        // The printed line decides too: llama.cpp's ggml_cuda_error (ggml-cuda.cu, b2700 era) ends in
        // GGML_ASSERT(!"CUDA error") after printing the runtime's error; the line is that format
        // filled with the condition it passes.
        let passed_on = "GGML_ASSERT: ggml-cuda.cu:6742: !\"CUDA error\"\n";
        assert!(table().attribute(passed_on).len() == 1);
        assert!(internal(passed_on).is_empty());
        // MIGraphX's from_value_op (operation.hpp) refuses a saved program's value: the input,
        // not its own state. The line is the format as MIGRAPHX_THROW prints it (file, line,
        // function), no pasted one found.
        let saved = "what():  /src/AMDMIGraphX/src/include/migraphx/operation.hpp:492: \
                     from_value_op: Value is not an object\n";
        assert_eq!(table().attribute(saved).len(), 1, "{saved}");
        assert!(internal(saved).is_empty());
    }

    /// glibc's report of a failed assert() in a component's source tree is that component's
    /// bug; one in another tree, or over a runtime call's status, is not.
    #[test]
    fn a_failed_assertion_in_a_components_source_is_its_bug() {
        // https://github.com/ROCm/AMDMIGraphX/issues/2116 (a develop build's regression, fixed)
        let migraphx = "driver: /home/u/repo/AMDMIGraphX/src/simplify_algebra.cpp:1452: auto \
                        migraphx::find_split_transpose::apply(module &, const \
                        match::matcher_result &)::(anonymous class)::operator()(auto) const \
                        [i:auto = std::_List_iterator<migraphx::instruction>]: Assertion \
                        `i->outputs().size() == 1' failed.\n";
        let got = internal(migraphx);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "internal.assert.migraphx");
        assert!(
            got[0].1.contains("simplify_algebra.cpp:1452"),
            "{}",
            got[0].1
        );
        assert!(
            got[0].1.contains("i->outputs().size() == 1"),
            "{}",
            got[0].1
        );
        // Assertion-enabled compilers stopping: rocm-llvm's clang in its frontend
        // (https://github.com/ROCm/legacy-rocm-build/issues/2620, ROCm 5.6.1), ROCm 6.4's clang
        // in SelectionDAG (https://github.com/llvm/llvm-project/issues/121601, fixed), llc with
        // a header-relative path (https://github.com/llvm/llvm-project/issues/130119).
        for line in [
            "clang-16: /usr/src/debug/rocm-llvm/llvm-project-rocm-5.6.1/clang/include/clang/\
             Basic/Diagnostic.h:1590: clang::DiagnosticsEngine::ArgumentKind \
             clang::Diagnostic::getArgKind(unsigned int) const: Assertion `Idx < getNumArgs() \
             && \"Argument index out of range!\"' failed.",
            "clang-19: /long_pathname_so_that_rpms_can_package_the_debug_info/src/llvm-project/\
             llvm/lib/CodeGen/SelectionDAG/SelectionDAG.cpp:1143: void \
             VerifySDNode(llvm::SDNode*, const llvm::TargetLowering*): Assertion \
             `(Op.getValueType() == EltVT || (EltVT.isInteger() && \
             Op.getValueType().isInteger() && EltVT.bitsLE(Op.getValueType()))) && \
             \"Wrong operand type!\"' failed.",
            "llc: include/llvm/CodeGen/MachineOperand.h:366: Register \
             llvm::MachineOperand::getReg() const: Assertion `isReg() && \"This is not a \
             register operand!\"' failed.",
        ] {
            let got = internal(&format!("{line}\n"));
            assert_eq!(
                got.first().map(|g| g.0.as_str()),
                Some("internal.assert.llvm"),
                "{line}"
            );
        }
        // PyTorch's TORCH_INTERNAL_ASSERT in its printed form, hipified or not: pytorch#119452
        // (expandable segments), vllm-project/vllm#28426, pytorch#133316 (a conda build's
        // absolute path).
        for line in [
            "RuntimeError: !block->expandable_segment_ INTERNAL ASSERT FAILED at \
             \"../c10/cuda/CUDACachingAllocator.cpp\":2814, please report a bug to PyTorch.",
            "[Bug]: RuntimeError: it->second->use_count > 0 INTERNAL ASSERT FAILED at \
             \"/pytorch/c10/cuda/CUDACachingAllocator.cpp\":2630, please report a bug to PyTorch.",
            "RuntimeError: head->prev == nullptr && head->pool != nullptr INTERNAL ASSERT FAILED \
             at \"/opt/conda/conda-bld/pytorch_1704987394225/work/c10/cuda/\
             CUDACachingAllocator.cpp\":747, please report a bug to PyTorch. ",
        ] {
            let got = internal(&format!("{line}\n"));
            assert_eq!(
                got.first().map(|g| g.0.as_str()),
                Some("internal.assert.pytorch"),
                "{line}"
            );
            assert!(got[0].1.contains("TORCH_INTERNAL_ASSERT"), "{got:?}");
        }
        // NVML's status passed into the assertion (pytorch#122068) names the machine: not read.
        let nvml = "RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at \
                    \"../c10/cuda/CUDACachingAllocator.cpp\":830, please report a bug to PyTorch.\n";
        assert!(internal(nvml).is_empty());
        // The user's own code, and an assert over a runtime call's result, are not.
        for line in [
            "app: /home/u/myproject/src/main.cpp:12: int main(): Assertion `n > 0' failed.\n",
            "app: /src/AMDMIGraphX/src/gpu/hip.cpp:40: void f(): Assertion \
             `status == hipSuccess' failed.\n",
        ] {
            assert!(internal(line).is_empty(), "{line}");
        }
    }

    /// A compiler's error inside a library's own source tree is that release of the library not
    /// building; the user's own code, a header not found, an older language standard or two ROCm
    /// releases in one text are not read that way.
    #[test]
    fn a_compile_error_in_a_librarys_own_source_is_its_bug() {
        for (text, id) in [
            // https://github.com/ROCm/rocPRIM/issues/35: hipCUB's block_scan.hpp calling rocPRIM
            // with the wrong arguments, fixed by ROCm/rocPRIM#33
            (
                "/opt/rocm/hipcub/include/hipcub/rocprim/block/block_scan.hpp:193:20: error: no \
                 matching member function for call to 'exclusive_scan'\n        \
                 base_type::exclusive_scan(input, output, temp_storage_);\n",
                "internal.compile.hipcub",
            ),
            // https://github.com/ROCm/rocFFT/pull/317: a missing include in rocFFT's own source,
            // "Fixed in newer versions of rocFFT"
            (
                "rocFFT/library/src/device/generator/../../include/function_pool.h:143:31: error: \
                 no member named 'max_element' in namespace 'std'\n",
                "internal.compile.rocfft",
            ),
        ] {
            let got = internal(text);
            assert_eq!(
                got.first().map(|g| g.0.as_str()),
                Some(id),
                "{text}: {got:?}"
            );
            assert!(got[0].1.contains("source"), "{}", got[0].1);
            assert_eq!(
                classes(text).last().map(String::as_str),
                Some(CAUSE),
                "{text}"
            );
        }
        // Debian 12's hipcc (HIP 5.2.3, clang 15) compiling `#include <rocprim/rocprim.hpp>`
        // from Debian's librocprim-dev 5.3.3 with -std=c++11: the first error inside rocPRIM
        // says nothing of the standard, a later one does ("a C++14 extension").
        let cxx11 = "In file included from t.hip:1:\n\
            In file included from root/usr/include/rocprim/rocprim.hpp:33:\n\
            root/usr/include/rocprim/intrinsics/../detail/various.hpp:60:5: error: no template \
            named 'enable_if_t' in namespace 'std'; did you mean 'Enable_if_t'?\n\
            root/usr/include/rocprim/intrinsics/../detail/various.hpp:61:38: error: 'auto' \
            return without trailing return type; deduced return types are a C++14 extension\n\
            root/usr/include/rocprim/intrinsics/../detail/various.hpp:69:12: error: no matching \
            function for call to 'ceiling_div'\n";
        assert!(internal(cxx11).is_empty());
        // The first error alone is read, and not once the command line shows -std=c++11.
        let first = cxx11.lines().take(3).collect::<Vec<_>>().join("\n");
        assert_eq!(internal(&first).len(), 1, "{first}");
        assert!(internal(&format!("hipcc -std=c++11 -c t.hip\n{first}")).is_empty());
        // https://github.com/ROCm/rocThrust/issues/233: rocThrust of ROCm 5.1.3 over ROCm 5.4.0's
        // rocPRIM, two releases in one compile.
        let two = "/home/k/rocThrust-rocm-5.1.3/thrust/../thrust/system/hip/detail/\
            set_operations.h:956:61: error: no member named 'init_offset_scan_state_kernel' in \
            namespace 'rocprim::detail'; did you mean 'init_lookback_scan_state_kernel'?\n\
            /opt/rocm-5.4.0/include/hip/amd_detail/amd_hip_runtime.h:199:30: note: expanded from \
            macro 'HIP_KERNEL_NAME'\n";
        assert!(internal(two).is_empty());
        // https://github.com/ROCm/TheRock/issues/2127: rocWMMA's own "Unsupported architecture"
        // assertion in a build whose targets include gfx906, which rocWMMA will never support
        // (ROCm/TheRock#1944): the target list, not a release a later one fixes.
        let gfx906 = "2025-11-13T07:55:19.5029690Z [rocWMMA] /therock/src/rocm-libraries/projects/\
            rocwmma/library/include/rocwmma/internal/config.hpp:79:15: error: static assertion \
            failed: Unsupported architecture\n\
            2025-11-13T07:55:19.5030400Z [rocWMMA]    79 | static_assert(0, \"Unsupported \
            architecture\");\n\
            2025-11-13T07:55:19.5030944Z [rocWMMA] 1 error generated when compiling for gfx906.\n";
        assert!(internal(gfx906).is_empty(), "{:?}", internal(gfx906));
        // https://github.com/ROCm/rocm-libraries/issues/4618: the same assertion from Fedora's
        // rocwmma-devel 6.4.0 building for gfx1151, a target later rocWMMA releases add: still
        // the library's release.
        let gfx1151 = "/usr/include/rocwmma/internal/config.hpp:76:15: error: static assertion \
            failed: Unsupported architecture\nstatic_assert(0, \"Unsupported architecture\");\n";
        assert_eq!(
            internal(gfx1151).first().map(|g| g.0.as_str()),
            Some("internal.compile.rocwmma")
        );
        // The user's code, and a header a library could not find, are not the library's bug.
        for text in [
            "src/operator/tensor/./cast_storage-inl.cuh:445:33: error: no member named 'x'\n",
            "/opt/rocm/include/rocprim/config.hpp:30:10: fatal error: 'hip/hip_runtime.h' file \
             not found\n",
        ] {
            assert!(internal(text).is_empty(), "{text}");
        }
    }

    /// An answer that reads more comes first: a "no code object" line beside MIGraphX's check.
    #[test]
    fn an_internal_check_comes_after_every_other_answer() {
        let text = format!(
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n{MIGRAPHX}"
        );
        let got = classes(&text);
        assert!(got.len() >= 2, "{got:?}");
        assert_eq!(got.last().map(String::as_str), Some(CAUSE), "{got:?}");
        assert_ne!(got[0], CAUSE);
    }

    /// Every row names a harvested component and printer and claims at least one format; no claimed
    /// format names an environment failure or has a family; every version pattern compiles.
    #[test]
    fn every_row_claims_formats_of_its_component() {
        let t = table();
        for r in &file().internal {
            let claimed: Vec<&Origin> = t
                .origins
                .iter()
                .filter(|o| internal_of(o).is_some_and(|x| std::ptr::eq(x, r)))
                .collect();
            assert!(!claimed.is_empty(), "{} claims nothing", r.component);
            for p in &r.printers {
                assert!(
                    t.origins
                        .iter()
                        .any(|o| o.component == r.component && &o.printer == p),
                    "{}: no printer {p}",
                    r.component
                );
            }
            for o in claimed {
                assert!(!names_environment(&o.format), "{:?}", o.format);
                assert!(families_of(o).next().is_none(), "{:?}", o.format);
            }
            assert!(
                r.version.is_empty() || Regex::new(&r.version).is_ok(),
                "{}",
                r.version
            );
            assert!(
                r.source.contains('/') && r.issues.starts_with("https://"),
                "{}",
                r.component
            );
        }
        assert!(super::super::causes::get(CAUSE).is_some());
    }
}
