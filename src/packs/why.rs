//! `rocm-doctor why`: recognise known symptoms in a pasted message or a whole log, then judge
//! each against the findings of the checks that can confirm or rule out its cause here. Pure:
//! the caller runs the checks.

use super::paths::{self, NamedPath, Unexamined};
use super::{PackSet, Symptom};
use crate::inventory::Examined;
use crate::report::{Finding, Status};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// This much of stdin is kept whole (a whole build log fits); beyond it, only the lines that
/// a symptom's regex matches are kept (at most this much again), so the whole stream is read
/// and matched per line with bounded memory (issue 25, item 5).
pub(crate) const MAX_INPUT: u64 = 16 * 1024 * 1024;

/// A line longer than this is skipped (read and dropped, never held).
pub(crate) const MAX_LINE: usize = 1024 * 1024;

/// What [`read_input`] did not keep.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Unread {
    /// Bytes read in all.
    pub total: u64,
    /// Lines beyond the first [`MAX_INPUT`] bytes dropped because no symptom matches them.
    pub dropped_lines: u64,
    /// Lines longer than [`MAX_LINE`] skipped.
    pub long_lines: u64,
    /// Matching lines dropped once the second [`MAX_INPUT`] was full.
    pub over_cap_lines: u64,
}

impl Unread {
    /// The note for the user, when anything was not kept.
    pub(crate) fn note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.dropped_lines > 0 {
            parts.push(format!(
                "beyond the first {} MiB only lines matching a known symptom were kept ({} others \
                    dropped)",
                MAX_INPUT >> 20,
                self.dropped_lines
            ));
        }
        if self.long_lines > 0 {
            parts.push(format!(
                "{} lines longer than {} MiB skipped",
                self.long_lines,
                MAX_LINE >> 20
            ));
        }
        if self.over_cap_lines > 0 {
            parts.push(format!(
                "{} matching lines dropped past {} MiB kept",
                self.over_cap_lines,
                (2 * MAX_INPUT) >> 20
            ));
        }
        (!parts.is_empty()).then(|| format!("read {} bytes: {}", self.total, parts.join("; ")))
    }
}

/// Reads a whole text stream for `why -`, line by line: the first [`MAX_INPUT`] bytes are kept
/// as they are, later lines only when a symptom's regex (`patterns`, `needs`, `unless`) matches
/// them, since recognition matches lines. Invalid UTF-8 becomes replacement characters.
pub(crate) fn read_input<R: std::io::BufRead>(
    set: &PackSet,
    mut r: R,
) -> std::io::Result<(String, Unread)> {
    let mut text = String::new();
    let mut u = Unread::default();
    let mut raw = Vec::new();
    let mut filter: Option<regex::RegexSet> = None;
    let mut past = false;
    loop {
        raw.clear();
        let (n, long) = crate::host::open::read_line_bounded(&mut r, &mut raw, MAX_LINE)?;
        if n == 0 {
            break;
        }
        u.total += n as u64;
        if long {
            u.long_lines += 1;
            continue;
        }
        let line = String::from_utf8_lossy(&raw);
        past = past || (text.len() as u64) + (line.len() as u64) > MAX_INPUT;
        if !past {
            text.push_str(&line);
            continue;
        }
        let f = filter.get_or_insert_with(|| symptom_filter(set));
        if !f.is_match(&line) {
            u.dropped_lines += 1;
        } else if (text.len() as u64) + (line.len() as u64) <= 2 * MAX_INPUT {
            if !text.ends_with('\n') && !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&line);
        } else {
            u.over_cap_lines += 1;
        }
    }
    Ok((text, u))
}

