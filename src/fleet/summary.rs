//! The fleet summary: a pure fold of parsed reports. Its size grows with the number of nodes
//! and of distinct problems, never with the size of the reports (evidence is not kept).

use super::baseline::{self, Drift};
use super::doc::{Doc, Problem};
use super::fingerprint::{Fingerprint, FIELDS};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// At most this many notes are kept per kind; the rest are only counted.
pub const MAX_NOTES_PER_KIND: usize = 200;

/// Overall status of one node, worst first when sorted in reverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeStatus {
    Ok,
    Warn,
    Fail,
    Error,
}

/// One input that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    pub kind: Problem,
    /// File name, `-` (stdin) or `<file>:<line>`.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub detail: String,
    /// For a `duplicate`: the input whose report for this host was used instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

/// A failing/warning check with one cause, and the nodes where it happened.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CauseKey {
    pub id: String,
    pub status: String,
    pub subject: Option<String>,
    pub summary: String,
}

#[derive(Debug, Default)]
pub struct Summary {
    pub reports: u64,
    pub nodes: BTreeMap<String, NodeStatus>,
    pub causes: BTreeMap<CauseKey, BTreeSet<String>>,
    /// (field, comparison group) -> value -> hosts. Firmware and GPU count are compared among
    /// nodes with the same agent ISAs (a fleet may mix models); the rest fleet-wide (group "").
    pub values: BTreeMap<(&'static str, String), BTreeMap<String, BTreeSet<String>>>,
    pub notes: Vec<Note>,
    pub notes_dropped: BTreeMap<Problem, u64>,
    /// How many of `notes` are of each kind, so that a note costs the same whether 1 or 1,000
    /// are kept (counting `notes` at every note made a stream of 100,000 junk lines scan up to
    /// 1,200 notes per line; found by the `fleet_report` fuzz target's speed).
    kept: BTreeMap<Problem, usize>,
    /// `merge --baseline`: the known-good report every node is compared with.
    pub baseline: Option<Arc<serde_json::Value>>,
    /// Drift (with the baseline's value, the now value left empty) -> now value -> hosts.
    pub drifts: BTreeMap<Drift, BTreeMap<String, BTreeSet<String>>>,
    /// The position, in input order, of the input being folded (set by the caller: the file's
    /// index among the inputs, stdin last). With `seq` it orders every report, whichever worker
    /// thread reads it: a host reported twice keeps its first report in input order.
    pub input: usize,
    seq: u64,
    /// Where each node's report came from: (input, seq) and its source.
    origin: BTreeMap<String, ((usize, u64), String)>,
}

/// A node's status from its report's counts and exit code.
fn status_of(doc: &Doc<'_>) -> NodeStatus {
    let c = doc.summary.as_ref();
    if c.is_some_and(|c| c.error > 0) {
        NodeStatus::Error
    } else if c.is_some_and(|c| c.fail > 0) || doc.exit_code.is_some_and(|e| e != 0) {
        NodeStatus::Fail
    } else if c.is_some_and(|c| c.warn > 0) {
        NodeStatus::Warn
    } else {
        NodeStatus::Ok
    }
}

impl Summary {
    /// Folds one parsed report. `fallback_host` names it when the report has no `host`
    /// (a `host: ` prefix, or the file name).
    /// `bytes` is the document's text: read again as a whole only with a baseline.
    pub(crate) fn add(
        &mut self,
        doc: &Doc<'_>,
        bytes: &[u8],
        fallback_host: Option<&str>,
        source: &str,
    ) {
        let host = match doc
            .host
            .as_deref()
            .filter(|h| !h.is_empty())
            .or(fallback_host)
        {
            Some(h) => h.to_string(),
            None => {
                self.note(
                    Problem::Missing,
                    source,
                    None,
                    "report without a host name".into(),
                );
                return;
            }
        };
        let pos = (self.input, self.seq);
        self.seq += 1;
        if let Some((at, first)) = self.origin.get(&host).cloned() {
            if at < pos {
                self.duplicate(&host, source, &first);
                return;
            }
            // An earlier input read after a later one: it is the one kept.
            self.forget(&host);
            self.duplicate(&host, &first, source);
        }
        self.origin.insert(host.clone(), (pos, source.to_string()));
        self.reports += 1;
        let mut status = status_of(doc);
        self.add_causes(doc, &host);
        self.add_values(doc, &host);
        if self.add_drifts(bytes, &host) && status == NodeStatus::Ok {
            // A node that drifts is at least `warn`, as its own `--baseline` run would be.
            status = NodeStatus::Warn;
        }
        self.nodes.insert(host, status);
    }

