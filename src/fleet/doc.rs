//! The few fields of a report that `merge` reads, borrowed from the input bytes; everything
//! else (evidence, inventory, agents) is skipped by serde without being built.

use serde::Deserialize;
use std::borrow::Cow;

/// Largest document accepted (a real report is ~10-100 KB; this bounds a runaway stream).
/// Here, with the document, so that the inputs and the baseline both read it from below
/// (`doc` <- `baseline` <- `summary` <- `input`: one direction, no circle).
pub(crate) const MAX_DOC_BYTES: usize = 64 << 20;

#[derive(Debug, Deserialize)]
pub(crate) struct Doc<'a> {
    pub schema_version: Option<u64>,
    #[serde(borrow)]
    pub tool: Option<Tool<'a>>,
    #[serde(borrow)]
    pub command: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub host: Option<Cow<'a, str>>,
    pub exit_code: Option<i64>,
    pub summary: Option<SummaryView>,
    #[serde(default, borrow)]
    pub findings: Vec<FindingView<'a>>,
    pub fingerprint: Option<crate::report::fingerprint::Fingerprint>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Tool<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
}

/// The counts of a report's `summary`, as `merge` reads them (not `report::Counts`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SummaryView {
    #[serde(default)]
    pub warn: u64,
    #[serde(default)]
    pub fail: u64,
    #[serde(default)]
    pub error: u64,
}

/// A finding of a report as `merge` reads it, borrowing from the input (not `report::Finding`).
#[derive(Debug, Deserialize)]
pub(crate) struct FindingView<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow)]
    pub subject: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    #[serde(borrow)]
    pub summary: Cow<'a, str>,
}

/// Why a document could not be folded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Problem {
    /// The input ended inside a document.
    Truncated,
    /// Not JSON, or JSON of the wrong shape.
    Corrupt,
    /// JSON, but not a rocm-doctor diagnosis report.
    Foreign,
    /// A rocm-doctor report of another schema version.
    SchemaVersion,
    /// A second report for a host already seen (the first is kept).
    Duplicate,
    /// A host named in `--expect` without a report, or an empty input.
    Missing,
}

/// Parses one document. `Err` carries the problem and a one-line detail.
pub(crate) fn parse(bytes: &[u8]) -> Result<Doc<'_>, (Problem, String)> {
    let doc: Doc<'_> = serde_json::from_slice(bytes).map_err(|e| {
        let p = if e.is_eof() {
            Problem::Truncated
        } else {
            Problem::Corrupt
        };
        (p, e.to_string())
    })?;
    check_head(
        doc.tool.as_ref().map(|t| t.name.as_ref()),
        doc.command.as_deref(),
        doc.schema_version,
    )?;
    Ok(doc)
}

/// The head rules of [`parse`] (a rocm-doctor diagnosis report of the schema this build reads),
/// shared with readers that hold the whole document as a value (`--baseline`).
fn check_head(
    name: Option<&str>,
    command: Option<&str>,
    schema_version: Option<u64>,
) -> Result<(), (Problem, String)> {
    if name != Some("rocm-doctor") {
        return Err((
            Problem::Foreign,
            format!("tool is {}", name.unwrap_or("not named")),
        ));
    }
    if let Some(c) = command {
        return Err((
            Problem::Foreign,
            format!("a `{c}` document, not a diagnosis report"),
        ));
    }
    let want = u64::from(crate::report::json::SCHEMA_VERSION);
    if schema_version != Some(want) {
        return Err((
            Problem::SchemaVersion,
            format!(
                "schema_version {} (this merge reads {want}; see docs/json.md, Migration)",
                schema_version.map_or("missing".to_string(), |v| v.to_string())
            ),
        ));
    }
    Ok(())
}

/// [`parse`]'s rules applied to a document already read as a JSON value.
pub(crate) fn check_value(v: &serde_json::Value) -> Result<(), (Problem, String)> {
    if !v.is_object() {
        return Err((Problem::Corrupt, "not a JSON object".into()));
    }
    check_head(
        v.pointer("/tool/name").and_then(serde_json::Value::as_str),
        v.get("command").and_then(serde_json::Value::as_str),
        v.get("schema_version").and_then(serde_json::Value::as_u64),
    )
}
