//! Rule over a Python traceback that ends in a ROCm tool's own code with a programming error
//! (issue 28, item 4: a bug of the release, read from where the exception was raised). Pure.
//!
//! CPython prints a traceback as "Traceback (most recent call last):", the frames from outer to
//! inner (`  File "PATH", line N, in FUNCTION`), then the exception (`Type: message`)
//! (docs.python.org, `traceback` module). The innermost frame is where it was raised. ROCm's
//! tools that are Python programs (rocm-smi and its `rocm_smi.py`/`rsmiBindings.py`, amd-smi and
//! its `amdsmi` package, rocprofiler's and rocprofiler-compute's front ends, TheRock's
//! `rocm_sdk` packages) raising KeyError, TypeError, IndexError, NameError or
//! UnboundLocalError there met a case their code does not handle: those exceptions say the code
//! looked up a key, an index or a name that is not there, or used a value of the wrong type
//! (docs.python.org, "Built-in Exceptions"), not that the machine lacks something. Exceptions
//! about the environment (ImportError, OSError and its kind, PermissionError) and an
//! AttributeError on None (a library handle that was not loaded) are the other rules' and
//! symptoms'.

use super::facts::{re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "tracebacks.rocm-tool-bug",
            "A ROCm tool's own Python code raised a programming error",
            "lib-bug-fixed-later",
            "The exception was raised in the ROCm tool's own code, and its kind (a key, index or \
             name that is not there, a value of the wrong type) says the code met a case it \
             does not handle: a bug of that tool's release, typically fixed in a later one, not \
             something missing on the machine.",
            "Update the tool (rocm-smi / amd-smi / the profiler of a newer ROCm release) or \
             report the traceback to its project; until then, avoid the option or the device \
             state that reaches that code.",
            "rule over Python tracebacks in ROCm's tools (src/packs/tool_tracebacks.rs)",
        )
    })
}

/// Whether a frame's file is a ROCm tool's own Python code.
fn rocm_tool_file(path: &str) -> bool {
    static TOOL: OnceLock<Regex> = OnceLock::new();
    re(
        &TOOL,
        concat!(
            r"(?i)^/opt/rocm[\w.-]*/|/rocm_smi\w*\.py$|/rsmiBindings\.py$|/rocm-smi$|/amd-smi$",
            r"|/amdsmi(?:_cli)?/|/site-packages/(?:rocm_sdk|_rocm_sdk_\w+|pyrsmi|amdsmi)/",
            r"|/rocprof\w*$|/rocprofiler[\w-]*/",
        ),
    )
    .is_match(path)
}

/// The innermost frame's file and the exception after it, for each traceback in the text.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static RAISED: OnceLock<Regex> = OnceLock::new();
    if !text.contains("File \"") {
        return Vec::new();
    }
    let frame = re(&FRAME, r#"^\s*File "([^"]+)", line \d+"#);
    let raised = re(
        &RAISED,
        r"^\s*(KeyError|TypeError|IndexError|NameError|UnboundLocalError)(?::\s*(.*))?$",
    );
    let mut last_file: Option<&str> = None;
    for line in text.lines() {
        if let Some(c) = frame.captures(line) {
            last_file = c.get(1).map(|m| m.as_str());
            continue;
        }
        let Some(c) = raised.captures(line) else {
            // A line of source under a frame, or a caret line, keeps the frame.
            if !line.starts_with(' ') && !line.trim().is_empty() && !line.starts_with('\t') {
                last_file = None;
            }
            continue;
        };
        let Some(file) = last_file.take() else {
            continue;
        };
        if !rocm_tool_file(file) {
            continue;
        }
        let what = c.get(2).map_or("", |m| m.as_str().trim());
        return vec![Derived::reasoned(
            symptom(),
            line.trim().chars().take(300).collect(),
            format!(
                "{}{}{} was raised in {file}, the ROCm tool's own code ({FROM})",
                &c[1],
                if what.is_empty() { "" } else { ": " },
                what.chars().take(120).collect::<String>(),
            ),
        )];
    }
    Vec::new()
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
    fn a_key_error_in_rocm_smi() {
        // ROCm/legacy-rocm-build#777 (rocm-smi of ROCm 2.3).
        let t = "Traceback (most recent call last):
  File \"/opt/rocm/bin/rocm-smi\", line 1910, in <module>
    setPowerOverDrive(deviceList, args.setpoweroverdrive, args.autorespond)
  File \"/opt/rocm/bin/rocm-smi\", line 1396, in setPowerOverDrive
    power_cap_path = getFilePath(device, 'power1_cap')
  File \"/opt/rocm/bin/rocm-smi\", line 130, in getFilePath
    pathDict = valuePaths[key]
KeyError: 'power1_cap'
";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "lib-bug-fixed-later", "{f:?}");
        assert!(f[0]
            .1
            .starts_with("KeyError: 'power1_cap' was raised in /opt/rocm/bin/rocm-smi"));
        let amdsmi = "Traceback (most recent call last):\n  File \"/opt/rocm-6.1.0/libexec/amdsmi_cli/amdsmi_commands.py\", line 452, in static\n    x = info['vram'][0]\nIndexError: list index out of range\n";
        assert_eq!(fired(amdsmi).len(), 1);
    }

    #[test]
    fn not_other_code_nor_environment_errors() {
        // The user's or another project's code.
        let user = "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    x = d['a']\nKeyError: 'a'\n";
        assert!(fired(user).is_empty());
        // The environment: a module or a file that is not there.
        let env = "Traceback (most recent call last):\n  File \"/opt/rocm/bin/rocm-smi\", line 3, in <module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'\n";
        assert!(fired(env).is_empty());
        let none = "Traceback (most recent call last):\n  File \"/opt/rocm/libexec/rocm_smi/rocm_smi.py\", line 9, in f\n    rocmsmi.rsmi_init(0)\nAttributeError: 'NoneType' object has no attribute 'rsmi_init'\n";
        assert!(fired(none).is_empty());
        // An exception printed after another program's output, not after the tool's frame.
        let later = "  File \"/opt/rocm/bin/rocm-smi\", line 1, in <module>\n    main()\nDone.\nKeyError: 'x'\n";
        assert!(fired(later).is_empty());
    }
}