    /// Counts the node under each warn/fail/error finding's cause.
    fn add_causes(&mut self, doc: &Doc<'_>, host: &str) {
        for f in &doc.findings {
            if !matches!(f.status.as_ref(), "warn" | "fail" | "error") {
                continue;
            }
            let key = CauseKey {
                id: f.id.to_string(),
                status: f.status.to_string(),
                subject: f.subject.as_ref().map(|s| s.to_string()),
                summary: f.summary.to_string(),
            };
            self.causes.entry(key).or_default().insert(host.to_string());
        }
    }

    /// Counts the node under its value of each fingerprint field.
    fn add_values(&mut self, doc: &Doc<'_>, host: &str) {
        let fp = doc.fingerprint.clone().unwrap_or_default();
        for name in FIELDS {
            self.values
                .entry((name, group_of(name, &fp)))
                .or_default()
                .entry(fp.field(name))
                .or_default()
                .insert(host.to_string());
        }
    }

    /// Counts the node's drifts from the baseline, if one was given; whether it drifts.
    fn add_drifts(&mut self, bytes: &[u8], host: &str) -> bool {
        let Some(b) = &self.baseline else {
            return false;
        };
        // The few fields of `doc` are not enough (inventory, agents, environment): the
        // document is read as a value, only when a baseline was given.
        let ds = serde_json::from_slice::<serde_json::Value>(bytes)
            .map(|now| baseline::drifts(b, &now))
            .unwrap_or_default();
        let drifted = !ds.is_empty();
        for d in ds {
            let now = d.now.clone();
            let key = Drift {
                now: String::new(),
                ..d
            };
            self.drifts
                .entry(key)
                .or_default()
                .entry(now)
                .or_default()
                .insert(host.to_string());
        }
        drifted
    }

    /// An empty summary that compares every report with `baseline`.
    pub(crate) fn with_baseline(baseline: Option<Arc<serde_json::Value>>) -> Self {
        Summary {
            baseline,
            ..Default::default()
        }
    }

    pub(crate) fn note(&mut self, kind: Problem, source: &str, host: Option<&str>, detail: String) {
        self.push_note(Note {
            kind,
            source: source.to_string(),
            host: host.map(str::to_string),
            detail,
            kept: None,
        });
    }

    fn push_note(&mut self, n: Note) {
        let kept = self.kept.entry(n.kind).or_default();
        if *kept >= MAX_NOTES_PER_KIND {
            *self.notes_dropped.entry(n.kind).or_default() += 1;
            return;
        }
        *kept += 1;
        self.notes.push(n);
    }

    /// Notes that `unused`'s report for `host` was not used, `kept`'s was.
    fn duplicate(&mut self, host: &str, unused: &str, kept: &str) {
        self.push_note(Note {
            kind: Problem::Duplicate,
            source: unused.to_string(),
            host: Some(host.to_string()),
            detail: duplicate_detail(kept),
            kept: Some(kept.to_string()),
        });
    }

    /// Removes everything `host`'s report added (its first report turned out to be a later
    /// input than another one for the same host).
    fn forget(&mut self, host: &str) {
        if self.nodes.remove(host).is_some() {
            self.reports -= 1;
        }
        self.origin.remove(host);
        self.causes.retain(|_, hosts| {
            hosts.remove(host);
            !hosts.is_empty()
        });
        for vals in self.values.values_mut() {
            vals.retain(|_, hosts| {
                hosts.remove(host);
                !hosts.is_empty()
            });
        }
        self.values.retain(|_, vals| !vals.is_empty());
        for vals in self.drifts.values_mut() {
            vals.retain(|_, hosts| {
                hosts.remove(host);
                !hosts.is_empty()
            });
        }
        self.drifts.retain(|_, vals| !vals.is_empty());
    }

    /// Hosts expected (`--expect`) that sent no report.
    pub(crate) fn expect(&mut self, hosts: &[String]) {
        for h in hosts {
            if !self.nodes.contains_key(h) {
                self.note(Problem::Missing, "--expect", Some(h), "no report".into());
            }
        }
    }

