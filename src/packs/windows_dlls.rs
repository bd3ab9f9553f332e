//! Rule over the Windows loader failing on a ROCm DLL (issue 28, item 4: one rule for every
//! program that loads HIP's or a ROCm library's DLL on Windows, whichever prints the error).
//! Pure.
//!
//! Windows reports a DLL it cannot load by a system error code, whose text every program prints
//! through `FormatMessage`: ERROR_MOD_NOT_FOUND (126) "The specified module could not be found."
//! for a DLL (or one of its dependencies) not found in the search order, ERROR_PROC_NOT_FOUND
//! (127) "The specified procedure could not be found." for a DLL found but lacking an entry point
//! its importer needs (learn.microsoft.com/windows/win32/debug/system-error-codes--0-499-). The
//! forms users paste:
//! - Python's `OSError: [WinError 126] The specified module could not be found. Error loading
//!   "...dll" or one of its dependencies.` (PyTorch's `torch/__init__.py`, `_load_dll_libraries`,
//!   adds the `Error loading` part);
//! - CPython's ctypes since 3.8, `FileNotFoundError: Could not find module '...dll' (or one of
//!   its dependencies). Try using the full path with constructor syntax.`
//!   (`Modules/_ctypes/callproc.c`, `load_library`);
//! - the loader's own dialog when a program's import is missing, "The code execution cannot
//!   proceed because X.dll was not found." (STATUS_DLL_NOT_FOUND, as vosen/ZLUDA#545 pastes it),
//!   and for a missing entry point "The procedure entry point F could not be located in the
//!   dynamic link library X.dll." (STATUS_ENTRYPOINT_NOT_FOUND);
//! - a program's own "Failed to load amdhip64.dll: Can't open: The specified module could not be
//!   found" (offload-arch, ROCm/TheRock#4755).
//!
//! HIP's runtime on Windows is `amdhip64_N.dll`, N the HIP major (as on Linux the soname,
//! `sonames.rs`); AMD's display driver installs it in System32 (TheRock#4755's steps remove
//! `C:\Windows\System32\amdhip64_6.dll` and `amdhip64_7.dll`), and the HIP SDK and TheRock's
//! wheels ship it with the libraries (`rocblas.dll`, `hiprtc*.dll`, `amd_comgr*.dll`). Python
//! since 3.8 no longer searches PATH for the dependencies of a DLL it loads (docs.python.org,
//! "What's New In Python 3.8", ctypes: `os.add_dll_directory`), so a HIP SDK on PATH is not
//! enough for a Python extension.
//!
//! A ROCm DLL not found is `lib-missing`; one found but lacking an entry point is a DLL of
//! another release found first (`lib-mixed-releases`). A DLL's name is ROCm's when its stem is a
//! ROCm package stem (`pkgnames`: `amdhip64_6`, `hiprtc0605`, `amd_comgr_2`, `rocblas`, `MIOpen`).

use super::facts::{re, rule_symptom, Derived, Facts};
use super::vendors::Vendor;
use super::{pkgnames, Symptom};
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn missing() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "windows.rocm-dll-not-found",
            "Windows does not find a ROCm DLL (or one of its dependencies)",
            "lib-missing",
            "Windows' loader found no file of a ROCm DLL the program loads, or of a DLL that \
             one needs, in its search order (the program's directory, System32, PATH; for \
             Python 3.8 and later only the directories added with os.add_dll_directory, not \
             PATH): the AMD driver or the HIP SDK that ships it is not installed, or the \
             program looks for another release's DLL.",
            "Install (or update) AMD's display driver, which puts HIP's runtime amdhip64_N.dll \
             in System32, and the HIP SDK of the release the program was built for, whose \
             bin directory holds the ROCm libraries; from Python, add that directory with \
             os.add_dll_directory (PATH is not searched). A program built for HIP N needs \
             amdhip64_N.dll: a driver that ships only another N does not serve it.",
            "rule over Windows' loader errors (src/packs/windows_dlls.rs; Windows system error \
             codes 126 and 127, CPython Modules/_ctypes/callproc.c)",
        )
    })
}

fn driver_runtime() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "windows.driver-hip-runtime-not-found",
            "Windows does not find the HIP runtime AMD's display driver installs",
            "gpu-driver-missing",
            "The program loads HIP's runtime by the name AMD's display driver installs in \
             System32 (amdhip64_N.dll, N the HIP major), and Windows finds no such file: the \
             AMD driver is not installed, or is older than the HIP release the program needs.",
            "Install (or update) AMD's Adrenalin or PRO driver for the GPU, which installs \
             amdhip64_N.dll in System32, then restart the program; a program built for HIP N \
             needs a driver that ships amdhip64_N.dll.",
            "rule over Windows' loader errors (src/packs/windows_dlls.rs; Windows system error \
             code 126)",
        )
    })
}

