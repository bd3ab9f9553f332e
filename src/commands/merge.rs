//! `rocm-doctor merge REPORT|DIR|- ... [--expect FILE] [--baseline GOOD.json]`: many nodes'
//! `--json` reports folded into one fleet summary (`fleet`).

use super::Outcome;
use crate::fleet::{baseline, input, render, summary::Summary};
use crate::report;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) fn main(
    inputs: &[PathBuf],
    expect: Option<&Path>,
    baseline_file: Option<&Path>,
    json: bool,
) -> Outcome {
    let base = match baseline_file.map(baseline::read).transpose() {
        Ok(b) => b.map(Arc::new),
        Err(e) => return super::scoped("merge", format!("--baseline: {e}")),
    };
    let mut sum = Summary::with_baseline(base.clone());
    let (files, stdin) = crate::fleet::list_inputs(inputs, &mut sum);
    let expected = match expect.map(crate::fleet::read_expect).transpose() {
        Ok(e) => e,
        Err(e) => return super::scoped("merge", format!("--expect: {e}")),
    };
    sum.absorb(crate::fleet::fold_files(&files, base.as_ref()));
    if stdin {
        // Standard input comes after every file in input order (a host reported in both keeps
        // the file's report).
        sum.input = files.len();
        let lock = std::io::stdin().lock();
        input::fold_lines(&mut sum, std::io::BufReader::new(lock), "-");
    }
    if let Some(hosts) = expected {
        sum.expect(&hosts);
    }
    let r = sum.finish();
    let code = r.exit_code();
    Ok(if json {
        report::write_stdout(report::Output::Json(&r), code)
    } else {
        // Host names and summaries come from other machines' reports.
        super::print_visible(&render::render(&r), code)
    })
}
