//! Runs the selected checks concurrently, turning a panic inside a check into that check's
//! `error` finding, and stamping every finding with its check's id, category and duration.

use crate::checks::{self, Check, Ctx};
use crate::config::Profile;
use crate::report::{Finding, Status};
// A check's panic must unwind to `catch_unwind` below; with panic=abort one bad input would
// kill the whole run instead of becoming that check's `error` finding.
#[cfg(panic = "abort")]
compile_error!("rocm-doctor needs panic=unwind: the runner turns check panics into findings");

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// The checks `--only` / `--skip` select, in documentation order.
pub fn selected_checks(only: &[String], skip: &[String]) -> Vec<Check> {
    checks::registry()
        .into_iter()
        .filter(|c| checks::selected(&c.doc.id, only, skip))
        .collect()
}

/// Runs `checks` with one thread each and returns their findings in registry order.
pub fn run_checks(ctx: &Ctx, list: &[Check]) -> Vec<Finding> {
    in_threads(list, |c| {
        let mut findings = guarded(&c.doc.id, &c.doc.category, || (c.run)(ctx));
        if ctx.cfg.profile == Profile::Build && c.doc.category == "gpu" {
            for f in &mut findings {
                if f.status == Status::Fail {
                    // Defence in depth: GPU checks must not fail a build profile.
                    f.status = Status::Skip;
                }
            }
        }
        findings
    })
}

/// Runs `f` for every item, one thread each, and returns the findings in item order.
pub fn in_threads<T: Sync>(items: &[T], f: impl Fn(&T) -> Vec<Finding> + Sync) -> Vec<Finding> {
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
pub fn guarded(id: &str, category: &str, run: impl FnOnce() -> Vec<Finding>) -> Vec<Finding> {
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
            vec![Finding::error(format!("the check crashed: {msg}"))
                .fix_text("This is a bug in rocm-doctor; please report it with the output of `rocm-doctor -v --json`.")]
        }
    };
    for f in &mut findings {
        f.id = id.to_string();
        f.category = category.to_string();
        f.duration_ms = ms;
    }
    findings
}
