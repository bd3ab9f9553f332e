//! Diagnosis of clang driver and ld.lld output: turns the text a failed compile or link
//! printed into typed problems a check can explain and fix.
//!
//! [`classify`] is pure (text in, problems out). [`link::explain_incompatible`] does the I/O
//! that follows an "incompatible library" problem: which ELF machine the library really is
//! and where the flag that pulled it in came from.
//!
//! The message shapes are those of clang 15 and 19 (Debian) and of lld; the tests use real
//! captured output.

pub(crate) mod link;

use serde::Serialize;
use std::path::PathBuf;

/// One problem found in compiler or linker output, with the line it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriverProblem {
    pub kind: ProblemKind,
    /// The output line that shows it.
    pub line: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProblemKind {
    /// `invalid target ID 'gfx942'` (the driver does not know the processor).
    InvalidTargetId { target: String },
    /// `unknown target CPU 'gfx9999'` (cc1/cc1as level).
    UnknownTargetCpu { cpu: String },
    /// `unable to execute command: Executable "ld.lld" doesn't exist!`
    ExecutableNotFound { name: String },
    /// `ld.lld: error: <lib> is incompatible with <obj>`: a library for another machine.
    IncompatibleLibrary { library: PathBuf, object: String },
    /// `ld.lld: error: unable to find library -lfoo`
    LibraryNotFound { name: String },
    /// `ld.lld: error: undefined symbol: f` or GNU ld's ``undefined reference to `f'``.
    UndefinedSymbol { symbol: String },
    /// `cannot find ROCm device library` (no bitcode for a HIP device compile).
    DeviceLibraryMissing,
    /// `cannot find HIP runtime` (no HIP headers/runtime for the driver).
    HipRuntimeMissing,
    /// `fatal error: 'hip/hip_runtime.h' file not found`
    MissingHeader { header: String },
    /// `<tool> command failed with exit code N` / `linker command failed ...`.
    ToolFailed { tool: String, code: Option<i32> },
}

impl ProblemKind {
    /// A short name for evidence and grouping.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            ProblemKind::InvalidTargetId { .. } => "invalid target id",
            ProblemKind::UnknownTargetCpu { .. } => "unknown target CPU",
            ProblemKind::ExecutableNotFound { .. } => "executable not found",
            ProblemKind::IncompatibleLibrary { .. } => "incompatible library",
            ProblemKind::LibraryNotFound { .. } => "library not found",
            ProblemKind::UndefinedSymbol { .. } => "undefined symbol",
            ProblemKind::DeviceLibraryMissing => "ROCm device library not found",
            ProblemKind::HipRuntimeMissing => "HIP runtime not found",
            ProblemKind::MissingHeader { .. } => "header not found",
            ProblemKind::ToolFailed { .. } => "tool failed",
        }
    }
}

/// Every problem the output shows, in output order. Lines that are not problems (echoed
/// source, carets, `>>>` context, "1 error generated.") are ignored.
pub fn classify(output: &str) -> Vec<DriverProblem> {
    let mut out = Vec::new();
    for raw in output.lines() {
        let line = raw.trim_end();
        if let Some(kind) = classify_line(line) {
            let p = DriverProblem {
                kind,
                line: line.to_string(),
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The first single-quoted word after `key`.
fn quoted_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = &line[line.find(key)? + key.len()..];
    let rest = rest.strip_prefix('\'')?;
    rest.split('\'').next()
}

fn classify_line(line: &str) -> Option<ProblemKind> {
    if let Some(t) = quoted_after(line, "invalid target ID ") {
        return Some(ProblemKind::InvalidTargetId {
            target: t.to_string(),
        });
    }
    if let Some(t) = quoted_after(line, "unknown target CPU ") {
        return Some(ProblemKind::UnknownTargetCpu { cpu: t.to_string() });
    }
    if let Some(rest) = line
        .split_once("unable to execute command: Executable \"")
        .map(|(_, r)| r)
    {
        let name = rest.split('"').next().unwrap_or_default();
        return Some(ProblemKind::ExecutableNotFound {
            name: name.to_string(),
        });
    }
    if let Some(rest) = lld_error(line) {
        if let Some((lib, obj)) = rest.split_once(" is incompatible with ") {
            return Some(ProblemKind::IncompatibleLibrary {
                library: PathBuf::from(lib.trim()),
                object: obj.trim().to_string(),
            });
        }
        if let Some(name) = rest.strip_prefix("unable to find library ") {
            return Some(ProblemKind::LibraryNotFound {
                name: name.trim().to_string(),
            });
        }
        if let Some(sym) = rest.strip_prefix("undefined symbol: ") {
            return Some(ProblemKind::UndefinedSymbol {
                symbol: sym.trim().to_string(),
            });
        }
    }
    if let Some(rest) = line.split_once("undefined reference to `").map(|(_, r)| r) {
        let sym = rest.rsplit_once('\'').map(|(s, _)| s).unwrap_or(rest);
        return Some(ProblemKind::UndefinedSymbol {
            symbol: sym.to_string(),
        });
    }
    if line.contains("cannot find ROCm device library") {
        return Some(ProblemKind::DeviceLibraryMissing);
    }
    if line.contains("cannot find HIP runtime") {
        return Some(ProblemKind::HipRuntimeMissing);
    }
    if line.contains("fatal error: '") && line.ends_with("' file not found") {
        if let Some(h) = quoted_after(line, "fatal error: ") {
            return Some(ProblemKind::MissingHeader {
                header: h.to_string(),
            });
        }
    }
    if let Some((head, tail)) = line.split_once(" command failed with exit code ") {
        let tool = head.rsplit(": ").next().unwrap_or(head).trim().to_string();
        let code = tail.split_whitespace().next().and_then(|c| c.parse().ok());
        return Some(ProblemKind::ToolFailed { tool, code });
    }
    None
}

/// The message of an lld error line (`ld.lld: error: X`, also `ld.lld-15: error:`).
fn lld_error(line: &str) -> Option<&str> {
    let (head, rest) = line.split_once(": error: ")?;
    let base = head.rsplit('/').next().unwrap_or(head);
    (base.starts_with("ld.lld") || base == "ld" || base == "lld").then_some(rest)
}

/// The `-l` name a library file answers to (`/x/libunwind.so.1` -> `unwind`).
pub(crate) fn lib_flag_name(lib: &std::path::Path) -> Option<String> {
    let name = lib.file_name()?.to_str()?;
    let stem = name.strip_prefix("lib")?;
    let end = stem
        .find(".so")
        .or_else(|| stem.find(".a"))
        .unwrap_or(stem.len());
    (end > 0).then(|| stem[..end].to_string())
}

#[cfg(test)]
mod tests;