/// One set of every symptom regex, to tell whether a line can matter to recognition.
fn symptom_filter(set: &PackSet) -> regex::RegexSet {
    let sources: Vec<String> = set
        .symptoms()
        .flat_map(|s| {
            let m = s.matchers();
            m.patterns
                .iter()
                .chain(&m.needs)
                .chain(&m.unless)
                .map(|r| r.as_str().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    // Each source compiled alone already; together they fit the default size limit unless a
    // pack is huge, and then every line is kept (the cap still holds).
    regex::RegexSetBuilder::new(&sources)
        .size_limit(64 << 20)
        .build()
        .unwrap_or_else(|_| regex::RegexSet::new([""]).expect("the empty regex compiles"))
}

/// A symptom found in the text, with the line that showed it.
pub struct Hit<'a> {
    pub symptom: &'a Symptom,
    pub line: String,
    /// The named groups the matching pattern captured (`isa` -> `gfx1200`), non-empty ones.
    pub captures: Vec<(String, String)>,
}

impl Hit<'_> {
    pub(crate) fn capture(&self, name: &str) -> Option<&str> {
        self.captures
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The target id this symptom's checks should also judge (`[symptom.with] isa`).
    pub fn carried_isa(&self) -> Option<&str> {
        self.symptom
            .with_isa
            .as_deref()
            .and_then(|g| self.capture(g))
    }
}

/// Symptoms the text shows, most likely cause first: a symptom is shown when one of its
/// patterns matches, every `needs` pattern matches too and no `unless` pattern does. They are
/// ordered by `rank` (then table order), and only the first symptom of each cause is kept.
pub fn recognise<'a>(set: &'a PackSet, text: &str) -> Vec<Hit<'a>> {
    recognise_on(set, text, &super::here::Here::text_only())
}

/// [`recognise`], with what this machine says about its GPUs: the rules over facts use its ISAs
/// where the text names none, and say which they answered for (issue 28, item 3).
pub(crate) fn recognise_on<'a>(
    set: &'a PackSet,
    text: &str,
    here: &super::here::Here,
) -> Vec<Hit<'a>> {
    Recognition::of(set, text).answer(text, here)
}

/// What the text shows before the machine is asked: its symptoms (ranked, one per cause), its
/// facts, and the rules that read the text alone. The text is searched once;
/// [`Recognition::answer`] adds the rules over this machine's GPUs, so `why` can tell whether
/// anything is recognised before it asks the machine, and answer after it did, without a
/// second pass over the text.
pub(crate) struct Recognition<'a> {
    hits: Vec<Hit<'a>>,
    facts: super::facts::Facts,
    /// The rules over the deciding context ([`super::context`]): they join first, so the fact
    /// that decides between two readings of one headline comes first.
    context_rules: Vec<super::facts::Derived>,
    text_rules: Vec<super::facts::Derived>,
    /// The answers of the lines whose origin's family names a cause ([`super::origin_causes`]),
    /// then that of a line a component's own check printed ([`super::internal_checks`]): they
    /// come last.
    origin_rules: Vec<super::facts::Derived>,
}

