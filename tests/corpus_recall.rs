//! The symptom corpus (`tests/corpus/*.toml`): real texts from public threads whose cause was
//! confirmed there, each with its link. Every case is judged by the same code `rocm-doctor
//! why` runs (`packs::why::recognise` over the built-in packs), text only: what the machine
//! adds is tested in tests/why_cli.rs. Prints recall and precision per file and in all, and
//! fails below the bar; every symptom that names a cause must be shown by at least one real
//! case (no symptom is written for a text nobody pasted).

use rocm_doctor::packs::{causes, sources, why};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The share of all cases whose confirmed cause must come first from the text alone (a floor
/// against regressions at the value reached: 148 of 166; issue 19's goal was 90%). It was 150 of
/// 165 until issue 28 made three cases say what their threads say: TheRock#1258 now carries the
/// thread's own text (its traceback came from a sibling pull request, now a case of its own),
/// nixpkgs#207109's fix that worked was a kernel update, and ollama#11555's reporter says it works
/// (harmless); `why` does not yet answer any of the three.
const MIN_RECALL: f64 = 0.891;
/// The share of recognised cases whose first answer must be the confirmed cause.
const MIN_PRECISION: f64 = 0.90;
/// The share of all cases answered right once the machine is asked: the cause first, or, when
/// the case says only the machine can tell (`machine_dependent`), among the candidates whose
/// checks `why` runs (the machine then confirms one of them). At the value reached, 154 of 166
/// (156 of 165 before the three relabels above).
const MIN_DECIDABLE: f64 = 0.927;

/// How a case's cause was confirmed in its thread: by a maintainer, by a merged fix, by the fix
/// that worked for the person whose text it is, or `likely`: the best reading of the thread,
/// confirmed by nobody.
const CONFIRMED: &[&str] = &["maintainer", "merged-fix", "reporter-fix", "likely"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // every field is part of the format; not all are judged here
struct Case {
    id: String,
    source: String,
    confirmed: String,
    confirmed_where: String,
    /// Who wrote `text`: `user` (a user's paste) or `maintainer` (a maintainer's reproduction);
    /// absent means unknown (not yet read against its thread).
    #[serde(default)]
    author: Option<String>,
    cause: String,
    #[serde(default)]
    also: Vec<String>,
    machine_dependent: bool,
    harmless: bool,
    summary: String,
    fix: String,
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    case: Vec<Case>,
}

fn corpus() -> Vec<(String, Vec<Case>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).unwrap();
            let f: File = rocm_doctor::data::load(&name, &text).unwrap_or_else(|e| panic!("{e}"));
            (name, f.case)
        })
        .collect()
}

#[test]
fn every_case_is_well_formed() {
    let mut ids = std::collections::HashSet::new();
    for (file, cases) in corpus() {
        for c in &cases {
            assert!(ids.insert(c.id.clone()), "{file}: id {} twice", c.id);
            for k in std::iter::once(&c.cause).chain(&c.also) {
                assert!(
                    causes::get(k).is_some(),
                    "{file}: case {}: no cause '{k}' in checks/causes.toml",
                    c.id
                );
            }
            assert!(
                c.source.starts_with("https://"),
                "{file}: case {} has no link",
                c.id
            );
            assert!(
                CONFIRMED.contains(&c.confirmed.as_str()),
                "{file}: case {}: confirmed = {}",
                c.id,
                c.confirmed
            );
            assert!(
                c.author
                    .as_deref()
                    .is_none_or(|a| ["user", "maintainer"].contains(&a)),
                "{file}: case {}: author = {:?}",
                c.id,
                c.author
            );
            assert_eq!(
                c.harmless,
                causes::get(&c.cause).is_some_and(|x| x.harmless),
                "{file}: case {}: harmless must follow its cause",
                c.id
            );
            assert!(
                !c.text.trim().is_empty(),
                "{file}: case {} has no text",
                c.id
            );
        }
    }
    assert!(ids.len() >= 150, "the corpus holds {} cases", ids.len());
}

#[derive(Default)]
struct Tally {
    cases: usize,
    recognised: usize,
    first: usize,
    anywhere: usize,
    decidable: usize,
}

