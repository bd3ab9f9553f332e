//! Answers from where a line comes from (issue 28, item 1): a line attributed to a harvested
//! format (`checks/origins.toml`) whose family names a cause (`checks/origin-causes.toml`) is an
//! answer of that cause, for every tool that prints the message, whether or not a symptom was
//! ever written for its text. Pure.
//!
//! These answers read one line and what its printing code does; symptoms and the rules over
//! facts read more of the text (the GPU, the release, the platform). So they come after every
//! other answer, and add nothing when another answer already names the same cause.

use super::facts::{rule_symptom, Derived};
use super::origins::{families, table, Family};
use super::Symptom;
use std::sync::OnceLock;

/// The symptom of each family, in the table's order: id `origin.<cause>`, the cause's title,
/// the family's reason and fix, harmless when the cause is.
fn symptoms() -> &'static [Symptom] {
    static S: OnceLock<Vec<Symptom>> = OnceLock::new();
    S.get_or_init(|| families().iter().map(symptom_of).collect())
}

fn symptom_of(f: &Family) -> Symptom {
    let cause = super::causes::get(&f.cause);
    let mut s = rule_symptom(
        &format!("origin.{}", f.cause),
        cause.map_or(f.cause.as_str(), |c| c.title.as_str()),
        &f.cause,
        &f.reason,
        &f.fix,
        "the line's origin (checks/origins.toml) and its family (checks/origin-causes.toml)",
    );
    s.harmless = cause.is_some_and(|c| c.harmless);
    s
}

/// One answer per cause, from the first line of the text whose family names it.
pub(crate) fn rules(text: &str) -> Vec<Derived> {
    let fams = families();
    let mut out: Vec<Derived> = Vec::new();
    for a in table().attribute(text) {
        let Some(f) = a.cause() else { continue };
        let Some(i) = fams.iter().position(|g| std::ptr::eq(g, f)) else {
            continue;
        };
        if out
            .iter()
            .any(|d| d.symptom.class.as_deref() == Some(&f.cause))
        {
            continue;
        }
        out.push(Derived::reasoned(
            &symptoms()[i],
            a.line.chars().take(300).collect(),
            format!(
                "line {} is printed by {}: {} (from the text; this machine was not asked)",
                a.line_no,
                a.printed_by(),
                f.reason
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::why::recognise;
    use super::*;
    use crate::registry::sources;

    fn answer(text: &str) -> Vec<(String, String)> {
        recognise(&sources::built_in(), text)
            .iter()
            .map(|h| {
                let class = h.symptom.class.clone().unwrap_or_default();
                (h.symptom.id.clone(), class)
            })
            .collect()
    }

    /// rocBLAS's "Cannot read" with an ISA the symptoms do not name: the family answers.
    /// The line as ollama's Windows build printed it (ollama/ollama#3107, in tests/corpus).
    #[test]
    fn a_line_of_a_family_is_an_answer_of_its_cause() {
        let t = "rocBLAS error: Cannot read C:\\Users\\user\\AppData\\Local\\Programs\\Ollama\\\
                 rocm\\/rocblas/library/TensileLibrary.dat: No such file or directory for GPU \
                 arch : gfx1032.\n";
        let d = rules(t);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].symptom.id, "origin.lib-rocblas-data");
        let why = d[0].reasoning();
        assert!(why.contains("tensile_host.cpp"), "{why}");
        assert!(answer(t).iter().any(|(_, c)| c == "lib-rocblas-data"));
    }

    /// The part of the line the format leaves open decides: rocminfo's `/dev/kfd` open failing
    /// with EINVAL is not a permission (rocminfo.cc prints the errno's text).
    #[test]
    fn the_open_part_of_the_line_decides_the_family() {
        let denied = "Unable to open /dev/kfd read-write: Permission denied\n";
        assert_eq!(rules(denied).len(), 1);
        assert_eq!(rules(denied)[0].symptom.id, "origin.gpu-kfd-permission");
        let invalid = "Unable to open /dev/kfd read-write: Invalid argument\n";
        assert!(rules(invalid).is_empty());
    }

    /// An answer that reads more of the text keeps its place; the family's answer of another
    /// cause follows it, and one of the same cause adds nothing.
    #[test]
    fn family_answers_come_after_the_answers_that_read_more() {
        let t = "ROCk module is NOT loaded, possibly no GPU devices\n\
                 hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n";
        let a = answer(t);
        assert!(!a.is_empty());
        let fam: Vec<usize> = a
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| id.starts_with("origin."))
            .map(|(i, _)| i)
            .collect();
        let others = a.len() - fam.len();
        assert!(fam.iter().all(|&i| i >= others), "{a:?}");
        let mut classes: Vec<&str> = a.iter().map(|(_, c)| c.as_str()).collect();
        let n = classes.len();
        classes.sort();
        classes.dedup();
        assert_eq!(classes.len(), n, "one answer per cause: {a:?}");
    }

    /// A harmless family (MIOpen compiling the kernels it has no database for) is harmless.
    #[test]
    fn a_harmless_cause_stays_harmless() {
        for (f, s) in families().iter().zip(symptoms()) {
            let harmless = super::super::causes::get(&f.cause).is_some_and(|c| c.harmless);
            assert_eq!(s.harmless, harmless, "{}", f.contains);
            assert!(!s.fix.trim().is_empty(), "{} has no fix", f.contains);
        }
        assert!(symptoms().iter().any(|s| s.harmless));
    }
}

/// The families of the libraries and applications (rocBLAS, hipBLASLt, MIOpen, ollama), each
/// against lines their programs printed in public threads.
#[cfg(test)]
mod library_families;
