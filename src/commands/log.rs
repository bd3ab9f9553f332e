//! `rocm-doctor log FILE|-`: summarises a HIP runtime AMD_LOG_LEVEL log (or a kernel log) with
//! `logscan`.

use super::Outcome;
use crate::config::Session;
use crate::logscan::{kernel, nodes, read, render, summary, verdict};
use crate::report::{self, exit};
use std::path::Path;

/// Exit 0: read, no failure seen; 1: the log shows a failure (fatal line, error returns with a
/// diagnosis, missing code objects that were launched); 2: the input could not be read.
pub(crate) fn main(session: &Session, path: &Path) -> Outcome {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (s, comp) = scan_with_progress(path, threads, session.json)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    // A file with no runtime line may be a kernel log (dmesg, journalctl -k, kern.log).
    if s.runtime_lines == 0 && path != Path::new("-") {
        if let Some(events) = kernel::events_of_file(path) {
            return Ok(kernel_log(session, path, &events));
        }
    }
    let mut v = verdict::judge(&s);
    if v.problems
        .iter()
        .any(|p| p.summary.starts_with("fatal: ") && verdict::fault_node(&p.summary).is_some())
    {
        // Only a ROCr node fault needs the machine: read its KFD topology (rooted at --sysroot).
        let limits = crate::host::Limits::new(
            std::time::Duration::from_secs(5),
            std::time::Duration::from_secs(10),
        );
        if let Ok(host) = session.host(limits) {
            verdict::name_nodes(&mut v, &nodes::read(&host));
        }
    }
    // A log read only in part (a truncated .gz) is summarised, but a clean verdict on it is
    // not a clean bill: exit 2 unless what was read already shows a failure.
    let code = if v.failed {
        exit::FAILED
    } else if s.read_error.is_some() {
        exit::USAGE_OR_INTERNAL
    } else {
        exit::OK
    };
    Ok(if session.json {
        let doc = render::json(&path.to_string_lossy(), comp, &s, &v, code);
        report::write_stdout(report::Output::Json(&doc), code)
    } else {
        let text = render::human(&path.to_string_lossy(), comp, &s, &v, session.verbose);
        super::print_visible(&text, code)
    })
}

/// A kernel log's events, printed; exit 1 when one is a failure.
fn kernel_log(session: &Session, path: &Path, events: &[kernel::Reported]) -> i32 {
    let code = if events.iter().any(|r| r.failure) {
        exit::FAILED
    } else {
        exit::OK
    };
    let name = path.to_string_lossy();
    if session.json {
        report::write_stdout(
            report::Output::Json(&kernel::json(&name, events, code)),
            code,
        )
    } else {
        super::print_visible(&kernel::human(&name, events, session.verbose), code)
    }
}

/// [`read::scan_path`], with a progress line on a terminal's stderr while it runs (never with
/// `--json`, never when stderr is a pipe or a file).
fn scan_with_progress(
    path: &Path,
    threads: usize,
    json: bool,
) -> std::io::Result<(summary::Summary, read::Compression)> {
    use std::sync::atomic::Ordering;
    let mut progress = crate::report::progress::Progress::for_run(json);
    if !progress.enabled() {
        return read::scan_path(path, threads);
    }
    let total = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let start = read::READ_BYTES.load(Ordering::Relaxed);
    std::thread::scope(|sc| {
        let h = sc.spawn(|| read::scan_path(path, threads));
        loop {
            let done = read::READ_BYTES
                .load(Ordering::Relaxed)
                .saturating_sub(start);
            progress.tick(|| match total {
                Some(t) if t > 0 => format!(
                    "log: {} of {} MiB read ({}%)",
                    done >> 20,
                    t >> 20,
                    (done.min(t) * 100) / t
                ),
                _ => format!("log: {} MiB read", done >> 20),
            });
            if h.is_finished() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        progress.clear();
        h.join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the log reader panicked")))
    })
}