    /// Folds another partial summary (from another worker) into this one. Duplicates across
    /// workers are noted like duplicates within one, and resolved the same way: the report
    /// first in input order is used, whichever worker read it.
    pub(crate) fn absorb(&mut self, mut other: Summary) {
        // Hosts in both: `dup` keep this summary's report, the others `other`'s.
        let mut dup: BTreeSet<String> = BTreeSet::new();
        let mut replaced: Vec<(String, String, String)> = Vec::new();
        for (h, (pos, src)) in std::mem::take(&mut other.origin) {
            match self.origin.get(&h) {
                Some((mine, my_src)) if *mine < pos => {
                    let unused = src;
                    let kept = my_src.clone();
                    dup.insert(h.clone());
                    other.nodes.remove(&h);
                    self.duplicate(&h, &unused, &kept);
                }
                Some((_, my_src)) => {
                    replaced.push((h.clone(), my_src.clone(), src.clone()));
                    other.origin.insert(h, (pos, src));
                }
                None => {
                    other.origin.insert(h, (pos, src));
                }
            }
        }
        for (h, unused, kept) in replaced {
            self.forget(&h);
            self.duplicate(&h, &unused, &kept);
        }
        self.origin.append(&mut other.origin);
        self.reports += other.nodes.len() as u64;
        for (h, s) in other.nodes {
            self.nodes.insert(h, s);
        }
        for (k, hosts) in other.causes {
            let hosts: BTreeSet<String> = hosts.into_iter().filter(|h| !dup.contains(h)).collect();
            if !hosts.is_empty() {
                self.causes.entry(k).or_default().extend(hosts);
            }
        }
        for (field, vals) in other.values {
            for (v, hosts) in vals {
                let hosts: BTreeSet<String> =
                    hosts.into_iter().filter(|h| !dup.contains(h)).collect();
                if !hosts.is_empty() {
                    self.values
                        .entry(field.clone())
                        .or_default()
                        .entry(v)
                        .or_default()
                        .extend(hosts);
                }
            }
        }
        for (d, vals) in other.drifts {
            for (v, hosts) in vals {
                let hosts: BTreeSet<String> =
                    hosts.into_iter().filter(|h| !dup.contains(h)).collect();
                if !hosts.is_empty() {
                    self.drifts
                        .entry(d.clone())
                        .or_default()
                        .entry(v)
                        .or_default()
                        .extend(hosts);
                }
            }
        }
        for n in other.notes {
            self.push_note(n);
        }
        for (k, n) in other.notes_dropped {
            *self.notes_dropped.entry(k).or_default() += n;
        }
    }

    /// The finished, serialisable view.
    pub fn finish(&self) -> Report {
        let mut by_status: BTreeMap<NodeStatus, Vec<String>> = BTreeMap::new();
        for (h, s) in &self.nodes {
            by_status.entry(*s).or_default().push(h.clone());
        }
        let checks = self.check_groups();
        let outliers = self.outliers();
        let baseline = self.baseline.as_ref().map(|b| self.baseline_summary(b));
        let notes = self.final_notes();
        Report {
            schema_version: crate::report::json::SCHEMA_VERSION,
            tool: crate::report::json::TOOL,
            command: "merge",
            reports: self.reports,
            nodes: by_status,
            checks,
            outliers,
            notes,
            notes_dropped: self.notes_dropped.clone(),
            baseline,
        }
    }

    /// One group per (check, status, subject, cause), errors then failures first, the
    /// commonest first.
    fn check_groups(&self) -> Vec<CheckGroup> {
        let mut checks: Vec<CheckGroup> = self
            .causes
            .iter()
            .map(|(k, hosts)| CheckGroup {
                id: k.id.clone(),
                status: k.status.clone(),
                subject: k.subject.clone(),
                cause: k.summary.clone(),
                count: hosts.len(),
                nodes: hosts.iter().cloned().collect(),
            })
            .collect();
        let rank = |s: &str| match s {
            "error" => 0,
            "fail" => 1,
            _ => 2,
        };
        checks.sort_by(|a, b| {
            (rank(&a.status), std::cmp::Reverse(a.count), &a.id).cmp(&(
                rank(&b.status),
                std::cmp::Reverse(b.count),
                &b.id,
            ))
        });
        checks
    }

