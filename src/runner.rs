//! The machinery the check engine (`registry::run`) runs every check with: one thread per
//! check, a panic inside a check turned into that check's `error` finding, and every finding
//! stamped with its check's id, category and duration.

use crate::report::Finding;
// A check's panic must unwind to `catch_unwind` below; with panic=abort one bad input would
// kill the whole run instead of becoming that check's `error` finding.
#[cfg(panic = "abort")]
compile_error!("rocm-doctor needs panic=unwind: the runner turns check panics into findings");

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// Runs `f` for every item, one thread each, and returns the findings in item order.
pub(crate) fn in_threads<T: Sync>(
    items: &[T],
    f: impl Fn(&T) -> Vec<Finding> + Sync,
) -> Vec<Finding> {
    let f = &f;
    let results: Vec<Vec<Finding>> = std::thread::scope(|s| {
        let handles: Vec<_> = items.iter().map(|i| s.spawn(move || f(i))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec![Finding::error("the check's thread died")])
            })
            .collect()
    });
    results.into_iter().flatten().collect()
}

/// Runs one check's body: a panic or an empty answer becomes an `error` finding; every
/// finding is stamped with the check's id, category and duration. Built-in and pack checks
/// both run through here.
pub(crate) fn guarded(
    id: &str,
    category: &str,
    run: impl FnOnce() -> Vec<Finding>,
) -> Vec<Finding> {
    let start = Instant::now();
    let out = catch_unwind(AssertUnwindSafe(run));
    let ms = start.elapsed().as_millis() as u64;
    let mut findings = match out {
        Ok(v) if !v.is_empty() => v,
        Ok(_) => vec![Finding::error(
            "the check returned no verdict (a bug in rocm-doctor)",
        )],
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            vec![
                Finding::error(format!("the check crashed: {msg}")).fix_text(
                    "This is a bug in rocm-doctor; please report it with the output of \
                    `rocm-doctor -v --json`.",
                ),
            ]
        }
    };
    stamp(&mut findings, id, category, ms);
    findings
}

/// Writes a check's id, family and duration on its findings: the one place a finding gets its
/// id in a run (a check never writes its own; the Rust checks' ids are their `CheckId`s, given
/// by the registry, a pack check's its pack's).
pub(crate) fn stamp(findings: &mut [Finding], id: &str, category: &str, ms: u64) {
    for f in findings {
        f.id = id.to_string();
        f.category = category.to_string();
        f.duration_ms = ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_gives_every_finding_its_checks_id_whatever_the_check_wrote() {
        let f = guarded("gpu.kfd", "gpu", || {
            let mut own = Finding::pass("ok");
            own.id = "libs.other".into();
            own.category = "libs".into();
            vec![own, Finding::warn("two")]
        });
        assert_eq!(f.len(), 2);
        for x in &f {
            assert_eq!((x.id.as_str(), x.category.as_str()), ("gpu.kfd", "gpu"));
        }
        // A panic or no verdict is the check's own error, under its id.
        let p = guarded("asm.caps", "asm", || panic!("boom"));
        assert_eq!(p[0].id, "asm.caps");
        assert!(p[0].summary.contains("boom"), "{}", p[0].summary);
        let none = guarded("asm.caps", "asm", Vec::new);
        assert_eq!((none.len(), none[0].id.as_str()), (1, "asm.caps"));
    }
}