impl<'a> Recognition<'a> {
    pub(crate) fn of(set: &'a PackSet, text: &str) -> Self {
        let mut hits = candidates(set, text);
        // Stable: equal ranks keep the table's order. Harmless noise never comes before a
        // message that stops something.
        hits.sort_by_key(|h| (h.symptom.harmless, std::cmp::Reverse(h.symptom.rank)));
        let mut seen: Vec<&str> = Vec::new();
        hits.retain(|h| match h.symptom.class.as_deref() {
            Some(c) if seen.contains(&c) => false,
            Some(c) => {
                seen.push(c);
                true
            }
            None => true,
        });
        let facts = super::facts::Facts::of(text);
        let context_rules = super::context::rules(text, &facts);
        let text_rules = super::release::rules(text)
            .into_iter()
            .chain(super::stack::rules(text))
            .chain(super::driver::rules(text, &facts))
            // KFD's refusals, read with the ISA of the GPU they name (kfd_refused.rs).
            .chain(super::kfd_refused::rules(text))
            // A kernel whose KFD predates the GPU the text names (kernel_age.rs).
            .chain(super::kernel_age::rules(text, &facts))
            .chain(super::libfamilies::rules(text, &facts))
            // issue 28, tuning cases not recognised (h-r5): DKMS in words, iGPUs, device groups.
            .chain(super::dkms::rules(text, &facts))
            .chain(super::igpu::rules(text, &facts))
            .chain(super::devgroups::rules(text, &facts))
            .chain(super::leftovers::rules(text))
            // What package managers print about ROCm's packages (pkgmanager.rs).
            .chain(super::pkgmanager::rules(text))
            // The loader's symbol-version errors, read by where the library lives.
            .chain(super::symbol_versions::rules(text))
            // The kernel refusing AMD's driver modules (modload.rs).
            .chain(super::modload::rules(text))
            // Docker's GPU device requests (docker_gpus.rs).
            .chain(super::docker_gpus::rules(text, &facts))
            // LLVM refusing bitcode of a newer LLVM (bitcode.rs).
            .chain(super::bitcode::rules(text))
            // CMake not finding a ROCm component's package (cmake_packages.rs).
            .chain(super::cmake_packages::rules(text))
            // A linker not finding a ROCm library named with -l (link_libs.rs).
            .chain(super::link_libs::rules(text))
            // The HIP runtime's soname of another release than the one shown (sonames.rs).
            .chain(super::sonames::rules(text))
            // A programming error raised in a ROCm tool's own Python code (tool_tracebacks.rs).
            .chain(super::tool_tracebacks::rules(text))
            // bitsandbytes not finding its library for torch's ROCm (bnb_binary.rs).
            .chain(super::bnb_binary::rules(text))
            // Windows' loader failing on a ROCm DLL (windows_dlls.rs).
            .chain(super::windows_dlls::rules(text, &facts))
            .collect();
        // A component's own checks (super::internal_checks) come after every family: they read
        // only which code printed a line.
        // A library a trace shows never found comes last of all: a trace also shows the
        // optional libraries a runtime probes (strace_loads.rs).
        let origin_rules = super::origin_causes::rules(text, &facts)
            .into_iter()
            .chain(super::internal_checks::rules(text, &facts))
            .chain(super::strace_loads::rules(text))
            .collect();
        Recognition {
            hits,
            facts,
            context_rules,
            text_rules,
            origin_rules,
        }
    }

    /// Whether the text alone shows nothing ([`recognise`] would be empty). The rules over the
    /// GPUs run here, text only, only when nothing else was found.
    pub(crate) fn is_empty(&self, text: &str) -> bool {
        let t = super::here::Here::text_only();
        self.hits.is_empty()
            && self.context_rules.is_empty()
            && self.text_rules.is_empty()
            && self.origin_rules.is_empty()
            && super::facts::rules_of(text, &self.facts, &t).is_empty()
            && super::gpu_rules::rules(text, &self.facts, &t).is_empty()
    }

    /// The answer, with what `here` says about this machine's GPUs.
    pub(crate) fn answer(self, text: &str, here: &super::here::Here) -> Vec<Hit<'a>> {
        let mut hits = self.hits;
        let f = &self.facts;
        let mut text_rules = self.text_rules;
        // A CUDA-only line in a text that names no GPU, settled by this machine's bus.
        super::stack::on_machine(&mut text_rules, here);
        let derived: Vec<_> = self
            .context_rules
            .into_iter()
            .chain(super::facts::rules_of(text, f, here))
            .chain(super::gpu_rules::rules(text, f, here))
            .chain(text_rules)
            .collect();
        add_derived(&mut hits, derived);
        for d in self.origin_rules {
            let class = d.symptom.class.as_deref();
            if hits.iter().all(|h| h.symptom.class.as_deref() != class) {
                hits.push(Hit {
                    symptom: d.symptom,
                    line: d.line,
                    captures: d.captures,
                });
            }
        }
        hits
    }
}