fn entry_point() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "windows.rocm-dll-entry-point",
            "A ROCm DLL lacks an entry point its importer needs (Windows)",
            "lib-mixed-releases",
            "Windows found the ROCm DLL, but not a function the program or another DLL imports \
             from it: the DLL found first is of another release than the program was built \
             against (an older copy beside the program, in System32 from the driver, or on \
             PATH).",
            "Make one release's DLLs the ones found: remove or update the stale copy (the \
             program's directory and PATH are searched before it is found elsewhere), or \
             install the HIP SDK and driver of the release the program was built for.",
            "rule over Windows' loader errors (src/packs/windows_dlls.rs; Windows system error \
             codes 126 and 127)",
        )
    })
}

/// The DLL names of a line whose stem is a ROCm package stem.
fn rocm_dll(line: &str) -> Option<String> {
    static DLL: OnceLock<Regex> = OnceLock::new();
    re(&DLL, r"(?i)\b([A-Za-z][\w.+-]*?)\.dll\b")
        .captures_iter(line)
        .map(|c| c[1].to_string())
        .find(|stem| pkgnames::is_rocm_library(stem))
        .map(|stem| format!("{stem}.dll"))
}

/// Whether `dll` is HIP's runtime by the versioned name AMD's display driver installs in
/// System32 (`amdhip64_6.dll`, `amdhip64_7.dll`: TheRock#4755's steps remove both from System32;
/// ollama's Windows discovery loads `amdhip64_6.dll` and asks for a driver upgrade when it
/// cannot, discover/amd_hip_windows.go).
fn driver_name(dll: &str) -> bool {
    dll.to_ascii_lowercase()
        .strip_prefix("amdhip64_")
        .and_then(|r| r.strip_suffix(".dll"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the line names the DLL under a HIP SDK or a wheel's bundled ROCm (`...\AMD\ROCm\6.2\bin`,
/// `_rocm_sdk_core`), where the program carries its own copy and the driver is not asked.
fn bundled(line: &str) -> bool {
    static SDK: OnceLock<Regex> = OnceLock::new();
    re(&SDK, r"(?i)AMD[\\/]ROCm[\\/]\d|_rocm_sdk|site-packages").is_match(line)
}

/// A ROCm DLL that Windows' loader did not find, or found without an entry point.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    static NOT_FOUND: OnceLock<Regex> = OnceLock::new();
    static NO_ENTRY: OnceLock<Regex> = OnceLock::new();
    if !text.contains(".dll") && !text.contains(".DLL") {
        return Vec::new();
    }
    let not_found = re(
        &NOT_FOUND,
        concat!(
            r"(?i)The specified module could not be found|\[WinError 126\]",
            r"|Could not find module '|The code execution cannot proceed because \S+\.dll was not found",
        ),
    );
    let no_entry = re(
        &NO_ENTRY,
        concat!(
            r"(?i)The specified procedure could not be found|\[WinError 127\]",
            r"|The procedure entry point \S+ could not be located in the dynamic link library",
        ),
    );
    for l in text.lines() {
        let (symptom, what) = if not_found.is_match(l) {
            if let Some(dll) = rocm_dll(l).filter(|d| driver_name(d) && !bundled(l)) {
                // Programs look for it on machines without an AMD GPU too (ollama's Windows
                // discovery runs before it knows the vendor): not where the text shows an NVIDIA
                // GPU (`stack::nvidia_machine`, the wide reading that withholds) and no AMD one.
                if super::stack::nvidia_machine(text) && !f.shows(Vendor::Amd) {
                    return Vec::new();
                }
                return vec![Derived::reasoned(
                    driver_runtime(),
                    l.trim().chars().take(300).collect(),
                    format!(
                        "{dll} is HIP's runtime by the name AMD's display driver installs in \
                         System32, and Windows' loader did not find it ({FROM})"
                    ),
                )];
            }
            (
                missing(),
                "Windows' loader did not find it or one of its dependencies",
            )
        } else if no_entry.is_match(l) {
            (
                entry_point(),
                "Windows found it, but without an entry point its importer needs: a DLL of \
                 another release",
            )
        } else {
            continue;
        };
        let Some(dll) = rocm_dll(l) else { continue };
        return vec![Derived::reasoned(
            symptom,
            l.trim().chars().take(300).collect(),
            format!("{dll} is a ROCm DLL, and {what} ({FROM})"),
        )];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::super::facts::class_and_reasoning;
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        class_and_reasoning(rules(text, &Facts::of(text)))
    }

    /// The forms as users paste them: offload-arch's (https://github.com/ROCm/TheRock/issues/4755),
    /// the loader's dialog (https://github.com/vosen/ZLUDA/issues/545), Python's through
    /// PyTorch's loader and ctypes' (the message formats of torch/__init__.py and CPython's
    /// callproc.c, with the DLL paths of TheRock's Windows wheels).
    #[test]
    fn a_rocm_dll_not_found() {
        for (t, dll) in [
            (
                "Failed to load amdhip64.dll: Can't open: The specified module could not be found",
                "amdhip64.dll",
            ),
            (
                "OSError: [WinError 126] The specified module could not be found. Error loading \
                 \"C:\\venv\\Lib\\site-packages\\_rocm_sdk_core\\bin\\hiprtc0701.dll\" or one of \
                 its dependencies.",
                "hiprtc0701.dll",
            ),
            (
                "FileNotFoundError: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\rocblas.dll' \
                 (or one of its dependencies). Try using the full path with constructor syntax.",
                "rocblas.dll",
            ),
        ] {
            let f = fired(t);
            assert_eq!(f.len(), 1, "{t}");
            assert_eq!(f[0].0, "lib-missing", "{t}");
            assert!(f[0].1.starts_with(&format!("{dll} is a ROCm DLL")), "{f:?}");
        }
    }

    /// HIP's runtime by the driver's name, not found: the loader's dialog
    /// (https://github.com/vosen/ZLUDA/issues/545) and ollama's Windows discovery
    /// (https://github.com/ollama/ollama/issues/6567); the same name in a wheel's bundled ROCm is
    /// the wheel's own copy (lib-missing).
    #[test]
    fn the_drivers_hip_runtime_not_found() {
        for t in [
            "The code execution cannot proceed because amdhip64_6.dll was not found. This \
             problem may be solved by reinstalling the program.",
            "time=2024-08-30T09:43:00.852-05:00 level=DEBUG source=amd_windows.go:33 msg=\"unable \
             to load amdhip64_6.dll, please make sure to upgrade to the latest amd driver: The \
             specified module could not be found.\"",
        ] {
            let f = fired(t);
            assert_eq!(f[0].0, "gpu-driver-missing", "{f:?}");
            assert!(
                f[0].1.starts_with("amdhip64_6.dll is HIP's runtime"),
                "{f:?}"
            );
        }
        let wheel = "OSError: [WinError 126] The specified module could not be found. Error loading \
                     \"C:\\venv\\Lib\\site-packages\\_rocm_sdk_core\\bin\\amdhip64_7.dll\" or one of its \
                     dependencies.";
        assert_eq!(fired(wheel)[0].0, "lib-missing");
        // ollama's line for an NVIDIA GPU beside it (its "inference compute" line in the format
        // ollama logs it, with an NVIDIA GPU's name and values of ours): no answer.
        let nvidia = format!(
            "msg=\"inference compute\" id=GPU-5e1 library=cuda variant=v12 compute=8.6 \
             driver=12.4 name=\"NVIDIA GeForce RTX 3060\" total=\"12.0 GiB\"\n{}",
            "msg=\"unable to load amdhip64_6.dll, please make sure to upgrade to the latest amd \
             driver: The specified module could not be found.\""
        );
        assert!(fired(&nvidia).is_empty(), "{:?}", fired(&nvidia));
    }

    #[test]
    fn an_entry_point_missing_from_a_rocm_dll() {
        let t = "The procedure entry point hipGraphExecGetFlags could not be located in the \
                 dynamic link library amdhip64_6.dll.";
        let f = fired(t);
        assert_eq!(f[0].0, "lib-mixed-releases", "{f:?}");
        assert!(f[0].1.contains("another release"), "{f:?}");
    }

    /// Other DLLs: PyTorch's own, AMD's display library ADL (a driver file, not ROCm's:
    /// https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/219), another
    /// program's; and a ROCm DLL named where nothing failed.
    #[test]
    fn not_other_dlls_nor_a_dll_that_loaded() {
        for t in [
            "OSError: [WinError 126] The specified module could not be found. Error loading \
             \"C:\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
            "FileNotFoundError: Could not find module 'atiadlxx.dll' (or one of its dependencies). \
             Try using the full path with constructor syntax.",
            "Load library C:\\j64\\j.dll failed: The specified module could not be found.",
            "loaded C:\\Windows\\System32\\amdhip64_6.dll\n",
        ] {
            assert!(fired(t).is_empty(), "{t}");
        }
    }
}
