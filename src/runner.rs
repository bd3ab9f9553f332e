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
    let results: Vec<Vec<Finding>> = std::thread::scope(|s| {
        let handles: Vec<_> = list
            .iter()
            .map(|c| {
                let c = *c;
                s.spawn(move || run_one(ctx, c))
            })
            .collect();
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

fn run_one(ctx: &Ctx, c: Check) -> Vec<Finding> {
    let start = Instant::now();
    let out = catch_unwind(AssertUnwindSafe(|| (c.run)(ctx)));
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
        f.id = c.doc.id.clone();
        f.category = c.doc.category.clone();
        f.duration_ms = ms;
        if ctx.cfg.profile == Profile::Build && f.status == Status::Fail && c.doc.category == "gpu"
        {
            // Defence in depth: GPU checks must not fail a build profile.
            f.status = Status::Skip;
        }
    }
    findings
}
