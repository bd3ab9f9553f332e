//! `rocm-doctor why [TEXT|-] [--binary FILE]`: recognise symptoms, run only the checks that
//! judge their causes, answer.

use super::run::diagnose;
use super::Outcome;
use crate::cli::RunArgs;
use crate::config::Config;
use crate::host::Host;
use crate::inventory::Examined;
use crate::packs::why as w;
use crate::packs::PackSet;
use crate::report::{self, exit, Finding};
use std::ffi::OsString;
use std::path::PathBuf;

/// Symptoms are judged in groups by the value they carry from the text (`[symptom.with]`) and
/// by whether their checks run under the runtime profile.
type Key = (Option<String>, bool);

/// A group: its key, the checks its symptoms name, their findings and what the run examined.
type Group = (Key, Vec<String>, Vec<Finding>, Examined);

pub(crate) fn main(args: &RunArgs, words: &[OsString], binaries: &[PathBuf]) -> Outcome {
    if let Ok(total) = crate::config::seconds("deadline", args.deadline) {
        super::arm_watchdog(args, total);
    }
    let packs = std::sync::Arc::new(super::load_packs(args));
    let text = read_text(&packs, words)?;
    // The text is searched once; the rules over this machine's GPUs join after it is asked.
    let recognition = w::Recognition::of(&packs, &text);
    if recognition.is_empty(&text) {
        return unrecognised(args, &packs, &text);
    }
    let mut cfg = super::config(args)?;
    let host = super::host(args, &cfg)?;
    // A text from Windows describes another machine: this one is asked nothing about it.
    let windows = crate::packs::gpu_rules::from_windows(&text);
    let ask = windows.is_none();
    // What this machine says about its GPUs (issue 28, item 3): the rules over facts use its ISAs
    // where the text names none, and say which they answered for.
    let this_machine = if ask { here(&host) } else { Default::default() };
    let hits = recognition.answer(&text, &this_machine);
    // The failing file itself, judged as `inspect` judges it (its findings are
    // libs.code-objects findings, which the code-object symptoms name).
    let mut from_binaries = Vec::new();
    if !binaries.is_empty() {
        let opts = crate::inspect::Options::default();
        from_binaries = crate::inspect::findings(&host, &cfg, &super::absolute(binaries), &opts);
        super::inspect::stamp(&mut from_binaries);
    }
    cfg.skip.clear();
    cfg.asm = None;
    let groups = judge_groups(&host, &cfg, &packs, &hits, &from_binaries, ask);
    // The paths the text names (compilers, roots, libraries): a pass rules a cause out only
    // for what the run examined.
    let named = crate::packs::paths::named_paths(&text);
    let resolve = |p: &std::path::Path| host.fs.canonicalize(p).ok();
    let exists = |p: &std::path::Path| host.fs.exists(p);
    let mut judged: Vec<w::Judged> = hits
        .iter()
        .map(|h| {
            let key = key_of(h);
            let g = groups
                .iter()
                .find(|g| g.0 == key)
                .expect("every hit has a group");
            let u = w::unexamined_for(h.symptom, &g.2, &named, &g.3, &resolve, &exists);
            (h, g.2.as_slice(), u)
        })
        .collect();
    // The machine decides what the text cannot: causes confirmed here first, those ruled out
    // here last, the text's own order within each.
    judged.sort_by_key(|(h, f, u)| w::machine_order(w::final_answer(h.symptom, f, u)));
    let code = if judged.iter().any(|(h, f, u)| {
        !h.symptom.harmless && w::final_answer(h.symptom, f, u) == w::Answer::Confirmed
    }) {
        exit::FAILED
    } else {
        exit::OK
    };
    let not_asked = windows.map(|e| {
        format!(
            "the text comes from Windows (\"{e}\"): the machine it describes is not this one, \
             so no cause is judged against this machine"
        )
    });
    Ok(if args.json {
        let mut doc = w::render_json(&judged, code);
        if let (Some(reason), Some(m)) = (&not_asked, doc.as_object_mut()) {
            m.insert("machine_not_asked".into(), reason.clone().into());
        }
        w::add_origins(&mut doc, &text);
        report::write_stdout(report::Output::Json(&doc), code)
    } else {
        let head = not_asked
            .map(|r| format!("Note: {r}.\n\n"))
            .unwrap_or_default();
        // The text quotes the paste: its control characters are shown, not obeyed.
        super::print_visible(
            &(head + &w::render_human(&judged) + &w::origins_human(&text)),
            code,
        )
    })
}