/// The one place the rules over the text's facts ([`super::facts`]) join the answer. A symptom of
/// the derived cause keeps its place and checks and gains the reasoning from the facts; else the
/// derived cause goes first, since it reasons from what the text states about the user's
/// machine; but after a first symptom whose more specific cause the rule defers to, and after
/// the symptoms of a text whose only symptoms are harmless by design (a harmless message on WSL
/// is still harmless). A derived cause that overrules others (the facts decide between them)
/// comes before the first of them; one that overrules its own cause (its fix is more specific
/// than the symptom's) gives its own answer just before that symptom. The most deciding rule
/// comes first ([`super::facts::rules`]).
fn add_derived(hits: &mut Vec<Hit<'_>>, derived: Vec<super::facts::Derived>) {
    let only_harmless = !hits.is_empty() && hits.iter().all(|h| h.symptom.harmless);
    for d in derived.into_iter().rev() {
        let class = d.symptom.class.as_deref();
        let overruled = |h: &Hit| {
            h.symptom
                .class
                .as_deref()
                .is_some_and(|c| Some(c) != class && d.overrules.contains(&c))
        };
        let first_overruled = hits.iter().position(overruled);
        let same = hits
            .iter()
            .position(|h| h.symptom.class.as_deref() == class);
        // A rule that overrules its own cause answers it more specifically than the symptom
        // (a fix the symptom's does not give): its own answer goes just before that symptom.
        if let (Some(i), true) = (same, class.is_some_and(|c| d.overrules.contains(&c))) {
            let at = first_overruled.filter(|&j| j < i).unwrap_or(i);
            hits.insert(
                at,
                Hit {
                    symptom: d.symptom,
                    line: d.line,
                    captures: d.captures,
                },
            );
            continue;
        }
        if let Some(i) = same {
            // The symptom keeps its checks; it gains the facts' reasoning, and comes before the
            // causes the facts decide against.
            let mut h = hits.remove(i);
            for (k, v) in d.captures {
                if h.capture(&k).is_none() {
                    h.captures.push((k, v));
                }
            }
            let at = first_overruled.filter(|&j| j < i).unwrap_or(i);
            hits.insert(at, h);
            continue;
        }
        let hit = Hit {
            symptom: d.symptom,
            line: d.line,
            captures: d.captures,
        };
        let first = hits.first().and_then(|h| h.symptom.class.as_deref());
        let at = if only_harmless || d.symptom.harmless {
            hits.len()
        } else if let Some(j) = first_overruled {
            j
        } else if first.is_some_and(|c| d.defers_to.contains(&c)) {
            1
        } else {
            0
        };
        hits.insert(at, hit);
    }
}

/// Whether two versions are of different releases: neither is a dotted prefix of the other
/// (`1` is the soname of `1.0.30900`, the same file; `1.11.0` and `1.15.0`, `1` and `2` are
/// not: a library's soname carries its major version, the real file the rest, glibc ld.so
/// conventions).
pub(crate) fn versions_differ(a: &str, b: &str) -> bool {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    let n = x.len().min(y.len());
    x[..n] != y[..n]
}

/// The first match of `patterns` in `text` whose `group` differs (by [`versions_differ`]) from
/// an earlier match's with the same other named groups: its pattern and captures. One pass over
/// the matches; the earlier values are kept per key (a handful in any real text).
pub(crate) fn differing_match<'r, 't>(
    patterns: &'r [regex::Regex],
    group: &str,
    text: &'t str,
) -> Option<(&'r regex::Regex, regex::Captures<'t>)> {
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    for re in patterns {
        for c in re.captures_iter(text) {
            let Some(v) = c.name(group).map(|m| m.as_str()) else {
                continue;
            };
            let key: String = re
                .capture_names()
                .flatten()
                .filter(|n| *n != group)
                .map(|n| c.name(n).map_or("", |m| m.as_str()))
                .collect::<Vec<_>>()
                .join("\u{1f}");
            let full = seen.len() >= 64;
            match seen.iter_mut().find(|(k, _)| *k == key) {
                Some((_, vals)) if vals.iter().any(|w| versions_differ(w, v)) => {
                    return Some((re, c));
                }
                Some((_, vals)) if vals.len() < 16 && !vals.iter().any(|w| w == v) => {
                    vals.push(v.to_string());
                }
                Some(_) => {}
                None if !full => seen.push((key, vec![v.to_string()])),
                None => {}
            }
        }
    }
    None
}