    /// The minority values of each compared fingerprint field.
    fn outliers(&self) -> Vec<Outlier> {
        let mut outliers: Vec<Outlier> = Vec::new();
        for ((name, group), vals) in &self.values {
            let total: usize = vals.values().map(BTreeSet::len).sum();
            // Majority: most nodes; ties broken by the value text so the answer is stable.
            let Some((majority, maj_hosts)) = vals
                .iter()
                .max_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| b.0.cmp(a.0)))
            else {
                continue;
            };
            for (v, hosts) in vals {
                // An outlier is a minority: fewer nodes than the majority value, and at most a
                // quarter of the compared nodes (or one node). Two halves are two kinds of
                // node, not one broken.
                let small = hosts.len() <= (total / 4).max(1);
                if v != majority && hosts.len() < maj_hosts.len() && small {
                    outliers.push(Outlier {
                        field: name,
                        among: if group.is_empty() {
                            "all nodes".to_string()
                        } else {
                            format!("nodes with isas {group}")
                        },
                        majority: majority.clone(),
                        majority_count: maj_hosts.len(),
                        value: v.clone(),
                        nodes: hosts.iter().cloned().collect(),
                    });
                }
            }
        }
        outliers
    }

    /// The drift from `--baseline` `b`, grouped by what drifted.
    fn baseline_summary(&self, b: &serde_json::Value) -> BaselineSummary {
        let mut drifting: BTreeSet<&String> = BTreeSet::new();
        let mut drifts: Vec<DriftGroup> = self
            .drifts
            .iter()
            .map(|(d, vals)| {
                let mut nodes: Vec<String> = Vec::new();
                for hosts in vals.values() {
                    drifting.extend(hosts);
                    nodes.extend(hosts.iter().cloned());
                }
                nodes.sort();
                DriftGroup {
                    kind: d.kind(),
                    what: d.what.clone(),
                    subject: d.subject.clone(),
                    baseline: d.baseline.clone(),
                    count: nodes.len(),
                    nodes,
                    now: vals
                        .iter()
                        .map(|(v, hosts)| DriftValue {
                            value: v.clone(),
                            nodes: hosts.iter().cloned().collect(),
                        })
                        .collect(),
                }
            })
            .collect();
        drifts.sort_by(|a, b| {
            (std::cmp::Reverse(a.count), &a.kind).cmp(&(std::cmp::Reverse(b.count), &b.kind))
        });
        let str_at = |p: &str| {
            b.pointer(p)
                .and_then(serde_json::Value::as_str)
                .unwrap_or("-")
                .to_string()
        };
        BaselineSummary {
            host: str_at("/host"),
            fingerprint: str_at("/fingerprint/id"),
            compared: self.nodes.len(),
            drifting: drifting.len(),
            drifts,
        }
    }

    /// The notes, in order of kind and source.
    fn final_notes(&self) -> Vec<Note> {
        let mut notes = self.notes.clone();
        // A host reported three times may have had its kept report replaced by an earlier one
        // after a note named it: every duplicate names the report finally used.
        for n in notes.iter_mut().filter(|n| n.kind == Problem::Duplicate) {
            if let Some((_, used)) = n.host.as_ref().and_then(|h| self.origin.get(h)) {
                if n.kept.as_ref() != Some(used) {
                    n.kept = Some(used.clone());
                    n.detail = duplicate_detail(used);
                }
            }
        }
        notes.sort_by(|a, b| (a.kind, &a.source).cmp(&(b.kind, &b.source)));
        notes
    }
}

fn duplicate_detail(kept: &str) -> String {
    format!("a second report for this host; the first in input order is used: {kept}")
}

/// The comparison group of a fingerprint field (see [`Summary::values`]).
fn group_of(name: &str, fp: &Fingerprint) -> String {
    match name {
        "firmware" | "gpu_count" => fp.field("isas"),
        _ => String::new(),
    }
}

#[derive(Debug, Serialize)]
pub struct CheckGroup {
    pub id: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub cause: String,
    pub count: usize,
    pub nodes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Outlier {
    pub field: &'static str,
    /// The nodes compared: `all nodes`, or `nodes with isas <list>`.
    pub among: String,
    pub majority: String,
    pub majority_count: usize,
    pub value: String,
    pub nodes: Vec<String>,
}

/// `rocm-doctor merge --json`; schema in docs/fleet.md.
#[derive(Debug, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub tool: crate::report::json::Tool,
    pub command: &'static str,
    pub reports: u64,
    pub nodes: BTreeMap<NodeStatus, Vec<String>>,
    pub checks: Vec<CheckGroup>,
    pub outliers: Vec<Outlier>,
    pub notes: Vec<Note>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub notes_dropped: BTreeMap<Problem, u64>,
    /// With `--baseline` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineSummary>,
}

