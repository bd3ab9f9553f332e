//! Fleet use: the stack fingerprint in every report, and `rocm-doctor merge`, which folds many
//! reports into one summary. `doc` (fields read), `summary` (pure fold), `input` (files,
//! directories, streams), `render` (human view), `baseline` (golden-node drift, for one
//! report and for `merge --baseline`); this file only does the I/O around them.

pub(crate) mod baseline;
pub mod doc;
pub use crate::report::fingerprint;
pub mod input;
pub(crate) mod render;
pub mod summary;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use summary::Summary;

/// Files larger than this are noted, not read.
const MAX_FILE_BYTES: u64 = 256 << 20;

/// The inputs of `rocm-doctor merge` (`commands::merge`): the files named and the `.json`
/// files of the directories named (sorted), and whether `-` (standard input) is one. A
/// directory that cannot be listed is noted in `sum`.
pub(crate) fn list_inputs(inputs: &[PathBuf], sum: &mut Summary) -> (Vec<PathBuf>, bool) {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stdin = false;
    for p in inputs {
        if p.as_os_str() == "-" {
            stdin = true;
        } else if p.is_dir() {
            match std::fs::read_dir(p) {
                Ok(rd) => {
                    let mut v: Vec<PathBuf> = rd
                        .filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|f| f.extension().is_some_and(|x| x == "json") && f.is_file())
                        .collect();
                    v.sort();
                    files.extend(v);
                }
                Err(e) => sum.note(
                    doc::Problem::Missing,
                    &p.display().to_string(),
                    None,
                    e.to_string(),
                ),
            }
        } else {
            files.push(p.clone());
        }
    }
    (files, stdin)
}

/// `--expect FILE`: host names, one per line or separated by spaces/commas.
pub(crate) fn read_expect(p: &Path) -> Result<Vec<String>, String> {
    let bytes = crate::host::open::open_argument(p)?
        .read_capped(MAX_FILE_BYTES)
        .map_err(|e| format!("{}: {e}", p.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

fn fold_file(sum: &mut Summary, f: &Path) {
    let src = f.display().to_string();
    let host = input::host_from_file(f);
    // Issue 25, item 5: opened without blocking and read through the descriptor, a regular
    // file only (a FIFO or a device named as an input would hang or never end), capped.
    let opened = match crate::host::open::open_regular(f, crate::host::open::FinalLink::Follow) {
        Ok(o) => o,
        Err(e) => {
            sum.note(
                doc::Problem::Missing,
                &src,
                host.as_deref(),
                crate::host::io_error_text(&e),
            );
            return;
        }
    };
    if opened.meta.len() > MAX_FILE_BYTES {
        sum.note(
            doc::Problem::Corrupt,
            &src,
            host.as_deref(),
            format!("{} bytes: larger than {MAX_FILE_BYTES}", opened.meta.len()),
        );
        return;
    }
    match opened.read_capped(MAX_FILE_BYTES) {
        Ok(bytes) => input::fold_bytes(sum, &bytes, &src, host.as_deref()),
        Err(e) => sum.note(doc::Problem::Corrupt, &src, host.as_deref(), e.to_string()),
    }
}

/// Folds files on every core: each worker keeps its own summary; they are absorbed at the
/// end, and a host reported twice keeps the report first in `files` order whichever worker
/// read it. With a baseline, every report is compared with it.
pub(crate) fn fold_files(files: &[PathBuf], base: Option<&Arc<serde_json::Value>>) -> Summary {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let parts: Vec<Summary> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut sum = Summary::with_baseline(base.cloned());
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = files.get(i) else { break };
                        sum.input = i;
                        fold_file(&mut sum, f);
                    }
                    sum
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut all = Summary::with_baseline(base.cloned());
    for p in parts {
        all.absorb(p);
    }
    all
}