/// Every symptom the text shows, in table order, before ranking (each once).
pub fn candidates<'a>(set: &'a PackSet, text: &str) -> Vec<Hit<'a>> {
    set.symptoms()
        .filter(|s| s.matchers().needs.iter().all(|r| r.is_match(text)))
        .filter(|s| !s.matchers().unless.iter().any(|r| r.is_match(text)))
        .filter_map(|s| {
            let (re, c) = match &s.differ {
                Some(g) => differing_match(&s.matchers().patterns, g, text)?,
                None => s
                    .matchers()
                    .patterns
                    .iter()
                    .find_map(|p| p.captures(text).map(|c| (p, c)))?,
            };
            let m = c.get(0)?;
            let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let end = text[m.end()..]
                .find('\n')
                .map_or(text.len(), |i| m.end() + i);
            let line: String = text[start..end].trim().chars().take(300).collect();
            let captures = re
                .capture_names()
                .flatten()
                .filter_map(|n| {
                    let v = c.name(n)?.as_str();
                    (!v.is_empty()).then(|| (n.to_string(), v.chars().take(100).collect()))
                })
                .collect();
            Some(Hit {
                symptom: s,
                line,
                captures,
            })
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A check failed or warned: the cause is present here.
    Confirmed,
    /// No check failed or warned, none errored, and one that can rule the cause out passed.
    RuledOut,
    /// The checks skipped, could not decide, or do not exist.
    Undetermined,
}

impl Answer {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Answer::Confirmed => "confirmed",
            Answer::RuledOut => "ruled-out",
            Answer::Undetermined => "undetermined",
        }
    }
}

/// The order of answers once the machine has judged: confirmed, undecided, ruled out.
pub(crate) fn machine_order(a: Answer) -> u8 {
    match a {
        Answer::Confirmed => 0,
        Answer::Undetermined => 1,
        Answer::RuledOut => 2,
    }
}

/// The answer for one symptom from the findings of its checks.
pub(crate) fn judge<'f>(s: &Symptom, findings: &'f [Finding]) -> (Answer, Vec<&'f Finding>) {
    let mine: Vec<&Finding> = findings
        .iter()
        .filter(|f| s.checks.contains(&f.id))
        .collect();
    let confirm_if = &s.matchers().confirm_if;
    let bad: Vec<&&Finding> = mine
        .iter()
        .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
        .collect();
    // A warn/fail confirms the cause only when it is about it (`confirm_if`); one about another
    // cause leaves this one undecided, never ruled out. A skip that states the cause's fact
    // confirms where the symptom says so (`confirm_skipped`).
    let about = |f: &Finding| confirm_if.iter().any(|r| r.is_match(&f.summary));
    let answer = if bad.iter().any(|f| confirm_if.is_empty() || about(f))
        || mine
            .iter()
            .any(|f| s.confirm_skipped && f.status == Status::Skip && about(f))
    {
        Answer::Confirmed
    } else if !bad.is_empty() {
        Answer::Undetermined
    } else if mine.iter().any(|f| {
        f.status == Status::Pass && s.rule_out_by.as_ref().is_none_or(|r| r.contains(&f.id))
    }) && !mine.iter().any(|f| f.status == Status::Error)
    {
        Answer::RuledOut
    } else {
        Answer::Undetermined
    };
    (answer, mine)
}