/// The text to read: the words given, standard input for none or `-`, or the file one word
/// names (`why build.log`: no message is one word that is the path of an existing regular file).
fn read_text(packs: &PackSet, words: &[OsString]) -> anyhow::Result<String> {
    if let Some(file) = named_file(words) {
        let path = std::path::Path::new(&words[0]);
        let _w = crate::host::watchdog::Waiting::on_path("reading", path);
        let (text, unread) = w::read_input(packs, std::io::BufReader::new(file.file))
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        if let Some(n) = unread.note() {
            eprintln!("rocm-doctor why: {}: {n}", path.display());
        }
        return Ok(text);
    }
    if words.is_empty() || (words.len() == 1 && words[0] == "-") {
        // Issue 25, item 5: the whole stream is read, per line, with bounded memory; what was
        // not kept is said.
        let _w = crate::host::watchdog::Waiting::on("standard input to end".into());
        let (text, unread) = w::read_input(packs, std::io::stdin().lock())
            .map_err(|e| anyhow::anyhow!("cannot read stdin: {e}"))?;
        if let Some(n) = unread.note() {
            eprintln!("rocm-doctor why: stdin: {n}");
        }
        Ok(text)
    } else {
        // Lossy, as stdin is read: a log line with a stray Latin-1 byte is still matched.
        let words: Vec<_> = words.iter().map(|w| w.to_string_lossy()).collect();
        Ok(words.join(" "))
    }
}

/// The regular file a lone word names, opened (what it is is judged on the descriptor, so a
/// FIFO or a directory of that name stays text and nothing blocks); else None.
fn named_file(words: &[OsString]) -> Option<crate::host::open::OpenedFile> {
    let [word] = words else { return None };
    let s = word.to_str()?;
    if s == "-" || s.is_empty() || s.chars().any(char::is_whitespace) {
        return None;
    }
    crate::host::open::open_regular(
        std::path::Path::new(word),
        crate::host::open::FinalLink::Follow,
    )
    .ok()
}

/// A processor one message names (clang's `invalid target ID 'gfx1200'`, rocBLAS's `for GPU
/// arch : gfx942`) is judged beside --isa for that symptom's checks only, so it cannot confirm
/// another symptom of the same log. A symptom whose checks run under the runtime profile (a
/// "no GPU" message: a machine without one confirms it) is judged in a group of its own too.
fn key_of(h: &w::Hit) -> Key {
    (
        h.carried_isa().map(str::to_string),
        h.symptom.runtime_profile,
    )
}

/// Runs each group's checks only (with `cfg`, its skips and asm request cleared), unless `ask`
/// is false (a text of another machine), and adds the findings of the `--binary` files to every
/// group.
fn judge_groups(
    host: &Host,
    cfg: &Config,
    packs: &PackSet,
    hits: &[w::Hit],
    from_binaries: &[Finding],
    ask: bool,
) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for h in hits {
        let key = key_of(h);
        let i = match groups.iter().position(|g| g.0 == key) {
            Some(i) => i,
            None => {
                groups.push((key, Vec::new(), Vec::new(), Default::default()));
                groups.len() - 1
            }
        };
        for c in &h.symptom.checks {
            // Every reference was checked when the packs were loaded (a typo breaks its pack).
            if !groups[i].1.contains(c) {
                groups[i].1.push(c.clone());
            }
        }
    }
    for ((isa, runtime), only, findings, examined) in &mut groups {
        if ask && !only.is_empty() {
            let mut c = cfg.clone();
            c.only = only.clone();
            if *runtime {
                c.profile = crate::config::Profile::Runtime;
            }
            // Validated by the inventory like an AMDGPU_TARGETS entry (a malformed value is
            // reported as an invalid ISA).
            c.isas_from_text = isa.iter().cloned().collect();
            let d = diagnose(host, &c, packs);
            *findings = d.findings;
            *examined = d.examined;
        }
        findings.extend(from_binaries.iter().cloned());
    }
    groups
}

/// `why` on text that matches no symptom: says so first (human and JSON alike), then gives the
/// default checks' findings, so an unknown error never reads as a clean bill of health.
fn unrecognised(args: &RunArgs, packs: &PackSet, text: &str) -> Outcome {
    let known = packs.symptoms().count();
    let note = format!(
        "NOT RECOGNISED: this text matches none of the {known} known symptoms, so nothing below \
         is a diagnosis of it. The default checks of this machine follow."
    );
    if !args.json {
        let origins = w::origins_human(text);
        super::print_text(
            &report::escape::visible(&format!("{note}\n{origins}\n")),
            exit::OK,
        );
        return super::run::main(args);
    }
    let cfg = super::config(args)?;
    let host = super::host(args, &cfg)?;
    let findings = diagnose(&host, &cfg, packs).findings;
    let code = report::exit_code(&findings, cfg.strict);
    let mut doc = w::render_unrecognised_json(&note, &findings, code);
    w::add_origins(&mut doc, text);
    Ok(report::write_stdout(report::Output::Json(&doc), code))
}

/// This machine's GPUs as the rules over facts take them: the ISAs of the KFD topology of the
/// run's root (its physical ISAs: an override changes what the runtime loads, not what KFD
/// reports), and the AMD and NVIDIA GPUs of its PCI bus.
fn here(host: &Host) -> crate::packs::here::Here {
    let topo = crate::gpu::discover(host);
    let fx = topo
        .devices
        .as_ref()
        .map(|d| d.fixture().clone())
        .unwrap_or_default();
    crate::packs::here::Here::with_isas(topo.agents.iter().filter_map(|a| a.gfx.clone()))
        .with_pci(crate::gpu::layers::gpu_vendors(host, &fx))
}
