//! The run's last resort against its own hangs (issue 25, item 5): `--deadline` bounds the
//! children through the runner, but the doctor's own work can block too: a read of a file on a
//! stalled NFS mount sleeps uninterruptibly in the kernel (the `hard` mount option, nfs(5):
//! "the NFS request is retried indefinitely"), a pipe given as input may never end. A thread
//! armed at the start of a run wakes up a grace period after the deadline and, if the run is
//! still going, says what it was waiting for and ends the process with the exit code of a run
//! that could not decide. Children die with it: the reaper (`reaper.rs`) kills their process
//! groups and removes the temp dir when the doctor exits, whatever the way.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Time allowed after `--deadline` for the doctor to report what it has: children still
/// running were killed at the deadline, what is left is rendering.
pub(crate) const GRACE: Duration = Duration::from_secs(5);

/// What each thread is blocked on, when it said (the path of a file being opened or read).
fn waits() -> &'static Mutex<HashMap<ThreadId, String>> {
    static W: OnceLock<Mutex<HashMap<ThreadId, String>>> = OnceLock::new();
    W.get_or_init(Default::default)
}

/// Marks the current thread as waiting on `what` until dropped.
pub(crate) struct Waiting {
    id: ThreadId,
    prev: Option<String>,
}

impl Waiting {
    pub(crate) fn on(what: String) -> Self {
        let id = std::thread::current().id();
        let prev = waits()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, what);
        Waiting { id, prev }
    }

    pub(crate) fn on_path(verb: &str, p: &Path) -> Self {
        Waiting::on(format!("{verb} {}", p.display()))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut w = waits().lock().unwrap_or_else(|e| e.into_inner());
        match self.prev.take() {
            Some(p) => w.insert(self.id, p),
            None => w.remove(&self.id),
        };
    }
}

/// What the run is waiting for now, sorted (empty when no thread said).
pub(crate) fn waiting() -> Vec<String> {
    let w = waits().lock().unwrap_or_else(|e| e.into_inner());
    let mut v: Vec<String> = w.values().cloned().collect();
    v.sort();
    v.dedup();
    v
}

/// How the watchdog ends a run that outlived its deadline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OnExpiry {
    /// The exit code (a default run: 1, "could not decide"; `--npd`: 2, Unknown).
    pub code: i32,
    /// With `--npd`: print an `UNKNOWN` line of at most this many bytes on stdout, as NPD
    /// shows stdout in the node condition.
    pub npd_max: Option<usize>,
}

/// Arms the watchdog once per process: at `deadline + GRACE` it reports and exits. A later
/// call does nothing (the first deadline rules).
pub(crate) fn arm(deadline: Instant, total: Duration, on: OnExpiry) {
    static ARMED: OnceLock<()> = OnceLock::new();
    if ARMED.set(()).is_err() {
        return;
    }
    let fire_at = deadline + GRACE;
    let spawned = std::thread::Builder::new()
        .name("deadline-watchdog".into())
        .spawn(move || {
            loop {
                let now = Instant::now();
                if now >= fire_at {
                    break;
                }
                std::thread::sleep(fire_at - now);
            }
            expire(total, on)
        });
    // Without a thread (out of resources) the run goes on unguarded, as before.
    drop(spawned);
}

fn expire(total: Duration, on: OnExpiry) -> ! {
    let w = waiting();
    let what = if w.is_empty() {
        "its own work".to_string()
    } else {
        w.join("; ")
    };
    let msg = format!(
        "--deadline of {} s passed (+{} s grace) while the doctor was still waiting for {what}: \
            stopped, nothing decided",
        total.as_secs_f64(),
        GRACE.as_secs()
    );
    eprintln!("rocm-doctor: {msg}");
    if let Some(max) = on.npd_max {
        let line = format!("UNKNOWN {msg}");
        let mut cut = line.len().min(max);
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        println!("{}", &line[..cut]);
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::process::exit(on.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_says_what_it_waits_for_until_done() {
        {
            let _w = Waiting::on_path("reading", Path::new("/mnt/nfs/version"));
            assert!(waiting().contains(&"reading /mnt/nfs/version".to_string()));
            {
                let _inner = Waiting::on("stdin".into());
                assert!(waiting().contains(&"stdin".to_string()));
            }
            assert!(waiting().contains(&"reading /mnt/nfs/version".to_string()));
        }
        assert!(!waiting().iter().any(|w| w.contains("/mnt/nfs/version")));
    }
}
