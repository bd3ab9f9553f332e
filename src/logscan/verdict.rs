//! What a summary means: the failures it shows, each with the diagnosis and fix from
//! `checks/known-issues.toml` (`[[log]]` entries, shared with `inspect`'s known issues).

use super::nodes::NodeName;
use super::summary::{Counted, Occurrence, Summary};
use crate::known_issues;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Problem {
    /// `fail` or `warn`.
    pub status: &'static str,
    pub summary: String,
    pub first: Option<Occurrence>,
    pub diagnosis: Option<String>,
    pub fix: Option<String>,
    /// Known issues (ids and titles) whose symptom matches; `inspect` decides whether they apply.
    pub known_issues: Vec<String>,
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct Verdict {
    pub failed: bool,
    pub problems: Vec<Problem>,
    /// Notes on the log itself (starts mid-run, no pid/tid, binary lines...).
    pub notes: Vec<String>,
}

fn knowledge(signal: &str) -> (Option<String>, Option<String>, Vec<String>) {
    match known_issues::log_signal(signal) {
        Some(k) => (
            Some(k.diagnosis.split_whitespace().collect::<Vec<_>>().join(" ")),
            Some(k.fix.clone()),
            k.issues
                .iter()
                .map(|id| match known_issues::issue(id) {
                    Some(i) => format!("{id}: {}", i.title),
                    None => id.clone(),
                })
                .collect(),
        ),
        None => (None, None, Vec::new()),
    }
}

/// API results that are not failures of the call itself.
fn benign(api: &str, err: &str) -> bool {
    err == "hipErrorNotReady"
        || api == "hipGetLastError"
        || api == "hipPeekAtLastError"
        || api == "hipExtGetLastError"
}

/// Results a runtime that could not initialise gives every call: 6.x returns hipErrorNoDevice,
/// 5.2 hipErrorNoDevice from hipGetDeviceCount and hipErrorInvalidDevice from the rest (the
/// real logs in tests/fixtures/logs/hip-*-level*.log).
fn init_consequence(err: &str) -> bool {
    matches!(
        err,
        "hipErrorNoDevice" | "hipErrorInvalidDevice" | "hipErrorNotInitialized"
    )
}

/// The runtime's initialisation failed: said by the runtime (`hsa_init failed.` and `Runtime
/// initialization failed`, printed by HIP 5.2.3 and 5.7.1), or shown by HSA's initialisation
/// starting, no GPU agent enumerated and calls returning hipErrorNoDevice (HIP 6.4.3, which prints
/// no failure line at any level). The problem lists the calls that failed, in log order.
fn init_failure(s: &Summary) -> Option<Problem> {
    let said = !s.init_failures.is_empty();
    let no_gpu = s.init_start.is_some()
        && s.agents_enumerated.unwrap_or(0) == 0
        && s.devices.is_empty()
        && s.apis
            .values()
            .any(|a| a.errors.contains_key("hipErrorNoDevice"));
    if !said && !no_gpu {
        return None;
    }
    let mut calls: Vec<(&str, &str, &Counted)> = s
        .apis
        .iter()
        .flat_map(|(api, a)| {
            a.errors
                .iter()
                .map(move |(e, c)| (api.as_str(), e.as_str(), c))
        })
        .filter(|(api, e, _)| !benign(api, e))
        .collect();
    calls.sort_by_key(|(_, _, c)| c.first.line);
    let list = |calls: &[(&str, &str, &Counted)]| -> String {
        if calls.is_empty() {
            return "no HIP call traced (AMD_LOG_LEVEL >= 3 shows them)".into();
        }
        let shown: Vec<String> = calls
            .iter()
            .take(8)
            .map(|(api, e, c)| {
                if c.count > 1 {
                    format!("{api} -> {e} x{}", c.count)
                } else {
                    format!("{api} -> {e}")
                }
            })
            .collect();
        let more = calls.len().saturating_sub(8);
        format!(
            "failed calls: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    };
    let (what, first) = if said {
        let mut msgs: Vec<(&String, &Counted)> = s.init_failures.iter().collect();
        msgs.sort_by_key(|(_, c)| c.first.line);
        let what = msgs
            .iter()
            .map(|(m, c)| format!("\"{m}\" x{}", c.count))
            .collect::<Vec<_>>()
            .join(", ");
        (
            format!("the HIP runtime could not initialise ({what})"),
            msgs.first().map(|(_, c)| c.first.clone()),
        )
    } else {
        let at = s.init_start.as_ref().map_or(0, |o| o.line);
        (
            format!(
                "the HIP runtime initialised no GPU (HSA initialisation started at line {at}, no \
                    GPU agent enumerated)"
            ),
            calls.first().map(|(_, _, c)| c.first.clone()),
        )
    };
    let (diagnosis, fix, known) = knowledge("runtime-init-failed");
    Some(Problem {
        status: "fail",
        summary: format!("{what}; {}", list(&calls)),
        first,
        diagnosis,
        fix,
        known_issues: known,
    })
}

pub(crate) fn judge(s: &Summary) -> Verdict {
    let problems = problems(s);
    Verdict {
        failed: problems.iter().any(|p| p.status == "fail"),
        problems,
        notes: notes(s),
    }
}

/// What went wrong, in order: the failed initialisation, fatal messages, missing code
/// objects, API errors, device creation failures.
fn problems(s: &Summary) -> Vec<Problem> {
    let mut problems = Vec::new();
    let init = init_failure(s);
    let init_failed = init.is_some();
    problems.extend(init);
    for f in s.fatal.iter().take(3) {
        problems.push(Problem {
            status: "fail",
            summary: format!("fatal: {}", f.text),
            first: Some(f.clone()),
            diagnosis: Some("the runtime or ROCr announced an abort here".into()),
            fix: None,
            known_issues: Vec::new(),
        });
    }
    let launch_failed = s.apis.values().any(|a| {
        a.errors.contains_key("hipErrorInvalidDeviceFunction")
            || a.errors.contains_key("hipErrorNoBinaryForGpu")
    });
    for (isa, c) in &s.missing_code_objects {
        let (diagnosis, fix, known) = knowledge("no-code-object");
        let libs = s.missing_in.get(isa).map_or(0, Vec::len);
        problems.push(Problem {
            status: if launch_failed { "fail" } else { "warn" },
            summary: if libs > 0 {
                format!(
                    "no code object for {isa} in {libs} librar{} ({} lines)",
                    if libs == 1 { "y" } else { "ies" },
                    c.count
                )
            } else {
                format!("no compatible code object for {isa} ({} lines)", c.count)
            },
            first: Some(c.first.clone()),
            diagnosis,
            fix,
            known_issues: known,
        });
    }
    for (api, a) in &s.apis {
        for (err, c) in &a.errors {
            if benign(api, err) || (init_failed && init_consequence(err)) {
                // A failed initialisation's consequences are listed in its problem.
                continue;
            }
            let (diagnosis, fix, known) = knowledge(err);
            // `init: Returned hipErrorNoBinaryForGpu : continue parsing remaining modules` is
            // hip_platform.cpp's per-module verdict, not a public API failing.
            let per_module = api == "init";
            problems.push(Problem {
                status: if per_module { "warn" } else { "fail" },
                summary: format!("{api} returned {err} {} time(s)", c.count),
                first: Some(c.first.clone()),
                diagnosis,
                fix,
                known_issues: known,
            });
        }
    }
    for f in &s.device_failures {
        problems.push(Problem {
            status: "fail",
            summary: format!("device creation failed: {}", f.text),
            first: Some(f.clone()),
            diagnosis: knowledge("hipErrorNoDevice").0,
            fix: knowledge("hipErrorNoDevice").1,
            known_issues: Vec::new(),
        });
    }
    problems
}

/// Notes on the log itself (how much of the run it shows, what it cannot tell apart).
fn notes(s: &Summary) -> Vec<String> {
    let mut notes = Vec::new();
    if s.runtime_lines == 0 {
        notes.push(
            "no HIP runtime line found: is AMD_LOG_LEVEL set, and is this the process's stderr? \
                (HIP 6.4 prints nothing at AMD_LOG_LEVEL=1 when it cannot initialise: use 3 or \
                more)"
                .into(),
        );
    } else if s.agents_enumerated.is_none()
        && s.devices.is_empty()
        && s.init_start.is_none()
        && s.init_failures.is_empty()
    {
        notes.push(
            "no runtime-init line seen: the log starts mid-run (AMD_LOG_LEVEL_FILE \
            restarts the file past AMD_LOG_LEVEL_SIZE MB, or logging was enabled late)"
                .into(),
        );
    }
    if s.lines_without_pid > 0 && s.threads.is_empty() {
        notes.push(
            "no [pid tid] on runtime lines (6.3+ runtimes print them only at \
            AMD_LOG_LEVEL >= 4): threads cannot be told apart; call->return times are paired per \
            API name"
                .into(),
        );
    }
    if s.lines_without_location > 0 {
        notes.push(
            "file:line empty on some lines: AMD_LOG_MASK lacks LOG_LOCATION (0x10000)".into(),
        );
    }
    let pids: std::collections::BTreeSet<u32> = s.threads.keys().map(|k| k.0).collect();
    if pids.len() > 1 {
        notes.push(format!(
            "{} processes in one stream (logs appended or AMD_LOG_LEVEL_FILE of several ranks)",
            pids.len()
        ));
    }
    if s.binary_lines > 0 {
        notes.push(format!(
            "{} line(s) with binary bytes (ignored)",
            s.binary_lines
        ));
    }
    if s.long_lines > 0 {
        notes.push(format!(
            "{} line(s) longer than 64 KiB (not runtime lines; counted)",
            s.long_lines
        ));
    }
    if s.truncated_last_line {
        notes
            .push("the last line has no newline: the log was cut or is still being written".into());
    }
    if s.untracked_threads > 0 || s.untracked_thread_lines > 0 {
        notes.push(format!(
            "{} threads shown (the cap); {}{} more not tracked ({} lines: in the totals, not in \
                the per-thread view or the call->return pairing)",
            s.threads.len(),
            if s.untracked_threads_capped {
                "at least "
            } else {
                ""
            },
            s.untracked_threads,
            s.untracked_thread_lines
        ));
    }
    if s.other_keys > 0 {
        notes.push(format!(
            "{} occurrences past the cap of distinct names and messages (counted as other)",
            s.other_keys
        ));
    }
    if let Some(e) = &s.read_error {
        notes.push(format!("reading stopped early: {e}"));
    }
    notes
}

/// The `N` of ROCr's `GPU node-N` / `agent node-N` in a fatal message.
pub(crate) fn fault_node(text: &str) -> Option<u32> {
    let p = text.find("node-")?;
    let d: String = text[p + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    d.parse().ok()
}

/// Names the GPU of each fatal `node-N` from this machine's KFD nodes (`nodes` is empty when it
/// has none). The log may come from elsewhere: the text says "on this machine".
pub(crate) fn name_nodes(v: &mut Verdict, nodes: &BTreeMap<u32, NodeName>) {
    for p in v
        .problems
        .iter_mut()
        .filter(|p| p.summary.starts_with("fatal: "))
    {
        let Some(n) = fault_node(&p.summary) else {
            continue;
        };
        let said = match nodes.get(&n) {
            Some(NodeName::Gpu { gfx, location }) => format!(
                "on this machine KFD node {n} is {}{} (true if the log was written here)",
                gfx.as_deref().unwrap_or("a GPU of unknown ISA"),
                location
                    .as_deref()
                    .map_or(String::new(), |l| format!(" at PCI {l}"))
            ),
            Some(NodeName::Cpu) => format!(
                "on this machine KFD node {n} is a CPU: the log was written on another machine"
            ),
            None if nodes.is_empty() => format!(
                "node {n} is a KFD topology node id (/sys/class/kfd/kfd/topology/nodes/{n}); this \
                    machine has no KFD topology, so read it on the machine that wrote the log"
            ),
            None => {
                format!("this machine has no KFD node {n}: the log was written on another machine")
            }
        };
        let d = p.diagnosis.get_or_insert_with(String::new);
        if !d.is_empty() {
            d.push_str("; ");
        }
        d.push_str(&said);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fatal(text: &str) -> Verdict {
        Verdict {
            failed: true,
            problems: vec![Problem {
                status: "fail",
                summary: format!("fatal: {text}"),
                first: None,
                diagnosis: Some("the runtime or ROCr announced an abort here".into()),
                fix: None,
                known_issues: Vec::new(),
            }],
            notes: Vec::new(),
        }
    }

    #[test]
    fn rocr_fault_node_named_from_the_topology() {
        // rocm-systems runtime.cpp VMFaultHandler's format, values made up.
        let t = "Memory access fault by GPU node-2 (Agent handle: 0x5581c9d0) on address \
            0x7f1c00000000. Reason: Page not present or supervisor privilege.";
        assert_eq!(fault_node(t), Some(2));
        assert_eq!(
            fault_node("HW Exception by GPU node-11 (Agent handle: 0x1) reason :GPU Hang"),
            Some(11)
        );
        assert_eq!(fault_node("Callback: Queue 0x1 aborting"), None);
        let nodes = BTreeMap::from([
            (0, NodeName::Cpu),
            (
                2,
                NodeName::Gpu {
                    gfx: Some("gfx90a".into()),
                    location: Some("0000:c1:00.0".into()),
                },
            ),
        ]);
        let mut v = fatal(t);
        name_nodes(&mut v, &nodes);
        let d = v.problems[0].diagnosis.as_deref().unwrap();
        assert!(
            d.contains("KFD node 2 is gfx90a at PCI 0000:c1:00.0"),
            "{d}"
        );
        let mut v = fatal(&t.replace("node-2", "node-0"));
        name_nodes(&mut v, &nodes);
        assert!(v.problems[0]
            .diagnosis
            .as_deref()
            .unwrap()
            .contains("is a CPU"));
        let mut v = fatal(&t.replace("node-2", "node-7"));
        name_nodes(&mut v, &nodes);
        assert!(v.problems[0]
            .diagnosis
            .as_deref()
            .unwrap()
            .contains("no KFD node 7"));
        let mut v = fatal(t);
        name_nodes(&mut v, &BTreeMap::new());
        assert!(v.problems[0]
            .diagnosis
            .as_deref()
            .unwrap()
            .contains("no KFD topology"));
    }
}