/// A recognised symptom, the findings of the checks run for it, and the paths the text names
/// that those checks did not examine.
pub(crate) type Judged<'h, 'f> = (&'h Hit<'h>, &'f [Finding], Vec<Unexamined>);

/// The paths the text names that the checks deciding `s` did not examine: empty unless its
/// checks alone confirm or rule it out (an undecided cause has nothing to downgrade). Only the
/// deciding checks' families count: the passing ones for a cause ruled out, the warning or
/// failing ones for a confirmed cause (a `gpu.*` verdict holds whatever compiler the text
/// names). A verdict about the clang the run judged says nothing about the clang that printed
/// the error, in either direction.
pub(crate) fn unexamined_for(
    s: &Symptom,
    findings: &[Finding],
    named: &[NamedPath],
    examined: &Examined,
    resolve: &dyn Fn(&Path) -> Option<PathBuf>,
    exists: &dyn Fn(&Path) -> bool,
) -> Vec<Unexamined> {
    let (answer, mine) = judge(s, findings);
    let deciding = |f: &&&Finding| match answer {
        Answer::RuledOut => f.status == Status::Pass,
        Answer::Confirmed => {
            matches!(f.status, Status::Fail | Status::Warn)
                || (s.confirm_skipped && f.status == Status::Skip)
        }
        Answer::Undetermined => false,
    };
    if answer == Answer::Undetermined || named.is_empty() {
        return Vec::new();
    }
    let families: Vec<&str> = mine
        .iter()
        .filter(deciding)
        .map(|f| f.id.split('.').next().unwrap_or(""))
        .collect();
    paths::unexamined(named, examined, &families, resolve, exists)
}

/// The answer once the paths are weighed: a cause is confirmed or ruled out only when every
/// path the text names that its deciding checks depend on was examined; otherwise it is
/// undecided.
pub(crate) fn final_answer(s: &Symptom, findings: &[Finding], unexamined: &[Unexamined]) -> Answer {
    match judge(s, findings).0 {
        Answer::RuledOut | Answer::Confirmed if !unexamined.is_empty() => Answer::Undetermined,
        a => a,
    }
}

/// The human answer: each recognised symptom with the findings of the checks run for it.
pub(crate) fn render_human(judged: &[Judged]) -> String {
    let hits = judged;
    let mut s = format!(
        "Recognised {} symptom{} in the text.\n",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" }
    );
    for (i, (h, findings, unexamined)) in judged.iter().enumerate() {
        let sy = h.symptom;
        let (_, mine) = judge(sy, findings);
        let answer = final_answer(sy, findings, unexamined);
        s.push_str(&format!("\n{}. {} ({})\n", i + 1, sy.title, sy.id));
        if let Some(c) = sy.class.as_deref().and_then(super::causes::get) {
            s.push_str(&format!("   cause class:  {} ({})\n", c.id, c.title));
        }
        s.push_str(&format!("   seen:         {}\n", h.line));
        s.push_str(&format!("   text from:    {}\n", sy.source));
        if let Some(r) = h.capture("reasoning") {
            s.push_str(&format!("   reasoning:    {r}\n"));
        }
        if let Some(isa) = h.carried_isa() {
            s.push_str(&format!("   judged for:   {isa} (named in the text)\n"));
        }
        s.push_str(&format!("   likely cause: {}\n", sy.cause.trim()));
        let verdict = verdict_of(sy, findings, unexamined, answer);
        s.push_str(&format!("   here:         {verdict}\n"));
        // A whole log can name many; the JSON carries them all.
        const SHOWN: usize = 5;
        for u in unexamined.iter().take(SHOWN) {
            s.push_str(&format!("   not checked:  {}\n", paths::describe(u)));
        }
        if unexamined.len() > SHOWN {
            s.push_str(&format!(
                "   not checked:  ... and {} more paths the text names (--json lists them)\n",
                unexamined.len() - SHOWN
            ));
        }
        render_mine(&mut s, &mine, answer);
        let fixes = fixes_of(&mine);
        if fixes.is_empty() {
            s.push_str(&format!("   fix:          {}\n", sy.fix.trim()));
        } else {
            for x in fixes {
                s.push_str(&format!("   fix:          {}\n", x.trim()));
            }
        }
    }
    s
}

/// What the run says of a symptom here, in words.
fn verdict_of(
    sy: &Symptom,
    findings: &[Finding],
    unexamined: &[Unexamined],
    answer: Answer,
) -> &'static str {
    match answer {
        _ if sy.harmless => "HARMLESS: this message stops nothing (see the cause); nothing to fix",
        Answer::Confirmed => "CONFIRMED on this machine",
        Answer::RuledOut => "RULED OUT on this machine (the checks below pass)",
        Answer::Undetermined if !unexamined.is_empty() => {
            if judge(sy, findings).0 == Answer::Confirmed {
                "not decided here: the checks below find a fault, but not in every path the \
                    text names"
            } else {
                "not decided here: the checks below pass, but not for every path the text names"
            }
        }
        Answer::Undetermined => "not decided here (the checks below could not judge it)",
    }
}

