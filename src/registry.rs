//! One registry for every check, whatever it is written in: the Rust checks (`src/checks/`,
//! documented in `checks/<family>.toml`) and the pack checks (`checks/packs/*.toml`, the known
//! issues, site packs). Listing, `explain`, `--only`/`--skip` validation, the generated
//! `docs/checks.md` and the run itself all go through it, so no kind of check is left out of
//! one of them. The engine, not each check, applies the rules every check obeys: one guarded
//! thread per check, and the `build` profile turning a failure of a check that needs GPU
//! hardware into a skip (absent hardware is never a failure on a build machine).

pub mod sources;

use crate::checks::{self, CheckDoc, CheckFn, Ctx};
use crate::config::Profile;
use crate::packs::{self, Loaded, Origin, PackSet};
use crate::report::{Finding, Status};

/// The families that judge GPU hardware (absent hardware is never a failure in `build`).
const HARDWARE: &[&str] = &["gpu", "health", "kernel"];

/// How a check is implemented.
pub(crate) enum Engine<'a> {
    Rust(CheckFn),
    Pack(&'a packs::Check),
}

/// One check of the registry.
pub(crate) struct Entry<'a> {
    pub doc: &'a CheckDoc,
    /// The pack it comes from (`None` for the Rust checks).
    pub origin: Option<&'a Origin>,
    pub engine: Engine<'a>,
}

impl Entry<'_> {
    pub(crate) fn id(&self) -> &str {
        &self.doc.id
    }
    pub(crate) fn category(&self) -> &str {
        &self.doc.category
    }
    /// It judges GPU hardware: the `gpu` family, and pack checks that run only with a GPU.
    pub(crate) fn needs_gpu(&self) -> bool {
        match &self.engine {
            Engine::Rust(_) => HARDWARE.contains(&self.category()),
            Engine::Pack(c) => c.when.gpu == Some(true) || HARDWARE.contains(&self.category()),
        }
    }
}

/// Every check of a run, Rust checks first (in documentation order), then the packs' in load
/// order, and the packs that failed to load.
pub(crate) struct Registry<'a> {
    pub entries: Vec<Entry<'a>>,
    pub broken: Vec<(&'a Origin, &'a [crate::data::DataError])>,
}

impl<'a> Registry<'a> {
    pub(crate) fn new(packs: &'a PackSet) -> Self {
        let mut entries: Vec<Entry<'a>> = checks::registry()
            .into_iter()
            .map(|c| Entry {
                doc: c.doc,
                origin: None,
                engine: Engine::Rust(c.run),
            })
            .collect();
        entries.extend(packs.checks().map(|(origin, c)| Entry {
            doc: &c.doc,
            origin: Some(origin),
            engine: Engine::Pack(c),
        }));
        let broken = packs
            .loaded
            .iter()
            .filter_map(|l| match l {
                Loaded::Broken { origin, errors } => Some((origin, errors.as_slice())),
                Loaded::Ok { .. } => None,
            })
            .collect();
        Registry { entries, broken }
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Entry<'a>> {
        self.entries.iter().find(|e| e.id() == id)
    }

