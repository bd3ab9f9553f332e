//! Parent side of the HSA runtime probe: finds `libhsa-runtime64`, runs
//! `rocm-doctor probe-library hsa PATH` as a child with a timeout (the format of its JSON line is
//! documented in `src/probe/hsa.rs`) and turns the line into facts.

use crate::host::{Host, RunOutput};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// `hsa_status_t` names from `hsa/hsa.h` (ROCR-Runtime `inc/hsa.h`, enum `hsa_status_t`).
pub(crate) fn status_name(code: u32) -> Option<&'static str> {
    Some(match code {
        0x0 => "HSA_STATUS_SUCCESS",
        0x1 => "HSA_STATUS_INFO_BREAK",
        0x1000 => "HSA_STATUS_ERROR",
        0x1001 => "HSA_STATUS_ERROR_INVALID_ARGUMENT",
        0x1002 => "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION",
        0x1003 => "HSA_STATUS_ERROR_INVALID_ALLOCATION",
        0x1004 => "HSA_STATUS_ERROR_INVALID_AGENT",
        0x1005 => "HSA_STATUS_ERROR_INVALID_REGION",
        0x1006 => "HSA_STATUS_ERROR_INVALID_SIGNAL",
        0x1007 => "HSA_STATUS_ERROR_INVALID_QUEUE",
        0x1008 => "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        0x1009 => "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
        0x100A => "HSA_STATUS_ERROR_RESOURCE_FREE",
        0x100B => "HSA_STATUS_ERROR_NOT_INITIALIZED",
        0x100C => "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW",
        0x100D => "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
        0x100E => "HSA_STATUS_ERROR_INVALID_INDEX",
        0x100F => "HSA_STATUS_ERROR_INVALID_ISA",
        0x1010 => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT",
        0x1011 => "HSA_STATUS_ERROR_INVALID_EXECUTABLE",
        0x1012 => "HSA_STATUS_ERROR_FROZEN_EXECUTABLE",
        0x1013 => "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME",
        0x1014 => "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED",
        0x1015 => "HSA_STATUS_ERROR_VARIABLE_UNDEFINED",
        0x1016 => "HSA_STATUS_ERROR_EXCEPTION",
        0x1017 => "HSA_STATUS_ERROR_INVALID_ISA_NAME",
        0x1018 => "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL",
        0x1019 => "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL",
        0x1020 => "HSA_STATUS_ERROR_INVALID_FILE",
        0x1021 => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER",
        0x1022 => "HSA_STATUS_ERROR_INVALID_CACHE",
        0x1023 => "HSA_STATUS_ERROR_INVALID_WAVEFRONT",
        0x1024 => "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP",
        0x1025 => "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE",
        0x1026 => "HSA_STATUS_ERROR_FATAL",
        _ => return None,
    })
}

/// `0x1008 HSA_STATUS_ERROR_OUT_OF_RESOURCES` (or just the hex code for unknown values).
pub(crate) fn status_label(code: u32) -> String {
    match status_name(code) {
        Some(n) => format!("{n} (0x{code:x} = {code})"),
        None => format!("status 0x{code:x} = {code}"),
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub(crate) struct ProbeAgent {
    pub name: Option<String>,
    pub device_type: serde_json::Value,
}

/// The child's JSON line.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ProbeLine {
    pub kind: String,
    pub loaded: bool,
    pub error: Option<String>,
    pub init_status: Option<u32>,
    pub status_string: Option<String>,
    #[allow(dead_code)] // a key of the probe child's line (src/probe/hsa.rs), shown by Debug
    pub iterate_status: Option<u32>,
    #[serde(default)]
    pub agents: Vec<ProbeAgent>,
}

/// Parses the last line of stdout that is a JSON object of kind `hsa`.
pub(crate) fn parse_line(stdout: &str) -> Option<ProbeLine> {
    stdout
        .lines()
        .rev()
        .filter(|l| l.trim_start().starts_with('{'))
        .find_map(|l| {
            serde_json::from_str::<ProbeLine>(l)
                .ok()
                .filter(|p| p.kind == "hsa")
        })
}

/// Runs the child probe (`lib_dirs`: the loader's search directories, for `--host-root`; see
/// [`Host::probe_spec`]).
pub(crate) fn run_probe(
    host: &Host,
    library: &Path,
    lib_dirs: &[PathBuf],
) -> (RunOutput, Option<ProbeLine>) {
    let spec = crate::probe::spec(host, "hsa", library, lib_dirs);
    let out = host.run(&spec);
    let line = parse_line(&out.stdout_text());
    (out, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names() {
        assert_eq!(status_name(4104), Some("HSA_STATUS_ERROR_OUT_OF_RESOURCES"));
        assert_eq!(
            status_label(0x1008),
            "HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008 = 4104)"
        );
        assert_eq!(status_label(0x2a), "status 0x2a = 42");
    }

    #[test]
    fn parses_the_child_line_among_noise() {
        let out = "hsa \
            noise\n{\"kind\":\"hsa\",\"library\":\"/x\",\"loaded\":true,\"error\":null,\"init_status\":4104,\"status_string\":\"s\",\"iterate_status\":null,\"agents\":[]}\n";
        let p = parse_line(out).unwrap();
        assert_eq!(p.init_status, Some(4104));
        assert!(parse_line("{\"kind\":\"hip\",\"loaded\":true}").is_none());
        assert!(parse_line("garbage").is_none());
    }
}