/// The findings of the checks run for a symptom (with their evidence when it is confirmed).
fn render_mine(s: &mut String, mine: &[&Finding], answer: Answer) {
    for f in mine {
        s.push_str(&format!(
            "     [{}] {}{}: {}\n",
            f.status.as_str(),
            f.id,
            f.subject
                .as_ref()
                .map(|x| format!(" ({x})"))
                .unwrap_or_default(),
            f.summary
        ));
        if answer == Answer::Confirmed && f.status != Status::Pass {
            for e in f.evidence.iter().take(6) {
                s.push_str(&format!("         {e}\n"));
            }
        }
    }
    if mine.is_empty() {
        s.push_str("     (no check on this machine can judge it)\n");
    }
}

/// The fixes of the failing and warning findings, each once.
fn fixes_of(mine: &[&Finding]) -> Vec<String> {
    let mut fixes: Vec<String> = Vec::new();
    for f in mine
        .iter()
        .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
    {
        if let Some(x) = &f.fix {
            if !fixes.contains(&x.text) {
                fixes.push(x.text.clone());
            }
        }
    }
    fixes
}

/// The JSON answer (docs/json.md, `why --json`): the family's `schema_version`, `tool`,
/// `command`, `exit_code`, then one object per recognised symptom.
pub(crate) fn render_json(judged: &[Judged], exit_code: i32) -> Value {
    let items: Vec<Value> = judged
        .iter()
        .map(|(h, findings, unexamined)| {
            let (_, mine) = judge(h.symptom, findings);
            let answer = final_answer(h.symptom, findings, unexamined);
            json!({
                "id": h.symptom.id,
                "title": h.symptom.title,
                "line": h.line,
                "source": h.symptom.source,
                "cause": h.symptom.cause.trim(),
                "answer": if h.symptom.harmless { "harmless" } else { answer.as_str() },
                "class": h.symptom.class,
                "harmless": h.symptom.harmless,
                "fix": h.symptom.fix.trim(),
                "captures": h
                    .captures
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                    .collect::<serde_json::Map<String, Value>>(),
                "checks": mine,
                "unexamined": unexamined,
            })
        })
        .collect();
    json!({
        "schema_version": crate::report::json::SCHEMA_VERSION,
        "tool": &crate::report::json::TOOL,
        "command": "why",
        "exit_code": exit_code,
        "unrecognised": items.is_empty(),
        "recognised": items,
    })
}

/// The JSON answer for text that matches no symptom: `unrecognised: true`, the note, and the
/// default checks' findings.
pub(crate) fn render_unrecognised_json(note: &str, findings: &[Finding], exit_code: i32) -> Value {
    json!({
        "schema_version": crate::report::json::SCHEMA_VERSION,
        "tool": &crate::report::json::TOOL,
        "command": "why",
        "exit_code": exit_code,
        "unrecognised": true,
        "note": note,
        "recognised": [],
        "findings": findings,
    })
}

