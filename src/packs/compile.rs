//! Validation: a pack's text becomes typed checks with compiled regexes, resolved probe
//! references and parsed templates, or `file:line:column` errors. Pure: no I/O.

use super::model::*;
use super::template::{Field, Template};
use super::{
    Check as PackCheck, Fact, Pack, Probe, ProbeSpec, Relation, Rule, Symptom, Term, When,
};
use crate::checkdoc::CheckDoc;
use crate::data::{self, DataError, Position};
use regex::{Regex, RegexBuilder};
use std::ops::Range;

/// Bounds on what a pack may ask for (hostile or broken packs must not hang the doctor).
pub(crate) const MAX_FILE_BYTES: usize = 256 * 1024;
pub(crate) const MAX_DEPTH: usize = 16;
pub(crate) const MAX_CHECKS: usize = 256;
pub(crate) const MAX_PROBES: usize = 16;
pub(crate) const MAX_RULES: usize = 32;
pub(crate) const MAX_SYMPTOMS: usize = 256;
pub(crate) const MAX_PATTERN: usize = 1024;
pub(crate) const MAX_COMMAND_SECS: f64 = 60.0;
pub(crate) const DEFAULT_COMMAND_SECS: f64 = 10.0;
const REGEX_SIZE_LIMIT: usize = 1 << 20;

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    errors: Vec<DataError>,
    /// A built-in pack: symptoms' regexes are compiled lazily, not validated here.
    trusted: bool,
}

impl Ctx<'_> {
    fn err(&mut self, span: Range<usize>, msg: impl Into<String>) {
        self.errors
            .push(DataError::at(self.file, self.text, span, msg));
    }

    /// A problem of the whole file (its size, its number of checks), at no place in it.
    fn whole(&mut self, msg: impl Into<String>) {
        self.errors.push(DataError::whole(self.file, msg));
    }
}

/// Parses and validates a pack. `file` names it in errors and findings.
pub fn compile(file: &str, text: &str) -> Result<Pack, Vec<DataError>> {
    compile_as(file, text, false)
}

/// A built-in pack, whose validity its tests guarantee: the same as [`compile`], except that
/// its symptoms' regexes are compiled on first use ([`super::Symptom::matchers`]).
pub(crate) fn compile_trusted(file: &str, text: &str) -> Result<Pack, Vec<DataError>> {
    compile_as(file, text, true)
}

fn compile_as(file: &str, text: &str, trusted: bool) -> Result<Pack, Vec<DataError>> {
    let mut cx = Ctx {
        file,
        text,
        errors: Vec::new(),
        trusted,
    };
    if text.len() > MAX_FILE_BYTES {
        cx.whole(format!(
            "the file is {} bytes; a pack may have at most {MAX_FILE_BYTES}",
            text.len()
        ));
        return Err(cx.errors);
    }
    if let Some(at) = too_deep(text) {
        cx.err(
            at..at,
            format!("arrays and tables nest deeper than {MAX_DEPTH} levels"),
        );
        return Err(cx.errors);
    }
    let raw: RawPack = match data::load(file, text) {
        Ok(r) => r,
        Err(e) => {
            cx.errors.push(e);
            return Err(cx.errors);
        }
    };
    let pack = build(&mut cx, raw);
    if cx.errors.is_empty() {
        Ok(pack)
    } else {
        Err(cx.errors)
    }
}

