//! The `--json` document. Its schema is documented in docs/json.md; bump [`SCHEMA_VERSION`]
//! on any incompatible change (removing or renaming a field, changing a type).

use super::{exit_code, Counts, Finding};
use serde::Serialize;

pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
}

pub(crate) const TOOL: Tool = Tool {
    name: "rocm-doctor",
    version: env!("CARGO_PKG_VERSION"),
};

/// The report's head fields (schema 2 added `host` and `fingerprint`; docs/json.md).
pub(crate) struct Head<'a> {
    pub profile: &'a str,
    pub sysroot: &'a str,
    pub host: &'a str,
    pub strict: bool,
    pub fingerprint: &'a crate::report::fingerprint::Fingerprint,
}

/// The whole report as one JSON value. Sections beyond the findings (inventory, agents,
/// asm caps...) are passed in as already-serialised values so each family owns its schema.
pub(crate) fn document(
    head: &Head<'_>,
    findings: &[Finding],
    sections: Vec<(&'static str, serde_json::Value)>,
) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "tool": TOOL,
        "profile": head.profile,
        "sysroot": head.sysroot,
        "host": head.host,
        "fingerprint": head.fingerprint,
        "strict": head.strict,
        "exit_code": exit_code(findings, head.strict),
        "summary": Counts::of(findings),
        "action": super::action::of_node(findings),
        "findings": findings,
    });
    if let Some(obj) = doc.as_object_mut() {
        for (k, v) in sections {
            obj.insert(k.to_string(), v);
        }
    }
    doc
}
