//! `rocm-doctor log FILE|-`: summarises a HIP runtime AMD_LOG_LEVEL log in one streaming pass.
//!
//! `line` parses the prefix, `msg` recognises messages, `summary` folds them (bounded), `read`
//! does the I/O (compression, parallel regions), `verdict` attaches the doctor's knowledge,
//! `render` prints. Formats and sources: docs/log.md.

pub mod gen;
pub mod kernel;
pub mod nodes;
pub mod read;
pub mod render;
pub mod verdict;

// The pure parsers (line prefixes, messages, the bounded summary) live in the parsers crate
// (crates/parsers, docs/architecture.md "The parsers crate"); they keep their paths here.
pub use rocm_doctor_parsers::logscan::{keyed, line, msg, summary};

use crate::config::Session;
use crate::report::{self, exit};
use std::path::Path;

/// Runs the `log` subcommand. Exit 0: read, no failure seen; 1: the log shows a failure
/// (fatal line, error returns with a diagnosis, missing code objects that were launched);
/// 2: the input could not be read.
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

pub fn main(session: &Session, path: &Path) -> i32 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (s, comp) = match scan_with_progress(path, threads, session.json) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rocm-doctor: {}: {e}", path.display());
            return exit::USAGE_OR_INTERNAL;
        }
    };
    // A file with no runtime line may be a kernel log (dmesg, journalctl -k, kern.log).
    if s.runtime_lines == 0 && path != Path::new("-") {
        if let Some(events) = kernel::events_of_file(path) {
            let code = if events.iter().any(|r| r.failure) {
                exit::FAILED
            } else {
                exit::OK
            };
            let name = path.to_string_lossy();
            return if session.json {
                report::write_stdout(
                    report::Output::Json(&kernel::json(&name, &events, code)),
                    code,
                )
            } else {
                let text = kernel::human(&name, &events, session.verbose);
                report::write_stdout::<()>(
                    report::Output::Text(&report::escape::visible(&text)),
                    code,
                )
            };
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
    if session.json {
        let doc = render::json(&path.to_string_lossy(), comp, &s, &v, code);
        report::write_stdout(report::Output::Json(&doc), code)
    } else {
        let text = render::human(&path.to_string_lossy(), comp, &s, &v, session.verbose);
        report::write_stdout::<()>(report::Output::Text(&report::escape::visible(&text)), code)
    }
}