/// The offset where nesting first exceeds the bound, ignoring brackets inside strings and
/// comments (a cheap pre-scan, so the parser never recurses deeply).
fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut comment = false;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if comment {
            if c == b'\n' {
                comment = false;
            }
        } else if let Some(q) = quote {
            if c == b'\\' && q == b'"' {
                i += 1;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                b'"' | b'\'' => quote = Some(c),
                b'#' => comment = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Some(i);
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

pub(crate) fn regex(pattern: &str) -> Result<Regex, String> {
    if pattern.len() > MAX_PATTERN {
        return Err(format!(
            "the regex is {} bytes; at most {MAX_PATTERN}",
            pattern.len()
        ));
    }
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .nest_limit(32)
        .build()
        .map_err(|e| format!("bad regex: {}", e.to_string().replace('\n', " ")))
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn build(cx: &mut Ctx, raw: RawPack) -> Pack {
    let ns = raw.pack.name.get_ref().clone();
    if !is_name(&ns) {
        cx.err(
            raw.pack.name.span(),
            format!("pack name '{ns}' must be lowercase letters, digits, '-' or '_'"),
        );
    }
    if raw.check.len() > MAX_CHECKS {
        cx.whole(format!(
            "{} checks; a pack may have at most {MAX_CHECKS}",
            raw.check.len()
        ));
    }
    if raw.symptom.len() > MAX_SYMPTOMS {
        cx.whole(format!(
            "{} symptoms; a pack may have at most {MAX_SYMPTOMS}",
            raw.symptom.len()
        ));
    }
    let mut checks = Vec::new();
    for rc in raw.check.into_iter().take(MAX_CHECKS) {
        let id_span = rc.id.span();
        if let Some(c) = build_check(cx, &ns, rc) {
            if checks.iter().any(|o: &PackCheck| o.doc.id == c.doc.id) {
                cx.err(id_span, format!("check id '{}' is used twice", c.doc.id));
            }
            checks.push(c);
        }
    }
    let symptoms = raw
        .symptom
        .into_iter()
        .take(MAX_SYMPTOMS)
        .map(|rs| build_symptom(cx, rs))
        .collect();
    Pack {
        name: ns,
        version: raw.pack.version,
        source: raw.pack.source,
        description: raw.pack.description,
        checks,
        symptoms,
    }
}

fn build_symptom(cx: &mut Ctx, rs: RawSymptom) -> Symptom {
    // Built-in packs are trusted (their validity is tested): their regexes are compiled
    // on first use, so a run that recognises no text (the default run) pays nothing.
    let matchers = std::sync::OnceLock::new();
    if !cx.trusted {
        let _ = matchers.set(symptom_matchers(cx, &rs));
    }
    let cause = rs.class.as_ref().and_then(|c| {
        let found = super::causes::get(c.get_ref());
        if found.is_none() {
            let ids: Vec<&str> = super::causes::all().iter().map(|c| c.id.as_str()).collect();
            let hint = data::hint(c.get_ref(), &ids);
            cx.err(
                c.span(),
                format!("no cause '{}' in checks/causes.toml{hint}", c.get_ref()),
            );
        }
        found
    });
    let symptom = Symptom {
        id: rs.id.get_ref().clone(),
        title: rs.title,
        sources: super::MatcherSources {
            patterns: rs.patterns.iter().map(|p| p.get_ref().clone()).collect(),
            needs: rs.needs.iter().map(|p| p.get_ref().clone()).collect(),
            unless: rs.unless.iter().map(|p| p.get_ref().clone()).collect(),
            confirm_if: rs.confirm_if.iter().map(|p| p.get_ref().clone()).collect(),
        },
        matchers,
        text: rs.text,
        source: rs.source,
        cause: rs.cause,
        fix: rs.fix,
        checks: rs.checks.iter().map(|c| c.get_ref().clone()).collect(),
        rule_out_by: rs
            .rule_out_by
            .as_ref()
            .map(|v| v.iter().map(|c| c.get_ref().clone()).collect()),
        with_isa: rs.with.isa.as_ref().map(|g| g.get_ref().clone()),
        differ: rs.differ.as_ref().map(|g| g.get_ref().clone()),
        class: cause.map(|c| c.id.clone()),
        harmless: cause.is_some_and(|c| c.harmless),
        rank: rs.rank.unwrap_or(50),
        runtime_profile: matches!(rs.profile, Some(super::model::Profile::Runtime)),
        confirm_skipped: rs.confirm_skipped,
        check_locations: rs
            .checks
            .iter()
            .map(|c| Position::of(cx.text, c.span().start))
            .collect(),
    };
    if rs.confirm_skipped && rs.confirm_if.is_empty() {
        cx.err(
            rs.id.span(),
            "confirm_skipped needs confirm_if: which skips state the cause".to_string(),
        );
    }
    for r in rs.rule_out_by.iter().flatten() {
        if !rs.checks.iter().any(|c| c.get_ref() == r.get_ref()) {
            cx.err(
                r.span(),
                format!(
                    "rule_out_by names '{}', which is not in `checks`",
                    r.get_ref()
                ),
            );
        }
    }
    symptom
}

/// An untrusted symptom's regexes, compiled and checked against the symptom's own `text`.
fn symptom_matchers(cx: &mut Ctx, rs: &RawSymptom) -> super::Matchers {
    let patterns = compile_all(cx, &rs.patterns);
    if rs.patterns.is_empty() {
        cx.err(rs.id.span(), "a symptom needs at least one pattern");
    }
    if !patterns.is_empty() && !patterns.iter().any(|p| p.is_match(&rs.text)) {
        cx.err(
            rs.id.span(),
            format!(
                "symptom '{}': no pattern matches its own `text`",
                rs.id.get_ref()
            ),
        );
    }
    if let Some(g) = &rs.with.isa {
        check_isa_group(cx, g, &patterns, &rs.text);
    }
    if let Some(g) = &rs.differ {
        check_differ_group(cx, g, &patterns, &rs.text);
    }
    let mut needs = Vec::new();
    for p in &rs.needs {
        match regex(p.get_ref()) {
            Ok(r) if !r.is_match(&rs.text) => cx.err(
                p.span(),
                "this `needs` pattern does not match the symptom's own `text`",
            ),
            Ok(r) => needs.push(r),
            Err(e) => cx.err(p.span(), e),
        }
    }
    let mut unless = Vec::new();
    for p in &rs.unless {
        match regex(p.get_ref()) {
            Ok(r) if r.is_match(&rs.text) => cx.err(
                p.span(),
                "this `unless` pattern matches the symptom's own `text`",
            ),
            Ok(r) => unless.push(r),
            Err(e) => cx.err(p.span(), e),
        }
    }
    let confirm_if = compile_all(cx, &rs.confirm_if);
    super::Matchers {
        patterns,
        needs,
        unless,
        confirm_if,
    }
}

/// Each regex that compiles; an error at the place of each that does not.
fn compile_all(cx: &mut Ctx, sources: &[toml::Spanned<String>]) -> Vec<Regex> {
    let mut out = Vec::new();
    for p in sources {
        match regex(p.get_ref()) {
            Ok(r) => out.push(r),
            Err(e) => cx.err(p.span(), e),
        }
    }
    out
}

/// `with.isa`: the group must exist, and the symptom's own text must yield it: the table tests
/// itself.
fn check_isa_group(cx: &mut Ctx, g: &toml::Spanned<String>, patterns: &[Regex], text: &str) {
    let name = g.get_ref();
    let defined = patterns
        .iter()
        .any(|p| p.capture_names().any(|n| n == Some(name.as_str())));
    let own = patterns
        .iter()
        .find_map(|p| p.captures(text))
        .and_then(|c| c.name(name).map(|m| m.as_str().to_string()));
    if !defined {
        let groups: Vec<&str> = patterns
            .iter()
            .flat_map(|p| p.capture_names().flatten())
            .collect();
        let hint = data::hint(name, &groups);
        cx.err(
            g.span(),
            format!("with.isa names group '{name}', which no pattern defines{hint}"),
        );
    } else if own.is_none_or(|v| v.is_empty()) {
        cx.err(
            g.span(),
            format!("with.isa: the symptom's own `text` gives no value for group '{name}'"),
        );
    }
}

/// `differ`: the group must exist, and the symptom's own text must show two versions.
fn check_differ_group(cx: &mut Ctx, g: &toml::Spanned<String>, patterns: &[Regex], text: &str) {
    let name = g.get_ref();
    let defined = patterns
        .iter()
        .any(|p| p.capture_names().any(|n| n == Some(name.as_str())));
    if !defined {
        cx.err(
            g.span(),
            format!("differ names group '{name}', which no pattern defines"),
        );
    } else if super::why::differing_match(patterns, name, text).is_none() {
        cx.err(
            g.span(),
            format!(
                "differ: the symptom's own `text` has no two matches with different \
                    '{name}'"
            ),
        );
    }
}

fn build_check(cx: &mut Ctx, ns: &str, rc: RawCheck) -> Option<PackCheck> {
    let id = rc.id.get_ref().clone();
    let rest = id.strip_prefix(&format!("{ns}.")).unwrap_or("");
    if rest.is_empty() || !rest.split('.').all(is_name) {
        cx.err(
            rc.id.span(),
            format!(
                "check id '{id}' must be '{ns}.<name>' (the pack's namespace, then lowercase \
                words)"
            ),
        );
    }
    let category = match &rc.category {
        Some(c) => {
            if !is_name(c.get_ref()) {
                cx.err(
                    c.span(),
                    format!("category '{}' is not a lowercase name", c.get_ref()),
                );
            }
            c.get_ref().clone()
        }
        None => ns.to_string(),
    };
    if rc.probe.len() > MAX_PROBES {
        cx.err(
            rc.id.span(),
            format!("{}: {} probes; at most {MAX_PROBES}", id, rc.probe.len()),
        );
    }
    if rc.rule.len() > MAX_RULES {
        cx.err(
            rc.id.span(),
            format!("{}: {} rules; at most {MAX_RULES}", id, rc.rule.len()),
        );
    }
    if rc.rule.is_empty() {
        cx.err(
            rc.id.span(),
            format!("{id}: a check needs at least one [[check.rule]]"),
        );
    }
    let when = build_when(cx, rc.when);
    let names: Vec<String> = rc.probe.iter().map(|p| p.name.get_ref().clone()).collect();
    let mut probes = Vec::new();
    for (i, rp) in rc.probe.iter().enumerate().take(MAX_PROBES) {
        let n = rp.name.get_ref();
        if !is_name(n) || n.contains('-') {
            cx.err(
                rp.name.span(),
                format!("probe name '{n}' must be lowercase letters, digits or '_'"),
            );
        }
        if names[..i].contains(n) {
            cx.err(rp.name.span(), format!("probe name '{n}' is used twice"));
        }
        probes.push(build_probe(cx, rp, &names));
    }
    let rules = rc
        .rule
        .iter()
        .take(MAX_RULES)
        .map(|rr| build_rule(cx, rr, &names, &probes))
        .collect();
    Some(PackCheck {
        doc: CheckDoc {
            id,
            category,
            title: rc.title,
            what: rc.what,
            why: rc.why,
            fix: rc.fix,
            action: rc.action.unwrap_or(crate::report::Action::FixConfig),
            sources: rc.sources,
        },
        when,
        probes,
        rules,
    })
}

fn build_rule(cx: &mut Ctx, rr: &RawRule, names: &[String], probes: &[Probe]) -> Rule {
    let mut terms = Vec::new();
    for t in &rr.cond {
        match parse_term(t.get_ref(), names) {
            Ok(term) => terms.push(term),
            Err(e) => cx.err(t.span(), e),
        }
    }
    let message = template(cx, &rr.message, probes);
    let fix = rr.fix.as_ref().map(|f| template(cx, f, probes));
    if *rr.status.get_ref() == super::model::Status::Error {
        cx.err(
            rr.status.span(),
            "a rule's status is pass, warn, fail or skip (`error` is the doctor's own: a \
                check that could not decide)",
        );
    }
    Rule {
        terms,
        status: *rr.status.get_ref(),
        message,
        fix,
        action: rr.action,
    }
}

fn build_when(cx: &mut Ctx, w: RawWhen) -> When {
    let component = match (w.component, w.versions) {
        (None, None) => None,
        (Some(c), Some(v)) => match crate::version::VersionRange::parse(v.get_ref()) {
            Ok(r) => Some((c.get_ref().clone(), r)),
            Err(e) => {
                cx.err(v.span(), e);
                None
            }
        },
        (Some(c), None) => {
            cx.err(
                c.span(),
                "`component` needs `versions` (a range such as '>=6.0')",
            );
            None
        }
        (None, Some(v)) => {
            cx.err(v.span(), "`versions` needs `component`");
            None
        }
    };
    When {
        profile: w.profile,
        gpu: w.gpu,
        isa_family: w.isa_family,
        component,
    }
}

fn build_probe(cx: &mut Ctx, rp: &RawProbe, names: &[String]) -> Probe {
    let span = rp.name.span();
    let mut need = |v: &Option<String>, key: &str| -> String {
        match v {
            Some(s) if !s.is_empty() => s.clone(),
            _ => {
                cx.err(
                    span.clone(),
                    format!("a {:?} probe needs `{key}`", rp.kind).to_lowercase(),
                );
                String::new()
            }
        }
    };
    let spec = match rp.kind {
        ProbeKind::Env => ProbeSpec::Env(need(&rp.var, "var")),
        ProbeKind::File => ProbeSpec::File {
            path: need(&rp.path, "path"),
            read: rp.read,
        },
        ProbeKind::Glob => {
            let path = need(&rp.path, "path");
            if !path.is_empty() && !path.starts_with('/') && !path.starts_with("${") {
                cx.err(
                    span.clone(),
                    format!("glob '{path}' must be an absolute path"),
                );
            }
            if let Err(e) = super::glob::validate(&path) {
                cx.err(span.clone(), format!("glob '{path}': {e}"));
            }
            ProbeSpec::Glob {
                path,
                read: rp.read,
            }
        }
        ProbeKind::Library => ProbeSpec::Library(need(&rp.library, "library")),
        ProbeKind::CodeObjects => code_objects_spec(cx, rp, &span),
        ProbeKind::Kfd => ProbeSpec::Kfd(need(&rp.property, "property")),
        ProbeKind::PythonPackage => {
            let name = need(&rp.package, "package");
            let ok = !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !name.as_bytes()[0].is_ascii_digit();
            if !ok {
                cx.err(
                    span.clone(),
                    format!("package '{name}' is not a top-level module name (letters, digits, _)"),
                );
            }
            ProbeSpec::PythonPackage(name)
        }
        ProbeKind::Command => command_spec(cx, rp, &span),
        ProbeKind::Fact => fact_spec(cx, rp, &span),
    };
    check_stray_keys(cx, rp, &span);
    let regex = rp.regex.as_ref().and_then(|r| match regex(r.get_ref()) {
        Ok(re) => Some(re),
        Err(e) => {
            cx.err(r.span(), e);
            None
        }
    });
    let relation = probe_relation(cx, rp, names);
    Probe {
        name: rp.name.get_ref().clone(),
        spec,
        regex,
        split: rp.split.clone(),
        relation,
        as_indices: rp.as_indices,
    }
}

fn code_objects_spec(cx: &mut Ctx, rp: &RawProbe, span: &Range<usize>) -> ProbeSpec {
    let libs = rp.libraries.clone().unwrap_or_default();
    if libs.is_empty() || libs.iter().any(|l| l.is_empty() || l.contains('/')) {
        cx.err(
            span.clone(),
            "a code-objects probe needs `libraries`, names such as \"rocblas\" \
                (lib<name>.so)",
        );
    }
    if libs.len() > 16 {
        cx.err(
            span.clone(),
            "a code-objects probe reads at most 16 libraries",
        );
    }
    ProbeSpec::CodeObjects(libs)
}

fn command_spec(cx: &mut Ctx, rp: &RawProbe, span: &Range<usize>) -> ProbeSpec {
    let argv = rp.argv.clone().unwrap_or_default();
    if argv.is_empty() || argv[0].is_empty() {
        cx.err(span.clone(), "a command probe needs `argv` with a program");
    }
    let secs = rp
        .timeout
        .as_ref()
        .map_or(DEFAULT_COMMAND_SECS, |t| *t.get_ref());
    if !(secs > 0.0 && secs <= MAX_COMMAND_SECS) {
        let at = rp.timeout.as_ref().map_or(span.clone(), |t| t.span());
        cx.err(
            at,
            format!("timeout must be in (0, {MAX_COMMAND_SECS}] seconds, got {secs}"),
        );
    }
    ProbeSpec::Command {
        argv,
        timeout: std::time::Duration::from_secs_f64(secs.clamp(0.001, MAX_COMMAND_SECS)),
    }
}

fn fact_spec(cx: &mut Ctx, rp: &RawProbe, span: &Range<usize>) -> ProbeSpec {
    match &rp.fact {
        Some(f) => match Fact::parse(f.get_ref()) {
            Some(fact) => ProbeSpec::Fact(fact),
            None => {
                let hint = data::hint(f.get_ref(), Fact::NAMES);
                cx.err(
                    f.span(),
                    format!(
                        "unknown fact '{}', expected one of {}{hint}",
                        f.get_ref(),
                        Fact::NAMES.join(", ")
                    ),
                );
                ProbeSpec::Fact(Fact::Profile)
            }
        },
        None => {
            cx.err(span.clone(), "a fact probe needs `fact`");
            ProbeSpec::Fact(Fact::Profile)
        }
    }
}

/// Keys that belong to other kinds are mistakes, not silently ignored.
fn check_stray_keys(cx: &mut Ctx, rp: &RawProbe, span: &Range<usize>) {
    let stray: Vec<&str> = [
        ("var", rp.var.is_some(), ProbeKind::Env),
        ("path", rp.path.is_some(), ProbeKind::File),
        ("argv", rp.argv.is_some(), ProbeKind::Command),
        ("timeout", rp.timeout.is_some(), ProbeKind::Command),
        ("fact", rp.fact.is_some(), ProbeKind::Fact),
        ("library", rp.library.is_some(), ProbeKind::Library),
        ("property", rp.property.is_some(), ProbeKind::Kfd),
        ("libraries", rp.libraries.is_some(), ProbeKind::CodeObjects),
        ("package", rp.package.is_some(), ProbeKind::PythonPackage),
        ("read", rp.read, ProbeKind::File),
    ]
    .iter()
    .filter(|(k, set, kind)| {
        *set && *kind != rp.kind && !(matches!(*k, "path" | "read") && rp.kind == ProbeKind::Glob)
    })
    .map(|(k, _, _)| *k)
    .collect();
    if !stray.is_empty() {
        cx.err(
            span.clone(),
            format!(
                "`{}` does not apply to a {:?} probe",
                stray.join("`, `"),
                rp.kind
            )
            .to_lowercase(),
        );
    }
}

/// `subset_of` / `covers`: the other probe of this check the value is compared with.
fn probe_relation(cx: &mut Ctx, rp: &RawProbe, names: &[String]) -> Option<(Relation, usize)> {
    let mut relation = None;
    for (rel, target) in [
        (Relation::SubsetOf, &rp.subset_of),
        (Relation::Covers, &rp.covers),
    ] {
        if let Some(t) = target {
            match names.iter().position(|n| n == t.get_ref()) {
                Some(i) if names[i] != *rp.name.get_ref() => relation = Some((rel, i)),
                _ => cx.err(
                    t.span(),
                    format!("no other probe named '{}' in this check", t.get_ref()),
                ),
            }
        }
    }
    relation
}

fn parse_term(s: &str, names: &[String]) -> Result<Term, String> {
    let (negate, rest) = match s.trim().strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, s.trim()),
    };
    let (name, state) = rest.split_once('.').unwrap_or((rest, ""));
    let probe = names.iter().position(|n| n == name).ok_or_else(|| {
        let cands: Vec<&str> = names.iter().map(String::as_str).collect();
        let hint = data::hint(name, &cands);
        format!("condition '{s}': no probe named '{name}'{hint}")
    })?;
    let (found, matched) = match state {
        "" => (true, true),
        "found" => (true, false),
        "matched" => (false, true),
        other => {
            return Err(format!(
                "condition '{s}': '{other}' is not a state (use `{name}`, `{name}.found` or \
                    `{name}.matched`)"
            ))
        }
    };
    Ok(Term {
        probe,
        negate,
        found,
        matched,
    })
}

fn template(cx: &mut Ctx, s: &toml::Spanned<String>, probes: &[Probe]) -> Template {
    match Template::parse(s.get_ref()) {
        Ok(t) => {
            for (name, field) in t.refs() {
                let Some(p) = probes.iter().find(|p| p.name == name) else {
                    cx.err(
                        s.span(),
                        format!("template names '{{{name}}}' but there is no probe '{name}'"),
                    );
                    continue;
                };
                if let Field::Group(g) = field {
                    let ok = p.regex.as_ref().is_some_and(|r| match g.parse::<usize>() {
                        Ok(n) => n < r.captures_len(),
                        Err(_) => r.capture_names().flatten().any(|c| c == g),
                    });
                    if !ok {
                        cx.err(
                            s.span(),
                            format!(
                                "template names '{{{name}.{g}}}' but probe \
                            '{name}' has no such capture group (fields: value, missing, count, or \
                            a group of its regex)"
                            ),
                        );
                    }
                }
            }
            t
        }
        Err(e) => {
            cx.err(s.span(), e);
            Template::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "[pack]\nname = \"site\"\nversion = \"1\"\nsource = \"tests\"\n";
    const CHECK: &str = "\n[[check]]\nid = \"site.c\"\ntitle = \"t\"\nwhat = \"w\"\nwhy = \
        \"y\"\nfix = \"f\"\n[[check.rule]]\nstatus = \"pass\"\nmessage = \"m\"\n";

    #[test]
    fn a_check_id_used_twice_is_located_at_the_second() {
        let text = format!("{HEAD}{CHECK}{CHECK}");
        assert!(compile("p.toml", &format!("{HEAD}{CHECK}")).is_ok());
        let errs = compile("p.toml", &text).unwrap_err();
        let second = text.rfind("id = \"site.c\"").unwrap() + "id = ".len();
        let want = DataError::at(
            "p.toml",
            &text,
            second..second,
            "check id 'site.c' is used twice",
        );
        assert_eq!(errs, vec![want.clone()]);
        assert_eq!(
            want.to_string(),
            "p.toml:17:6: check id 'site.c' is used twice"
        );
    }

    #[test]
    fn limits_of_the_whole_file_have_no_place() {
        let many = CHECK.repeat(MAX_CHECKS + 1);
        let errs = compile("p.toml", &format!("{HEAD}{many}")).unwrap_err();
        let e = errs
            .iter()
            .find(|e| e.message.contains("checks; a pack may have at most"))
            .unwrap_or_else(|| panic!("{errs:?}"));
        assert_eq!(e.at, None);
        assert_eq!(
            e.to_string(),
            format!(
                "p.toml: {} checks; a pack may have at most {MAX_CHECKS}",
                MAX_CHECKS + 1
            )
        );
    }

    #[test]
    fn syntax_and_semantic_errors_share_the_one_error_type() {
        // A misspelt key (syntax, from the loader) and a bad pack name (meaning, from here) are
        // located the same way.
        let e = compile(
            "p.toml",
            &format!("{HEAD}{CHECK}").replace("title", "titel"),
        )
        .unwrap_err();
        assert!(
            e[0].to_string()
                .starts_with("p.toml:8:1: unknown field `titel`"),
            "{e:?}"
        );
        assert!(e[0].message.ends_with("did you mean `title`?"), "{e:?}");
        let e = compile(
            "p.toml",
            &format!("{HEAD}{CHECK}").replace("\"site\"", "\"Site\""),
        )
        .unwrap_err();
        assert_eq!(e[0].at, Some(Position { line: 2, column: 8 }), "{e:?}");
    }
}
