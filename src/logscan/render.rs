//! Human and JSON views of a log summary. The human view fits a screen (top 5 of each list);
//! `-v` lists everything.

use super::read::Compression;
use super::summary::{Occurrence, Summary};
use super::verdict::Verdict;
use serde_json::json;
use std::fmt::Write;

/// Demangles Itanium C++ names (`_Z...`, as 6.x runtimes print kernel names); other names
/// (already demangled by 7.x runtimes, Tensile's `Cijk_...`) are returned as they are.
pub(crate) fn demangle(name: &str) -> String {
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name.as_bytes()) {
            if let Ok(s) = sym.demangle(&cpp_demangle::DemangleOptions::default()) {
                return s;
            }
        }
    }
    name.to_string()
}

fn kernels_sorted(s: &Summary) -> Vec<(String, u64)> {
    let mut merged: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for (k, v) in s.kernels.iter() {
        *merged
            .entry(demangle(&String::from_utf8_lossy(k)))
            .or_default() += v;
    }
    let mut v: Vec<_> = merged.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

fn commands(s: &Summary) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = s
        .commands
        .iter()
        .map(|(k, n)| (String::from_utf8_lossy(k).into_owned(), *n))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

fn span(s: &Summary) -> Option<f64> {
    Some((s.last_ts_us? - s.first_ts_us?) as f64 / 1e6)
}

fn devices(s: &Summary) -> Vec<(String, usize)> {
    let mut m: std::collections::BTreeMap<String, usize> = Default::default();
    for d in &s.devices {
        let x = match d.xnack {
            Some(true) => ":xnack+",
            Some(false) => ":xnack-",
            None => "",
        };
        *m.entry(format!("{}{x}", d.gfx)).or_default() += 1;
    }
    m.into_iter().collect()
}

fn short(t: &str, n: usize) -> String {
    if t.chars().count() <= n {
        t.to_string()
    } else {
        let s: String = t.chars().take(n.saturating_sub(1)).collect();
        s + "…"
    }
}

fn at(o: &Occurrence) -> String {
    match o.pid {
        Some(p) => format!("line {} (pid {p})", o.line),
        None => format!("line {}", o.line),
    }
}

pub(crate) fn human(path: &str, c: Compression, s: &Summary, v: &Verdict, verbose: u8) -> String {
    let mut o = String::new();
    overview(&mut o, path, c, s);
    o.push('\n');
    problems(&mut o, v, verbose);
    activity(&mut o, s, verbose);
    threads(&mut o, s, verbose);
    for n in &v.notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}

/// The file, its size and span, the runtime and devices it names, the queues.
fn overview(o: &mut String, path: &str, c: Compression, s: &Summary) {
    let pids: std::collections::BTreeSet<u32> = s.threads.keys().map(|k| k.0).collect();
    let _ = writeln!(
        o,
        "{path} ({}, {} lines, {:.1} MB): {} runtime lines, {} other",
        c.name(),
        s.lines,
        s.bytes as f64 / 1e6,
        s.runtime_lines,
        s.foreign_lines + s.rocr_lines
    );
    let _ = writeln!(
        o,
        "processes {} · threads {} · span {} · max level {}",
        pids.len(),
        s.threads.len(),
        span(s).map_or("?".into(), |x| format!("{x:.3} s")),
        s.levels
            .iter()
            .rposition(|&n| n > 0)
            .map_or("-".into(), |l| l.to_string())
    );
    let mut rt = Vec::new();
    if let Some(x) = &s.hip_version {
        rt.push(format!("HIP {x}"));
    }
    if let Some(x) = &s.comgr_version {
        rt.push(format!("comgr {x}"));
    }
    if let Some(x) = &s.hip_library {
        rt.push(x.clone());
    }
    if !rt.is_empty() {
        let _ = writeln!(o, "runtime: {}", rt.join(" · "));
    }
    let devs = devices(s);
    if s.agents_enumerated.is_some() || !devs.is_empty() {
        let list: Vec<String> = devs.iter().map(|(g, n)| format!("{n}x {g}")).collect();
        let _ = writeln!(
            o,
            "devices: {} agent(s) enumerated; {}",
            s.agents_enumerated.map_or("?".into(), |n| n.to_string()),
            if list.is_empty() {
                "no ISA line".into()
            } else {
                list.join(", ")
            }
        );
    }
    let _ = writeln!(
        o,
        "queues created: {}{}",
        s.queues_created,
        if s.queue_sizes.is_empty() {
            String::new()
        } else {
            format!(
                " (sizes {})",
                s.queue_sizes
                    .iter()
                    .map(|(k, n)| format!("{k}x{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
}

/// The verdict's problems, each with where it first shows, why, the fix and known issues.
fn problems(o: &mut String, v: &Verdict, verbose: u8) {
    if v.problems.is_empty() {
        let _ = writeln!(o, "[✓] no failure in this log");
    }
    for p in v
        .problems
        .iter()
        .take(if verbose > 0 { usize::MAX } else { 8 })
    {
        let mark = if p.status == "fail" { "✗" } else { "!" };
        let _ = writeln!(o, "[{mark}] {}", p.summary);
        if let Some(f) = &p.first {
            let _ = writeln!(o, "    first at {}: {}", at(f), short(&f.text, 200));
        }
        if let Some(d) = &p.diagnosis {
            let _ = writeln!(o, "    why: {d}");
        }
        if let Some(f) = &p.fix {
            let _ = writeln!(o, "    fix: {f}");
        }
        for k in &p.known_issues {
            let _ = writeln!(o, "    known issue {k}");
        }
    }
}

/// What the program did: HIP API calls, kernels, commands, packets, code objects, and the
/// runtime's own errors and warnings.
fn activity(o: &mut String, s: &Summary, verbose: u8) {
    let top = if verbose > 0 { usize::MAX } else { 5 };
    api_calls(o, s, top);
    let ks = kernels_sorted(s);
    let _ = writeln!(
        o,
        "\nkernels launched: {} ({} distinct)",
        s.kernel_launches,
        ks.len()
    );
    for (k, n) in ks.iter().take(top) {
        let _ = writeln!(
            o,
            "  {n:>10}  {}",
            if verbose > 0 {
                k.clone()
            } else {
                short(k, 100)
            }
        );
    }
    if !s.commands.is_empty() {
        let cs = commands(s);
        let list: Vec<String> = cs
            .iter()
            .take(top)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(o, "commands enqueued: {}", list.join(", "));
    }
    if s.dispatch_packets + s.barrier_packets > 0 {
        let _ = writeln!(
            o,
            "AQL packets: {} kernel dispatches, {} barriers",
            s.dispatch_packets, s.barrier_packets
        );
    }
    if !s.code_object_targets.is_empty() {
        let list: Vec<String> = s
            .code_object_targets
            .iter()
            .map(|(k, n)| format!("{k} ({n})"))
            .collect();
        let _ = writeln!(o, "code objects loaded: {}", list.join(", "));
    }
    runtime_messages(o, s, verbose);
}

/// The HIP API calls, most called first (the `top` of them): calls, errors, times.
fn api_calls(o: &mut String, s: &Summary, top: usize) {
    let _ = writeln!(
        o,
        "\nHIP API calls: {} ({} distinct)",
        s.api_calls,
        s.apis.len()
    );
    let mut apis: Vec<_> = s.apis.iter().collect();
    apis.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then_with(|| a.0.cmp(b.0)));
    for (name, a) in apis.iter().take(top) {
        let errs: u64 = a.errors.values().map(|c| c.count).sum();
        let t = if a.timed > 0 {
            format!(
                ", mean {:.0} us, max {} us",
                a.total_us as f64 / a.timed as f64,
                a.max_us
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "  {:>10}  {name}{}{t}",
            a.calls,
            if errs > 0 {
                format!(" ({errs} errors)")
            } else {
                String::new()
            }
        );
    }
}

/// The runtime's own errors and warnings: listed with -v, else counted.
fn runtime_messages(o: &mut String, s: &Summary, verbose: u8) {
    if verbose > 0 {
        for (m, c) in s.errors.iter().chain(&s.warnings) {
            let _ = writeln!(
                o,
                "  {}x {} (first {})",
                c.count,
                short(m, 160),
                at(&c.first)
            );
        }
    } else if !s.errors.is_empty() || !s.warnings.is_empty() {
        let _ = writeln!(
            o,
            "runtime errors (:1:) {} distinct, warnings (:2:) {} distinct (-v lists them)",
            s.errors.len(),
            s.warnings.len()
        );
    }
}

/// Where each thread stopped: its last lines, latest threads first.
fn threads(o: &mut String, s: &Summary, verbose: u8) {
    let _ = writeln!(o, "\nwhere each thread stopped:");
    let mut threads: Vec<_> = s.threads.values().collect();
    threads.sort_by(|a, b| {
        let la = a.last.back().map_or(0, |x| x.line);
        let lb = b.last.back().map_or(0, |x| x.line);
        lb.cmp(&la)
    });
    for t in threads
        .iter()
        .take(if verbose > 0 { usize::MAX } else { 4 })
    {
        let _ = writeln!(o, "  pid {} tid {:#x} ({} lines)", t.pid, t.tid, t.lines);
        let n = if verbose > 0 { t.last.len() } else { 2 };
        for l in t.last.iter().skip(t.last.len().saturating_sub(n)) {
            let _ = writeln!(o, "    {:>9}: {}", l.line, short(&l.text(), 140));
        }
    }
    if threads.len() > 4 && verbose == 0 {
        let _ = writeln!(o, "  ... {} more threads (-v)", threads.len() - 4);
    }
}

pub(crate) fn json(
    path: &str,
    c: Compression,
    s: &Summary,
    v: &Verdict,
    code: i32,
) -> serde_json::Value {
    let threads = threads_json(s);
    let pids: std::collections::BTreeSet<u32> = s.threads.keys().map(|k| k.0).collect();
    let mut log = json!({
            "path": path,
            "compression": c.name(),
            "lines": s.lines,
            "bytes": s.bytes,
            "runtime_lines": s.runtime_lines,
            "rocr_lines": s.rocr_lines,
            "foreign_lines": s.foreign_lines,
            "long_lines": s.long_lines,
            "binary_lines": s.binary_lines,
            "crlf_lines": s.crlf_lines,
            "truncated_last_line": s.truncated_last_line,
            "read_error": s.read_error,
            "untracked_threads": s.untracked_threads,
            "untracked_threads_capped": s.untracked_threads_capped,
            "untracked_thread_lines": s.untracked_thread_lines,
            "levels": s.levels,
            "first_ts_us": s.first_ts_us,
            "last_ts_us": s.last_ts_us,
            "span_s": span(s),
            "pids": pids,
            "threads": threads,
    });
    let more = json!({
            "runtime": {
                "hip_version": s.hip_version,
                "hip_library": s.hip_library,
                "comgr_version": s.comgr_version,
            },
            "agents_enumerated": s.agents_enumerated,
    });
    let more2 = activity_json(s, v);
    if let (Some(m), Some(a), Some(b)) = (log.as_object_mut(), more.as_object(), more2.as_object())
    {
        m.extend(a.clone());
        m.extend(b.clone());
    }
    json!({
        "schema_version": crate::report::json::SCHEMA_VERSION,
        "tool": &crate::report::json::TOOL,
        "command": "log",
        "exit_code": code,
        "log": log,
    })
}

/// Each thread's pid, tid, line count and last lines.
fn threads_json(s: &Summary) -> Vec<serde_json::Value> {
    s.threads
        .values()
        .map(|t| {
            json!({
                "pid": t.pid,
                "tid": format!("{:#x}", t.tid),
                "lines": t.lines,
                "last": t
                    .last
                    .iter()
                    .map(|l| json!({"line": l.line, "ts_us": l.ts_us, "text": l.text()}))
                    .collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// What the runtime did (devices, queues, calls, kernels, packets, code objects, errors) and
/// the verdict's problems and notes.
fn activity_json(s: &Summary, v: &Verdict) -> serde_json::Value {
    let kernels: Vec<_> = kernels_sorted(s)
        .into_iter()
        .map(|(name, count)| json!({"name": name, "count": count}))
        .collect();
    let commands: serde_json::Map<String, serde_json::Value> = commands(s)
        .into_iter()
        .map(|(k, n)| (k, json!(n)))
        .collect();
    json!({
            "devices": s.devices,
            "device_failures": s.device_failures,
            "init_starts": s.init_starts,
            "init_failures": s.init_failures,
            "queues_created": s.queues_created,
            "queue_sizes": s.queue_sizes,
            "api_calls": s.api_calls,
            "apis": s.apis,
            "kernel_launches": s.kernel_launches,
            "kernels": kernels,
            "commands": commands,
            "dispatch_packets": s.dispatch_packets,
            "barrier_packets": s.barrier_packets,
            "code_objects": {
                "targets": s.code_object_targets,
                "versions": s.code_object_versions,
                "missing": s.missing_code_objects,
                "missing_in": s.missing_in,
            },
            "errors": s.errors,
            "warnings": s.warnings,
            "fatal": s.fatal,
            "capped_keys": s.other_keys,
            "problems": v.problems,
            "notes": v.notes,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn demangles_itanium_names_and_keeps_others() {
        assert_eq!(
            super::demangle("_Z6vecAddPfS_S_i"),
            "vecAdd(float*, float*, float*, int)"
        );
        assert_eq!(super::demangle("Cijk_Alik_Bljk_S"), "Cijk_Alik_Bljk_S");
        assert_eq!(super::demangle("_Zgarbage"), "_Zgarbage");
    }
}