    /// Every id, the load-error finding's included.
    pub(crate) fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .map(Entry::id)
            .chain(std::iter::once(packs::LOAD_ERROR_ID))
    }

    /// `Err` naming the first `--only`/`--skip` pattern that selects nothing, with the nearest
    /// id when one is close.
    pub(crate) fn validate_selection(&self, patterns: &[String]) -> Result<(), String> {
        for pat in patterns {
            if !self
                .ids()
                .any(|id| checks::selected(id, std::slice::from_ref(pat), &[]))
            {
                let ids: Vec<&str> = self.ids().collect();
                let hint = crate::data::hint(pat, &ids);
                return Err(format!(
                    "no check matches '{pat}' (see --list-checks){hint}"
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn selected(&self, only: &[String], skip: &[String]) -> Vec<&Entry<'a>> {
        self.entries
            .iter()
            .filter(|e| checks::selected(e.id(), only, skip))
            .collect()
    }

    /// `--list-checks`: id, category, title, and where a pack check comes from.
    pub(crate) fn listing(&self) -> String {
        let mut s = String::new();
        for e in &self.entries {
            match e.origin {
                None => s.push_str(&format!(
                    "{:<32} {:<10} {}\n",
                    e.id(),
                    e.category(),
                    e.doc.title
                )),
                Some(o) => s.push_str(&format!(
                    "{:<32} {:<10} {} [{o}]\n",
                    e.id(),
                    e.category(),
                    e.doc.title
                )),
            }
        }
        for (origin, errors) in &self.broken {
            s.push_str(&format!(
                "{:<32} {:<10} NOT LOADED: {origin}: {}\n",
                packs::LOAD_ERROR_ID,
                "packs",
                errors.first().map(|e| e.to_string()).unwrap_or_default()
            ));
        }
        s
    }

    /// docs/checks.md: every check's documentation, Rust and pack checks alike, by category.
    pub(crate) fn markdown(&self) -> String {
        let mut s = String::from(
            "# Checks reference\n\nGenerated by `rocm-doctor docs-checks` from `checks/*.toml` \
                and the built-in check packs (`checks/packs/*.toml`, `checks/known-issues.toml`); \
                do not edit by hand.\n",
        );
        let mut cats: Vec<&str> = Vec::new();
        for e in &self.entries {
            if !cats.contains(&e.category()) {
                cats.push(e.category());
            }
        }
        for cat in cats {
            s.push_str(&format!("\n## {cat}\n"));
            for e in self.entries.iter().filter(|e| e.category() == cat) {
                let d = e.doc;
                s.push_str(&format!("\n### `{}`: {}\n\n", d.id, d.title));
                if let Some(o) = e.origin {
                    s.push_str(&format!("*Check pack:* `{o}`.\n\n"));
                }
                s.push_str(&format!(
                    "**What it checks.** {}\n\n**Why it matters.** {}\n\n**How to fix.** {}\n",
                    d.what.trim(),
                    d.why.trim(),
                    d.fix.trim()
                ));
                s.push_str(&format!(
                    "\n**Repair action.** `{}`: {}.\n",
                    d.action,
                    d.action.meaning()
                ));
                if !d.sources.is_empty() {
                    s.push_str("\n**Sources.**\n");
                    for src in &d.sources {
                        s.push_str(&format!("- {src}\n"));
                    }
                }
            }
        }
        s
    }
}

/// Runs the selected checks, one guarded thread each, and applies the profile rule to all of
/// them alike.
pub(crate) fn run(ctx: &Ctx, selected: &[&Entry]) -> Vec<Finding> {
    crate::runner::in_threads(selected, |e| {
        let mut findings = crate::runner::guarded(e.id(), e.category(), || match &e.engine {
            Engine::Rust(f) => f(ctx),
            Engine::Pack(c) => {
                let on = packs::probe::Machine {
                    host: ctx.host,
                    inv: ctx.inv,
                    cfg: ctx.cfg,
                };
                packs::probe::run_check(&on, c)
            }
        });
        if ctx.cfg.profile == Profile::Build && e.needs_gpu() {
            for f in &mut findings {
                if f.status == Status::Fail {
                    f.status = Status::Skip;
                }
            }
        }
        stamp_actions(&mut findings, e.doc.action);
        findings
    })
}

/// A repair action on every warn and fail finding (the check's default unless the finding
/// names its own), none on the others: a pass, a skip or the doctor's own error asks nothing
/// of the node.
pub(crate) fn stamp_actions(findings: &mut [Finding], default: crate::report::Action) {
    for f in findings {
        if matches!(f.status, Status::Warn | Status::Fail) {
            f.action.get_or_insert(default);
        } else {
            f.action = None;
        }
    }
}

/// Applies the site policy's rules to a run's findings (docs/fleet.md, "Site policy"): a
/// warning or failure an `[[ignore]]` matches becomes a skip, an `[[override]]` gives its
/// severity and action (the last matching rule wins). Passes, skips and the doctor's own
/// errors are never changed: a policy may quiet or escalate a problem, not invent one or hide
/// that the doctor could not decide. Each change is said in the finding's evidence.
pub(crate) fn apply_policy(findings: &mut [Finding], policy: &crate::policy::Policy) {
    use crate::policy::Severity;
    let origin = policy
        .source
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "the site policy".into());
    for f in findings {
        if !matches!(f.status, Status::Warn | Status::Fail) {
            continue;
        }
        let (event, subject) = (f.event.as_deref(), f.subject.as_deref());
        if let Some(rule) = policy
            .ignore
            .iter()
            .rev()
            .find(|r| r.matching().matches(&f.id, event, subject))
        {
            let was = f.status;
            f.status = Status::Skip;
            f.action = None;
            f.evidence.push(format!(
                "ignored by {origin} (was {}): {}",
                was.as_str(),
                rule.reason.trim()
            ));
            continue;
        }
        let Some(rule) = policy
            .overrides
            .iter()
            .rev()
            .find(|r| r.matching().matches(&f.id, event, subject))
        else {
            continue;
        };
        let mut said = Vec::new();
        if let Some(s) = rule.status {
            let to = match s {
                Severity::Pass => Status::Pass,
                Severity::Warn => Status::Warn,
                Severity::Fail => Status::Fail,
            };
            if to != f.status {
                said.push(format!("status {} -> {}", f.status.as_str(), to.as_str()));
                f.status = to;
            }
        }
        if f.status == Status::Pass {
            f.action = None;
        } else if let Some(a) = rule.action {
            if f.action != Some(a) {
                let from = f.action.map_or("none", |a| a.as_str());
                said.push(format!("action {from} -> {a}"));
                f.action = Some(a);
            }
        }
        if !said.is_empty() {
            let why = rule
                .reason
                .as_deref()
                .map(|r| format!(": {}", r.trim()))
                .unwrap_or_default();
            f.evidence
                .push(format!("overridden by {origin} ({}){why}", said.join(", ")));
        }
    }
}

/// The findings of packs that failed to load (`packs.load`, when selected).
pub(crate) fn load_errors(reg: &Registry, only: &[String], skip: &[String]) -> Vec<Finding> {
    if !checks::selected(packs::LOAD_ERROR_ID, only, skip) {
        return Vec::new();
    }
    let mut findings = reg
        .broken
        .iter()
        .map(|(origin, errors)| {
            Finding::error(format!("check pack {origin} was not loaded"))
                .subject(origin.to_string())
                .evidence_lines(errors.iter().map(|e| e.to_string()))
                .fix_text(format!(
                    "Fix the file (`rocm-doctor checks lint {origin}` shows every \
                    problem) or remove it; the other checks ran."
                ))
        })
        .collect::<Vec<_>>();
    crate::runner::stamp(&mut findings, packs::LOAD_ERROR_ID, "packs", 0);
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scaffold (`scripts/new-check.sh`, Rust or pack) says TODO until written: no built-in
    /// check, whatever its engine, may ship with it, and every one has its three docs.
    #[test]
    fn every_built_in_check_is_documented_and_none_says_todo() {
        let packs = sources::built_in();
        let reg = Registry::new(&packs);
        assert!(reg.broken.is_empty(), "a built-in pack does not load");
        assert!(reg.entries.len() > 40);
        for e in &reg.entries {
            let d = e.doc;
            for text in [&d.title, &d.what, &d.why, &d.fix] {
                assert!(!text.trim().is_empty(), "{}: empty doc", d.id);
                assert!(!text.contains("TODO"), "{}: the doc still says TODO", d.id);
            }
            assert!(d.id.starts_with(&format!("{}.", d.category)), "{}", d.id);
        }
    }

    /// The keys whose strings are prose for a reader (docs, rule messages, symptom answers,
    /// known issues, causes); ids in `id`, `checks` and `rule_out_by` are checked by their loaders.
    const PROSE_KEYS: &[&str] = &[
        "title",
        "what",
        "why",
        "fix",
        "message",
        "text",
        "cause",
        "description",
        "diagnosis",
        "symptom",
        "note",
    ];

    /// The `family.name` tokens in the prose strings of `v` that no id of `known` is.
    fn unknown_mentions(
        v: &toml::Value,
        key: &str,
        families: &[&str],
        known: &[&str],
    ) -> Vec<String> {
        match v {
            toml::Value::String(s) if PROSE_KEYS.contains(&key) => {
                crate::checkdoc::mentioned_ids(s, families)
                    .into_iter()
                    .filter(|t| !known.contains(t))
                    .map(str::to_string)
                    .collect()
            }
            toml::Value::Array(a) => a
                .iter()
                .flat_map(|x| unknown_mentions(x, key, families, known))
                .collect(),
            toml::Value::Table(t) => t
                .iter()
                .flat_map(|(k, x)| unknown_mentions(x, k, families, known))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every check id that prose in `checks/` mentions (`see gpu.kfd`) is a registered check,
    /// Rust or pack: a renamed check cannot leave a dangling reference in a doc, a rule's
    /// message, a symptom's answer or a known issue.
    #[test]
    fn every_check_id_mentioned_in_the_docs_prose_is_registered() {
        let packs = sources::built_in();
        let reg = Registry::new(&packs);
        let known: Vec<&str> = reg.ids().collect();
        let mut families: Vec<&str> = crate::checkdoc::Category::ALL
            .iter()
            .map(|c| c.as_str())
            .collect();
        for id in &known {
            let f = id.split_once('.').map_or(*id, |(f, _)| f);
            if !families.contains(&f) {
                families.push(f);
            }
        }
        // The packs' namespaces count (pytorch.rocm-arch, known-issues.*).
        assert!(families.contains(&"pytorch") && families.contains(&"known-issues"));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["checks", "checks/packs"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "toml") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 15, "{files:?}");
        let mut mentions = 0;
        for p in &files {
            let text = std::fs::read_to_string(p).unwrap();
            let name = p.strip_prefix(root).unwrap().display().to_string();
            let v: toml::Value = crate::data::load(&name, &text).unwrap();
            mentions += crate::checkdoc::mentioned_ids(&text, &families).len();
            let bad = unknown_mentions(&v, "", &families, &known);
            assert!(
                bad.is_empty(),
                "{name} mentions checks that do not exist: {bad:?}"
            );
        }
        assert!(
            mentions > 100,
            "the scan finds the ids the files mention ({mentions})"
        );
    }

    #[test]
    fn a_misspelt_mention_is_caught() {
        let v: toml::Value = crate::data::load(
            "t.toml",
            "[[check]]\nid = \"gpu.kfdx\"\nfix = \"see gpu.kfd and \
                gpu.rendr\"\n[[symptom]]\ncause = \"toolchain.clang; pytorch.rocm-archh\"\n",
        )
        .unwrap();
        let fams = ["gpu", "toolchain", "pytorch"];
        let known = ["gpu.kfd", "toolchain.clang", "pytorch.rocm-arch"];
        // `id` is not prose: its own loader judges it.
        assert_eq!(
            unknown_mentions(&v, "", &fams, &known),
            ["gpu.rendr", "pytorch.rocm-archh"]
        );
    }
}