/// The lines of a text printed by a harvested component, grouped by origin (issue 28, item 1):
/// each origin once, with the numbers of the lines it printed (the first [`LINES_KEPT`]) and
/// how many.
pub(crate) fn origins_of(text: &str) -> Vec<(Vec<usize>, usize, super::origins::Attribution<'_>)> {
    let t = super::origins::table();
    let mut out: Vec<(Vec<usize>, usize, super::origins::Attribution<'_>)> = Vec::new();
    for a in t.attribute(text) {
        match out
            .iter_mut()
            .find(|(_, _, b)| std::ptr::eq(b.origin, a.origin))
        {
            Some((lines, n, _)) => {
                if lines.len() < LINES_KEPT {
                    lines.push(a.line_no);
                }
                *n += 1;
            }
            None => out.push((vec![a.line_no], 1, a)),
        }
    }
    out
}

/// Line numbers kept per origin.
pub(crate) const LINES_KEPT: usize = 20;

/// Origins shown by the human answer (the JSON has them all).
const ORIGINS_SHOWN: usize = 12;

/// The human section: where the text's lines come from, and the cause a family names.
pub(crate) fn origins_human(text: &str) -> String {
    let found = origins_of(text);
    if found.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\nWhere the lines come from (format strings harvested from the sources, \
            docs/check-packs.md):\n",
    );
    for (lines, n, a) in found.iter().take(ORIGINS_SHOWN) {
        let more = if *n > 1 {
            format!(" (and {} more lines)", n - 1)
        } else {
            String::new()
        };
        s.push_str(&format!("  line {}{more}: {}\n", lines[0], a.line));
        s.push_str(&format!(
            "    printed by {} [{}; {}]\n",
            a.printed_by(),
            a.origin.level,
            a.origin.gate
        ));
        if let Some(f) = a.cause() {
            let title = super::causes::get(&f.cause).map_or("", |c| c.title.as_str());
            s.push_str(&format!(
                "    cause:      {} ({title}): {}\n",
                f.cause, f.reason
            ));
        }
    }
    if found.len() > ORIGINS_SHOWN {
        s.push_str(&format!(
            "  ... and {} more origins (--json lists them)\n",
            found.len() - ORIGINS_SHOWN
        ));
    }
    s
}

/// The JSON `origins` array (an added field of `why --json`): one object per origin.
pub(crate) fn origins_json(text: &str) -> Value {
    let t = super::origins::table();
    let items: Vec<Value> = origins_of(text)
        .iter()
        .map(|(lines, n, a)| {
            let o = a.origin;
            json!({
                "line": a.line,
                "line_numbers": lines,
                "lines": n,
                "component": o.component,
                "level": o.level,
                "printer": o.printer,
                "gate": o.gate,
                "format": o.format,
                "sites": o.sites.iter().map(|s| json!({
                    "repo": s.repo,
                    "commit": t.commit_of(&s.repo, &s.at),
                    "path": s.path,
                    "line": s.line,
                    "function": s.function,
                    "condition": s.condition,
                })).collect::<Vec<_>>(),
                "cause": a.cause().map(|f| json!({"id": f.cause, "reason": f.reason})),
            })
        })
        .collect();
    Value::Array(items)
}

/// Adds `origins` to a `why --json` document.
pub(crate) fn add_origins(doc: &mut Value, text: &str) {
    if let Some(m) = doc.as_object_mut() {
        m.insert("origins".into(), origins_json(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_soname_and_its_file_are_one_version_two_releases_are_not() {
        assert!(!versions_differ("1", "1.0.30900"));
        assert!(!versions_differ("1.15.0", "1.15.0"));
        assert!(versions_differ("1.11.0", "1.15.0"));
        assert!(versions_differ("2", "1"));
    }

    #[test]
    fn two_versions_of_one_library_differ_two_libraries_do_not() {
        let re =
            vec![regex::Regex::new(r"(?P<lib>lib[\w-]+)\.so\.(?P<ver>\d+(?:\.\d+)*)").unwrap()];
        // tests/corpus/libs-benign.toml: TheRock#474 (differ), ROCm/ROCm#1284 (one file).
        let t474 = "` /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.11.0\n`\ninstead of using \
            the\n`build/dist/rocm/lib/libhsa-runtime64.so.1.15.0\n";
        let (_, c) = differing_match(&re, "ver", t474).unwrap();
        assert_eq!(&c["ver"], "1.15.0");
        let t1284 = "libhsakmt.so.1 => not found\n/opt/rocm-3.9.0/lib/libhsakmt.so.1.0.30900\n";
        assert!(differing_match(&re, "ver", t1284).is_none());
        assert!(differing_match(&re, "ver", "libamdhip64.so.5 libhsa-runtime64.so.1").is_none());
    }
}