/// `merge --baseline`: the baseline compared with, and the nodes per drift kind.
#[derive(Debug, Serialize)]
pub struct BaselineSummary {
    pub host: String,
    pub fingerprint: String,
    /// Nodes compared (every report used).
    pub compared: usize,
    /// Nodes with at least one drift.
    pub drifting: usize,
    pub drifts: Vec<DriftGroup>,
}

/// One drift kind: the baseline's value, and each value seen instead with its nodes.
#[derive(Debug, Serialize)]
pub struct DriftGroup {
    /// `what`, and the check id of a `check verdict` drift.
    pub kind: String,
    pub what: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub baseline: String,
    pub count: usize,
    pub nodes: Vec<String>,
    pub now: Vec<DriftValue>,
}

#[derive(Debug, Serialize)]
pub struct DriftValue {
    pub value: String,
    pub nodes: Vec<String>,
}

impl Report {
    /// 0: every node ok or warn and every input used; 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        let bad = self.nodes.contains_key(&NodeStatus::Fail)
            || self.nodes.contains_key(&NodeStatus::Error)
            || !self.notes.is_empty()
            || !self.notes_dropped.is_empty();
        i32::from(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(host: &str, fail: bool) -> String {
        let findings = if fail {
            r#"[{"id":"gpu.visible","status":"fail","summary":"no GPU"}]"#
        } else {
            "[]"
        };
        format!(
            r#"{{"schema_version":{},"tool":{{"name":"rocm-doctor"}},"host":"{host}","exit_code":{},"summary":{{"warn":0,"fail":{},"error":0}},"findings":{findings}}}"#,
            crate::report::json::SCHEMA_VERSION,
            u8::from(fail),
            u8::from(fail)
        )
    }

    fn fold(sum: &mut Summary, input: usize, text: &str, source: &str) {
        sum.input = input;
        super::super::input::fold_bytes(sum, text.as_bytes(), source, None);
    }

    /// Whatever the order the reports arrive in (one worker, or two absorbed either way), the
    /// one first in input order is used and everything of the other is gone.
    #[test]
    fn the_first_report_in_input_order_is_used_whatever_the_arrival_order() {
        let early = doc("x", false);
        let late = doc("x", true);
        let check = |s: &Summary| {
            let r = s.finish();
            assert_eq!(r.reports, 1);
            assert_eq!(r.nodes.get(&NodeStatus::Ok).map(Vec::len), Some(1), "{r:?}");
            assert!(
                r.checks.is_empty(),
                "the later report's causes are gone: {r:?}"
            );
            assert_eq!(r.notes.len(), 1);
            assert_eq!(r.notes[0].source, "late.json");
            assert_eq!(r.notes[0].kept.as_deref(), Some("early.json"));
        };
        // One summary, the later input first.
        let mut one = Summary::default();
        fold(&mut one, 7, &late, "late.json");
        fold(&mut one, 2, &early, "early.json");
        check(&one);
        // Two workers, absorbed in both orders.
        for early_first in [true, false] {
            let mut a = Summary::default();
            fold(&mut a, 2, &early, "early.json");
            let mut b = Summary::default();
            fold(&mut b, 7, &late, "late.json");
            let (mut x, y) = if early_first { (a, b) } else { (b, a) };
            x.absorb(y);
            check(&x);
        }
        // Three reports, the first in input order absorbed last: both notes name it.
        let mut a = Summary::default();
        fold(&mut a, 5, &late, "b.json");
        fold(&mut a, 9, &late, "c.json");
        let mut b = Summary::default();
        fold(&mut b, 1, &early, "a.json");
        a.absorb(b);
        let r = a.finish();
        assert_eq!(r.nodes.get(&NodeStatus::Ok).map(Vec::len), Some(1), "{r:?}");
        let kept: Vec<_> = r.notes.iter().map(|n| n.kept.as_deref()).collect();
        assert_eq!(kept, [Some("a.json"), Some("a.json")], "{r:?}");
    }
}