impl Tally {
    fn add(&mut self, o: &Outcome) {
        self.cases += 1;
        self.recognised += usize::from(o.recognised);
        self.first += usize::from(o.first);
        self.anywhere += usize::from(o.anywhere);
        self.decidable += usize::from(o.decidable);
    }

    fn row(&self, name: &str) {
        println!(
            "{name:<24} {:>5}  {:>10}  {:>11}  {:>12}  {:>9}",
            self.cases, self.recognised, self.first, self.anywhere, self.decidable
        );
    }

    /// (recall, precision, decidable) as fractions.
    fn rates(&self) -> (f64, f64, f64) {
        (
            self.first as f64 / self.cases.max(1) as f64,
            self.first as f64 / self.recognised.max(1) as f64,
            self.decidable as f64 / self.cases.max(1) as f64,
        )
    }
}

/// What `why` made of one case's text.
struct Outcome {
    recognised: bool,
    first: bool,
    anywhere: bool,
    decidable: bool,
}

#[test]
fn recall_and_precision_over_the_corpus() {
    let set = sources::built_in();
    let mut per_file: BTreeMap<String, Tally> = BTreeMap::new();
    // The cases whose cause somebody confirmed (`confirmed` is not `likely`).
    let mut confirmed = Tally::default();
    let mut misses = Vec::new();
    let mut wrong = Vec::new();
    let mut shown_by: BTreeMap<String, usize> = BTreeMap::new();
    for (file, cases) in corpus() {
        let t = per_file.entry(file.clone()).or_default();
        for c in &cases {
            for h in why::candidates(&set, &c.text) {
                *shown_by.entry(h.symptom.id.clone()).or_default() += 1;
            }
            let hits = why::recognise(&set, &c.text);
            let classes: Vec<&str> = hits
                .iter()
                .filter_map(|h| h.symptom.class.as_deref())
                .collect();
            let first = classes.first() == Some(&c.cause.as_str());
            let anywhere = classes.contains(&c.cause.as_str());
            let o = Outcome {
                recognised: !hits.is_empty(),
                first,
                anywhere,
                decidable: first || (c.machine_dependent && anywhere),
            };
            t.add(&o);
            if c.confirmed != "likely" {
                confirmed.add(&o);
            }
            if hits.is_empty() {
                misses.push(format!("{file}: {} ({})", c.id, c.cause));
            } else if !first {
                wrong.push(format!(
                    "{file}: {} ({}): first {} [{}]",
                    c.id,
                    c.cause,
                    hits[0].symptom.id,
                    classes.join(", ")
                ));
            }
        }
    }
    let mut all = Tally::default();
    println!("corpus file              cases  recognised  cause first  cause listed  decidable");
    for (f, t) in &per_file {
        t.row(f);
        all.cases += t.cases;
        all.recognised += t.recognised;
        all.first += t.first;
        all.anywhere += t.anywhere;
        all.decidable += t.decidable;
    }
    all.row("all");
    confirmed.row("confirmed (not likely)");
    let (recall, precision, decidable) = all.rates();
    for (name, t) in [("all cases", &all), ("confirmed cases", &confirmed)] {
        let (r, p, d) = t.rates();
        println!(
            "{name}: recall (cause first / cases) {:.1}%, precision (cause first / recognised) \
             {:.1}%, decidable with the machine {:.1}%",
            r * 100.0,
            p * 100.0,
            d * 100.0
        );
    }
    for m in &misses {
        println!("not recognised: {m}");
    }
    for w in &wrong {
        println!("wrong first:    {w}");
    }
    // Every symptom that names a cause is shown by a real case.
    let unshown: Vec<&str> = set
        .symptoms()
        .filter(|s| s.class.is_some() && !shown_by.contains_key(&s.id))
        .map(|s| s.id.as_str())
        .collect();
    assert!(
        unshown.is_empty(),
        "symptoms no real case shows: {unshown:?}"
    );
    assert!(
        recall >= MIN_RECALL && precision >= MIN_PRECISION && decidable >= MIN_DECIDABLE,
        "recall {:.1}% / precision {:.1}% / decidable {:.1}% below the bar ({:.0}% / {:.0}% / {:.0}%)",
        recall * 100.0,
        precision * 100.0,
        decidable * 100.0,
        MIN_RECALL * 100.0,
        MIN_PRECISION * 100.0,
        MIN_DECIDABLE * 100.0
    );
}
